"""Contact research end to end (issue 33): a real worker runs ContactResearchWorkflow over
loopback fixture pages — a posting naming its recruiter, the company's team page and a
pasted list — the candidates are confirmed into one contact per person, listed, exported
and removed with everything kept about them; the policy refuses a page it was not given.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from temporalio.worker import Replayer

from jobctrl.app import contact_research, contacts
from jobctrl.app.jobs import add_job
from jobctrl.domain.errors import CONTACT_SOURCE_REFUSED, JobctrlError
from jobctrl.store import events, jobs, tenancy
from jobctrl.store.contact_tables import contact_attributes, contact_candidates
from jobctrl.worker.run import WORKFLOWS
from jobctrl.workflows.converter import DATA_CONVERTER
from tests.support.http import Route
from tests.support.processes import run_cli

PAGES = Path(__file__).parents[1] / "fixtures" / "contacts" / "pages"


def _page(name: str) -> Route:
    return Route(body=(PAGES / name).read_bytes())


async def _posting(home, settings, site) -> str:
    settings.set_value("preparation.materials", False)
    url = site.add("/jobs/backend", _page("p01_greenhouse_backend.html"))
    return (await add_job(home, url, wait=True)).job_id


async def test_research_over_posting_team_page_and_paste_then_confirm_and_remove(
    home, store, settings, worker, site, client
):
    job_id = await _posting(home, settings, site)
    team = site.add("/team", _page("t01_northwind_team.html"))
    paste = (PAGES / "x01_paste_people_search.txt").read_text()

    task = await contact_research.research(home, job_id, urls=[team], paste=paste, wait=True)

    assert task.status == "succeeded"
    assert [(a.kind, a.outcome) for a in task.attempts] == [
        ("posting", "read"),
        ("pasted", "read"),
        ("company_pages", "read"),
    ]
    found = {(c.name, c.role, c.source) for c in task.candidates}
    assert ("Daniel Osei", "recruiter", "the posting") in found
    assert ("Katarina Novak", "hiring_manager", "the posting") in found
    assert ("Henrik Aalto", "founder", team) in found
    assert ("Ruth Ellison", "hiring_manager", "pasted text") in found
    recruiter = next(c for c in task.candidates if c.name == "Daniel Osei" and c.source == team)
    assert "Senior Technical Recruiter" in recruiter.evidence

    # The same request is the same run: asked again, no second task or execution.
    again = await contact_research.research(home, job_id, urls=[team], paste=paste)
    assert again.task_id == task.task_id

    # Daniel Osei from the posting and from the team page: one contact of the company.
    both = [c.candidate_id for c in task.candidates if c.name == "Daniel Osei"]
    confirmed = contact_research.confirm(home, both)
    assert len({c.contact_id for c in confirmed.items}) == 1
    company = jobs.job_row(store, job_id)["company"]
    listed = contacts.list_contacts(home, company)
    assert [(c.name, c.role, c.jobs) for c in listed.items] == [
        ("Daniel Osei", "recruiter", [job_id])
    ]
    dismissed = contact_research.dismiss(
        home, [c.candidate_id for c in task.candidates if c.name == "Pavel Horak"]
    )
    assert len(dismissed.candidate_ids) == 1

    rows = list(csv.DictReader(io.StringIO(contacts.export_csv(home))))
    assert [(r["name"], r["email"], r["jobs"]) for r in rows] == [("Daniel Osei", "", job_id)]

    # Nothing of the people in events or the workflow's history: ids and codes only.
    logged = json.dumps([e["payload"] for e in events.job_events(store, job_id)])
    assert "Osei" not in logged and "Novak" not in logged
    assert task.workflow_id is not None
    history = await client.get_workflow_handle(task.workflow_id).fetch_history()
    assert "Osei" not in history.to_json() and "Recruiter" not in history.to_json()
    replayer = Replayer(workflows=WORKFLOWS, data_converter=DATA_CONVERTER, debug_mode=True)
    await replayer.replay_workflow(history, raise_on_replay_failure=True)

    contact_id = listed.items[0].contact_id
    shown = contacts.show_contact(home, contact_id)
    assert shown.evidence and shown.sources
    assert contacts.remove_contact(home, contact_id).removed
    with store.read() as conn:
        left_attrs = conn.execute(
            contact_attributes.select().where(
                contact_attributes.c.contact_id == contact_id,
                tenancy.scoped(contact_attributes, conn),
            )
        ).all()
        left_candidates = conn.execute(
            contact_candidates.select().where(
                contact_candidates.c.contact_id == contact_id,
                tenancy.scoped(contact_candidates, conn),
            )
        ).all()
    assert left_attrs == [] and left_candidates == []
    assert contacts.list_contacts(home).items == []


async def test_the_policy_refuses_a_page_it_was_not_given(home, store, settings, worker, site):
    job_id = await _posting(home, settings, site)
    elsewhere = site.base_url.replace("127.0.0.1", "localhost") + "/people"

    with pytest.raises(JobctrlError) as refused:
        await contact_research.research(home, job_id, urls=[elsewhere])
    assert refused.value.code == CONTACT_SOURCE_REFUSED
    assert "not on the company's own site" in refused.value.message

    settings.set_value("contacts.sources", ["posting"])
    result = run_cli("contacts", "research", job_id, "--paste", str(PAGES / "x04_paste_list.txt"))
    assert result.returncode == 1
    assert "pasted text is not allowed by your contact sources setting" in result.stderr
    assert "Traceback" not in result.stderr

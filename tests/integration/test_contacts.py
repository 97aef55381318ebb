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

import httpx
import pytest
from temporalio.worker import Replayer

from jobctrl.api.app import create_app
from jobctrl.api.security import api_token
from jobctrl.app import contact_research, contacts, job_removal
from jobctrl.app.jobs import add_job
from jobctrl.domain.errors import CONTACT_SOURCE_REFUSED, JobctrlError
from jobctrl.stages import contacts as stage
from jobctrl.stages.context import StageContext
from jobctrl.store import contact_research as research_tasks
from jobctrl.store import events, jobs, tenancy
from jobctrl.store.contact_tables import contact_attributes, contact_candidates
from jobctrl.worker.run import WORKFLOWS
from jobctrl.workflows.converter import DATA_CONVERTER
from tests.support.http import Route
from tests.support.processes import run_cli

PAGES = Path(__file__).parents[1] / "fixtures" / "contacts" / "pages"


def _page(name: str) -> Route:
    return Route(body=(PAGES / name).read_bytes())


async def _job_page(home, job_id: str) -> str:
    transport = httpx.ASGITransport(app=create_app(home, port=8765))
    headers = {"Authorization": f"Bearer {api_token(home.token_path)}"}
    async with httpx.AsyncClient(
        transport=transport, base_url="http://127.0.0.1:8765", headers=headers
    ) as web:
        r = await web.get(f"/jobs/{job_id}", params={"fragment": "main"})
        assert r.status_code == 200, r.text
        return r.text


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

    # The Job page's People: each candidate with its evidence and the buttons to decide.
    page = await _job_page(home, job_id)
    assert "People" in page and "Henrik Aalto" in page and "Senior Technical Recruiter" in page
    assert page.count('data-post="/v1/contacts/candidates/confirm"') == len(task.candidates)

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


def test_a_page_the_policy_stopped_allowing_is_refused_when_the_run_reads_it(
    home, store, settings, site
):
    """The policy is read again when a source is read: a page allowed when the run was
    asked for, refused by then, is recorded as refused and never fetched."""
    job = jobs.create_job(store, site.add("/jobs/x", _page("p01_greenhouse_backend.html")))
    team = site.add("/team", _page("t01_northwind_team.html"))
    task, _ = research_tasks.new_task(
        store, job.job_id, "k", [{"kind": "company_pages", "ref": team}]
    )
    settings.set_value("contacts.sources", ["posting", "pasted"])
    ctx = StageContext(home=home, store=store)
    stage.claim_task(ctx, task.task_id, "run1")

    assert stage.research_source(ctx, task.task_id, "run1", 0, attempt=1) == 0
    stage.finish_task(ctx, task.task_id, "run1", None)

    done = contact_research.research_task(home, task.task_id)
    assert [(a.outcome, a.code) for a in done.attempts] == [("refused", CONTACT_SOURCE_REFUSED)]
    assert site.hits["/team"] == 0
    assert done.status == "succeeded" and done.candidates == []


def test_deleting_a_job_deletes_its_research_and_keeps_the_companys_contacts(home, store):
    job = jobs.create_job(store, "https://jobs.acme.example/backend")
    task, _ = research_tasks.new_task(store, job.job_id, "k", [{"kind": "posting", "ref": ""}])
    research_tasks.claim(store, task.task_id, "run1")
    person = {"name": "Jane Roe", "role": "recruiter", "evidence": "Jane Roe, Recruiter",
              "source": "the posting", "confidence": 0.9}  # fmt: skip
    attempt = {"index": 0, "kind": "posting", "source": "the posting", "outcome": "read"}
    research_tasks.record_source(store, task.task_id, "run1", attempt, [person])
    kept = contacts.add_contact(home, name="Sam Lee", company="Acme", job=job.job_id)

    job_removal.delete_job(home, job.job_id)

    assert research_tasks.task_row(store, task.task_id) is None
    assert research_tasks.candidate_rows(store, task_id=task.task_id) == []
    assert contacts.show_contact(home, kept.contact_id).jobs == []

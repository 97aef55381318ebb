"""The JSON every `--json` command and every API route prints is a contract other scripts
read: its keys may grow, never be renamed or removed.

One home holds representative objects (a prepared job with approved materials, a sent
email application, a discovery run, spend, events, a paused lane, a second tenant); each
command and route is asked for them, and the key paths of its answer are compared with
the ones recorded in ``tests/fixtures/json_keys.json``. A key path is dotted, ``[]`` for
a list's items (``items[].jobId``); a data-named key (a stage, a setting, an id) is
recorded as it is, so the settings' names are part of the contract too.

A new command or route fails here until its keys are recorded:
``JOBCTRL_RECORD_JSON_KEYS=1 pytest tests/integration/test_json_contract.py`` adds what is
new (a removed key is never recorded away: edit the file by hand, and say why).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import click
import httpx
import pytest
from click.testing import CliRunner

from jobctrl.api.app import create_app
from jobctrl.api.security import api_token
from jobctrl.app.apply import approve_application, prepare_application, send_application
from jobctrl.app.followups import approve_followup, send_followup
from jobctrl.app.outreach import approve_outreach, send_outreach
from jobctrl.cli import main
from jobctrl.domain.discovery import Cohort, ExecutionRef
from jobctrl.store import contacts as store_contacts
from jobctrl.store import discovery, jobs, stop_loss, workflow_runs
from tests.support.app import api_routes
from tests.support.apply import approved_job, no_standing_loop
from tests.support.clock import WallClock
from tests.support.forms import FormSite
from tests.support.http import Route, posting_html
from tests.support.smtp import SmtpServer
from tests.support.waiting import eventually_async

pytestmark = pytest.mark.usefixtures("no_standing_loop")
__all__ = ["no_standing_loop"]  # the fixture, imported for pytest to find

PORTALS = """
tracked_companies:
  - name: Stripe
    careers_url: https://job-boards.greenhouse.io/stripe
"""

RECORDED = Path(__file__).parents[1] / "fixtures" / "json_keys.json"
RECORD = os.environ.get("JOBCTRL_RECORD_JSON_KEYS") == "1"
TO = "jobs@acme-robotics.example"
# Values that name one object (ids, hashes, dates) are never keys here; a key that looks
# like one is folded so a recording does not depend on the run.
_ID_LIKE = re.compile(r"^([0-9a-f]{12,}|app-[0-9a-f]+|\d{4}-\d{2}-\d{2}.*)$")

# Maps whose keys are data that depends on timing (a run's counts so far, an event's
# payload, a health check's figures, the source families a running discovery still has
# to read): the map's own key is recorded, not what it holds.
DATA_MAPS = {"counts", "countsByStep", "payload", "fields", "perStage", "details", "families"}

# Commands whose --json another test of this file records (it needs a PostgreSQL server).
ELSEWHERE = {"jobctrl store copy": "test_store_copy_keeps_its_json_keys"}

# How a command is asked when its name is not what a person types (`apply JOB --browser`).
ALIASES = {"jobctrl apply job": "jobctrl apply --browser"}

# Routes answered with something other than JSON, or a stream: their keys are no contract.
NOT_JSON = {
    "GET /v1/artifacts/{artifact_id}",
    "GET /v1/applications/export",
    "GET /v1/contacts/export",  # CSV
    "GET /v1/events/stream",
    "GET /v1/jobs/{job_id}/report",  # the evaluation report's Markdown, as text
}


def key_paths(data: Any, prefix: str = "") -> set[str]:
    """Every key path of ``data`` (``a.b``, ``items[].c``)."""
    paths: set[str] = set()
    if isinstance(data, dict):
        for key, value in data.items():
            name = "<id>" if _ID_LIKE.match(str(key)) else str(key)
            path = f"{prefix}.{name}" if prefix else name
            paths.add(path)
            if name not in DATA_MAPS:
                paths |= key_paths(value, path)
    elif isinstance(data, list):
        for item in data:
            paths |= key_paths(item, f"{prefix}[]")
    return paths


class Recorder:
    def __init__(self) -> None:
        self.seen: dict[str, set[str]] = {}

    def add(self, name: str, data: Any) -> None:
        self.seen.setdefault(name, set()).update(key_paths(data))


@pytest.fixture
def smtp(tmp_path, fast_settings, monkeypatch) -> Any:
    with SmtpServer(tmp_path) as server:
        fast_settings.set_values(server.settings())
        for key, value in server.client_env().items():
            monkeypatch.setenv(key, value)
        yield server


@pytest.fixture
async def api(home) -> AsyncIterator[httpx.AsyncClient]:
    token = api_token(home.token_path)
    transport = httpx.ASGITransport(app=create_app(home, port=8765))
    async with httpx.AsyncClient(
        transport=transport,
        base_url="http://127.0.0.1:8765",
        headers={"Authorization": f"Bearer {token}"},
        timeout=60,
    ) as client:
        yield client


async def cli_json(recorder: Recorder, *args: str) -> Any:
    """`jobctrl ARGS --json` in process; its JSON, recorded under the command's name."""
    runner = CliRunner()
    result = await asyncio.to_thread(runner.invoke, main, [*args, "--json"], catch_exceptions=False)
    assert result.exit_code == 0, (args, result.output)
    try:
        data = json.loads(result.stdout)
    except json.JSONDecodeError:  # JSON lines (`events --json`): one object a line
        data = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    name = "jobctrl " + " ".join(a for a in args if not _is_value(a))
    recorder.add(name, data)
    return data


def _is_value(arg: str) -> bool:
    """An argument that names one object (an id, a URL, a path, an address)."""
    return bool(_ID_LIKE.match(arg) or re.search(r"[0-9a-f]{8}", arg)) or any(
        c in arg for c in "/@"
    )


async def api_json(
    recorder: Recorder, api: httpx.AsyncClient, method: str, route: str, **kw: Any
) -> Any:
    """One request to ``route`` (its template, e.g. ``/v1/jobs/{job_id}``, filled from
    ``kw['params']``); its JSON, recorded as ``METHOD route``."""
    fill = kw.pop("path", {})
    response = await api.request(method, route.format(**fill), **kw)
    assert response.status_code < 400, (method, route, response.text)
    data = response.json()
    recorder.add(f"{method} {route}", data)
    return data


async def test_every_command_and_route_keeps_its_json_keys(
    home, store, site, smtp, api, worker, tmp_path
) -> None:
    seen = Recorder()
    job_id = approved_job(home, store, site, "/jobs/contract", email=TO)
    other = approved_job(home, store, site, "/jobs/contract-2", approve=False, company="Beta")
    third = approved_job(home, store, site, "/jobs/contract-3", approve=False, company="Delta")
    fourth = approved_job(home, store, site, "/jobs/contract-4", company="Epsilon")
    fifth = approved_job(home, store, site, "/jobs/contract-5", company="Zeta")
    sixth = approved_job(home, store, site, "/jobs/contract-6", approve=False, company="Eta")
    seventh = approved_job(home, store, site, "/jobs/contract-7", email=TO, company="Theta")
    eighth = approved_job(home, store, site, "/jobs/contract-8", email=TO, company="Iota")
    for name in ("greenhouse:acme", "lever:beta"):  # one is resumed, one stays paused
        for n in range(3):
            stop_loss.note_failure(store, "source", name, "SOURCE_HTTP_ERROR", f"j{n}",
                                   threshold=3)  # fmt: skip
    # Every must-have met (the profile has no Go: a missing must-have would keep the job
    # below min_fit_score, unprepared, and its truth check's keys unseen).
    body = posting_html("Platform Engineer", "Gamma", ["Python", "PostgreSQL"])
    added_url = site.add("/jobs/contract-add", Route(body=body))
    jp = {"job_id": job_id}

    # -- commands that change something (their answers are contracts too) -----------------
    waited = await cli_json(seen, "add", added_url, "--wait")
    both = await cli_json(seen, "add", added_url, site.add("/jobs/c-3", Route(body=body)))
    await cli_json(seen, "executions", "stop", waited["workflowId"], "--run", waited["runId"])
    await api_json(seen, api, "POST", "/v1/executions/{workflow_id}/stop",
                   path={"workflow_id": both[1]["workflowId"]},
                   json={"runId": both[1]["runId"]})  # fmt: skip
    await cli_json(seen, "apply", "loop", "once", seventh, "--wait")
    await api_json(seen, api, "POST", "/v1/jobs/{job_id}/apply", path={"job_id": eighth})
    await cli_json(seen, "apply", "loop", "start")
    await api_json(seen, api, "POST", "/v1/apply/loop/start")
    with FormSite() as forms:  # a real dry run in Chromium, from the CLI and the API
        form = forms.form("greenhouse")
        await cli_json(seen, "apply", job_id, "--browser", "--dry-run", "--url", form)
        await api_json(seen, api, "POST", "/v1/apply/{job_id}/browser", path=jp,
                       json={"url": form, "dryRun": True})  # fmt: skip
    await cli_json(seen, "apply", "prepare", job_id, "--to", TO)
    await cli_json(seen, "apply", "approve", job_id)
    await cli_json(seen, "apply", "send", job_id)
    await cli_json(seen, "applications", "set", job_id, "--outcome", "interview", "--note", "x")
    await cli_json(seen, "materials", "approve", other)
    # Editing before approving (issue 30): the text form, an edit from a file, one by PUT
    texts = {
        kind: await api_json(seen, api, "GET", "/v1/jobs/{job_id}/materials/{kind}/text",
                             path={"job_id": third, "kind": kind})
        for kind in ("letter", "resume")
    }  # fmt: skip
    edited = tmp_path / "letter.txt"
    edited.write_text(texts["letter"]["text"], encoding="utf-8")
    await cli_json(seen, "materials", "edit", third, "--kind", "letter", "--file", str(edited))
    await api_json(seen, api, "PUT", "/v1/jobs/{job_id}/materials/{kind}",
                   path={"job_id": third, "kind": "resume"},
                   json={"text": texts["resume"]["text"]})  # fmt: skip
    await cli_json(seen, "reset", other, "--stage", "pdf")
    await cli_json(seen, "retry", other)
    await cli_json(seen, "discover")
    await cli_json(seen, "discover", "--cancel")
    await cli_json(seen, "cancel", other)
    await cli_json(seen, "apply", "loop", "stop")
    # The inbox's commands (issue 30): jobs of their own, never started here
    spare = [
        jobs.create_job(store, site.add(f"/jobs/spare-{n}", Route(body=body))).job_id
        for n in range(3)
    ]
    await cli_json(seen, "hide", spare[0], "--reason", "too far")
    await cli_json(seen, "unhide", spare[0])
    await cli_json(seen, "check", spare[0])
    await cli_json(seen, "delete", spare[1], "--yes")
    await api_json(seen, api, "POST", "/v1/jobs/{job_id}/hide", path={"job_id": spare[2]},
                   json={"reason": "no"})  # fmt: skip
    await api_json(seen, api, "POST", "/v1/jobs/{job_id}/unhide", path={"job_id": spare[2]})
    await api_json(seen, api, "POST", "/v1/jobs/{job_id}/check", path={"job_id": spare[2]})
    await api_json(seen, api, "POST", "/v1/jobs/{job_id}/hide", path={"job_id": spare[0]})
    await api_json(seen, api, "GET", "/v1/inbox", params={"hidden": "true"})
    await api_json(seen, api, "DELETE", "/v1/jobs/{job_id}", path={"job_id": spare[2]})

    await api_json(seen, api, "POST", "/v1/jobs", json={"url": added_url})
    await api_json(seen, api, "POST", "/v1/jobs/{job_id}/materials/{decision}",
                   path={"job_id": third, "decision": "reject"})  # fmt: skip
    await api_json(seen, api, "POST", "/v1/jobs/{job_id}/reset", path={"job_id": sixth},
                   json={"stage": "pdf"})  # fmt: skip
    await api_json(seen, api, "POST", "/v1/jobs/{job_id}/retry", path={"job_id": sixth})
    await api_json(seen, api, "POST", "/v1/jobs/{job_id}/cancel", path={"job_id": sixth})
    await api_json(seen, api, "POST", "/v1/discovery")
    await api_json(seen, api, "POST", "/v1/discovery/cancel")
    # A run's plan: a run that recorded its plan, with a member (the cancelled ones above
    # may have stopped before planning). Left open: the reads below see a run discovering
    # (the operations snapshot's sourceEta).
    planned = ExecutionRef(store.tenant, "discover-local", "0c0ffee0-plan")
    discovery.open_run(store, planned, ["greenhouse"], 3, 1, 1)
    with store.write() as tx:
        discovery.link_member(tx, planned, other, Cohort.OBSERVED)
        discovery.set_counts(tx, planned, "greenhouse", {"filtered_title_excluded": 2})
    await api_json(seen, api, "GET", "/v1/runs/{run_id}/plan", path={"run_id": planned.run_id})
    await cli_json(seen, "runs", "--plan", planned.run_id)
    # An execution the store holds open for `executions`' openRuns: none of the runs above
    # stays open (a discovery start no longer joins a cancelled run and re-opens its row).
    workflow_runs.record_workflow_started(
        store, workflow_id="prep-contract-open", run_id="0c0ffee0-open",
        workflow_type="JobPreparationWorkflow", job_id=other,
    )  # fmt: skip
    await api_json(seen, api, "PATCH", "/v1/settings", json={"min_fit_score": 40})
    await api_json(seen, api, "POST", "/v1/applications/{ref}/outcome", path={"ref": job_id},
                   json={"outcome": "offer", "note": "y"})  # fmt: skip
    await api_json(seen, api, "PATCH", "/v1/profile/answers", json={"pronouns": "she/her"})
    await api_json(seen, api, "PATCH", "/v1/target-search", json={"locations": "Berlin, Remote"})
    await api_json(seen, api, "POST", "/v1/apply/loop/stop")
    await api_json(seen, api, "POST", "/v1/apply/{job_id}/prepare", path={"job_id": other},
                   json={"to": [TO]})  # fmt: skip
    await api_json(seen, api, "POST", "/v1/apply/{job_id}/approve", path={"job_id": other})
    await api_json(seen, api, "POST", "/v1/apply/{job_id}/send", path={"job_id": other})
    await api_json(seen, api, "POST", "/v1/stop-loss/{kind}/{name}/resume",
                   path={"kind": "source", "name": "greenhouse:acme"})  # fmt: skip
    await cli_json(seen, "resume", "greenhouse:acme")
    await cli_json(seen, "apply", "prepare", fourth, "--to", TO)
    await cli_json(seen, "apply", "resolve", fourth, "abandoned")
    await cli_json(seen, "apply", "prepare", fifth, "--to", TO)
    await api_json(seen, api, "POST", "/v1/apply/{job_id}/resolve", path={"job_id": fifth},
                   json={"resolution": "abandoned"})  # fmt: skip
    await cli_json(seen, "apply", "reset", fourth)  # abandoned, taken back (issue 34)
    await api_json(seen, api, "POST", "/v1/apply/{job_id}/reset", path={"job_id": fifth})
    await cli_json(seen, "tenants", "add", "acme")
    await cli_json(seen, "tenants", "token", "acme")
    # The browser extension (issue 32): pairing, a capture with its token, status, tasks
    code = await cli_json(seen, "extension", "pair", "--name", "contract")
    paired = await api_json(seen, api, "POST", "/v1/extension/pair", json={"code": code["code"]})
    ext = {"Authorization": f"Bearer {paired['token']}"}
    await api_json(seen, api, "POST", "/v1/extension/codes", json={"name": "settings"})
    captured = site.add("/jobs/contract-capture", Route(body=body))
    await api_json(seen, api, "POST", "/v1/captures", headers=ext,
                   json={"url": captured, "html": body.decode()})  # fmt: skip
    await api_json(seen, api, "GET", "/v1/captures/status", headers=ext, params={"url": captured})
    wall = site.add("/jobs/contract-wall", Route(status=403, body=b"<p>Sign in</p>"))
    await api_json(seen, api, "POST", "/v1/jobs", json={"url": wall})

    async def waiting_for_the_browser() -> bool:  # its Enrich met the sign-in wall
        return bool((await api.get("/v1/extension/tasks", headers=ext)).json()["items"])

    await eventually_async(waiting_for_the_browser, what="a job waiting for the browser")
    await api_json(seen, api, "GET", "/v1/extension/tasks", headers=ext)
    for args in (("list",), ("tasks",), ("path",), ("revoke", "contract")):
        await cli_json(seen, "extension", *args)
    await cli_json(seen, "init")
    profile = Path(__file__).parents[1] / "fixtures" / "profiles" / "resume_full.json"
    shown = await api_json(seen, api, "GET", "/v1/profile")
    await api_json(seen, api, "PUT", "/v1/profile", json={**shown["profile"], "name": "Ada E."})
    await api_json(seen, api, "POST", "/v1/profile/import", params={"filename": "resume.json"},
                   content=profile.read_bytes())  # fmt: skip
    await cli_json(seen, "profile", "import", str(profile))
    # A new profile version: every job is stale, and a rescore scores them again.
    await cli_json(seen, "rescore", "--dry-run")
    await cli_json(seen, "rescore", fifth)
    await api_json(seen, api, "POST", "/v1/rescore", json={"jobs": [third]})
    tracker = tmp_path / "applications.md"
    exported = CliRunner().invoke(
        main, ["applications", "export", "--format", "career-ops", "--out", str(tracker)]
    )
    assert exported.exit_code == 0, exported.output
    await cli_json(seen, "applications", "import", str(tracker))
    career_ops = tmp_path / "career-ops"  # after discovery: its portals are never fetched
    (career_ops / "data").mkdir(parents=True)
    (career_ops / "portals.yml").write_text(PORTALS)
    pending = site.add("/jobs/contract-inbox", Route(body=body))
    (career_ops / "data" / "pipeline.md").write_text(f"## Pending\n- [ ] {pending} | Inbox | SRE\n")
    await cli_json(seen, "sources", "import-career-ops", str(career_ops))
    runner = CliRunner()  # a source, added after discovery ran (it is never fetched here)
    added = runner.invoke(main, ["sources", "add", "greenhouse", "acme"])
    assert added.exit_code == 0, added.output

    # Follow-ups (issue 33): applications sent eight days back, so one is due now
    back = WallClock(datetime.now(UTC) - timedelta(days=8))
    due = []
    for n in range(2):
        late = approved_job(home, store, site, f"/jobs/contract-late-{n}", email=TO, company="Mu")
        prepare_application(home, late, to=[TO], clock=back)
        approve_application(home, late, clock=back)
        assert send_application(home, late, clock=back).status == "sent"
        due.append(late)
    await cli_json(seen, "followups")
    await cli_json(seen, "followups", "draft", due[0])
    await cli_json(seen, "followups", "approve", due[0])
    await cli_json(seen, "followups", "send", due[0])
    await cli_json(seen, "followups", "show", due[0])
    await api_json(seen, api, "GET", "/v1/followups")
    late = {"job_id": due[1]}
    await api_json(seen, api, "POST", "/v1/followups/{job_id}/draft", path=late, json={})
    await api_json(seen, api, "POST", "/v1/followups/{job_id}/approve", path=late)
    smtp.handler.drop_after_data = True  # its sends end in doubt, then are resolved
    await api_json(seen, api, "POST", "/v1/followups/{job_id}/send", path=late)
    await api_json(seen, api, "POST", "/v1/followups/{job_id}/resolve", path=late,
                   json={"resolution": "not-sent"})  # fmt: skip
    approve_followup(home, due[1])
    assert send_followup(home, due[1]).status == "unknown"
    smtp.handler.drop_after_data = False
    await cli_json(seen, "followups", "resolve", due[1], "sent")
    await api_json(seen, api, "GET", "/v1/followups/{job_id}", path=late)
    # Outreach (issue 33): one contact by the CLI, one by the API (its send in doubt)
    people = [
        store_contacts.add_contact(store, company="Mu", name=name, role="recruiter",
                                   email=f"{name.split()[0].lower()}@mu.example", job_id=due[0])
        for name in ("Jane Smith", "Omar Haddad")
    ]  # fmt: skip
    jobbed = ("--job", due[0])
    await cli_json(seen, "outreach", "draft", people[0], *jobbed)
    await cli_json(seen, "outreach", "edit", people[0], *jobbed, "--subject", "Hello")
    await cli_json(seen, "outreach", "approve", people[0], *jobbed)
    await cli_json(seen, "outreach", "send", people[0], *jobbed)
    await cli_json(seen, "outreach", "show", people[0], *jobbed)
    pair = {"contact_id": people[1], "job_id": due[0]}
    route = "/v1/outreach/{contact_id}/{job_id}"
    await api_json(seen, api, "POST", route + "/draft", path=pair, json={})
    await api_json(seen, api, "POST", route + "/approve", path=pair)
    smtp.handler.drop_after_data = True
    await api_json(seen, api, "POST", route + "/send", path=pair)
    await api_json(seen, api, "POST", route + "/resolve", path=pair,
                   json={"resolution": "not-sent"})  # fmt: skip
    approve_outreach(home, people[1], due[0])
    assert send_outreach(home, people[1], due[0]).status == "unknown"
    smtp.handler.drop_after_data = False
    await cli_json(seen, "outreach", "resolve", people[1], "sent", *jobbed)
    await api_json(seen, api, "GET", route, path=pair)

    # Contact research (issue 33): a run over a pasted list, its candidates kept or not
    pasted = tmp_path / "people.txt"
    pasted.write_text("Jane Roe - Technical Recruiter\nSam Lee - Engineering Manager\n")
    task = await cli_json(seen, "contacts", "research", job_id, "--paste", str(pasted), "--wait")
    await cli_json(seen, "contacts", "candidates", job_id)
    people = {c["name"]: c["candidateId"] for c in task["candidates"]}
    await cli_json(seen, "contacts", "confirm", people["Jane Roe"])
    await cli_json(seen, "contacts", "dismiss", people["Sam Lee"])
    kept = await cli_json(seen, "contacts")
    await cli_json(seen, "contacts", "show", kept["items"][0]["contactId"])
    added_contact = await cli_json(seen, "contacts", "add", "--name", "Ann Bee", "--job", job_id)
    await cli_json(seen, "contacts", "remove", added_contact["contactId"])
    run = await api_json(seen, api, "POST", "/v1/jobs/{job_id}/contacts/research", path=jp,
                         json={"paste": "Kim Park, Head of Engineering", "wait": True})  # fmt: skip
    await api_json(seen, api, "GET", "/v1/contacts/research/{task_id}",
                   path={"task_id": run["taskId"]})  # fmt: skip
    await api_json(seen, api, "GET", "/v1/jobs/{job_id}/contacts/candidates", path=jp)
    found = [c["candidateId"] for c in run["candidates"]]
    await api_json(seen, api, "POST", "/v1/contacts/candidates/confirm",
                   json={"candidateIds": found[:1]})  # fmt: skip
    await api_json(seen, api, "POST", "/v1/contacts/candidates/dismiss",
                   json={"candidateIds": found[:1]})  # fmt: skip
    await api_json(seen, api, "GET", "/v1/jobs/{job_id}/contacts", path=jp)
    await api_json(seen, api, "GET", "/v1/contacts")
    lee = {"name": "Lee Chan", "company": "Gamma", "role": "founder"}
    made = await api_json(seen, api, "POST", "/v1/contacts", json=lee)
    one = {"contact_id": made["contactId"]}
    await api_json(seen, api, "GET", "/v1/contacts/{contact_id}", path=one)
    await api_json(seen, api, "DELETE", "/v1/contacts/{contact_id}", path=one)

    # -- reads ----------------------------------------------------------------------------
    for args in (
        ("jobs",),
        ("show", job_id),
        ("events",),
        ("settings", "get"),
        ("settings", "get", "min_fit_score"),
        ("settings", "search"),
        ("spend",),
        ("runs",),
        ("ops",),
        ("doctor",),
        ("executions",),
        ("sources", "list"),
        ("materials", job_id),
        ("apply", "list"),
        ("apply", "show", job_id),
        ("apply", "loop"),
        ("applications",),
        ("llm", "list"),
        ("profile", "show"),
        ("tenants", "list"),
        ("mcp", "config"),
    ):
        await cli_json(seen, *args)

    gets = {
        "/v1/jobs": {},
        "/v1/jobs/{job_id}": jp,
        "/v1/runs": {},
        "/v1/spend": {},
        "/v1/settings": {},
        "/v1/applications": {},
        "/v1/apply": {},
        "/v1/apply/{job_id}": jp,
        "/v1/apply/loop": {},
        "/v1/executions": {},
        "/v1/pipeline/operations": {},
        "/v1/health": {},
        "/v1/stop-loss": {},
        "/v1/profile/answers": {},
        "/v1/target-search": {},
        "/v1/rescore": {},
    }
    for route, fill in gets.items():
        await api_json(seen, api, "GET", route, path=fill)

    # Every JSON route of the app and every command with --json is asked: a new one fails
    # here until it is (and its keys are recorded).
    app = api._transport.app  # type: ignore[attr-defined]
    routes = {
        f"{m} {r.path}".replace(":path}", "}")
        for r in api_routes(app)
        if r.include_in_schema
        for m in r.methods
    } - NOT_JSON
    assert routes <= set(seen.seen), sorted(routes - set(seen.seen))
    commands = {f"jobctrl {name}" for name in _json_commands(main)} - ELSEWHERE.keys()
    missing = [
        command
        for command in commands
        if not any(f"{name} ".startswith(f"{ALIASES.get(command, command)} ") for name in seen.seen)
    ]
    assert not missing, missing

    _compare(seen.seen, lambda name: not name.startswith(tuple(ELSEWHERE)))


@pytest.mark.postgres
async def test_store_copy_keeps_its_json_keys(home, store, site, fast_settings, postgres_server):
    seen = Recorder()
    approved_job(home, store, site, "/jobs/copied")
    target = postgres_server.url(postgres_server.new_database())
    await cli_json(seen, "store", "copy", "--to", target)
    _compare(seen.seen, lambda name: name.startswith(tuple(ELSEWHERE)))


def _json_commands(group: click.Group, prefix: str = "") -> list[str]:
    """The commands (``apply loop once``) that take ``--json``."""
    found = []
    for name, command in group.commands.items():
        path = f"{prefix}{name}"
        if isinstance(command, click.Group):
            found += _json_commands(command, f"{path} ")
        if any("--json" in p.opts for p in command.params if isinstance(p, click.Option)):
            found.append(path)
    return found


def _compare(seen: dict[str, set[str]], owned: Callable[[str], bool]) -> None:
    """Compare what was seen with the recording, for the names this test ``owned``."""
    recorded: dict[str, list[str]] = json.loads(RECORDED.read_text()) if RECORDED.exists() else {}
    kept = {name: keys for name, keys in recorded.items() if not owned(name)}
    recorded = {name: keys for name, keys in recorded.items() if owned(name)}
    if RECORD:
        merged = {
            name: sorted(set(recorded.get(name, [])) | seen.get(name, set()))
            for name in sorted(set(recorded) | set(seen))
        }
        RECORDED.write_text(json.dumps(dict(sorted({**kept, **merged}.items())), indent=1) + "\n")
        recorded = merged
    problems = []
    for name, keys in recorded.items():
        if name not in seen:
            problems.append(f"{name}: no longer asked (or it failed)")
            continue
        gone = sorted(set(keys) - seen[name])
        if gone:
            problems.append(f"{name}: keys renamed or removed: {', '.join(gone)}")
    new = sorted(set(seen) - set(recorded))
    if new:
        problems.append(f"not recorded yet (JOBCTRL_RECORD_JSON_KEYS=1): {', '.join(new)}")
    assert not problems, "\n".join(problems)

"""Tenant isolation, entry point by entry point: `local` is seeded through the app layer
(a prepared job with approved materials and its report, an application with an outcome,
a run, events, a setting, a source, spend, a stop-loss pause, an orphan); then, as
`acme`, every CLI leaf command and every HTTP route is tried against local's ids (full
id, prefix, application id, workflow id, artifact sha). Each must be refused (not
found / 403) or answer with acme's own, empty data, never naming anything of local's;
and local's rows, table by table, and files are unchanged afterwards.

The tables below are data; ``test_every_command_and_route_has_a_row`` walks ``main`` and
``app.routes``, so a new command or route without a row fails. Commands that start
processes or act for the whole deployment are listed in ``NOT_TENANT_DATA`` with why.
Temporal is a closed port here: a command that would start work answers 2
(unavailable) and changes nothing, which counts as refused.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import httpx
import pytest
from click.testing import CliRunner
from sqlalchemy import select

from jobctrl.api.app import create_app
from jobctrl.api.security import LocalSecurity
from jobctrl.app import applications as app_applications
from jobctrl.app import apply as app_apply
from jobctrl.app import extension as app_extension
from jobctrl.app import sources as app_sources
from jobctrl.app.tenants import ensure_token
from jobctrl.cli import main
from jobctrl.domain import ids
from jobctrl.domain.clock import utcnow
from jobctrl.domain.discovery import Cohort, ExecutionRef
from jobctrl.domain.errors import FORBIDDEN, PROVIDER_AUTH
from jobctrl.stages.material_files import material_files
from jobctrl.store import (
    contact_research,
    discovery,
    jobs,
    orphans,
    reports,
    spend,
    stop_loss,
    workflow_runs,
)
from jobctrl.store import contacts as store_contacts
from jobctrl.store.schema import metadata
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store
from jobctrl.store.tenancy import TENANT_TABLES
from tests.support.app import api_routes, closed_port_address, live_server
from tests.support.apply import approved_job
from tests.support.tenants import ACME_TOKEN, TwoTenants

COMPANY = "Zephyrine Labs"  # local's posting: never in anything acme is shown
PERSON = "Zelda Quint"  # a candidate research found for local's job
SOURCE = "zephyrine"
REFUSED = "refused"  # exit 1 (or 2: Temporal unreachable, nothing done) / HTTP 4xx-5xx
EMPTY = "empty"  # success, with acme's own (empty or default) data
OWN = "own"  # acts on acme's own data (its config, settings, a job of its own)

# -- the tables ----------------------------------------------------------------------------

NOT_TENANT_DATA = {
    "init": "sets up the home and the current tenant's config; `tenants add` made acme's",
    "up": "a process: the worker (all tenants) and the web app (tested through HTTP here)",
    "worker": "a process serving every tenant; each activity acts for its input's tenant",
    "demo": "runs the demo in `local` only, whatever JOBCTRL_TENANT says",
    "demo-boards": "serves fixed demo job boards on loopback: no tenant data",
    "store copy": "the operator's copy of the whole database (needs the database itself)",
    "tenants add": "the operator's deployment command (test_tenants_cli.py)",
    "tenants list": "the operator's deployment command: tenant names only",
    "tenants token": "the operator's deployment command: a tenant's token (test_tenants_cli.py)",
    "GET /openapi.json": "the API's schema: no tenant data",
    "GET /": "a redirect to /jobs",
    "extension path": "prints the folder of the extension in the package: no tenant data",
    "POST /v1/extension/pair": "its one-time code names the tenant (test_extension_api.py)",
    "mcp": "a process serving one tenant's tools; over --http each token's own (test_mcp.py)",
    "mcp config": "prints the snippet an MCP client starts `jobctrl mcp` with: no tenant data",
}

# (command path, [argv templates], expectation). {job} {prefix} {app} {wid} {run}
# {sha} {url} {dir} {file} are filled from the seed.
CLI_ROWS: list[tuple[str, list[list[str]], str]] = [
    ("add", [["add", "{url}"]], OWN),
    ("applications", [["applications", "--json"]], EMPTY),
    ("apply loop", [["apply", "loop", "--json"]], EMPTY),
    ("applications export", [["applications", "export"]], EMPTY),
    ("applications import", [["applications", "import", "{file}"]], OWN),
    (
        "applications set",
        [["applications", "set", r, "--outcome", "offer"] for r in ("{job}", "{prefix}", "{app}")],
        REFUSED,
    ),
    ("apply approve", [["apply", "approve", "{job}"], ["apply", "approve", "{app}"]], REFUSED),
    ("apply job", [["apply", "job", "{job}", "--browser", "--dry-run"]], REFUSED),
    ("apply list", [["apply", "list", "--json"]], EMPTY),
    ("apply loop once", [["apply", "loop", "once", "{job}"]], REFUSED),
    ("apply loop start", [["apply", "loop", "start", "--json"]], OWN),
    ("apply loop stop", [["apply", "loop", "stop", "--json"]], OWN),
    ("apply prepare", [["apply", "prepare", "{job}", "--channel", "email"]], REFUSED),
    ("apply resolve", [["apply", "resolve", "{job}", "abandoned"]], REFUSED),
    ("apply reset", [["apply", "reset", "{job}"]], REFUSED),
    ("apply send", [["apply", "send", "{job}"]], REFUSED),
    ("apply show", [["apply", "show", "{job}"], ["apply", "show", "{prefix}"]], REFUSED),
    ("followups", [["followups", "--json"]], EMPTY),
    (
        "followups draft",
        [["followups", "draft", "{job}"], ["followups", "draft", "{app}"]],
        REFUSED,
    ),
    (
        "followups show",
        [["followups", "show", "{job}"], ["followups", "show", "{prefix}"]],
        REFUSED,
    ),
    ("followups approve", [["followups", "approve", "{job}"]], REFUSED),
    ("followups send", [["followups", "send", "{job}"]], REFUSED),
    ("followups resolve", [["followups", "resolve", "{job}", "sent"]], REFUSED),
    ("contacts", [["contacts", "--json"], ["contacts", "--company", COMPANY, "--json"]], EMPTY),
    ("contacts research", [["contacts", "research", "{job}"]], REFUSED),
    ("contacts candidates", [["contacts", "candidates", "{prefix}", "--json"]], REFUSED),
    ("contacts confirm", [["contacts", "confirm", "{candidate}"]], REFUSED),
    ("contacts dismiss", [["contacts", "dismiss", "{candidate}"]], REFUSED),
    ("contacts show", [["contacts", "show", "{contact}"]], REFUSED),
    ("contacts add", [["contacts", "add", "--name", "Acme Person", "--company", "Acme"]], OWN),
    ("contacts add", [["contacts", "add", "--name", "Acme Person", "--job", "{job}"]], REFUSED),
    ("contacts remove", [["contacts", "remove", "{contact}"]], REFUSED),
    ("contacts export", [["contacts", "export"]], EMPTY),
    ("outreach draft", [["outreach", "draft", "{contact}", "--job", "{job}"]], REFUSED),
    ("outreach edit", [["outreach", "edit", "{contact}", "--job", "{job}"]], REFUSED),
    ("outreach show", [["outreach", "show", "{contact}", "--job", "{prefix}"]], REFUSED),
    ("outreach approve", [["outreach", "approve", "{contact}", "--job", "{job}"]], REFUSED),
    ("outreach send", [["outreach", "send", "{contact}", "--job", "{job}"]], REFUSED),
    ("outreach resolve", [["outreach", "resolve", "{contact}", "sent", "--job", "{job}"]], REFUSED),
    ("cancel", [["cancel", "{job}"], ["cancel", "{prefix}"]], REFUSED),
    ("discover", [["discover", "--json"]], REFUSED),
    ("events", [["events", "--json", "--after", "0"]], EMPTY),
    ("executions", [["executions", "--json"]], EMPTY),
    (
        "executions stop",
        [["executions", "stop", "{wid}"], ["executions", "stop", "{wid}", "--run", "{run}"]],
        REFUSED,
    ),
    ("jobs", [["jobs", "--json"]], EMPTY),
    ("hide", [["hide", "{job}"], ["hide", "{prefix}", "--reason", "x"]], REFUSED),
    ("unhide", [["unhide", "{job}"], ["unhide", "{prefix}"]], REFUSED),
    ("delete", [["delete", "{job}", "--yes"], ["delete", "{prefix}", "--yes"]], REFUSED),
    ("check", [["check", "{job}"], ["check", "{prefix}", "--json"]], REFUSED),
    ("llm list", [["llm", "list", "--json"]], EMPTY),
    ("llm set", [["llm", "set", "score", "offline", "offline"]], OWN),
    (
        "materials",
        [
            ["materials", "{job}"],
            ["materials", "export", "{job}", "--dir", "{dir}"],
            ["materials", "edit", "{job}", "--kind", "letter", "--file", "{file}"],
        ],
        REFUSED,
    ),
    ("doctor", [["doctor", "--json"]], EMPTY),
    ("ops", [["ops", "--json"]], EMPTY),
    ("profile import", [["profile", "import", "{file}"]], OWN),
    ("profile show", [["profile", "show", "--json"]], EMPTY),
    ("projections rebuild", [["projections", "rebuild"]], OWN),
    ("reset", [["reset", "{job}", "--stage", "tailor"]], REFUSED),
    ("rescore", [["rescore", "{job}", "--no-wait"], ["rescore", "{prefix}", "--no-wait"]], REFUSED),
    ("resume", [["resume", f"source:{SOURCE}"]], REFUSED),
    ("retry", [["retry", "{job}"], ["retry", "{prefix}"]], REFUSED),
    ("runs", [["runs", "--json"]], EMPTY),
    ("settings get", [["settings", "get", "min_fit_score", "--json"]], EMPTY),
    ("settings set", [["settings", "set", "min_fit_score", "61"]], OWN),
    (
        "settings search",
        [["settings", "search", "--json"], ["settings", "search", "--titles", "Zephyr"]],
        OWN,
    ),
    ("show", [["show", "{job}"], ["show", "{prefix}"]], REFUSED),
    ("extension pair", [["extension", "pair", "--json"]], OWN),
    ("extension list", [["extension", "list", "--json"]], EMPTY),
    ("extension revoke", [["extension", "revoke", "zephyr-laptop"]], REFUSED),
    ("extension tasks", [["extension", "tasks", "--json"]], EMPTY),
    ("sources add", [["sources", "add", "greenhouse", "acmeboard"]], OWN),
    ("sources import-career-ops", [["sources", "import-career-ops", "{dir}"]], OWN),
    ("sources list", [["sources", "list", "--json"]], EMPTY),
    ("sources remove", [["sources", "remove", SOURCE]], REFUSED),
    ("spend", [["spend", "--json"]], EMPTY),
]

# (method, path template, [paths filled], [json bodies], expectation)
HTTP_ROWS: list[tuple[str, str, list[str], Any, str]] = [
    ("GET", "/v1/apply/loop", ["/v1/apply/loop"], None, EMPTY),
    ("POST", "/v1/apply/loop/stop", ["/v1/apply/loop/stop"], None, OWN),
    ("POST", "/v1/apply/loop/start", ["/v1/apply/loop/start"], None, OWN),
    (
        "POST",
        "/v1/jobs/{job_id}/apply",
        ["/v1/jobs/{job}/apply", "/v1/jobs/{prefix}/apply"],
        None,
        REFUSED,
    ),
    ("GET", "/v1/jobs", ["/v1/jobs", "/v1/jobs?q=Zephyrine"], None, EMPTY),
    ("GET", "/v1/inbox", ["/v1/inbox", "/v1/inbox?hidden=true&q=Zephyrine"], None, EMPTY),
    ("POST", "/v1/jobs/{job_id}/hide", ["/v1/jobs/{job}/hide"], {"reason": "x"}, REFUSED),
    ("POST", "/v1/jobs/{job_id}/unhide", ["/v1/jobs/{prefix}/unhide"], None, REFUSED),
    ("POST", "/v1/jobs/{job_id}/check", ["/v1/jobs/{job}/check"], None, REFUSED),
    ("DELETE", "/v1/jobs/{job_id}", ["/v1/jobs/{job}", "/v1/jobs/{prefix}"], None, REFUSED),
    ("GET", "/v1/jobs/{job_id}", ["/v1/jobs/{job}", "/v1/jobs/{prefix}"], None, REFUSED),
    ("GET", "/v1/runs", ["/v1/runs"], None, EMPTY),
    ("GET", "/v1/runs/{run_id}/plan", ["/v1/runs/{run}/plan"], None, REFUSED),
    ("GET", "/v1/spend", ["/v1/spend"], None, EMPTY),
    ("GET", "/v1/settings", ["/v1/settings"], None, EMPTY),
    ("GET", "/v1/target-search", ["/v1/target-search"], None, EMPTY),
    (
        "GET",
        "/v1/artifacts/{artifact_id}",
        ["/v1/artifacts/{sha}", "/v1/artifacts/{text_sha}"],
        None,
        REFUSED,
    ),
    ("POST", "/v1/jobs", ["/v1/jobs"], {"url": "{url}"}, OWN),
    ("POST", "/v1/jobs/{job_id}/retry", ["/v1/jobs/{job}/retry"], {}, REFUSED),
    (
        "POST",
        "/v1/jobs/{job_id}/materials/{decision}",
        [f"/v1/jobs/{{job}}/materials/{d}" for d in ("approve", "reject", "regenerate", "letter")],
        None,
        REFUSED,
    ),
    (
        "GET",
        "/v1/jobs/{job_id}/materials/{kind}/text",
        ["/v1/jobs/{job}/materials/letter/text", "/v1/jobs/{prefix}/materials/resume/text"],
        None,
        REFUSED,
    ),
    (
        "PUT",
        "/v1/jobs/{job_id}/materials/{kind}",
        ["/v1/jobs/{job}/materials/letter"],
        {"text": "Dear team,\n\nI am Ada.\n\nKind regards,\nAda Example\n"},
        REFUSED,
    ),
    ("GET", "/v1/jobs/{job_id}/report", ["/v1/jobs/{job}/report"], None, REFUSED),
    ("POST", "/v1/discovery", ["/v1/discovery"], None, REFUSED),
    ("POST", "/v1/discovery/cancel", ["/v1/discovery/cancel"], None, REFUSED),
    ("PATCH", "/v1/settings", ["/v1/settings"], {"min_fit_score": 62}, OWN),
    ("PATCH", "/v1/target-search", ["/v1/target-search"], {"titles": ["Zephyr"]}, OWN),
    ("GET", "/v1/applications", ["/v1/applications"], None, EMPTY),
    (
        "GET",
        "/v1/applications/export",
        ["/v1/applications/export", "/v1/applications/export?format=csv"],
        None,
        EMPTY,
    ),
    (
        "POST",
        "/v1/applications/{ref}/outcome",
        ["/v1/applications/{job}/outcome", "/v1/applications/{app}/outcome"],
        {"outcome": "offer"},
        REFUSED,
    ),
    ("GET", "/v1/apply", ["/v1/apply"], None, EMPTY),
    ("GET", "/v1/apply/{job_id}", ["/v1/apply/{job}", "/v1/apply/{prefix}"], None, REFUSED),
    (
        "POST",
        "/v1/apply/{job_id}/prepare",
        ["/v1/apply/{job}/prepare"],
        {"channel": "email"},
        REFUSED,
    ),
    ("POST", "/v1/apply/{job_id}/approve", ["/v1/apply/{job}/approve"], None, REFUSED),
    ("POST", "/v1/apply/{job_id}/send", ["/v1/apply/{job}/send"], None, REFUSED),
    (
        "POST",
        "/v1/apply/{job_id}/resolve",
        ["/v1/apply/{job}/resolve"],
        {"resolution": "abandoned"},
        REFUSED,
    ),
    ("GET", "/v1/followups", ["/v1/followups"], None, EMPTY),
    (
        "GET",
        "/v1/followups/{job_id}",
        ["/v1/followups/{job}", "/v1/followups/{prefix}"],
        None,
        REFUSED,
    ),
    ("POST", "/v1/followups/{job_id}/draft", ["/v1/followups/{job}/draft"], {}, REFUSED),
    ("POST", "/v1/followups/{job_id}/approve", ["/v1/followups/{job}/approve"], None, REFUSED),
    ("POST", "/v1/followups/{job_id}/send", ["/v1/followups/{job}/send"], None, REFUSED),
    (
        "POST",
        "/v1/followups/{job_id}/resolve",
        ["/v1/followups/{job}/resolve"],
        {"resolution": "sent"},
        REFUSED,
    ),
    ("GET", "/v1/contacts", ["/v1/contacts", f"/v1/contacts?company={COMPANY}"], None, EMPTY),
    ("GET", "/v1/contacts/export", ["/v1/contacts/export"], None, EMPTY),
    ("POST", "/v1/contacts", ["/v1/contacts"], {"name": "Acme Person", "company": "Acme"}, OWN),
    ("GET", "/v1/contacts/{contact_id}", ["/v1/contacts/{contact}"], None, REFUSED),
    ("GET", "/v1/outreach/{contact_id}/{job_id}", ["/v1/outreach/{contact}/{job}"], None, REFUSED),
    (
        "POST",
        "/v1/outreach/{contact_id}/{job_id}/draft",
        ["/v1/outreach/{contact}/{job}/draft"],
        {},
        REFUSED,
    ),
    (
        "POST",
        "/v1/outreach/{contact_id}/{job_id}/approve",
        ["/v1/outreach/{contact}/{job}/approve"],
        None,
        REFUSED,
    ),
    (
        "POST",
        "/v1/outreach/{contact_id}/{job_id}/send",
        ["/v1/outreach/{contact}/{job}/send"],
        None,
        REFUSED,
    ),
    (
        "POST",
        "/v1/outreach/{contact_id}/{job_id}/resolve",
        ["/v1/outreach/{contact}/{job}/resolve"],
        {"resolution": "sent"},
        REFUSED,
    ),
    ("DELETE", "/v1/contacts/{contact_id}", ["/v1/contacts/{contact}"], None, REFUSED),
    ("GET", "/v1/contacts/research/{task_id}", ["/v1/contacts/research/{task}"], None, REFUSED),
    (
        "POST",
        "/v1/contacts/candidates/confirm",
        ["/v1/contacts/candidates/confirm"],
        {"candidateIds": ["{candidate}"]},
        REFUSED,
    ),
    (
        "POST",
        "/v1/contacts/candidates/dismiss",
        ["/v1/contacts/candidates/dismiss"],
        {"candidateIds": ["{candidate}"]},
        REFUSED,
    ),
    ("GET", "/v1/jobs/{job_id}/contacts", ["/v1/jobs/{job}/contacts"], None, REFUSED),
    (
        "GET",
        "/v1/jobs/{job_id}/contacts/candidates",
        ["/v1/jobs/{prefix}/contacts/candidates"],
        None,
        REFUSED,
    ),
    (
        "POST",
        "/v1/jobs/{job_id}/contacts/research",
        ["/v1/jobs/{job}/contacts/research"],
        {"paste": "Zelda Quint, Recruiter"},
        REFUSED,
    ),
    ("GET", "/v1/profile/answers", ["/v1/profile/answers"], None, EMPTY),
    ("PATCH", "/v1/profile/answers", ["/v1/profile/answers"], {"notice_period": "1 month"}, OWN),
    ("GET", "/v1/profile", ["/v1/profile"], None, EMPTY),
    ("PUT", "/v1/profile", ["/v1/profile"], {"name": "Acme Person"}, OWN),
    (
        "POST",
        "/v1/profile/import",
        ["/v1/profile/import?filename=resume.json"],
        {"basics": {"name": "Acme Person"}},
        OWN,
    ),
    ("GET", "/v1/captures/status", ["/v1/captures/status?url={url}"], None, EMPTY),
    ("POST", "/v1/captures", ["/v1/captures"], {"url": "{url}", "title": "Zephyr"}, REFUSED),
    ("GET", "/v1/extension/tasks", ["/v1/extension/tasks"], None, EMPTY),
    ("POST", "/v1/extension/codes", ["/v1/extension/codes"], {"name": "x"}, OWN),
    ("GET", "/v1/rescore", ["/v1/rescore"], None, EMPTY),
    ("POST", "/v1/rescore", ["/v1/rescore"], {"jobs": ["{job}"]}, REFUSED),
    ("POST", "/v1/apply/{job_id}/browser", ["/v1/apply/{job}/browser"], {"dryRun": True}, REFUSED),
    ("POST", "/v1/apply/{job_id}/reset", ["/v1/apply/{job}/reset"], None, REFUSED),
    ("GET", "/v1/pipeline/operations", ["/v1/pipeline/operations"], None, EMPTY),
    ("GET", "/v1/health", ["/v1/health"], None, EMPTY),
    ("GET", "/operations", ["/operations", "/operations?fragment=main"], None, EMPTY),
    ("POST", "/v1/jobs/{job_id}/cancel", ["/v1/jobs/{job}/cancel"], None, REFUSED),
    ("POST", "/v1/jobs/{job_id}/reset", ["/v1/jobs/{job}/reset"], {"stage": "tailor"}, REFUSED),
    ("GET", "/v1/stop-loss", ["/v1/stop-loss"], None, EMPTY),
    (
        "POST",
        "/v1/stop-loss/{kind}/{name:path}/resume",
        [f"/v1/stop-loss/source/{SOURCE}/resume"],
        None,
        REFUSED,
    ),
    ("GET", "/v1/executions", ["/v1/executions"], None, EMPTY),
    (
        "POST",
        "/v1/executions/{workflow_id}/stop",
        ["/v1/executions/{wid}/stop"],
        {"runId": "{run}"},
        REFUSED,
    ),
    ("GET", "/v1/events/stream", ["/v1/events/stream?after=0"], None, EMPTY),
    ("GET", "/jobs", ["/jobs", "/jobs?fragment=rows&q=Zephyrine"], None, EMPTY),
    ("GET", "/jobs/{job_id}", ["/jobs/{job}", "/jobs/{prefix}?fragment=main"], None, REFUSED),
    ("GET", "/runs", ["/runs"], None, EMPTY),
    ("GET", "/apply", ["/apply"], None, EMPTY),
    ("GET", "/applications", ["/applications"], None, EMPTY),
    ("GET", "/spend", ["/spend"], None, EMPTY),
    ("GET", "/settings", ["/settings"], None, EMPTY),
    ("GET", "/profile", ["/profile"], None, EMPTY),
]

# Rows that fail only on the operations store modules other helpers are converting (WP3):
# strict xfails, so they turn green the day those modules keep to their tenant.
WP3_XFAIL: dict[str, str] = {}


# -- the completeness check ----------------------------------------------------------------


def _leaves(group: click.Group, path: tuple[str, ...] = ()) -> Iterator[str]:
    for name, cmd in group.commands.items():
        if isinstance(cmd, click.Group):
            if cmd.invoke_without_command:
                yield " ".join((*path, name))
            yield from _leaves(cmd, (*path, name))
        else:
            yield " ".join((*path, name))


def _routes(home) -> set[str]:
    app = create_app(home, port=8765)
    served = {f"{m} {r.path}" for r in api_routes(app) for m in r.methods if m != "HEAD"}
    return served | {f"GET {app.openapi_url}"}


def test_every_command_and_route_has_a_row(home) -> None:
    listed = {c for c, _, _ in CLI_ROWS} | {k for k in NOT_TENANT_DATA if " /" not in k}
    assert set(_leaves(main)) == listed
    routes = {f"{m} {p}" for m, p, _, _, _ in HTTP_ROWS} | {k for k in NOT_TENANT_DATA if " /" in k}
    assert _routes(home) == routes


# -- the seed ------------------------------------------------------------------------------

BOTH_STORES = pytest.mark.parametrize(
    "database_url", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)


@dataclass
class Seed:
    refs: dict[str, str]  # the placeholders' values
    markers: list[str]  # what of local's must never be shown to acme
    digest: dict[str, str]  # local's rows, table by table
    files: dict[str, str]  # local's files: path -> sha256


def _digest(store: Store) -> dict[str, str]:
    """Every tenant table's local rows, hashed table by table (rows sorted)."""
    out = {}
    with store.read() as conn:
        for name in sorted(TENANT_TABLES):
            table = metadata.tables[name]
            rows = conn.execute(select(table).where(table.c.tenant_id == store.tenant)).all()
            text = sorted(json.dumps([str(v) for v in r], sort_keys=True) for r in rows)
            out[name] = hashlib.sha256("\n".join(text).encode()).hexdigest()
    return out


def _files(root: Path) -> dict[str, str]:
    """Local's own files (the home root minus the deployment's shared folders)."""
    skip = {"tenants", "logs", "run", "artifacts"}
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
        and p.relative_to(root).parts[0] not in skip
        and not p.name.startswith(("jobctrl.db", "temporal"))
    }


@pytest.fixture
def seeded(two_tenants: TwoTenants, site, fast_settings, tmp_path: Path, monkeypatch) -> Seed:
    t = two_tenants
    home, store = t.local_home, t.local
    job_id = approved_job(home, store, site, "/jobs/iso", email="hire@zephyrine.example",
                          company=COMPANY)  # fmt: skip
    reports.write_report(home, store, job_id)
    app_apply.prepare_application(home, job_id, channel="email")
    app_applications.set_application_outcome(home, job_id, "applied", note="local's note")
    application = app_applications.list_applications(home)[0]
    key = jobs.job_row(store, job_id)["idempotency_key"]
    wid, run = ids.prep_workflow_id(key, "local"), str(uuid.uuid4())
    workflow_runs.record_workflow_started(
        store, workflow_id=wid, run_id=run, workflow_type="JobPreparationWorkflow", job_id=job_id
    )
    # A discovery run of local's under the same run id, with the job as its member.
    discovery_ref = ExecutionRef("local", "discover-local", run)
    discovery.open_run(store, discovery_ref, ["greenhouse"], 3, 1, 1)
    with store.write() as tx:
        discovery.link_member(tx, discovery_ref, job_id, Cohort.OBSERVED)
    Settings(store).set_value("min_fit_score", 42)
    app_sources.add_source(home, "greenhouse", SOURCE, None)
    with store.write() as tx:
        spend.add_observation(
            tx, observation_id=f"score:{job_id}:{run}:1", day=utcnow().date().isoformat(),
            lane="score", provider="openai", model="m", input_tokens=10, output_tokens=10,
            cost_usd=0.75,
        )  # fmt: skip
    stop_loss.note_failure(store, "source", SOURCE, PROVIDER_AUTH, job_id, threshold=1)
    orphan = ids.prep_workflow_id("f" * 64, "local")
    orphans.replace_orphans(
        store, [orphans.Observed(orphan, str(uuid.uuid4()), "JobPreparationWorkflow", None)],
        utcnow(),
    )  # fmt: skip
    pdf = material_files(store, job_id)[0].sha256  # a material's PDF
    row = jobs.job_row(store, job_id)
    text_sha = row["text_artifact"]
    files_dir = tmp_path / "files"
    files_dir.mkdir()
    (files_dir / "applications.md").write_text("# Applications Tracker\n")
    (files_dir / "profile.yaml").write_text(home.config_path.read_text())
    refs = {
        "job": job_id,
        "prefix": job_id[:6],
        "app": application.application_id,
        "wid": wid,
        "run": run,
        "sha": pdf,
        "text_sha": text_sha,
        "url": row["url"],
        "dir": str(files_dir),
        "file": str(files_dir / "applications.md"),
    }
    monkeypatch.setenv("JOBCTRL_TEMPORAL_ADDRESS", closed_port_address())
    ensure_token(home)  # local's token, as `jobctrl up` makes it (before the snapshot)
    # local's paired browser extension (issue 32): acme may neither list nor revoke it
    app_extension.pair(home, app_extension.make_code(home, "zephyr-laptop").code, None, None)
    # local's contact research (issue 33): a run with its candidate, and a contact
    task, _ = contact_research.new_task(store, job_id, "k", [{"kind": "posting", "ref": ""}])
    contact_research.claim(store, task.task_id, "run-local")
    person = {
        "name": PERSON,
        "role": "recruiter",
        "title": "Recruiter",
        "email": None,
        "evidence": f"{PERSON}, Recruiter",
        "source": "the posting",
        "confidence": 0.9,
    }
    contact_research.record_source(
        store,
        task.task_id,
        "run-local",
        {"index": 0, "kind": "posting", "source": "the posting", "outcome": "read"},
        [person],
    )
    candidate = contact_research.candidate_rows(store, task_id=task.task_id)[0].candidate_id
    contact = store_contacts.add_contact(store, company=COMPANY, name="Quinn Zeller",
                                         role="founder", email=None, job_id=job_id)  # fmt: skip
    refs |= {"task": task.task_id, "candidate": candidate, "contact": contact}
    markers = [job_id, COMPANY, SOURCE, application.application_id, wid, run, pdf, text_sha]
    markers += [orphan, "0.75"]  # the orphan's id; the spend
    markers += [task.task_id, candidate, contact, PERSON, "Quinn Zeller"]
    return Seed(refs, markers, _digest(store), _files(home.root))


def _fill(value: Any, refs: dict[str, str]) -> Any:
    if isinstance(value, str):
        return value.format(**refs)
    if isinstance(value, dict):
        return {k: _fill(v, refs) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, refs) for v in value]
    return value


def _shows(text: str, marker: str) -> bool:
    """Whether ``text`` shows ``marker``; a number (the spend, "0.75") only as a number of
    its own, not inside a timestamp's "30.754983"."""
    if marker.replace(".", "").isdigit():
        return re.search(rf"(?<![\d.]){re.escape(marker)}(?!\d)", text) is not None
    return marker in text


def _no_markers(text: str, seed: Seed, where: str, sent: str) -> None:
    """Nothing of local's in ``text`` but what the request itself named (``sent``: a
    refusal may repeat the id it was given, never complete a prefix)."""
    shown = [m for m in seed.markers if _shows(text, m) and m not in sent]
    assert not shown, f"{where} shows local's {shown}: {text[:500]}"


# -- the table test ------------------------------------------------------------------------


@BOTH_STORES
def test_acme_cannot_reach_locals_data_through_any_command_or_route(
    seeded: Seed, two_tenants: TwoTenants
) -> None:
    seed, t = seeded, two_tenants
    failures: list[str] = []
    runner = CliRunner()
    env = {"JOBCTRL_TENANT": "acme"}
    for command, argvs, expect in CLI_ROWS:
        for template in argvs:
            argv = _fill(template, seed.refs)
            if argv[:2] == ["profile", "import"]:
                argv[-1] = str(Path(seed.refs["dir"]) / "profile.yaml")
            result = runner.invoke(main, argv, env=env, catch_exceptions=True)
            out = result.output + (result.stderr if result.stderr_bytes is not None else "")
            where = f"`jobctrl {' '.join(argv)}` (exit {result.exit_code})"
            try:
                assert "Traceback" not in out and not isinstance(
                    result.exception, (AssertionError, TypeError, AttributeError)
                ), where + f": {result.exception!r}"
                _no_markers(out, seed, where, " ".join(argv))
                if expect == REFUSED:
                    assert result.exit_code in (1, 2), f"{where}: {out[:300]}"
                elif command == "settings get":
                    assert json.loads(result.output)["value"] == 50, where
                else:
                    assert result.exit_code in (0, 1, 2), f"{where}: {out[:300]}"
            except AssertionError as exc:
                failures.append(f"{command}: {exc}")
    with live_server(t.local_home) as base:
        headers = {"Authorization": f"Bearer {ACME_TOKEN}"}
        with httpx.Client(base_url=base, headers=headers, timeout=10) as http:
            for method, route, paths, body, expect in HTTP_ROWS:
                for path in paths:
                    url = _fill(path, seed.refs)
                    where = f"{method} {url}"
                    try:
                        if route == "/v1/events/stream":
                            text = _stream_text(http, url)
                            status = 200
                        else:
                            r = http.request(method, url, json=_fill(body, seed.refs))
                            text, status = r.text, r.status_code
                        assert status < 500 or expect != EMPTY, f"{where}: {status} {text[:300]}"
                        _no_markers(text, seed, where, f"{url} {_fill(body, seed.refs)}")
                        if expect == REFUSED:
                            refused = status in (403, 404, 503) or (
                                status == 409 and "no application" in text
                            )
                            assert refused, f"{where}: {status} {text[:300]}"
                        elif expect == EMPTY:
                            assert status == 200, f"{where}: {status} {text[:300]}"
                    except AssertionError as exc:
                        failures.append(f"{route}: {exc}")
    assert not failures, "\n".join(failures)
    now = _digest(t.local)
    assert [n for n in now if now[n] != seed.digest[n]] == [], "local's rows changed"
    assert _files(t.local_home.root) == seed.files
    assert Settings(t.local).get("min_fit_score") == 42


def _stream_text(http: httpx.Client, url: str) -> str:
    """What the event stream sends in its first second (acme's events only)."""
    lines: list[str] = []
    try:
        with http.stream("GET", url, timeout=httpx.Timeout(10, read=1.5)) as r:
            assert r.status_code == 200, r.status_code
            for line in r.iter_lines():
                lines.append(line)
                if len(lines) > 200:
                    break
    except httpx.ReadTimeout:
        pass
    return "\n".join(lines)


async def test_every_route_acts_for_the_requests_tenant(home) -> None:
    """Each route is on a router whose dependency is the request's tenant (api/deps.py):
    asked past the security middleware with no tenant named, every route (pages and the
    event stream too) refuses before its handler runs, so none can fall back to the
    server's home."""
    app = create_app(home, port=8765)
    app.user_middleware = [m for m in app.user_middleware if m.cls is not LocalSecurity]
    transport = httpx.ASGITransport(app=app)  # the routes without the security middleware
    refused = []
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as c:
        for route in api_routes(app):
            path = re.sub(r"{\w+(?::\w+)?}", "x", route.path)
            for method in route.methods - {"HEAD"}:
                r = await c.request(method, path, json={})
                assert r.status_code == 403, (method, route.path, r.text)
                assert r.json()["error"]["code"] == FORBIDDEN, (method, route.path)
                refused.append(f"{method} {route.path}")
    assert len(refused) > 40

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
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from jobctrl.api.app import create_app
from jobctrl.api.security import api_token
from jobctrl.cli import main
from jobctrl.store import stop_loss
from tests.support.app import api_routes
from tests.support.apply import approved_job, no_standing_loop
from tests.support.http import Route, posting_html
from tests.support.smtp import SmtpServer

pytestmark = pytest.mark.usefixtures("no_standing_loop")
__all__ = ["no_standing_loop"]  # the fixture, imported for pytest to find

RECORDED = Path(__file__).parents[1] / "fixtures" / "json_keys.json"
RECORD = os.environ.get("JOBCTRL_RECORD_JSON_KEYS") == "1"
TO = "jobs@acme-robotics.example"
# Values that name one object (ids, hashes, dates) are never keys here; a key that looks
# like one is folded so a recording does not depend on the run.
_ID_LIKE = re.compile(r"^([0-9a-f]{12,}|app-[0-9a-f]+|\d{4}-\d{2}-\d{2}.*)$")

# Maps whose keys are data that depends on timing (a run's counts so far, an event's
# payload): the map's own key is recorded, not what it holds.
DATA_MAPS = {"counts", "countsByStep", "payload", "fields"}

# Routes answered with something other than JSON, or a stream: their keys are no contract.
NOT_JSON = {
    "GET /v1/artifacts/{artifact_id}",
    "GET /v1/applications/export",
    "GET /v1/events/stream",
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
    return bool(_ID_LIKE.match(arg)) or "/" in arg or "@" in arg


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
    home, store, site, smtp, api, worker
) -> None:
    seen = Recorder()
    job_id = approved_job(home, store, site, "/jobs/contract", email=TO)
    other = approved_job(home, store, site, "/jobs/contract-2", approve=False, company="Beta")
    third = approved_job(home, store, site, "/jobs/contract-3", approve=False, company="Delta")
    fourth = approved_job(home, store, site, "/jobs/contract-4", company="Epsilon")
    fifth = approved_job(home, store, site, "/jobs/contract-5", company="Zeta")
    sixth = approved_job(home, store, site, "/jobs/contract-6", approve=False, company="Eta")
    for name in ("greenhouse:acme", "lever:beta"):  # one is resumed, one stays paused
        for n in range(3):
            stop_loss.note_failure(store, "source", name, "SOURCE_HTTP_ERROR", f"j{n}",
                                   threshold=3)  # fmt: skip
    body = posting_html("Platform Engineer", "Gamma", ["Python", "Go"])
    added_url = site.add("/jobs/contract-add", Route(body=body))
    jp = {"job_id": job_id}

    # -- commands that change something (their answers are contracts too) -----------------
    await cli_json(seen, "add", added_url, "--wait")
    await cli_json(seen, "add", added_url, site.add("/jobs/c-3", Route(body=body)))
    await cli_json(seen, "apply", "prepare", job_id, "--to", TO)
    await cli_json(seen, "apply", "approve", job_id)
    await cli_json(seen, "apply", "send", job_id)
    await cli_json(seen, "applications", "set", job_id, "--outcome", "interview", "--note", "x")
    await cli_json(seen, "materials", "approve", other)
    await cli_json(seen, "reset", other, "--stage", "pdf")
    await cli_json(seen, "retry", other)
    await cli_json(seen, "discover")
    await cli_json(seen, "discover", "--cancel")
    await cli_json(seen, "cancel", other)
    await cli_json(seen, "apply", "loop", "stop")

    await api_json(seen, api, "POST", "/v1/jobs", json={"url": added_url})
    await api_json(seen, api, "POST", "/v1/jobs/{job_id}/materials/{decision}",
                   path={"job_id": third, "decision": "reject"})  # fmt: skip
    await api_json(seen, api, "POST", "/v1/jobs/{job_id}/reset", path={"job_id": sixth},
                   json={"stage": "pdf"})  # fmt: skip
    await api_json(seen, api, "POST", "/v1/jobs/{job_id}/retry", path={"job_id": sixth})
    await api_json(seen, api, "POST", "/v1/jobs/{job_id}/cancel", path={"job_id": sixth})
    await api_json(seen, api, "POST", "/v1/discovery")
    await api_json(seen, api, "POST", "/v1/discovery/cancel")
    await api_json(seen, api, "PATCH", "/v1/settings", json={"min_fit_score": 40})
    await api_json(seen, api, "POST", "/v1/applications/{ref}/outcome", path={"ref": job_id},
                   json={"outcome": "offer", "note": "y"})  # fmt: skip
    await api_json(seen, api, "PATCH", "/v1/profile/answers", json={"pronouns": "she/her"})
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
    await cli_json(seen, "tenants", "add", "acme")
    await cli_json(seen, "tenants", "token", "acme")
    await cli_json(seen, "init")
    profile = Path(__file__).parents[1] / "fixtures" / "profiles" / "resume_full.json"
    await cli_json(seen, "profile", "import", str(profile))
    runner = CliRunner()  # a source, added after discovery ran (it is never fetched here)
    added = runner.invoke(main, ["sources", "add", "greenhouse", "acme"])
    assert added.exit_code == 0, added.output

    # -- reads ----------------------------------------------------------------------------
    for args in (
        ("jobs",),
        ("show", job_id),
        ("events",),
        ("settings", "get"),
        ("settings", "get", "min_fit_score"),
        ("spend",),
        ("runs",),
        ("ops",),
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
        "/v1/stop-loss": {},
        "/v1/profile/answers": {},
    }
    for route, fill in gets.items():
        await api_json(seen, api, "GET", route, path=fill)

    # Every JSON GET route of the app is asked (a new one is covered once it is listed).
    app = api._transport.app  # type: ignore[attr-defined]
    json_gets = {
        f"GET {r.path}" for r in api_routes(app) if "GET" in r.methods and r.include_in_schema
    } - NOT_JSON
    assert json_gets <= {f"GET {route}" for route in gets}, json_gets - set(gets)

    _compare(seen.seen)


def _compare(seen: dict[str, set[str]]) -> None:
    recorded: dict[str, list[str]] = json.loads(RECORDED.read_text()) if RECORDED.exists() else {}
    if RECORD:
        merged = {
            name: sorted(set(recorded.get(name, [])) | seen.get(name, set()))
            for name in sorted(set(recorded) | set(seen))
        }
        RECORDED.write_text(json.dumps(merged, indent=1) + "\n")
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

"""Every route, walked from ``app.routes`` so a route added later is covered without
editing this file: one tenant's token never reaches another tenant's objects, and a
request with no, a garbage or a replaced token is refused.

A route whose path names an object (a job, an application, a material's PDF, a run or
an execution) is asked with tenant B's token for tenant A's object: it answers 404 and A
is left exactly as it was (its views and its event log). A path parameter this file does
not know fails the test until it is classified below, so a new kind of id cannot slip by.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.sse import EventSourceResponse

from jobctrl.api.app import create_app
from jobctrl.api.security import api_token
from jobctrl.app import activity, apply_browser_runs
from jobctrl.app import apply as app_apply
from jobctrl.app import tenants as app_tenants
from jobctrl.app.apply_browser import PrefillView
from jobctrl.domain import ids
from jobctrl.domain.discovery import ExecutionRef
from jobctrl.stages.apply_browser import PrefillResult
from jobctrl.store import contact_research, discovery, stop_loss, workflow_runs
from jobctrl.store import contacts as store_contacts
from jobctrl.store.settings import Settings
from tests.support.app import api_routes
from tests.support.apply import approved_job
from tests.support.tenants import ACME_TOKEN, TwoTenants

BASE = "http://127.0.0.1:8765"
TO = "jobs@acme-robotics.example"

# Path parameters that name one object of a tenant: asked with another tenant's token,
# the route must answer 404.
OBJECT_IDS = {
    "job_id",
    "ref",
    "artifact_id",
    "workflow_id",
    "run_id",
    "application_id",
    "task_id",
    "contact_id",
}
# Path parameters that name no object (a choice among fixed words, or a tenant's own
# stop-loss window, which is looked up in the requester's tenant only).
NOT_OBJECTS = {"decision": "approve", "kind": "source", "name": "greenhouse:acme"}
# A fixed word a route takes in its own vocabulary (a document of a job's materials).
ROUTE_WORDS = {"/v1/jobs/{job_id}/materials/{kind}": {"kind": "resume"}}
# The smallest valid body of a route that needs one: validation (422) must not answer
# before the route looks the object up.
BODIES: dict[str, dict[str, Any]] = {
    "POST /v1/jobs/{job_id}/reset": {"stage": "pdf"},
    "POST /v1/apply/{job_id}/resolve": {"resolution": "abandoned"},
    "POST /v1/followups/{job_id}/resolve": {"resolution": "sent"},
    "POST /v1/outreach/{contact_id}/{job_id}/resolve": {"resolution": "sent"},
    "POST /v1/applications/{ref}/outcome": {"outcome": "interview"},
    "POST /v1/apply/{job_id}/prepare": {"to": [TO]},
    "POST /v1/apply/{job_id}/browser": {"dryRun": True},
    "POST /v1/executions/{workflow_id}/stop": {"runId": "{run_id}"},
    "PUT /v1/jobs/{job_id}/materials/{kind}": {"text": "Ada Example\n\nBackend engineer."},
    "POST /v1/extension/pair": {"code": "WRONGCODE"},
    "POST /v1/captures": {"url": "https://jobs.example.com/x", "title": "Engineer"},
    "POST /v1/contacts/candidates/confirm": {"candidateIds": ["{candidate_id}"]},
    "POST /v1/contacts/candidates/dismiss": {"candidateIds": ["{candidate_id}"]},
}
# Routes a request without a token may call: the pairing code is its credential (a wrong
# one is refused, 403).
TOKENLESS = {"POST /v1/extension/pair": 403}
_PARAM = re.compile(r"{(\w+)(?::\w+)?}")


def _routes(app: FastAPI, *, streams: bool = True) -> list[tuple[str, str, list[str]]]:
    """(method, path, path parameters) of every route of the app (pages included); without
    ``streams``, not the event stream (a request it accepts never ends)."""
    found = []
    for route in api_routes(app):
        if not streams and _is_stream(route):
            continue
        for method in sorted(route.methods - {"HEAD", "OPTIONS"}):
            found.append((method, route.path, _PARAM.findall(route.path)))
    return found


def _is_stream(route: Any) -> bool:
    return isinstance(route.response_class, type) and issubclass(
        route.response_class, EventSourceResponse
    )


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
async def api(two_tenants: TwoTenants) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=create_app(two_tenants.local_home, port=8765))
    async with httpx.AsyncClient(transport=transport, base_url=BASE, timeout=60) as client:
        yield client


def _objects_of(home, store, site) -> dict[str, str]:
    """A tenant's representative objects: a job with approved materials and a prepared
    email application, its PDF, and its preparation's execution id."""
    Settings(store).set_values(
        {"fetch.allow_hosts": ["127.0.0.1"], "fetch.min_host_interval_seconds": 0.0}
    )
    job_id = approved_job(home, store, site, f"/jobs/{store.tenant}-owned", email=TO)
    draft = approved_job(home, store, site, f"/jobs/{store.tenant}-draft", approve=False)
    prepared = app_apply.prepare_application(home, job_id, to=[TO])
    workflow_id = ids.prep_workflow_id(job_id, store.tenant)
    run_id = "0" * 8 + "-0000-4000-8000-" + "0" * 12
    # An open run of the job's preparation: a stop request for it would be recorded.
    workflow_runs.record_workflow_started(
        store, workflow_id=workflow_id, run_id=run_id, workflow_type="preparation", job_id=job_id
    )
    # A discovery run under the same run id (its plan).
    discovery.open_run(
        store, ExecutionRef(store.tenant, "discover-local", run_id), ["greenhouse"], 3, 1, 1
    )
    stop_loss.note_failure(
        store, "source", "greenhouse:acme", "SOURCE_HTTP_ERROR", "j", threshold=1
    )
    # Contact research (issue 33): a run with a candidate, and a contact of the company.
    task, _ = contact_research.new_task(store, job_id, "k", [{"kind": "posting", "ref": ""}])
    contact_research.claim(store, task.task_id, "run-owner")
    attempt = {"index": 0, "kind": "posting", "source": "the posting", "outcome": "read"}
    person = {"name": "Jane Roe", "role": "recruiter", "evidence": "Jane Roe, Recruiter",
              "source": "the posting", "confidence": 0.9}  # fmt: skip
    contact_research.record_source(store, task.task_id, "run-owner", attempt, [person])
    candidate = contact_research.candidate_rows(store, task_id=task.task_id)[0].candidate_id
    contact_id = store_contacts.add_contact(
        store, company="Acme", name="Sam Lee", role="founder", email=None, job_id=job_id
    )
    return {
        "job_id": job_id,
        "draft": draft,
        "application_id": prepared.application_id or "",
        "workflow_id": workflow_id,
        "run_id": run_id,
        "task_id": task.task_id,
        "candidate_id": candidate,
        "contact_id": contact_id,
    }


async def _state(api: httpx.AsyncClient, token: str, objects: dict[str, str]) -> list[Any]:
    """What the owner sees of its objects: changes here mean another tenant reached them."""
    headers = _bearer(token)
    job = objects["job_id"]
    views = []
    for path in (
        "/v1/jobs?sort=created",
        f"/v1/jobs/{job}",
        f"/v1/jobs/{objects['draft']}",
        f"/v1/apply/{job}",
        "/v1/applications",
        "/v1/stop-loss",
        "/v1/settings",
        "/v1/contacts",
        f"/v1/jobs/{job}/contacts",
    ):
        r = await api.get(path, headers=headers)
        assert r.status_code == 200, (path, r.text)
        views.append(r.json())
    return views


def _body(method: str, path: str, objects: dict[str, str]) -> dict[str, Any] | None:
    body = BODIES.get(f"{method} {path}")
    if body is None:
        return None
    return {k: _object_in(v, objects) for k, v in body.items()}


def _object_in(value: Any, objects: dict[str, str]) -> Any:
    """A body's value with its ``{run_id}`` or ``{candidate_id}`` filled (in a list too)."""
    if isinstance(value, list):
        return [_object_in(v, objects) for v in value]
    if isinstance(value, str) and value in ("{run_id}", "{candidate_id}"):
        return objects[value.strip("{}")]
    return value


def _events_of(home) -> list[tuple[int, str]]:
    return [(e.seq, e.type) for e in activity.event_log(home, 0, 100_000)]


def _fill(path: str, params: list[str], objects: dict[str, str], artifact: str) -> str:
    words = next((w for prefix, w in ROUTE_WORDS.items() if path.startswith(prefix)), {})
    values = {**NOT_OBJECTS, **words, **objects, "ref": objects["job_id"], "artifact_id": artifact}
    for name in params:
        path = re.sub(r"{" + name + r"(?::\w+)?}", values[name], path)
    return path


@pytest.mark.parametrize("owner", ["local", "acme"])
async def test_no_route_reaches_another_tenants_object(
    owner: str, two_tenants: TwoTenants, api, site, no_temporal, monkeypatch
) -> None:
    t = two_tenants
    local_token = api_token(t.local_home.token_path)
    owner_home, owner_store = (t.local_home, t.local) if owner == "local" else (t.acme_home, t.acme)
    own_token, other_token = (
        (local_token, ACME_TOKEN) if owner == "local" else (ACME_TOKEN, local_token)
    )
    objects = _objects_of(owner_home, owner_store, site)
    shown = (await api.get(f"/v1/jobs/{objects['job_id']}", headers=_bearer(own_token))).json()
    artifact = next(m["pdfArtifact"] for m in shown["materials"] if m["pdfArtifact"])
    before, events_before = await _state(api, own_token, objects), _events_of(owner_home)
    # A dry run needs no Chromium here: the prefill answers as a form it could not load
    # (test_apply_browser_api.py drives the real one).
    unusable = PrefillResult("form_unavailable", "APPLY_FORM_UNAVAILABLE")
    monkeypatch.setattr(
        apply_browser_runs,
        "prefill",
        lambda home, job_id, **_: PrefillView.of(
            unusable, job_id=job_id, application_id=None, dry_run=True, screenshot=None
        ),
    )

    app = api._transport.app  # type: ignore[attr-defined]
    object_routes = []
    for method, path, params in _routes(app, streams=False):
        unknown = set(params) - OBJECT_IDS - set(NOT_OBJECTS)
        assert not unknown, f"{method} {path}: classify {unknown} in OBJECT_IDS or NOT_OBJECTS"
        url = _fill(path, params, objects, artifact)
        body = _body(method, path, objects)
        r = await api.request(method, url, headers=_bearer(other_token), json=body)
        if set(params) & OBJECT_IDS:
            object_routes.append((method, path, url, body))
            assert r.status_code == 404, (method, path, r.status_code, r.text)
            if r.headers.get("content-type", "").startswith("application/json"):
                assert r.json()["error"]["code"], (method, path)
        else:
            assert r.status_code != 500, (method, path, r.text)
    assert len(object_routes) >= 15, "the walk found the routes that name objects"
    assert await _state(api, own_token, objects) == before
    assert _events_of(owner_home) == events_before, "another tenant's request was recorded"

    # The control: the owner reaches each of those routes with the same request, so the
    # 404s above are the tenant's doing, not a request that could never succeed.
    # (A delete goes last: the routes after it would find no job.)
    for method, path, url, body in sorted(object_routes, key=lambda r: r[0] == "DELETE"):
        r = await api.request(method, url, headers=_bearer(own_token), json=body)
        assert r.status_code != 404, (method, path, r.text)
        assert r.status_code != 500, (method, path, r.text)


async def test_every_route_refuses_a_missing_garbage_or_replaced_token(
    two_tenants: TwoTenants, site, monkeypatch, no_temporal
) -> None:
    t = two_tenants
    objects = _objects_of(t.acme_home, t.acme, site)
    old = ACME_TOKEN
    app_tenants.tenant_token(t.local_home, "acme", rotate=True)
    fresh = t.acme_home.token_path.read_text().strip()
    assert fresh != old
    monkeypatch.setenv("JOBCTRL_API_REQUIRE_TOKEN", "1")
    app = create_app(t.local_home, port=8765)  # a server started after the rotation
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url=BASE, timeout=60) as api:
        before = await _state(api, fresh, objects)
        routes = _routes(app)
        for method, path, params in routes:
            url = _fill(path, params, objects, "0" * 64)
            body = _body(method, path, objects)
            for headers, status in (
                ({}, TOKENLESS.get(f"{method} {path}", 401)),
                (_bearer("garbage-token"), 403),
                (_bearer(old), 403),
                ({"Authorization": f"Token {fresh}"}, 403),
            ):
                r = await api.request(method, url, headers=headers, json=body)
                assert r.status_code == status, (method, path, headers, r.text)
        assert len(routes) > 40
        assert await _state(api, fresh, objects) == before

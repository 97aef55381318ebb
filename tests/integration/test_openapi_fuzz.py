"""Schemathesis against the app's own OpenAPI document: whatever a client sends to any
operation, reads and commands alike, the answer is never a server error.

Commands are sent with the API token and the loopback Host, so they get past the security
check and run. No Temporal server answers (JOBCTRL_TEMPORAL_ADDRESS names a closed loopback
port), so the commands that need one answer 503 with a stable code and start nothing; any
other 5xx fails. The event stream never ends and is tested in test_event_stream.py."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import platformdirs
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, configuration, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup, as_reported_failure
from schemathesis.core.parameters import ParameterLocation
from schemathesis.specs.openapi._hypothesis import _draw_negated_locations
from schemathesis.specs.openapi.checks import response_schema_conformance
from sqlalchemy import select
from starlette.testclient import TestClient

from jobctrl.api.app import create_app
from jobctrl.app import apply_browser_runs
from jobctrl.app.apply_browser import PrefillView
from jobctrl.stages.apply_browser import PrefillResult
from jobctrl.store import schema as tables
from jobctrl.store import stage_states, start_intents, tenancy
from jobctrl.store.settings import SPECS
from tests.support.jobs import failed_job as make_failed_job

HOST = "127.0.0.1:8765"
UNAVAILABLE = {"temporal_unavailable", "worker_runtime_unavailable"}
NO_DISPLAY = {"APPLY_NO_DISPLAY"}  # POST /v1/apply/{job}/browser's window, where none can open


@pytest.fixture(autouse=True)
def _no_browser(monkeypatch) -> None:
    """No Chromium and no address but loopback in the fuzz: the browser prefill answers as a
    form that could not be loaded (test_apply_browser_api.py drives the real one)."""

    def prefill(home, job_id, *, dry_run: bool = False, **_: Any) -> PrefillView:
        unusable = PrefillResult("form_unavailable", "APPLY_FORM_UNAVAILABLE")
        return PrefillView.of(
            unusable, job_id=job_id, application_id=None, dry_run=dry_run, screenshot=None
        )

    monkeypatch.setattr(apply_browser_runs, "prefill", prefill)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)


@pytest.fixture(autouse=True, scope="module")
def _hypothesis_home() -> Iterator[None]:
    """Hypothesis caches the constants it mines from source files under ``.hypothesis``
    (even with ``database=None``): keep that out of the repository, in the user's cache
    directory, where the next run finds them (the cache is keyed by each file's hash; a
    cold one costs the test seconds of mining)."""
    configuration.set_hypothesis_home_dir(
        platformdirs.user_cache_path("jobctrl-tests") / "hypothesis"
    )
    yield
    configuration.set_hypothesis_home_dir(None)


@pytest.fixture
def api_schema(home, no_temporal):
    app = create_app(home, port=8765)
    return schemathesis.openapi.from_asgi("/openapi.json", app, headers={"Host": HOST})


@pytest.fixture
def token(home, api_schema) -> str:
    return (home.root / "api-token").read_text().strip()


def no_server_error(ctx, response, case) -> bool | None:
    """``not_a_server_error``, except the documented 503 of a command without Temporal."""
    if response.status_code == 503:
        assert response.json()["error"]["code"] in UNAVAILABLE | NO_DISPLAY, response.text
        return True
    return not_a_server_error(ctx, response, case)


# Positive cases fit the schema (they reach the services); negative ones do not (they
# exercise validation and the error handlers).
MODES = (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
FUZZ = settings(
    max_examples=30,
    deadline=None,
    database=None,  # no .hypothesis directory in the repository
    suppress_health_check=list(HealthCheck),
    phases=[Phase.explicit, Phase.generate, Phase.shrink],
)


@pytest.fixture
def failed_job(store) -> str:
    """A job whose Enrich stage failed: retry, show and decide have something to act on."""
    return make_failed_job(store, "https://jobs.example.com/fuzz/1")


def _passes(operation, job_id: str) -> list[tuple[str, dict[str, Any]]]:
    """(name, strategy arguments) for each fuzz pass over ``operation``."""
    passes: list[tuple[str, dict[str, Any]]] = [
        (mode.value, {"generation_mode": mode})
        for mode in GenerationMode
        if mode is GenerationMode.POSITIVE or _can_negate(operation)
    ]
    names = {p.name for p in operation.path_parameters}
    # The seeded job, not only ids that do not exist (not to a delete: it would go, and
    # the checks below read it after the walk).
    if "job_id" in names and operation.method.upper() != "DELETE":
        passes.append(("existing job", {"path_parameters": {"job_id": job_id}}))
    if "decision" in names:
        passes += [
            (d, {"path_parameters": {"job_id": job_id, "decision": d}})
            for d in ("approve", "reject", "regenerate")
        ]
    return passes


def _can_negate(operation) -> bool:
    """Whether a negative case can exist for ``operation``: schemathesis's own choice of the
    locations a negative case may break (a body, a query, a header, a constrained path
    parameter). With none, every case it draws is rejected and Hypothesis gives up after 459
    of them, having sent nothing: a second of generation for each such route. (The helper
    is schemathesis's private one, the very choice its generation makes: an upgrade that
    changes it fails this import, or fails a negative pass that can no longer negate.)"""
    nothing_given = dict.fromkeys(
        (
            ParameterLocation.PATH,
            ParameterLocation.HEADER,
            ParameterLocation.COOKIE,
            ParameterLocation.QUERY,
        )
    )
    breakable = _draw_negated_locations(
        lambda _strategy: True,  # break every location that can be broken
        operation,
        GenerationMode.NEGATIVE,
        explicit=nothing_given,
        body_is_generated=True,
    )
    return breakable is not None


def test_no_request_gets_a_server_error(api_schema, token, store, failed_job, subtests):
    operations = [r.ok() for r in api_schema.get_all_operations()]
    labels = {op.label for op in operations}
    assert {"POST /v1/jobs", "PATCH /v1/settings", "GET /v1/jobs/{job_id}"} <= labels, labels
    headers = {"Authorization": f"Bearer {token}", "Host": HOST}
    stages = stage_states.stage_rows(store, failed_job)
    negated: set[str] = set()

    for operation in operations:
        if operation.path == "/v1/events/stream":
            continue  # never ends: see test_event_stream.py
        for name, arguments in _passes(operation, failed_job):

            @FUZZ
            @given(case=operation.as_strategy(**arguments))
            def fuzz(case) -> None:
                response = case.call(base_url=f"http://{HOST}", headers=headers)
                # A read's answer must also fit the schema it documents (its response
                # model, or ErrorBody for an error).
                checks = [no_server_error]
                if case.method.upper() == "GET":
                    checks.append(response_schema_conformance)
                case.validate_response(response, checks=checks)

            with subtests.test(msg=f"{operation.label} ({name})"):
                try:
                    fuzz()
                except FailureGroup as exc:
                    raise as_reported_failure(exc) from None
                # A negative pass runs only where a negative case can exist (_can_negate):
                # if it gives up unsatisfied, that is a failure like any other pass's.
                if name == GenerationMode.NEGATIVE.value:
                    negated.add(operation.label)
    assert {"POST /v1/jobs", "PATCH /v1/settings", "GET /v1/jobs"} <= negated, negated
    with store.read() as conn:
        ids = (
            conn.execute(select(tables.jobs.c.id).where(tenancy.scoped(tables.jobs, conn)))
            .scalars()
            .all()
        )
    assert failed_job in ids
    # Without Temporal an add is refused (503) but keeps its job, with the intent to start
    # its preparation that the worker's reconciler acts on: nothing is half-made.
    kept = [i for i in ids if i != failed_job]
    assert all(start_intents.unstarted_for(store, i) for i in kept), "an added job lost its intent"
    # A person's reset of a stage that is already pending (the fuzz may send one for the
    # seeded job) rewrites only that row's timestamp.
    assert [_but_when(r) for r in stage_states.stage_rows(store, failed_job)] == [
        _but_when(r) for r in stages
    ], "a refused retry changes nothing"


def test_every_json_route_documents_its_answer(home) -> None:
    """The OpenAPI document carries a real schema for each JSON route's success answer
    (its ``response_model``) and the one error shape for its errors."""
    document = create_app(home, port=8765).openapi()
    bare = []
    for path, methods in document["paths"].items():
        for method, operation in methods.items():
            ok = next(v for k, v in operation["responses"].items() if k.startswith("2"))
            content = ok.get("content", {})
            if "application/json" not in content:
                continue  # a PDF, a download or the event stream
            schema = content["application/json"].get("schema", {})
            if not schema or schema == {"type": "object"} or "additionalProperties" in schema:
                bare.append(f"{method.upper()} {path}")
            error = operation["responses"].get("404") or operation["responses"].get("422")
            assert error, (method, path)
            assert error["content"]["application/json"]["schema"] == {
                "$ref": "#/components/schemas/ErrorBody"
            }
    assert not bare, f"routes without a response model: {bare}"


def _but_when(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k != "updated_at"}


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
    | st.sampled_from(
        ["0", "-1", "101", "1e3", "nan", "inf", "-Infinity", "1e999", "true", "off", "a=1"]
    ),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)


def _near(default: Any) -> st.SearchStrategy[Any]:
    """Values of the default's type (often valid), as typed JSON or as CLI text."""
    if isinstance(default, bool):
        typed: st.SearchStrategy[Any] = st.booleans()
    elif isinstance(default, int):
        typed = st.integers(-5, 700_000)
    elif isinstance(default, float):
        typed = st.floats(-1, 2000, allow_nan=False)
    elif isinstance(default, list):
        typed = st.lists(st.sampled_from(["127.0.0.1", "intranet.example", "a b", "x/y"]))
    elif isinstance(default, dict):
        typed = st.dictionaries(st.sampled_from(["score", "tailor", "x"]), st.integers(-1, 10**6))
    else:
        typed = st.sampled_from(["0 7 * * *", "*/5 * * * 1-5", "every day", "1 2 3"])
    return st.one_of(st.just(default), typed, typed.map(str), JSON)


CHANGES = st.dictionaries(
    st.sampled_from(sorted(SPECS)), st.none(), min_size=1, max_size=3
).flatmap(lambda keys: st.fixed_dictionaries({k: _near(SPECS[k].default) for k in keys}))


def test_settings_take_any_json_value_for_any_known_key(home, token):
    """Schemathesis rarely names a real setting; this sends every key typed JSON of any
    shape. A refusal is a 400 that writes nothing; an accepted change reads back as sent
    and every read that shows settings still works.

    (The Hypothesis test is built here rather than at module level so that collection
    mines no constants into ``.hypothesis`` before ``_hypothesis_home`` redirects it.)"""
    auth = {"Authorization": f"Bearer {token}"}
    app = create_app(home, port=8765)
    with TestClient(app, base_url=f"http://{HOST}", raise_server_exceptions=False) as http:

        @settings(FUZZ, max_examples=60)
        @given(changes=CHANGES)
        def change(changes: dict[str, Any]) -> None:
            before = http.get("/v1/settings").json()
            r = http.patch("/v1/settings", json=changes, headers=auth)
            assert r.status_code in (200, 400), (changes, r.status_code, r.text)
            after = http.get("/v1/settings")
            assert after.status_code == 200
            if r.status_code == 400:
                assert r.json()["error"]["code"] == "invalid_setting", r.text
                assert after.json() == before, "a refused batch writes nothing"
            else:
                assert after.json() == r.json()
                assert None not in after.json().values(), "every setting still has a value"
            for path in ("/v1/spend", "/settings", "/spend"):
                assert http.get(path).status_code == 200, (path, changes)

        change()

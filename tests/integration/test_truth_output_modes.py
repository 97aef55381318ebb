"""The truth check works the same whatever a lane's output mode (`llm set … --output`):
Tailor and Cover run directly (no Temporal) against the loopback fake in ``json`` mode
(a JSON-schema ``response_format``) and ``prompted`` mode (the schema in the instructions,
the answer's JSON in a Markdown fence): a lying resume is sent back once with its findings
and refused, a true resume and letter pass, and each answer is paid for once. And a stage
whose server refuses tools fails once, its row naming the flag to set."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import func, select

from jobctrl.app.lanes import set_lane
from jobctrl.domain.errors import PROVIDER_TOOLS_UNSUPPORTED, TAILOR_FABRICATION, StageError
from jobctrl.domain.truth.document import FabricationError
from jobctrl.stages import materials
from jobctrl.stages.context import StageContext
from jobctrl.stages.enrich import enrich
from jobctrl.stages.score import score
from jobctrl.store import jobs, schema, stage_states, tenancy, truth_checks
from tests.support.cited import LYING_RESUME, POSTING, TRUE_LETTER, TRUE_RESUME, is_repair
from tests.support.cited import scripted as scripted_answers
from tests.support.fake_openai import FakeOpenAI
from tests.support.http import Route


@pytest.fixture
def script() -> dict[str, dict]:
    return {"resume": TRUE_RESUME, "letter": TRUE_LETTER}


@pytest.fixture(params=["json", "prompted"])
def output(request) -> str:
    return request.param


@pytest.fixture
def provider(output, home, script, monkeypatch) -> Iterator[FakeOpenAI]:
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    with FakeOpenAI("ok", answer=scripted_answers(script), fence=output == "prompted") as server:
        for lane in ("tailor", "cover"):
            set_lane(home, lane, "openai", "gpt-4o-mini", server.base_url, "FAKE_KEY", output)
        yield server


@pytest.fixture
def ctx(home, store) -> Iterator[StageContext]:
    context = StageContext(home=home, store=store)
    yield context
    context.close()


@pytest.fixture
def job_id(ctx, store, site, fast_settings) -> str:
    fast_settings.set_value("min_fit_score", 0)
    job = jobs.create_job(store, site.add("/jobs/truth-modes", Route(body=POSTING)))
    enrich(ctx, job.job_id, "run-0")
    score(ctx, job.job_id, "run-0")
    return job.job_id


def _paid(store, lane: str) -> int:
    obs = schema.llm_usage_observations
    with store.read() as conn:
        return conn.execute(
            select(func.count())
            .select_from(obs)
            .where(tenancy.scoped(obs, conn), obs.c.lane == lane)
        ).scalar_one()


def test_a_lying_resume_is_refused_in_every_mode(ctx, store, job_id, script, provider) -> None:
    script["resume"] = LYING_RESUME
    with pytest.raises(FabricationError) as caught:
        materials.tailor(ctx, job_id, "run-1", None)
    error = caught.value
    assert error.code == TAILOR_FABRICATION and error.findings and error.repair_requested
    assert [is_repair(r) for r in provider.requests] == [False, True]
    assert all("tools" not in r for r in provider.requests), "no tool offered"
    check = truth_checks.latest(store, job_id)
    assert check is not None and check["passed"] is False
    assert _paid(store, "tailor") == 2, "the answer and its one repair, each paid once"


def test_a_true_resume_and_letter_pass_in_every_mode(ctx, store, job_id, provider, output) -> None:
    resume = materials.tailor(ctx, job_id, "run-1", None)
    letter = materials.cover(ctx, job_id, "run-1", None)
    assert resume.generation == 1 and letter.generation == 1
    check = truth_checks.latest(store, job_id)
    assert check is not None and check["passed"] is True and check["findings"] == []
    assert len(provider.requests) == 2 and all("tools" not in r for r in provider.requests)
    formats = [r.get("response_format", {}).get("type") for r in provider.requests]
    assert formats == (["json_schema"] * 2 if output == "json" else [None, None])
    assert (_paid(store, "tailor"), _paid(store, "cover")) == (1, 1)


def test_a_stage_whose_server_refuses_tools_fails_once_naming_the_flag(
    ctx, store, job_id, home, monkeypatch
) -> None:
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    with FakeOpenAI("ok", TRUE_RESUME, refuse_tools="ollama") as server:
        set_lane(home, "tailor", "openai", "gemma:2b", server.base_url, "FAKE_KEY")
        with pytest.raises(StageError) as caught:
            materials.tailor(ctx, job_id, "run-1", None)
        assert len(server.requests) == 1, "never a retry loop"
    assert caught.value.code == PROVIDER_TOOLS_UNSUPPORTED and caught.value.retryable is False
    row = {r["stage"]: r for r in stage_states.stage_rows(store, job_id)}["tailor"]
    assert (row["state"], row["error_code"], row["retryable"]) == (
        "failed",
        PROVIDER_TOOLS_UNSUPPORTED,
        False,
    )
    assert "does not support tool calls" in row["error_message"]
    assert "--output json" in row["error_message"] and "--output prompted" in row["error_message"]
    assert _paid(store, "tailor") == 0, "a refusal costs nothing"

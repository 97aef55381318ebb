"""An interrupted attempt's paid answer is reused by the next execution (a new run), not
paid again: run A got the provider's answer and died before the stage was marked done,
the row was settled ``STAGE_INTERRUPTED``, and run B (automatic recovery's retry) claims
it and finishes from A's answer. A refused answer (the truth check) is never reused, nor
an answer to a different request. Stages run in-process (no Temporal); the provider is
the loopback OpenAI-compatible fake."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import func, select, update

from jobctrl.app.lanes import set_lane
from jobctrl.config import LaneProvider
from jobctrl.domain.errors import STAGE_INTERRUPTED, TAILOR_FABRICATION, StageError
from jobctrl.domain.scoring import ScoreReport
from jobctrl.domain.truth.document import FabricationError
from jobctrl.llm.answers import ScoreAnswer
from jobctrl.llm.lanes import call_lane
from jobctrl.llm.spend import SpendAuthority
from jobctrl.stages import materials
from jobctrl.stages.context import StageContext
from jobctrl.stages.enrich import enrich
from jobctrl.stages.score import score
from jobctrl.store import jobs, provider_results, schema, stage_states, tenancy
from tests.support.cited import (
    LYING_RESUME,
    POSTING,
    TRUE_LETTER,
    TRUE_RESUME,
    is_repair,
    scripted,
)
from tests.support.fake_openai import SCORE_REPORT, FakeOpenAI
from tests.support.http import Route

OBS = schema.llm_usage_observations


class Killed(BaseException):
    """The worker dying: nothing of the attempt's own settles the row."""


def _observations(store) -> int:
    with store.read() as conn:
        return conn.execute(
            select(func.count()).select_from(OBS).where(tenancy.scoped(OBS, conn))
        ).scalar_one()


def _row(store, job_id: str, stage: str) -> dict:
    return {r["stage"]: r for r in stage_states.stage_rows(store, job_id)}[stage]


def _interrupt(store, job_id: str, stage: str, run_id: str) -> None:
    """What the reconciler / a run's recorded end does to a row its dead attempt held."""
    row = _row(store, job_id, stage)
    assert row["state"] == "running" and row["owner_run_id"] == run_id
    error = StageError(STAGE_INTERRUPTED, "the attempt ended without a result", retryable=True)
    stage_states.fail_stage(store, job_id, stage, run_id, row["attempts"], error)


@pytest.fixture
def ctx(home, store) -> Iterator[StageContext]:
    context = StageContext(home=home, store=store)
    yield context
    context.close()


@pytest.fixture
def job_id(ctx, store, site, fast_settings) -> str:
    fast_settings.set_value("min_fit_score", 0)
    job = jobs.create_job(store, site.add("/jobs/interrupted", Route(body=POSTING)))
    enrich(ctx, job.job_id, "run-0")
    return job.job_id


def test_score_killed_after_its_output_is_finished_by_the_next_run_from_it(
    ctx, home, store, job_id, monkeypatch
):
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    with FakeOpenAI("ok", SCORE_REPORT) as provider:
        set_lane(home, "score", "openai", "gpt-4o-mini", provider.base_url, "FAKE_KEY")

        def killed(*_args, **_kwargs):
            raise Killed

        with monkeypatch.context() as patch:
            patch.setattr(stage_states, "succeed_stage", killed)
            with pytest.raises(Killed):
                score(ctx, job_id, "run-A")
        assert len(provider.requests) == 1
        _interrupt(store, job_id, "score", "run-A")
        outcome = score(ctx, job_id, "run-B")
        assert len(provider.requests) == 1, "run B reused run A's answer: no second request"
    assert outcome.score == 81 and not outcome.reused
    assert _observations(store) == 1, "one usage record"
    row = _row(store, job_id, "score")
    assert (row["state"], row["owner_run_id"], row["attempts"]) == ("succeeded", "run-B", 2)
    assert provider_results.stored_output(store, f"score:{job_id}:run-B")["score"] == 81
    summary = SpendAuthority(store, ctx.settings).summary()
    assert summary["openReservations"]["count"] == 0 and summary["assumedCalls"] == 0


def _lanes(home, provider: FakeOpenAI) -> None:
    for lane in ("score", "tailor", "cover"):
        set_lane(home, lane, "openai", "gpt-4o-mini", provider.base_url, "FAKE_KEY")


def test_tailor_killed_before_parsing_is_parsed_by_the_next_run_not_paid_again(
    ctx, home, store, job_id, monkeypatch
):
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    score(ctx, job_id, "run-0")  # offline
    with FakeOpenAI("ok", answer=scripted({"resume": TRUE_RESUME, "letter": TRUE_LETTER})) as p:
        _lanes(home, p)

        def killed(*_args, **_kwargs):
            raise Killed

        with monkeypatch.context() as patch:  # dies after the answer+usage commit
            patch.setattr(provider_results, "save_output", killed)
            with pytest.raises(Killed):
                materials.tailor(ctx, job_id, "run-A", None)
        kept = provider_results.stored(store, f"tailor:{job_id}:run-A")
        assert kept is not None and kept.output is None and kept.prompt is not None
        _interrupt(store, job_id, "tailor", "run-A")
        outcome = materials.tailor(ctx, job_id, "run-B", None)
        assert len(p.requests) == 1, "parsed again from run A's answer, not asked again"
    assert outcome.generation == 1
    assert _observations(store) == 1
    assert _row(store, job_id, "tailor")["state"] == "succeeded"


def test_a_refused_answer_is_not_reused_by_the_next_run(ctx, home, store, job_id, monkeypatch):
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    score(ctx, job_id, "run-0")  # offline
    script = {"resume": LYING_RESUME, "letter": TRUE_LETTER}
    with FakeOpenAI("ok", answer=scripted(script)) as p:
        _lanes(home, p)
        with pytest.raises(FabricationError):
            materials.tailor(ctx, job_id, "run-A", None)
        assert _row(store, job_id, "tailor")["error_code"] == TAILOR_FABRICATION
        script["resume"] = TRUE_RESUME
        outcome = materials.tailor(ctx, job_id, "run-B", None)
        # run-A: the answer and its one repair request, both refused; run-B asks anew.
        assert [is_repair(r) for r in p.requests] == [False, True, False], (
            "the refused answer was asked again, not reused"
        )
    assert outcome.generation == 1
    assert _observations(store) == 3


def test_an_interrupted_answer_to_another_request_is_not_reused(store, settings, monkeypatch):
    """The digest of what was asked is kept with the answer: a prompt (profile, report,
    posting) or model that changed since the interrupted run asks again."""
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    spend = SpendAuthority(store, settings)

    def ask(lane: LaneProvider, run_id: str, prompt: str, earlier: str | None) -> ScoreReport:
        return call_lane(
            spend, "score", lane, job_id="job1", run_id=run_id, attempt=1,
            output_type=ScoreAnswer, system="s", prompt=lambda: prompt,
            offline=lambda: ScoreAnswer.model_validate(SCORE_REPORT), interrupted_run=earlier,
        )  # fmt: skip

    with FakeOpenAI("ok", SCORE_REPORT) as provider:
        lane = LaneProvider(
            provider="openai", model="gpt-4o-mini", base_url=provider.base_url,
            api_key_env="FAKE_KEY",
        )  # fmt: skip
        ask(lane, "run1", "profile v1", None)
        ask(lane, "run2", "profile v2", "run1")
        assert len(provider.requests) == 2, "another prompt: asked again"
        ask(lane, "run3", "profile v2", "run2")
        assert len(provider.requests) == 2, "the same request: reused"
        other = lane.model_copy(update={"model": "gpt-4o"})
        ask(other, "run4", "profile v2", "run3")
        assert len(provider.requests) == 3, "another model: asked again"
        # An answer kept before digests were (no digest) is never reused by another run.
        with store.write() as tx:
            tx.conn.execute(
                update(schema.provider_results)
                .where(
                    tenancy.scoped(schema.provider_results, tx.conn),
                    schema.provider_results.c.key == "score:job1:run4",
                )
                .values(response=None)
            )
        ask(other, "run5", "profile v2", "run4")
        assert len(provider.requests) == 4


def _killed_before_parsing(ctx, job_id: str, run_id: str, monkeypatch) -> None:
    """Run ``run_id`` gets Tailor's answer (usage and answer committed) and dies before
    it is parsed into an output."""

    def killed(*_args, **_kwargs):
        raise Killed

    with monkeypatch.context() as patch:
        patch.setattr(provider_results, "save_output", killed)
        with pytest.raises(Killed):
            materials.tailor(ctx, job_id, run_id, None)


def test_killed_twice_in_a_row_on_one_step_the_third_run_still_reuses_the_answer(
    ctx, home, store, job_id, monkeypatch
):
    """Run A got the answer and died before parsing it; run B died right after claiming
    (before it looked for A's answer); run C follows B, whose run kept nothing, and still
    finds A's answer to the same request."""
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    score(ctx, job_id, "run-0")  # offline
    with FakeOpenAI("ok", answer=scripted({"resume": TRUE_RESUME, "letter": TRUE_LETTER})) as p:
        _lanes(home, p)
        _killed_before_parsing(ctx, job_id, "run-A", monkeypatch)
        _interrupt(store, job_id, "tailor", "run-A")

        def killed(*_args, **_kwargs):
            raise Killed

        with monkeypatch.context() as patch:
            patch.setattr("jobctrl.llm.lanes.reuse_own", killed)
            with pytest.raises(Killed):
                materials.tailor(ctx, job_id, "run-B", None)
        _interrupt(store, job_id, "tailor", "run-B")
        outcome = materials.tailor(ctx, job_id, "run-C", None)
        assert len(p.requests) == 1, "run C parsed run A's answer: not asked again"
    assert outcome.generation == 1
    assert _observations(store) == 1
    assert _row(store, job_id, "tailor")["state"] == "succeeded"


def test_a_retried_interrupted_row_reuses_the_answer_and_a_regenerated_one_asks_anew(
    ctx, home, store, job_id, monkeypatch
):
    """`jobctrl retry` resets a row settled interrupted to pending (no owner left to
    follow): the new run still finds the unparsed answer. Once a run parsed an answer, a
    regenerate asks again."""
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    score(ctx, job_id, "run-0")  # offline
    with FakeOpenAI("ok", answer=scripted({"resume": TRUE_RESUME, "letter": TRUE_LETTER})) as p:
        _lanes(home, p)
        _killed_before_parsing(ctx, job_id, "run-A", monkeypatch)
        _interrupt(store, job_id, "tailor", "run-A")
        stage_states.reset_stages(store, job_id, ("tailor",), "retry")
        outcome = materials.tailor(ctx, job_id, "prepare-retry-run", None)
        assert len(p.requests) == 1, "the retry parsed run A's answer"
        assert outcome.generation == 1
        stage_states.reset_stages(store, job_id, ("tailor",), "regenerate")
        materials.tailor(ctx, job_id, "regenerate-run", None)
        assert len(p.requests) == 2, "a regenerate asks anew"
    assert _observations(store) == 2


def test_an_answer_paid_while_a_pause_refused_its_row_is_reused_after_resume(
    ctx, home, store, job_id, monkeypatch
):
    """Review finding: attempt 1 of run A is timed out mid-call and keeps running
    (shielded); the lane pauses and attempt 2 of A refuses the row (`automation_paused`);
    attempt 1's paid answer then arrives and is stored, its result refused. After
    `jobctrl resume`, run B must reuse that answer, not pay again."""
    from jobctrl.store import stage_control

    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    with FakeOpenAI("ok", SCORE_REPORT) as provider:
        set_lane(home, "score", "openai", "gpt-4o-mini", provider.base_url, "FAKE_KEY")

        def killed(*_args, **_kwargs):
            raise Killed  # attempt 1's result never lands (refused, timed out)

        with monkeypatch.context() as patch:
            patch.setattr(stage_states, "succeed_stage", killed)
            with pytest.raises(Killed):
                score(ctx, job_id, "run-A")
        # Attempt 2 of the same run, behind the pause: the row is refused.
        assert stage_control.refuse_paused(store, job_id, "score", "run-A", "provider_auth")
        assert _row(store, job_id, "score")["error_code"] == "automation_paused"
        outcome = score(ctx, job_id, "run-B")
        assert len(provider.requests) == 1, "run B reused run A's paid answer"
    assert outcome.score == 81
    assert _observations(store) == 1

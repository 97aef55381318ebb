"""Score: match the posting's requirements against the profile; persist report and score.

The provider call goes through the spend authority (preflight before the attempt, usage
recorded before the result is used). A score below ``min_fit_score`` marks the later
stages skipped with ``MIN_SCORE``; one below ``materials.cover_min_score`` marks Cover
skipped with ``COVER_ON_REQUEST`` (the letter is written when the person asks for it:
``app.materials.write_letter``).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from datetime import date

from jobctrl.config import LaneProvider, load_config
from jobctrl.domain.errors import (
    COVER_ON_REQUEST,
    MATERIALS_OFF,
    MIN_SCORE,
    SCORE_NO_DESCRIPTION,
    StageError,
)
from jobctrl.domain.events import JobScored
from jobctrl.domain.fit_verdict import rules_from, settle, settle_model_report
from jobctrl.domain.materials import MaterialKind
from jobctrl.domain.scoring import ScoreReport
from jobctrl.domain.stages import LATER_STAGES, Stage
from jobctrl.llm import lanes, prompts
from jobctrl.llm.answers import ScoreAnswer, to_report
from jobctrl.llm.offline import score_offline
from jobctrl.llm.providers import OfflineScoreProvider
from jobctrl.stages.context import StageContext
from jobctrl.stages.owned import run_owned
from jobctrl.store import artifacts, jobs, profiles, stage_states
from jobctrl.store import materials as stored


@dataclass(frozen=True)
class ScoreOutcome:
    score: int
    below_threshold: bool
    reused: bool = False


def score(
    ctx: StageContext,
    job_id: str,
    run_id: str,
    profile_version: int | None = None,
    *,
    materials: bool = True,
    paid: bool = False,
) -> ScoreOutcome:
    """Score the job; with ``materials`` off the later stages are skipped
    (``MATERIALS_OFF``) instead of left waiting for a Tailor that will not run.

    With a paid Score lane, the free offline scorer goes first: a job it places
    ``score.offline_margin`` points or more below ``min_fit_score`` keeps its offline
    report and is not sent to the model, unless ``paid`` (``jobctrl rescore --paid``)."""

    def reuse() -> ScoreOutcome:
        row = jobs.score_row(ctx.store, job_id)
        value = row["score"] if row else 0
        return ScoreOutcome(value, value < int(ctx.settings.get("min_fit_score")), reused=True)

    claims: list[stage_states.Claim] = []
    return run_owned(
        ctx,
        job_id,
        Stage.SCORE,
        run_id,
        work=lambda attempt: _score_owned(
            ctx,
            job_id,
            run_id,
            attempt,
            profile_version,
            materials,
            claims[-1].interrupted_run,
            paid=paid,
        ),
        reuse=reuse,
        claimed=claims.append,
    )


def _score_owned(
    ctx: StageContext,
    job_id: str,
    run_id: str,
    attempt: int,
    profile_version: int | None,
    materials: bool,
    interrupted_run: str | None,
    *,
    paid: bool,
) -> ScoreOutcome:
    job = jobs.job_row(ctx.store, job_id)
    if not job["text_artifact"]:
        raise StageError(SCORE_NO_DESCRIPTION, "the posting has no extracted description")
    description = ctx.store.artifacts.get(job["text_artifact"]).decode("utf-8")
    config = load_config(ctx.home)
    # Admitted work keeps the profile version it started with, whatever config.yaml says now.
    if profile_version is not None:
        profile = profiles.load_version(ctx.store, profile_version)
    else:  # an input from before versions were frozen: config.yaml's, recorded as used
        profile = config.profile
        profile_version = profiles.version_of(ctx.store, profile)
    values = ctx.settings.all()
    rules = rules_from(values)
    offline_provider = OfflineScoreProvider(
        latency_seconds=int(values["providers.offline.latency_ms"]) / 1000,
        heartbeat=ctx.heartbeat,
        rules=rules,
    )
    lane = lanes.lane_provider(ctx.home, "score")
    offline_report = functools.cache(
        lambda: offline_provider.score(job["title"], description, profile)[0]
    )
    request = functools.cache(
        lambda: prompts.lane_request(
            "score", title=job["title"], company=job["company"], description=description,
            profile=profile,
        )
    )  # fmt: skip
    if lane.provider != "offline" and not paid:
        # Free first: a paid lane only where it counts (and never where its answer to
        # this very request is already paid for: that one is reused for nothing).
        pre = score_offline(job["title"], description, profile, rules=rules)
        # A rough estimate (no requirement list the free scorer could read) is no reason
        # to keep the model away: it may find the requirements in the prose.
        far_below = bool(pre.requirements) and settle(pre, rules).score <= (
            rules.min_fit_score - int(values["score.offline_margin"])
        )
        if far_below and not lanes.answered_before(
            ctx.spend, "score", lane, job_id=job_id, system=prompts.SCORE_SYSTEM,
            prompt=request().prompt, output_type=ScoreAnswer,
        ):  # fmt: skip
            lane = LaneProvider()  # the free report stands, saying why
            offline_report = functools.cache(lambda: _unpaid(pre))
    answer = lanes.call_lane(
        ctx.spend,
        "score",
        lane,
        job_id=job_id,
        run_id=run_id,
        attempt=attempt,
        output_type=ScoreAnswer,
        system=prompts.SCORE_SYSTEM,
        prompt=lambda: request().prompt,
        keep_alive=ctx.keep_alive,
        heartbeat=ctx.heartbeat,  # while it waits for its turn at the provider
        offline=offline_report,
        interrupted_run=interrupted_run,  # its answer to the same request is reused
        same_request=True,  # a (profile, posting) pair scored already is not paid again
    )
    # The verdict is decided by code from the report, whoever scored (a model's own overall
    # score and verdict are not trusted over its requirement-by-requirement answers; the
    # posting's level and family are weighed by code, as the offline scorer does).
    if isinstance(answer, ScoreAnswer):  # a model's: its cited facts become the evidence
        report = to_report(answer, profile, provider=lane.provider, model=lane.model)
        report = settle_model_report(
            report, rules, title=job["title"], description=description, profile=profile,
            today=date.today(),
        )  # fmt: skip
    else:
        report = settle(answer, rules)
    report_json = report.model_dump(mode="json")
    report_bytes = json.dumps(report_json, sort_keys=True).encode()
    report_sha = ctx.store.artifacts.put(report_bytes)
    below = report.score < rules.min_fit_score
    with ctx.store.write(clock=ctx.clock) as tx:
        artifacts.record(tx, report_sha, "score_report", "application/json", len(report_bytes))
        stage_states.succeed_stage(tx, job_id, Stage.SCORE, run_id, attempt)
        jobs.save_score(
            tx,
            job_id,
            run_id,
            score=report.score,
            verdict=report.verdict,
            provider=report.provider,
            model=report.model,
            report=report_json,
            report_artifact=report_sha,
            profile_version=profile_version,
        )
        tx.append(
            JobScored(
                job_id=job_id,
                score=report.score,
                verdict=report.verdict,
                provider=report.provider,
                model=report.model,
                requirements_total=len(report.requirements),
                requirements_matched=sum(1 for r in report.requirements if r.matched),
                report_artifact=report_sha,
                profile_version=profile_version,
            ),
            key=f"job-scored:{job_id}:{run_id}:{attempt}",
        )
        occasion = f"{run_id}:{attempt}"  # a rescore may skip a stage again, or revive it
        if below:
            for stage in LATER_STAGES:
                stage_states.skip_stage(tx, job_id, stage, MIN_SCORE, occasion=occasion)
            return ScoreOutcome(report.score, below)
        # A rescore that newly reaches min_fit_score: what the old score skipped may run.
        stage_states.revive_skipped(tx, job_id, LATER_STAGES, MIN_SCORE)
        if not materials:
            stage_states.skip_pending(tx, job_id, LATER_STAGES, MATERIALS_OFF, occasion=occasion)
            return ScoreOutcome(report.score, below)
        # The letter on its own only at materials.cover_min_score; below it, when asked.
        # A job that has a letter (written by itself, or asked for) keeps getting one.
        bar = max(rules.min_fit_score, int(values["materials.cover_min_score"]))
        lettered = stored.next_generation(tx.conn, job_id, MaterialKind.COVER) > 1
        if report.score >= bar or lettered:
            stage_states.revive_skipped(tx, job_id, (Stage.COVER,), COVER_ON_REQUEST)
        else:
            stage_states.skip_pending(
                tx, job_id, (Stage.COVER,), COVER_ON_REQUEST, occasion=occasion
            )
        stage_states.await_stages(
            tx, job_id, LATER_STAGES, key=f"stages-pending:{job_id}:{run_id}:{attempt}"
        )
    return ScoreOutcome(report.score, below)


UNPAID_NOTE = (
    "Scored for free only: when it was scored, this job was far below your minimum fit "
    "score, so no paid model was asked (`jobctrl rescore JOB --paid` asks it)."
)


def _unpaid(report: ScoreReport) -> ScoreReport:
    """The free scorer's report kept in place of a paid lane's, with the reason."""
    summary = f"{UNPAID_NOTE} {report.summary}".strip()
    return report.model_copy(update={"summary": summary})

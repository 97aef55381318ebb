"""Rescore: Score jobs again on the current profile (`jobctrl rescore`, the Jobs page's
"Rescore stale jobs", ``POST /v1/rescore``).

Each job chosen is scored again through the normal durable path: its Score row (and,
when its materials were written for another profile and none is approved, Tailor,
Cover and PDF) goes back to pending and a JobPreparationWorkflow starts under
``prepare-rescore-<tenant>-score-<24 hex>`` (one per job and observed score state: a
repeated request joins it), admitted under the current profile version. The stage rows
are fenced on that run, every paid attempt passes the spend authority, and a lane that
stop-loss paused or a spent budget refuses the rescore before anything changes. Score
itself revives Tailor, Cover and PDF when the job newly reaches ``min_fit_score``;
approved materials are never replaced (a new draft waits for the person). A posting
already scored against this profile version (the same request to the same model) is
not paid for again (``llm.reuse``).

``dry_run`` changes nothing: per job the old score, the new one by the offline scorer
(free), and, when the score lane is a paid model, what scoring it for real would cost
at most (the spend authority's reservation; nothing for a request answered before),
against today's remaining budget.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Literal

from jobctrl.app.models import View
from jobctrl.app.staleness import stale_job_ids
from jobctrl.config import LaneProvider, load_config
from jobctrl.domain import ids
from jobctrl.domain.errors import AUTOMATION_PAUSED, INVALID_INPUT, JobctrlError
from jobctrl.domain.executions import WorkflowType
from jobctrl.domain.fit_verdict import rules_from
from jobctrl.domain.stages import LATER_STAGES, Stage, StageState
from jobctrl.domain.stop_loss import LANE
from jobctrl.home import Home
from jobctrl.llm import lanes, prompts
from jobctrl.llm.answers import ScoreAnswer
from jobctrl.llm.offline import score_offline
from jobctrl.llm.prices import worst_case_cost_usd
from jobctrl.llm.reuse import request_digest
from jobctrl.llm.spend import SpendAuthority
from jobctrl.store import (
    jobs,
    profiles,
    provider_results,
    stage_states,
    staleness,
    stop_loss,
    workflow_runs,
)
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store

__all__ = [
    "RescoreJob",
    "RescoreResult",
    "RescoreStatus",
    "Scope",
    "plan_rescore",
    "rescore",
    "rescore_status",
    "wait_for_rescore",
]

Scope = Literal["stale", "all", "jobs"]
RESCORE_PREFIX = "prepare-rescore-"
# Why a job chosen is not scored again (``RescoreJob.skipped``).
NOT_SCORED = "not_scored"  # never scored: its preparation scores it on the current profile
BUSY = "busy"  # a stage of it runs, or automatic recovery holds it
NO_DESCRIPTION = "no_description"  # nothing to score: Enrich read no posting text
START_CONCURRENCY = 8  # jobs started at once (each: a reset, a start, its record)


class RescoreJob(View):
    """One job of a rescore: its score before, the new one (a dry run: the offline
    scorer's), whether its materials are written again or approved ones kept, what a
    paid score lane would cost for it (a dry run; 0: answered before), and the run that
    scores it (None: ``skipped`` says why, or a dry run)."""

    job_id: str
    title: str | None
    company: str | None
    old_score: int | None
    new_score: int | None
    scored_profile_version: int | None
    regenerate_materials: bool
    approved_materials_kept: bool
    estimated_cost_usd: float | None
    skipped: str | None
    workflow_id: str | None
    run_id: str | None


class RescoreResult(View):
    """A rescore: the profile version it scores against, the score lane, each job, how
    many start, and (a dry run with a paid lane) the cost at most against today's
    remaining budget (None: no daily budget)."""

    profile_version: int
    dry_run: bool
    provider: str
    model: str
    paid: bool
    jobs: list[RescoreJob]
    rescoring: int
    skipped: int
    estimated_cost_usd: float | None
    remaining_budget_usd: float | None


class RescoreStatus(View):
    """What the Jobs page shows: stale jobs now, and rescore runs still open."""

    stale: int
    running: int


@dataclass(frozen=True)
class _Chosen:
    job_id: str
    job: dict[str, Any]
    score: dict[str, Any] | None
    versions: staleness.JobVersions
    stages: list[dict[str, Any]]


def _choose(home: Home, store: Store, refs: list[str], scope: Scope) -> list[_Chosen]:
    if scope == "jobs":
        if not refs:
            raise JobctrlError(
                "name the jobs to rescore, or say --stale or --all", code=INVALID_INPUT
            )
        job_ids = list(dict.fromkeys(jobs.resolve_job_id(store, r) for r in refs))
    elif scope == "all":
        job_ids = sorted(j for j, v in staleness.versions(store).items() if v.scored is not None)
    else:
        job_ids = stale_job_ids(home, store)
    found = staleness.versions(store, job_ids)
    return [
        _Chosen(
            job_id,
            jobs.job_row(store, job_id),
            jobs.score_row(store, job_id),
            found.get(job_id, staleness.JobVersions()),
            stage_states.stage_rows(store, job_id),
        )
        for job_id in job_ids
    ]


def _skip_reason(chosen: _Chosen) -> str | None:
    if chosen.score is None:
        return NOT_SCORED
    if not chosen.job["text_artifact"]:
        return NO_DESCRIPTION
    if any(r["state"] == StageState.RUNNING or r["reserved_by"] for r in chosen.stages):
        return BUSY
    return None


def _lane(home: Home) -> LaneProvider:
    return lanes.lane_provider(home, "score")


def _cost(store: Store, lane: LaneProvider, chosen: _Chosen, prompt: str) -> float:
    """At most what scoring ``chosen`` for real costs: nothing when the same request was
    answered before (it is reused), else the spend authority's reservation."""
    asked = request_digest(lane, prompts.SCORE_SYSTEM, prompt, ScoreAnswer)
    if provider_results.answered(store, "score", chosen.job_id, asked) is not None:
        return 0.0
    tokens = lanes.estimate_tokens(prompts.SCORE_SYSTEM + prompt)
    out = lanes.MAX_OUTPUT_TOKENS["score"]
    return worst_case_cost_usd(lane.provider, lane.model, tokens, out, base_url=lane.base_url)


def _item(chosen: _Chosen, current: int, skipped: str | None, **values: Any) -> RescoreJob:
    versions = chosen.versions
    return RescoreJob(
        job_id=chosen.job_id,
        title=chosen.job["title"],
        company=chosen.job["company"],
        old_score=chosen.score["score"] if chosen.score else None,
        new_score=values.pop("new_score", None),
        scored_profile_version=versions.scored,
        regenerate_materials=skipped is None and versions.regenerates_materials(current),
        approved_materials_kept=bool(versions.materials and versions.materials.approved),
        estimated_cost_usd=values.pop("estimated_cost_usd", None),
        skipped=skipped,
        workflow_id=values.pop("workflow_id", None),
        run_id=values.pop("run_id", None),
    )


def _remaining(store: Store) -> float | None:
    remaining = SpendAuthority(store, Settings(store)).summary()["remainingUsd"]
    return None if remaining is None else float(remaining)


def plan_rescore(
    home: Home, refs: list[str], scope: Scope, *, paid_score: bool = False
) -> RescoreResult:
    """The dry run: what a rescore would do, the offline scorer's new scores and, for a
    paid score lane, its cost at most (nothing for a job the free scorer places far below
    min_fit_score, which the model is not asked about unless ``paid_score``). Changes
    nothing (not even a profile version)."""
    store = Store.open(home)
    profile = load_config(home).profile
    current = profiles.known_version(store, profile)
    lane = _lane(home)
    paid = lane.provider != "offline"
    values = Settings(store).all()
    rules = rules_from(values)
    far_below = rules.min_fit_score - int(values["score.offline_margin"])
    items = []
    for chosen in _choose(home, store, refs, scope):
        skipped = _skip_reason(chosen)
        if skipped is not None:
            items.append(_item(chosen, current or 0, skipped))
            continue
        title, description = _posting(store, chosen)
        new = score_offline(title, description, profile, rules=rules).score
        if new <= far_below and not paid_score:
            cost = 0.0  # the free report stands (stages/score.py)
        else:
            cost = _cost(store, lane, chosen, prompts.score_prompt(title, description, profile))
        items.append(
            _item(
                chosen, current or 0, None, new_score=new, estimated_cost_usd=cost if paid else None
            )
        )
    return _result(store, current or 0, lane, items, dry_run=True)


def _posting(store: Store, chosen: _Chosen) -> tuple[str | None, str]:
    text = store.artifacts.get(chosen.job["text_artifact"]).decode("utf-8")
    return chosen.job["title"], text


def _result(
    store: Store, version: int, lane: LaneProvider, items: list[RescoreJob], *, dry_run: bool
) -> RescoreResult:
    paid = lane.provider != "offline"
    costs = [i.estimated_cost_usd for i in items if i.estimated_cost_usd is not None]
    return RescoreResult(
        profile_version=version,
        dry_run=dry_run,
        provider=lane.provider,
        model=lane.model,
        paid=paid,
        jobs=items,
        rescoring=sum(1 for i in items if i.skipped is None),
        skipped=sum(1 for i in items if i.skipped is not None),
        estimated_cost_usd=round(sum(costs), 6) if dry_run and paid else None,
        remaining_budget_usd=_remaining(store) if dry_run and paid else None,
    )


def _refuse_when_stopped(store: Store) -> None:
    """A score lane stop-loss paused, or a spent budget, refuses before anything changes."""
    code = stop_loss.is_paused(store, LANE, Stage.SCORE.value)
    if code is not None:
        raise JobctrlError(
            f"the score lane is paused by stop-loss ({code}): fix the cause, then "
            "`jobctrl resume score`",
            code=AUTOMATION_PAUSED,
        )
    SpendAuthority(store, Settings(store)).preflight("score")  # budget_exceeded


def _writes_materials(chosen: _Chosen, regenerate: bool, setting: bool) -> bool:
    """Whether the run may write materials: when they are to be written again, or when
    no material stage of the job ran yet (pending, or skipped by the old score: the new
    one may reach ``min_fit_score``); never a Tailor that failed or materials that stand."""
    if not setting:
        return False
    if regenerate:
        return True
    later = {r["stage"]: r for r in chosen.stages if r["stage"] in set(LATER_STAGES)}
    return all(
        r["state"] == StageState.PENDING or r["state"] == StageState.SKIPPED for r in later.values()
    )


async def rescore(
    home: Home, refs: list[str], scope: Scope, *, paid: bool = False
) -> RescoreResult:
    """Start scoring the chosen jobs again on the current profile (see the module's
    docstring); the runs started, and each job skipped with why. With ``paid`` a paid
    Score lane is asked even for a job the free offline scorer places far below
    min_fit_score (setting ``score.offline_margin``). Without a worker this raises
    ``worker_runtime_unavailable`` and changes nothing."""
    # Temporal only here: reads import this module's neighbours (issue 26)
    from jobctrl.app import runtime
    from jobctrl.workflows import starts

    store = Store.open(home)
    chosen = await asyncio.to_thread(_choose, home, store, refs, scope)
    todo = [c for c in chosen if _skip_reason(c) is None]
    if todo:
        await asyncio.to_thread(_refuse_when_stopped, store)
    client = await runtime.ready_client(home) if todo else None
    defaults = await asyncio.to_thread(starts.prep_defaults, home, store)
    current = defaults.profile_version
    gate = asyncio.Semaphore(START_CONCURRENCY)

    async def one(c: _Chosen) -> RescoreJob:
        skipped = _skip_reason(c)
        if skipped is not None or client is None:
            return _item(c, current, skipped)
        async with gate:
            if any(r["state"] == StageState.PENDING for r in c.stages):
                # Waiting stages may be a running preparation's next: never a second one.
                prep = ids.prep_workflow_id(c.job["idempotency_key"], store.tenant)
                others = await asyncio.to_thread(workflow_runs.preparation_ids, store, c.job_id)
                if await starts.any_running(client, [prep, *others]):
                    return _item(c, current, BUSY)
            regenerate = c.versions.regenerates_materials(current)
            score_row = next(r for r in c.stages if r["stage"] == Stage.SCORE.value)
            occasion = f"v{current}:{score_row['updated_at'].isoformat()}"
            workflow_id = ids.stage_workflow_id(
                ids.RESCORE_KIND, Stage.SCORE.value, c.job_id, occasion, store.tenant
            )
            later = tuple(s.value for s in LATER_STAGES) if regenerate else ()
            await asyncio.to_thread(
                stage_states.reset_stages, store, c.job_id, (Stage.SCORE.value, *later), "rescore"
            )
            started = await starts.start_preparation_execution(
                client,
                c.job_id,
                c.job["idempotency_key"],
                defaults,
                workflow_id=workflow_id,
                materials=_writes_materials(c, regenerate, defaults.materials),
                paid_score=paid,
            )
            await asyncio.to_thread(
                workflow_runs.record_workflow_started,
                store,
                workflow_id=started.workflow_id,
                run_id=started.run_id,
                workflow_type=WorkflowType.PREPARATION.value,
                job_id=c.job_id,
            )
        return _item(c, current, None, workflow_id=started.workflow_id, run_id=started.run_id)

    items = list(await asyncio.gather(*(one(c) for c in chosen)))
    lane = _lane(home)
    return _result(store, current, lane, items, dry_run=False)


async def wait_for_rescore(home: Home, result: RescoreResult, timeout: float) -> RescoreResult:
    """``result`` once every run it started has closed, with each job's new score."""
    # Temporal only here (see rescore)
    from jobctrl.app import runtime
    from jobctrl.workflows import starts

    runs = [
        starts.Started(j.workflow_id, j.run_id) for j in result.jobs if j.workflow_id and j.run_id
    ]
    if runs:
        client = await runtime.client_for(home)
        await asyncio.gather(
            *(
                starts.wait_for_result(
                    client,
                    run,
                    timeout,
                    still_running=f"the rescore is still running after {timeout:.0f} s; "
                    "`jobctrl jobs` shows where each job is",
                )
                for run in runs
            )
        )
    store = Store.open(home)
    jobs_now = []
    for job in result.jobs:
        row = jobs.score_row(store, job.job_id) if job.workflow_id else None
        if row is not None and row["owner_run_id"] == job.run_id:  # scored by this run
            job = job.model_copy(update={"new_score": row["score"]})
        jobs_now.append(job)
    return result.model_copy(update={"jobs": jobs_now})


def rescore_status(home: Home) -> RescoreStatus:
    """How many jobs are stale now, and how many rescore runs the store holds open."""
    store = Store.open(home)
    running = [
        r for r in workflow_runs.open_runs(store) if r["workflow_id"].startswith(RESCORE_PREFIX)
    ]
    return RescoreStatus(stale=len(stale_job_ids(home, store)), running=len(running))

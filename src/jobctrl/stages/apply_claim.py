"""The apply workflow's work: claim jobs, then prepare each claimed job's application.

``claim_jobs`` runs the spend preflight on the ``apply`` lane first (a spent budget stops
the workflow with ``budget_exceeded`` before anything is claimed), reads
``min_fit_score``, ``apply_approval_required`` and ``apply_concurrency`` now (a change
applies to the next claim), and claims one named job or, for the standing loop, up to
``apply_concurrency`` of the best-fit eligible jobs, each in a write transaction of its
own. ``prepare_claimed`` writes the draft (``stages.apply_prepare``) fenced on the claim
still being live. Neither sends nor submits anything.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from jobctrl.domain.applications import ApplicationStatus
from jobctrl.domain.apply_loop import APPLY_LANE
from jobctrl.domain.errors import (
    OWNERSHIP_LOST,
    DatabaseBusyError,
    JobctrlError,
)
from jobctrl.stages import apply_prepare
from jobctrl.stages.context import StageContext
from jobctrl.store import apply_claims, jobs

__all__ = ["ClaimBatch", "Prepared", "claim_jobs", "fail_claimed", "prepare_claimed"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ClaimBatch:
    """The claims one poll made (claim id, job id); the jobs passed over, by code; for a
    named job, why it was refused or that it is prepared already (its status); and the
    standing loop's pause between polls as the settings say now."""

    claims: list[tuple[str, str]] = field(default_factory=list)
    parked: dict[str, int] = field(default_factory=dict)
    refused: str | None = None
    already: str | None = None
    poll_seconds: float = 30.0


@dataclass(frozen=True)
class Prepared:
    job_id: str
    application_id: str | None
    channel: str | None
    status: str  # the application's status: draft (waiting for the person), or failed
    error_code: str | None = None


def claim_jobs(
    ctx: StageContext, *, workflow_id: str, run_id: str, job_id: str | None = None
) -> ClaimBatch:
    """Preflight, then claim ``job_id`` or (None) the standing loop's next jobs."""
    ctx.spend.preflight(APPLY_LANE)
    values = ctx.settings.all()
    min_score = int(values["min_fit_score"])
    required = bool(values["apply_approval_required"])
    poll = float(values["apply_poll_seconds"])
    if job_id is not None:
        outcome = apply_claims.claim(
            ctx.store,
            job_id,
            workflow_id=workflow_id,
            run_id=run_id,
            min_fit_score=min_score,
            approval_required=required,
            clock=ctx.clock,
        )
        claims = [(outcome.claim_id, job_id)] if outcome.claim_id else []
        return ClaimBatch(claims, {}, outcome.code, outcome.already, poll)
    found = apply_claims.candidates(
        ctx.store,
        ctx.now(),
        min_fit_score=min_score,
        approval_required=required,
        limit=int(values["apply_concurrency"]),
    )
    parked = dict(found.parked)
    claims = []
    for candidate in found.job_ids:
        try:
            outcome = apply_claims.claim(
                ctx.store,
                candidate,
                workflow_id=workflow_id,
                run_id=run_id,
                min_fit_score=min_score,
                approval_required=required,
                clock=ctx.clock,
            )
        except JobctrlError as exc:  # another claim got in first (the unique index)
            outcome = apply_claims.ClaimOutcome(candidate, code=exc.code)
        if outcome.claim_id:
            claims.append((outcome.claim_id, candidate))
        elif outcome.code:  # changed since it was selected: passed over, counted
            parked[outcome.code] = parked.get(outcome.code, 0) + 1
    return ClaimBatch(claims, parked, None, None, poll)


def prepare_claimed(ctx: StageContext, claim_id: str) -> Prepared:
    """Prepare the claimed job's application: the draft email (waiting for the person's
    approval) or the form (waiting for them to prefill it with `jobctrl apply JOB
    --browser` and submit it). A refusal is recorded on the job's application with its
    code and returned; a lost claim (``OWNERSHIP_LOST``), a busy database or anything
    unforeseen is raised (the activity records the last with ``fail_claimed``)."""
    store = ctx.store
    row = apply_claims.get(store, claim_id)
    if row is None:
        raise JobctrlError(f"no claim {claim_id}", code=OWNERSHIP_LOST)
    job_id = row["job_id"]
    try:
        draft = apply_prepare.draft_for(ctx.home, store, job_id)
        with store.write(clock=ctx.clock) as tx:
            apply_claims.require_live(tx, claim_id)
            current = apply_claims.application_of(tx, job_id)
            if current is not None and current["channel"]:  # prepared meanwhile by the person
                apply_claims.ready(tx, claim_id, current["id"])
                app = current
            else:
                app = apply_prepare.write_draft(tx, draft)
                apply_claims.ready(tx, claim_id, app["id"])
        return Prepared(job_id, app["id"], app["channel"], app["status"])
    except DatabaseBusyError:
        raise
    except JobctrlError as exc:
        if exc.code == OWNERSHIP_LOST:
            raise
        log.warning("apply: preparing job %s failed: %s", job_id, exc.code)
        return fail_claimed(ctx, claim_id, exc.code)


def fail_claimed(ctx: StageContext, claim_id: str, code: str) -> Prepared:
    """Record that preparing under the claim failed with ``code`` (on the claim, and on
    the job's application unless it was prepared or used meanwhile)."""
    row = apply_claims.get(ctx.store, claim_id)
    if row is None:
        raise JobctrlError(f"no claim {claim_id}", code=OWNERSHIP_LOST)
    job_id = row["job_id"]
    job = jobs.job_row(ctx.store, job_id)
    with ctx.store.write(clock=ctx.clock) as tx:
        app_id = apply_claims.fail(
            tx, claim_id, code, company=job.get("company"), role=job.get("title")
        )
    return Prepared(job_id, app_id, None, ApplicationStatus.FAILED.value, code)

"""The apply workflow's claims on jobs: which jobs it may take, the claim itself (one write
transaction that refuses a job with a live attempt or claim), and its end.

A claim is live (``claimed``) until its workflow has prepared the application (``ready``),
failed to (``failed``: the code on the application, a pause before the job is taken again)
or let it go (``released``: cancelled, or its lease ran out). Rules: ``domain.apply_loop``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, and_, exists, func, select, update
from sqlalchemy.exc import IntegrityError

from jobctrl.domain import events as ev
from jobctrl.domain.applications import LIVE_ATTEMPT_STATES, ApplicationStatus
from jobctrl.domain.apply_loop import (
    CLAIM_LEASE,
    ClaimFacts,
    ClaimState,
    claim_refusal,
    claim_retry_at,
    new_claim_id,
)
from jobctrl.domain.availability import Availability
from jobctrl.domain.clock import Clock, as_utc
from jobctrl.domain.errors import (
    APPLY_ATTEMPT_LIVE,
    JOB_NOT_FOUND,
    OWNERSHIP_LOST,
    JobctrlError,
    NotFoundError,
)
from jobctrl.domain.materials import MaterialKind, MaterialState
from jobctrl.store import applications, hidden, schema, stage_states, tenancy
from jobctrl.store.application_tables import applications as A
from jobctrl.store.application_tables import apply_attempts as T
from jobctrl.store.application_tables import apply_claims as C
from jobctrl.store.store import Store, WriteTx

__all__ = [
    "Candidates",
    "ClaimOutcome",
    "application_of",
    "candidates",
    "claim",
    "claims_of_run",
    "facts",
    "facts_of",
    "fail",
    "get",
    "ready",
    "release_run",
    "require_live",
    "state_counts",
]

M = schema.materials
S = schema.job_scores
J = schema.jobs


@dataclass(frozen=True)
class ClaimOutcome:
    """A claim made (``claim_id``), refused (``code``), or not needed (``already``: the
    status of the job's application, prepared already)."""

    job_id: str
    claim_id: str | None = None
    code: str | None = None
    already: str | None = None


@dataclass
class Candidates:
    """Jobs a poll may claim, best fit first, and how many were passed over, by code."""

    job_ids: list[str] = field(default_factory=list)
    parked: dict[str, int] = field(default_factory=dict)


def _live(now: datetime) -> Any:
    return and_(C.c.state == ClaimState.CLAIMED.value, C.c.lease_until > as_utc(now))


def facts(conn: Connection, job_id: str, now: datetime) -> ClaimFacts | None:
    """What a claim of ``job_id`` decides on (None: no such job)."""
    return facts_of(conn, [job_id], now).get(job_id)


def facts_of(conn: Connection, job_ids: list[str], now: datetime) -> dict[str, ClaimFacts]:
    """``facts`` of many jobs in a few queries (a poll looks at every waiting job)."""
    found: dict[str, ClaimFacts] = {}
    for start in range(0, len(job_ids), _CHUNK):
        found.update(_facts_chunk(conn, job_ids[start : start + _CHUNK], now))
    return found


_CHUNK = 500  # ids per IN (...) list


def _facts_chunk(conn: Connection, job_ids: list[str], now: datetime) -> dict[str, ClaimFacts]:
    closed = {
        row.id: row.availability == Availability.UNAVAILABLE  # as stage_states.posting_closed_in
        for row in conn.execute(
            select(J.c.id, J.c.availability).where(tenancy.keyed(J, conn), J.c.id.in_(job_ids))
        )
    }
    scores = dict(
        conn.execute(
            select(S.c.job_id, S.c.score).where(tenancy.scoped(S, conn), S.c.job_id.in_(job_ids))
        ).all()
    )
    newest: dict[tuple[str, str], Any] = {}
    approved: set[str] = set()
    for row in conn.execute(
        select(M.c.job_id, M.c.kind, M.c.generation, M.c.state, M.c.pdf_artifact).where(
            tenancy.scoped(M, conn), M.c.job_id.in_(job_ids)
        )
    ):
        key = (row.job_id, row.kind)
        if key not in newest or row.generation > newest[key].generation:
            newest[key] = row
        resume = row.kind == MaterialKind.RESUME and row.pdf_artifact
        if resume and row.state == MaterialState.APPROVED:
            approved.add(row.job_id)
    undecided = {job for (job, _), row in newest.items() if row.state == MaterialState.DRAFT}
    apps = {
        row.job_id: row
        for row in conn.execute(
            select(A.c.id, A.c.job_id, A.c.status, A.c.channel).where(
                tenancy.keyed(A, conn), A.c.job_id.in_(job_ids)
            )
        )
    }
    live_apps = set(
        conn.execute(
            select(T.c.application_id).where(
                tenancy.scoped(T, conn),
                T.c.application_id.in_([a.id for a in apps.values()]),
                T.c.state.in_([s.value for s in LIVE_ATTEMPT_STATES]),
            )
        ).scalars()
    )
    claimed = set(
        conn.execute(
            select(C.c.job_id).where(tenancy.scoped(C, conn), C.c.job_id.in_(job_ids), _live(now))
        ).scalars()
    )
    writing, result = stage_states.materials_being_written(conn, job_ids), {}
    for job_id, is_closed in closed.items():
        app = apps.get(job_id)
        score = scores.get(job_id)
        result[job_id] = ClaimFacts(
            score=None if score is None else int(score),
            resume_approved=job_id in approved,
            undecided=job_id in undecided,
            posting_closed=is_closed,
            application_status=app.status if app else None,
            prepared=bool(app and app.channel),
            live_attempt=bool(app and app.id in live_apps),
            live_claim=job_id in claimed,
            writing=job_id in writing,
        )
    return result


def candidates(
    store: Store, now: datetime, *, min_fit_score: int, approval_required: bool, limit: int
) -> Candidates:
    """Up to ``limit`` jobs a poll may claim now, best fit first. It looks at jobs with a
    rendered resume, no application prepared yet, no live claim and not waiting after a
    failed preparation; those the claim would refuse (materials awaiting approval, a
    score below the bar, a closed posting ...) are counted by code, not taken."""
    found = Candidates()
    with store.read() as conn:
        job_ids = [str(job_id) for job_id, _ in conn.execute(_candidates(conn, now)).all()]
        known = facts_of(conn, job_ids, now)
    for job_id in job_ids:
        code = claim_refusal(
            known[job_id], min_fit_score=min_fit_score, approval_required=approval_required
        )
        if code:
            found.parked[code] = found.parked.get(code, 0) + 1
        elif len(found.job_ids) < limit:
            found.job_ids.append(job_id)
    return found


def _candidates(conn: Connection, now: datetime) -> Any:
    """The tenant's jobs not hidden, with a rendered resume, no prepared application, no
    live claim and not waiting after a failed one (job ids, scores), best fit first."""
    mine = tenancy.scoped(C, conn)
    latest = (
        select(C.c.job_id, func.max(C.c.claimed_at).label("at"))
        .where(mine)
        .group_by(C.c.job_id)
        .subquery()
    )
    waiting = exists().where(
        mine,
        C.c.job_id == J.c.id,
        C.c.job_id == latest.c.job_id,
        C.c.claimed_at == latest.c.at,
        C.c.state == ClaimState.FAILED.value,
        C.c.retry_at > as_utc(now),
    )
    rendered = exists().where(
        tenancy.scoped(M, conn),
        M.c.job_id == J.c.id,
        M.c.kind == MaterialKind.RESUME.value,
        M.c.pdf_artifact.is_not(None),
    )
    prepared = exists().where(
        tenancy.scoped(A, conn), A.c.job_id == J.c.id, A.c.channel.is_not(None)
    )
    live, shown = exists().where(mine, C.c.job_id == J.c.id, _live(now)), hidden.not_hidden(conn)
    return (
        select(J.c.id, S.c.score)
        .select_from(J.outerjoin(S, and_(S.c.job_id == J.c.id, tenancy.scoped(S, conn))))
        .where(tenancy.scoped(J, conn), shown, rendered, ~prepared, ~live, ~waiting)
        .order_by(S.c.score.is_(None), S.c.score.desc(), J.c.id)
    )


def claim(
    store: Store,
    job_id: str,
    *,
    workflow_id: str,
    run_id: str,
    min_fit_score: int,
    approval_required: bool,
    clock: Clock | None = None,
) -> ClaimOutcome:
    """Claim ``job_id`` for the workflow run, in one write transaction: refused (with the
    code) while a send, a prefill or another claim of it is live, and by the claim rules;
    the run's own live claim is returned again (a retried activity)."""
    with store.write(clock=clock) as tx:
        now = tx.now
        mine = C.c.tenant_id == tx.tenant
        tx.conn.execute(  # a dead workflow's claim lets the job go once its lease ran out
            update(C)
            .where(mine, C.c.job_id == job_id, C.c.state == ClaimState.CLAIMED.value)
            .where(C.c.lease_until <= now)
            .values(state=ClaimState.RELEASED.value, finished_at=now)
        )
        own = tx.conn.execute(
            select(C.c.id)
            .where(
                mine,
                C.c.job_id == job_id,
                C.c.run_id == run_id,
                C.c.workflow_id == workflow_id,
            )
            .where(_live(now))
        ).scalar()
        if own is not None:
            return ClaimOutcome(job_id, claim_id=own)
        known = facts(tx.conn, job_id, now)
        if known is None:
            raise NotFoundError(f"no job {job_id!r}", code=JOB_NOT_FOUND)
        code = claim_refusal(
            known, min_fit_score=min_fit_score, approval_required=approval_required
        )
        if code is None and known.prepared:
            return ClaimOutcome(job_id, already=known.application_status)
        if code is not None:
            return ClaimOutcome(job_id, code=code)
        claim_id = new_claim_id()
        try:
            tx.conn.execute(
                C.insert().values(
                    tenant_id=tx.tenant,
                    id=claim_id,
                    job_id=job_id,
                    workflow_id=workflow_id,
                    run_id=run_id,
                    state=ClaimState.CLAIMED.value,
                    claimed_at=now,
                    lease_until=now + CLAIM_LEASE,
                )
            )
        except IntegrityError:  # the partial unique index: another live claim got in
            raise JobctrlError(
                f"job {job_id} is being prepared already", code=APPLY_ATTEMPT_LIVE
            ) from None
        return ClaimOutcome(job_id, claim_id=claim_id)


def get(store: Store, claim_id: str) -> dict[str, Any] | None:
    with store.read() as conn:
        row = (
            conn.execute(select(C).where(tenancy.scoped(C, conn), C.c.id == claim_id))
            .mappings()
            .first()
        )
    return dict(row) if row else None


def require_live(tx: WriteTx, claim_id: str) -> dict[str, Any]:
    """The claim's row, if it is still live (the fence of every write made under it);
    ``OWNERSHIP_LOST`` if it was released or its lease ran out."""
    row = (
        tx.conn.execute(
            select(C).where(C.c.tenant_id == tx.tenant, C.c.id == claim_id, _live(tx.now))
        )
        .mappings()
        .first()
    )
    if row is None:
        raise JobctrlError(f"claim {claim_id} is no longer live", code=OWNERSHIP_LOST)
    return dict(row)


def application_of(tx: WriteTx, job_id: str) -> dict[str, Any] | None:
    """The job's application as it is inside ``tx`` (None: it has none)."""
    row = (
        tx.conn.execute(select(A).where(A.c.tenant_id == tx.tenant, A.c.job_id == job_id))
        .mappings()
        .first()
    )
    return dict(row) if row else None


def _finish(tx: WriteTx, claim_id: str, **values: Any) -> None:
    tx.conn.execute(
        update(C)
        .where(C.c.tenant_id == tx.tenant, C.c.id == claim_id)
        .values(**values, finished_at=tx.now)
    )


def ready(tx: WriteTx, claim_id: str, application_id: str) -> None:
    """The job's application is prepared: the claim is done."""
    _finish(tx, claim_id, state=ClaimState.READY.value, application_id=application_id)


def fail(
    tx: WriteTx, claim_id: str, code: str, *, company: str | None, role: str | None
) -> str | None:
    """Preparing under a live claim failed with ``code``: the claim fails (the job waits
    before it is taken again, longer after each failure in a row) and, unless the job's
    application was prepared or used meanwhile, the application shows the code
    (``ApplicationFailed``). The application's id, if it has one."""
    claim_row = require_live(tx, claim_id)
    job_id = claim_row["job_id"]
    failures = 1
    for (state,) in tx.conn.execute(
        select(C.c.state)
        .where(C.c.tenant_id == tx.tenant, C.c.job_id == job_id, C.c.id != claim_id)
        .order_by(C.c.claimed_at.desc())
    ):
        if state != ClaimState.FAILED:
            break
        failures += 1
    found = application_of(tx, job_id)
    app_id: str | None = found["id"] if found else None
    if found is None or (found["channel"] is None and found["status"] in _UNTOUCHED):
        app = applications.ensure_for_job(tx, job_id, company=company, role=role)
        app_id = app["id"]
        tx.conn.execute(
            update(A)
            .where(A.c.tenant_id == tx.tenant, A.c.id == app_id)
            .values(status=ApplicationStatus.FAILED.value, error_code=code, updated_at=tx.now)
        )
        tx.append(
            ev.ApplicationFailed(application_id=app_id, job_id=job_id, error_code=code),
            key=f"application-claim-failed:{claim_id}",
        )
    _finish(
        tx,
        claim_id,
        state=ClaimState.FAILED.value,
        error_code=code,
        application_id=app_id,
        retry_at=claim_retry_at(failures, tx.now),
    )
    return app_id


_UNTOUCHED = (ApplicationStatus.DRAFT.value, ApplicationStatus.FAILED.value)


def release_run(store: Store, workflow_id: str, run_id: str, *, clock: Clock | None = None) -> int:
    """Let go of the run's live claims (it was cancelled or is ending); how many."""
    with store.write(clock=clock) as tx:
        result = tx.conn.execute(
            update(C)
            .where(C.c.tenant_id == tx.tenant)
            .where(C.c.workflow_id == workflow_id, C.c.run_id == run_id)
            .where(C.c.state == ClaimState.CLAIMED.value)
            .values(state=ClaimState.RELEASED.value, finished_at=tx.now)
        )
        return int(result.rowcount or 0)


def claims_of_run(store: Store, workflow_id: str, run_id: str) -> list[dict[str, Any]]:
    with store.read() as conn:
        rows = conn.execute(
            select(C)
            .where(tenancy.scoped(C, conn))
            .where(C.c.workflow_id == workflow_id, C.c.run_id == run_id)
            .order_by(C.c.claimed_at)
        ).mappings()
        return [dict(r) for r in rows]


def state_counts(store: Store, workflow_id: str, since: datetime | None = None) -> dict[str, int]:
    """How many claims of ``workflow_id`` (all its runs) are in each state."""
    with store.read() as conn:
        query = select(C.c.state, func.count()).where(
            tenancy.scoped(C, conn), C.c.workflow_id == workflow_id
        )
        if since is not None:
            query = query.where(C.c.claimed_at >= as_utc(since))
        return {str(s): int(n) for s, n in conn.execute(query.group_by(C.c.state)).all()}

"""Recurring availability checks of saved jobs: is the posting still open?

A check fetches the job's URL through the safe fetcher (robots, politeness and address
checks apply) and records what it found: ``active`` (the page answers), ``unavailable``
(404/410, or its JSON-LD ``validThrough`` has passed) or ``unknown`` (any other failure).
The evidence and the next check's time go on the ``jobs`` row, with one
``JobAvailabilityChecked`` event, in a single write. A check never touches accepted
content: artifacts, scores and stage rows stay as they are. Confirmed unavailable evidence
blocks later preparation (``claim_stage`` skips with ``POSTING_UNAVAILABLE``).
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, date, datetime, timedelta

from sqlalchemy import case, select, update

from jobctrl.domain.errors import (
    ENRICH_HTTP_NOT_FOUND,
    POSTING_EXPIRED,
    NotFoundError,
    StageError,
)
from jobctrl.domain.events import JobAvailabilityChecked
from jobctrl.fetch.extract import extract_posting
from jobctrl.fetch.safe import FetchResult
from jobctrl.stages.context import StageContext
from jobctrl.store import jobs, schema
from jobctrl.store.store import Store, utcnow

__all__ = [
    "ACTIVE",
    "UNAVAILABLE",
    "UNKNOWN",
    "blocks_preparation",
    "check_job",
    "due_jobs",
    "next_check",
    "sweep",
]

ACTIVE = "active"
UNAVAILABLE = jobs.CLOSED
UNKNOWN = "unknown"

ACTIVE_INTERVAL = timedelta(hours=24)
UNAVAILABLE_INTERVAL = timedelta(days=7)
UNKNOWN_FIRST_RETRY = timedelta(minutes=5)
UNKNOWN_MAX_RETRY = timedelta(hours=24)

J = schema.jobs
log = logging.getLogger(__name__)


# -- policy ----------------------------------------------------------------------------------


def next_check(state: str, failures: int, now: datetime) -> datetime:
    """When a job whose latest check found ``state`` is due again.

    Active evidence is rechecked after 24 h and unavailable evidence after 7 days; an
    unknown result retries after 5 minutes, doubling with each unknown in a row
    (``failures``), capped at 24 h.
    """
    if state == ACTIVE:
        return now + ACTIVE_INTERVAL
    if state == UNAVAILABLE:
        return now + UNAVAILABLE_INTERVAL
    if state != UNKNOWN:
        raise ValueError(f"not an availability state: {state!r}")
    exponent = max(failures, 1) - 1
    # Compare exponents, not products: 2**exponent overflows timedelta for long outages.
    if exponent >= 9:  # 5 min × 2**9 is already past the cap
        return now + UNKNOWN_MAX_RETRY
    return now + min(UNKNOWN_MAX_RETRY, UNKNOWN_FIRST_RETRY * 2**exponent)


def due_jobs(store: Store, now: datetime, limit: int) -> list[str]:
    """Ids of up to ``limit`` jobs with a URL that are due for a check.

    Never-checked jobs come first, then the longest overdue, then by job id (stable).
    """
    never_checked = case((J.c.availability_next_check_at.is_(None), 0), else_=1)
    query = (
        select(J.c.id)
        .where(J.c.url != "")
        .where(
            J.c.availability_next_check_at.is_(None) | (J.c.availability_next_check_at <= _utc(now))
        )
        .order_by(never_checked, J.c.availability_next_check_at, J.c.id)
        .limit(max(0, limit))
    )
    with store.read() as conn:
        return list(conn.execute(query).scalars())


def blocks_preparation(store: Store, job_id: str) -> bool:
    """True when the latest check confirmed the posting is closed."""
    with store.read() as conn:
        return jobs.posting_closed(conn, job_id)


# -- checks ----------------------------------------------------------------------------------


def check_job(ctx: StageContext, job_id: str, now: datetime) -> str:
    """Check one job's posting as of ``now`` and record the evidence; returns its state.

    The fetch runs outside any transaction. The record is one write: the ``jobs``
    availability columns and a ``JobAvailabilityChecked`` event keyed
    ``availability:{job_id}:{checked_at}``. A check not newer than the recorded one is
    dropped (the recorded state is returned), so a late or repeated check cannot
    overwrite newer evidence.
    """
    now = _utc(now)
    with ctx.store.read() as conn:
        url = conn.execute(select(J.c.url).where(J.c.id == job_id)).scalar()
    if url is None:
        raise NotFoundError(f"no job {job_id!r}", code="job_not_found")
    ctx.heartbeat("availability", job_id)
    state, code, retry_after = _probe(ctx, url, now)
    with ctx.store.write() as tx:
        row = (
            tx.conn.execute(
                select(
                    J.c.availability, J.c.availability_failures, J.c.availability_checked_at
                ).where(J.c.id == job_id)
            )
            .mappings()
            .first()
        )
        if row is None:
            raise NotFoundError(f"no job {job_id!r}", code="job_not_found")
        last = row["availability_checked_at"]
        if last is not None and _utc(last) >= now:
            return str(row["availability"])
        failures = (row["availability_failures"] or 0) + 1 if state == UNKNOWN else 0
        due = next_check(state, failures, now)
        if retry_after is not None:  # the host asked for a pause: do not come back sooner
            due = max(due, now + retry_after)
        event = JobAvailabilityChecked(
            job_id=job_id,
            availability=state,
            previous=row["availability"],
            code=code,
            failures=failures,
            checked_at=now,
            next_check_at=due,
        )
        if not tx.append(event, key=f"availability:{job_id}:{now.isoformat()}"):
            return str(row["availability"])
        tx.conn.execute(
            update(J)
            .where(J.c.id == job_id)
            .values(
                availability=state,
                availability_checked_at=now,
                availability_next_check_at=due,
                availability_failures=failures,
                availability_code=code,
            )
        )
    return state


def sweep(
    ctx: StageContext,
    now: datetime | None = None,
    limit: int = 25,
    budget_seconds: float = 60,
) -> dict[str, int]:
    """Check due jobs one at a time until ``limit`` checks or ``budget_seconds`` are used.

    Returns counts per outcome (``active``, ``unavailable``, ``unknown``, and ``failed``
    for a check that broke unexpectedly and recorded nothing). One job's failure never
    stops the sweep. Does nothing when ``availability.enabled`` is off. ``now`` fixes the
    check time (tests); by default each check is stamped when it runs.
    """
    counts = {ACTIVE: 0, UNAVAILABLE: 0, UNKNOWN: 0, "failed": 0}
    if not ctx.settings.get("availability.enabled"):
        return counts
    started = time.monotonic()
    for job_id in due_jobs(ctx.store, now if now is not None else utcnow(), limit):
        if time.monotonic() - started >= budget_seconds:
            break
        try:
            state = check_job(ctx, job_id, now if now is not None else utcnow())
        except Exception as exc:  # one job must not stop the sweep; no raw text is logged
            log.warning("availability check of %s failed: %s", job_id, type(exc).__name__)
            counts["failed"] += 1
            continue
        counts[state] = counts.get(state, 0) + 1
    return counts


def _probe(ctx: StageContext, url: str, now: datetime) -> tuple[str, str | None, timedelta | None]:
    """(state, code, retry_after) for one fetch of ``url``."""
    try:
        page = ctx.fetcher().fetch(url)
    except StageError as error:
        if error.code == ENRICH_HTTP_NOT_FOUND:
            return UNAVAILABLE, error.code, None
        return UNKNOWN, error.code, error.retry_after
    if _expired(page, now):
        return UNAVAILABLE, POSTING_EXPIRED, None
    return ACTIVE, None, None


def _expired(page: FetchResult, now: datetime) -> bool:
    """True when the page's JSON-LD ``validThrough`` lies before ``now``."""
    try:
        valid_through = extract_posting(page.body, page.final_url).valid_through
    except Exception:  # an unreadable page still answered: its availability is not in doubt
        return False
    end = _valid_through_end(valid_through or "")
    return end is not None and end < now


def _valid_through_end(value: str) -> datetime | None:
    """The instant a ``validThrough`` value ends (a bare date covers its whole UTC day)."""
    text = value.strip()
    if not text:
        return None
    try:
        if len(text) == 10:
            return datetime.combine(
                date.fromisoformat(text) + timedelta(days=1), datetime.min.time(), UTC
            )
        return _utc(datetime.fromisoformat(text))
    except ValueError:
        return None


def _utc(value: datetime) -> datetime:
    """``value`` in UTC; a naive value (SQLite reads timestamps back without a zone) is UTC."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)

"""Availability evidence on the ``jobs`` row: which jobs are due for a check, and the
record of one check (its state, code and the next check's time, with one event).

The recheck policy is ``domain.availability.next_check``.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from urllib.parse import urlsplit

from sqlalchemy import ColumnElement, and_, case, func, or_, select, update

from jobctrl.domain.availability import UNKNOWN_FIRST_RETRY, Availability, next_check
from jobctrl.domain.clock import Clock, as_utc
from jobctrl.domain.errors import ENRICH_RATE_LIMITED, JOB_NOT_FOUND, NotFoundError
from jobctrl.domain.events import JobAvailabilityChecked
from jobctrl.domain.stages import JobStatus
from jobctrl.store import schema, tenancy
from jobctrl.store.hidden import not_hidden
from jobctrl.store.stage_states import posting_closed_in
from jobctrl.store.store import Store, WriteTx

J, JL = schema.jobs, schema.job_list_projections
_FIRST = [JobStatus.PENDING.value, JobStatus.RUNNING.value, JobStatus.PREPARED.value]


def due_jobs(store: Store, now: datetime, limit: int) -> list[str]:
    """Ids of up to ``limit`` jobs with a URL that are due for a check.

    Jobs being prepared or prepared (reviewed, ready to apply) come first; then
    never-checked jobs, then the longest overdue, then by job id (stable). A hidden job
    is never checked.
    """
    never_checked = case((J.c.availability_next_check_at.is_(None), 0), else_=1)
    # Jobs the person works on now (being prepared, reviewed or ready to apply) first.
    busy = case((JL.c.status.in_(_FIRST), 0), else_=1)
    with store.read() as conn:
        # The tenant first: ix_jobs_availability_due (tenant_id, availability_next_check_at).
        listed = J.outerjoin(JL, and_(JL.c.job_id == J.c.id, tenancy.scoped(JL, conn)))
        query = (
            select(J.c.id)
            .select_from(listed)
            .where(tenancy.scoped(J, conn), J.c.url != "", not_hidden(conn))
            .where(
                J.c.availability_next_check_at.is_(None)
                | (J.c.availability_next_check_at <= as_utc(now))
            )
            .order_by(busy, never_checked, J.c.availability_next_check_at, J.c.id)
            .limit(max(0, limit))
        )
        return [str(job_id) for job_id in conn.execute(query).scalars()]


def job_url(store: Store, job_id: str) -> str:
    with store.read() as conn:
        url = conn.execute(
            select(J.c.url).where(tenancy.scoped(J, conn), J.c.id == job_id)
        ).scalar()
    if url is None:
        raise NotFoundError(f"no job {job_id!r}", code=JOB_NOT_FOUND)
    return str(url)


def record_check(
    store: Store,
    job_id: str,
    state: Availability,
    code: str | None,
    now: datetime,
    *,
    retry_after: timedelta | None = None,
    clock: Clock | None = None,
) -> str:
    """Record one check made at ``now``; returns the state the job has afterwards (the
    write itself is stamped with ``clock``).

    One write: the ``jobs`` availability columns and a ``JobAvailabilityChecked`` event
    keyed ``availability:{job_id}:{checked_at}``. A check not newer than the recorded one
    is dropped (the recorded state is returned), so a late or repeated check cannot
    overwrite newer evidence.
    """
    now = as_utc(now)
    with store.write(clock=clock) as tx:
        row = (
            tx.conn.execute(
                select(
                    J.c.url,
                    J.c.availability,
                    J.c.availability_failures,
                    J.c.availability_checked_at,
                ).where(J.c.tenant_id == tx.tenant, J.c.id == job_id)
            )
            .mappings()
            .first()
        )
        if row is None:
            raise NotFoundError(f"no job {job_id!r}", code=JOB_NOT_FOUND)
        last = row["availability_checked_at"]
        if last is not None and as_utc(last) >= now:
            return str(row["availability"])
        failures = (row["availability_failures"] or 0) + 1 if state == Availability.UNKNOWN else 0
        due = next_check(state, failures, now)
        if retry_after is not None:  # the host asked for a pause: do not come back sooner
            due = max(due, now + retry_after)
        event = JobAvailabilityChecked(
            job_id=job_id,
            availability=state.value,
            previous=row["availability"],
            code=code,
            failures=failures,
            checked_at=now,
            next_check_at=due,
        )
        if not tx.append(event, key=f"availability:{job_id}:{now.isoformat()}"):
            return str(row["availability"])
        # The host asked for a pause (Retry-After, or a bare 429): none of its jobs sooner.
        pause = retry_after or (UNKNOWN_FIRST_RETRY if code == ENRICH_RATE_LIMITED else None)
        if pause is not None:
            defer_host(tx, str(row["url"]), now + pause)
        tx.conn.execute(
            update(J)
            .where(J.c.tenant_id == tx.tenant, J.c.id == job_id)
            .values(
                availability=state.value,
                availability_checked_at=now,
                availability_next_check_at=due,
                availability_failures=failures,
                availability_code=code,
            )
        )
    return state.value


def _on_host(url: str) -> ColumnElement[bool] | None:
    """``jobs`` rows whose URL is on ``url``'s host (None: it names none)."""
    host = urlsplit(url).hostname
    if not host:
        return None
    host = host.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return or_(
        *(
            J.c.url.ilike(f"{scheme}://{host}{end}%", escape="\\")
            for scheme in ("http", "https")
            for end in ("/", ":", "?", "#")
        ),
        J.c.url.ilike(f"http://{host}", escape="\\"),
        J.c.url.ilike(f"https://{host}", escape="\\"),
    )


def defer_host(tx: WriteTx, url: str, until: datetime) -> int:
    """No check of any job on ``url``'s host before ``until`` (a Retry-After or a 429
    from that host): their next checks move to ``until`` if sooner. How many moved."""
    on_host = _on_host(url)
    if on_host is None:
        return 0
    sooner = J.c.availability_next_check_at.is_(None) | (
        J.c.availability_next_check_at < as_utc(until)
    )
    result = tx.conn.execute(
        update(J)
        .where(J.c.tenant_id == tx.tenant, on_host, sooner)
        .values(availability_next_check_at=as_utc(until))
    )
    return int(result.rowcount or 0)


def host_paused_until(store: Store, url: str, now: datetime) -> datetime | None:
    """Until when ``url``'s host asked not to be fetched (a 429 answered a check of one of
    its jobs, and that job's next check is still ahead), or None."""
    on_host = _on_host(url)
    if on_host is None:
        return None
    with store.read() as conn:
        until = conn.execute(
            select(func.max(J.c.availability_next_check_at)).where(
                tenancy.scoped(J, conn),
                on_host,
                J.c.availability_code == ENRICH_RATE_LIMITED,
                J.c.availability_next_check_at > as_utc(now),
            )
        ).scalar()
    return as_utc(until) if until is not None else None


def posting_closed(store: Store, job_id: str) -> bool:
    """True when the latest check confirmed the job's posting is closed."""
    with store.read() as conn:
        return posting_closed_in(conn, job_id)

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

from jobctrl.domain.availability import Availability
from jobctrl.domain.clock import as_utc
from jobctrl.domain.errors import ENRICH_HTTP_NOT_FOUND, POSTING_EXPIRED, StageError
from jobctrl.fetch.extract import extract_posting
from jobctrl.fetch.safe import FetchResult
from jobctrl.stages.context import StageContext
from jobctrl.store import availability as evidence

__all__ = ["check_job", "sweep"]

log = logging.getLogger(__name__)


# -- checks ----------------------------------------------------------------------------------


def check_job(ctx: StageContext, job_id: str, now: datetime) -> str:
    """Check one job's posting as of ``now`` and record the evidence; returns its state.

    The fetch runs outside any transaction; the record is one write
    (``store.availability.record_check``), which drops a check not newer than the
    recorded one.
    """
    url = evidence.job_url(ctx.store, job_id)
    ctx.heartbeat("availability", job_id)
    state, code, retry_after = _probe(ctx, url, as_utc(now))
    return evidence.record_check(
        ctx.store, job_id, state, code, now, retry_after=retry_after, clock=ctx.clock
    )


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
    counts = {state.value: 0 for state in Availability} | {"failed": 0}
    if not ctx.settings.get("availability.enabled"):
        return counts
    started = time.monotonic()
    for job_id in evidence.due_jobs(ctx.store, now if now is not None else ctx.now(), limit):
        if time.monotonic() - started >= budget_seconds or ctx.stopping():
            break
        try:
            state = check_job(ctx, job_id, now if now is not None else ctx.now())
        except Exception as exc:  # one job must not stop the sweep; no raw text is logged
            if ctx.stopping():  # a cancel, not this job's failure: stop here
                raise
            log.warning("availability check of %s failed: %s", job_id, type(exc).__name__)
            counts["failed"] += 1
            continue
        counts[state] = counts.get(state, 0) + 1
    return counts


def _probe(
    ctx: StageContext, url: str, now: datetime
) -> tuple[Availability, str | None, timedelta | None]:
    """(state, code, retry_after) for one fetch of ``url``."""
    try:
        with ctx.fetcher() as fetcher:
            page = fetcher.fetch(url)
    except StageError as error:
        if error.code == ENRICH_HTTP_NOT_FOUND:
            return Availability.UNAVAILABLE, error.code, None
        return Availability.UNKNOWN, error.code, error.retry_after
    if _expired(page, now):
        return Availability.UNAVAILABLE, POSTING_EXPIRED, None
    return Availability.ACTIVE, None, None


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
        return as_utc(datetime.fromisoformat(text))
    except ValueError:
        return None

"""Is a job's posting still online? Its availability as the checks left it, and a check
now (`jobctrl check JOB`, ``POST /v1/jobs/{id}/check``, the Job page's button).

A check now skips the wait the recheck policy sets (``domain.availability.next_check``)
but not the fetcher's rules: robots.txt, the per-host pause between requests and the
address checks apply as for the worker's own checks (``stages.availability``), and a site
that answered a check with 429 is not asked again before the time it set. A hidden job
is not checked.
"""

from __future__ import annotations

import asyncio
from datetime import datetime

from jobctrl.app.job_facts import AvailabilityView, availability_view
from jobctrl.app.models import View
from jobctrl.domain.clock import utcnow
from jobctrl.domain.errors import ENRICH_RATE_LIMITED, JOB_HIDDEN, JobctrlError
from jobctrl.home import Home
from jobctrl.stages import availability as checks
from jobctrl.stages.context import StageContext
from jobctrl.store import availability as evidence
from jobctrl.store import hides, jobs
from jobctrl.store.store import Store

__all__ = ["AvailabilityCheck", "check_now"]


class AvailabilityCheck(View):
    """The job checked and its posting's availability after the check."""

    job_id: str
    availability: AvailabilityView


def _check(home: Home, ref: str, now: datetime | None) -> AvailabilityCheck:
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    if hides.is_hidden(store, job_id) is not None:
        raise JobctrlError(
            f"job {job_id} is hidden (not interested), so it is not checked; "
            "`jobctrl unhide` it first",
            code=JOB_HIDDEN,
        )
    now = now or utcnow()
    paused = evidence.host_paused_until(store, evidence.job_url(store, job_id), now)
    if paused is not None:  # politeness: the site asked us to wait (429)
        raise JobctrlError(
            f"the site of job {job_id} asked us to wait (too many requests) until "
            f"{paused:%Y-%m-%d %H:%M} UTC; it is checked then",
            code=ENRICH_RATE_LIMITED,
        )
    ctx = StageContext(home=home, store=store)
    try:
        checks.check_job(ctx, job_id, now)
    finally:
        ctx.close()
    row = jobs.job_row(store, job_id)
    return AvailabilityCheck(job_id=job_id, availability=availability_view(row, utcnow()))


async def check_now(home: Home, ref: str, *, now: datetime | None = None) -> AvailabilityCheck:
    """Check the posting of the job ``ref`` names now, and record what was found."""
    return await asyncio.to_thread(_check, home, ref, now)

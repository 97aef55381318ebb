"""Taking a job out of the inbox: hide it ("not interested", with an optional reason),
bring it back, or delete it with its files. `jobctrl hide|unhide|delete`, the API and
the Jobs and Job pages' buttons call these.

A hidden job is never prepared, checked or applied to (``store.hidden``); a deleted one
is gone but for an audit event, and if it was hidden its posting stays hidden when
discovery finds it again (``store.job_delete``).
"""

from __future__ import annotations

from pydantic import Field

from jobctrl.app.models import View
from jobctrl.home import Home
from jobctrl.store import hides, job_delete, jobs
from jobctrl.store.store import Store

__all__ = ["DeletedJob", "HiddenJob", "delete_job", "hide_job", "unhide_job"]


class HiddenJob(View):
    """A job hidden or brought back: whether it is hidden now, whether this call changed
    that, and (unhiding) the stages that wait again to be prepared."""

    job_id: str
    hidden: bool
    changed: bool
    reset_stages: list[str] = Field(default_factory=list)


class DeletedJob(View):
    """A deleted job: how many rows and stored files went with it, and whether its
    posting stays hidden if it is found again."""

    job_id: str
    rows: int
    artifacts: int
    stays_hidden: bool


def hide_job(home: Home, ref: str, reason: str | None = None) -> HiddenJob:
    """Hide the job ``ref`` names: it leaves the inbox, and nothing prepares, checks or
    applies to it any more. ``reason`` is kept for the person, never in an event."""
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    changed = hides.hide(store, job_id, reason)
    return HiddenJob(job_id=job_id, hidden=True, changed=changed)


def unhide_job(home: Home, ref: str) -> HiddenJob:
    """Bring a hidden job back into the inbox; stages skipped while it was hidden wait
    again (`jobctrl retry JOB` prepares them)."""
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    reset = hides.unhide(store, job_id)
    return HiddenJob(
        job_id=job_id, hidden=False, changed=reset is not None, reset_stages=reset or []
    )


def delete_job(home: Home, ref: str) -> DeletedJob:
    """Delete the job ``ref`` names, with its materials and the files no other job uses
    (refused while a stage of it runs or its application is being sent)."""
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    done = job_delete.delete_job(store, job_id)
    return DeletedJob(
        job_id=job_id, rows=done.rows, artifacts=len(done.artifacts), stays_hidden=done.hidden
    )

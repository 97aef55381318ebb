"""The person's stop controls: cancel one job's preparation, reset one stage without
cancelling anything, and resume a lane or source that stop-loss paused.

- ``cancel_job`` is cooperative. Every preparation execution of the job that Temporal
  describes as running on this home's task queue is asked to cancel (through
  ``workflows.starts``); it finalizes as ``WorkflowCanceled``. Then, in one transaction,
  its stop requests are recorded and the job's unfinished stages end ``failed`` with
  ``canceled`` (not retryable). A job held by a recovery cohort only loses its
  reservation: the cohort's other jobs go on. Committed results stay; `jobctrl retry`
  starts the job again.
- ``reset_stage`` changes local stage state only: Temporal is not asked anything.
- ``resume`` clears a stop-loss pause; rows failed with ``automation_paused`` are
  eligible for automatic recovery again.
"""

from __future__ import annotations

import asyncio
import logging

from jobctrl.app import runtime
from jobctrl.app.models import View
from jobctrl.app.operations import PauseView
from jobctrl.config import load_config
from jobctrl.domain import ids
from jobctrl.domain.errors import INVALID_INPUT, MISSING_INPUT, NOT_FOUND, JobctrlError
from jobctrl.domain.stop_loss import KINDS, LANE, LANES, SOURCE, source_window
from jobctrl.home import Home
from jobctrl.sources.base import KINDS as SOURCE_KINDS
from jobctrl.store import jobs, stage_control, stage_states, stop_loss, workflow_runs
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store
from jobctrl.workflows import starts

log = logging.getLogger(__name__)

__all__ = [
    "JobCanceled",
    "Resumed",
    "StageReset",
    "StopLossStatus",
    "cancel_job",
    "reset_stage",
    "resume",
    "stop_loss_status",
]


class JobCanceled(View):
    """What ``cancel_job`` did: the executions asked to cancel and the stages canceled."""

    job_id: str
    canceled: list[str]  # workflow ids
    stages: list[str]


class StageReset(View):
    """What ``reset_stage`` put back to pending (``stage`` and the later ones)."""

    job_id: str
    stage: str
    reset: list[str]


class Resumed(View):
    """A lane or source resumed (``resumed`` false and ``code`` None: it was not paused)."""

    kind: str
    name: str
    resumed: bool
    code: str | None


class StopLossStatus(View):
    """The stop-loss threshold and every lane or source it paused (times in UTC)."""

    threshold: int
    paused: list[PauseView]


async def cancel_job(home: Home, ref: str) -> JobCanceled:
    """Cancel the job's preparation: the workflow ids asked to cancel, the stages canceled.

    Without a Temporal server this raises ``temporal_unavailable`` and changes nothing."""
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    client = await runtime.client_for(home)
    key = jobs.job_row(store, job_id)["idempotency_key"]
    prep_id = ids.prep_workflow_id(key, store.tenant)
    workflow_ids = [prep_id, *workflow_runs.preparation_ids(store, job_id)]
    runs: list[tuple[str, str]] = []
    for workflow_id in dict.fromkeys(workflow_ids):
        running = await starts.running_run(client, workflow_id)
        if running is not None:
            runs.append((running.workflow_id, running.run_id))
    # The store first (rows cancelled, stop requests recorded, in one transaction), then
    # Temporal: a cancel that fails or is cut short here is re-issued by the worker's
    # heartbeat from the stop requests, and the rows are cancelled whatever happens next.
    stages = await asyncio.to_thread(stage_control.cancel_job, store, job_id, runs)
    for workflow_id, run_id in runs:
        try:
            await starts.cancel_run(client, workflow_id, run_id)
        except Exception:  # the heartbeat re-issues it (the stop request is recorded)
            log.warning("cancel of %s (run %s) is left to the worker", workflow_id, run_id)
    return JobCanceled(job_id=job_id, canceled=[w for w, _ in runs], stages=stages)


def reset_stage(home: Home, ref: str, stage: str) -> StageReset:
    """Put ``stage`` (and the later stages that are not running) back to pending; a
    running stage is refused with ``STAGE_BUSY``."""
    stage = (stage or "").strip().lower()
    if stage not in LANES:
        raise JobctrlError(
            f"unknown stage {stage!r}: one of {', '.join(LANES)}", code=INVALID_INPUT
        )
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    if not any(r["stage"] == stage for r in stage_states.stage_rows(store, job_id)):
        raise JobctrlError(f"job {job_id} has no {stage} stage yet", code=MISSING_INPUT)
    reset = stage_control.reset_job_stage(store, job_id, stage)
    return StageReset(job_id=job_id, stage=stage, reset=reset)


def _kind_of(home: Home, store: Store, name: str) -> tuple[str, str]:
    """(kind, window name) for a lane or source name; ``lane:NAME``/``source:NAME``
    choose. A source's window is ``KIND:NAME``; its name alone will do while only one
    source of that name is configured (or paused)."""
    prefix, sep, rest = name.partition(":")
    chosen = (prefix,) if sep and prefix in KINDS and rest else KINDS
    name = rest if chosen != KINDS else name
    known = stop_loss.known_names(store)
    found: list[tuple[str, str]] = []
    if LANE in chosen and (name in LANES or (LANE, name) in known):
        found.append((LANE, name))
    if SOURCE in chosen:
        windows = {source_window(e.kind, e.name) for e in load_config(home).sources}
        windows |= {n for k, n in known if k == SOURCE}
        matches = sorted(w for w in windows if name in (w, _bare_source(w)))
        if len(matches) > 1:  # one company's boards on two ATSs: the paused ones decide
            paused = [w for w in matches if stop_loss.is_paused(store, SOURCE, w)]
            if name in paused:  # the window named exactly so (from before windows had kinds)
                matches = [name]
            elif paused:
                matches = paused
        if len(matches) > 1:
            raise JobctrlError(
                f"{name!r} names {len(matches)} sources: say {' or '.join(matches)}",
                code=INVALID_INPUT,
            )
        found += [(SOURCE, w) for w in matches]
    if not found:
        raise JobctrlError(
            f"no lane or source named {name!r}: lanes are {', '.join(LANES)}; sources are "
            "listed by `jobctrl sources`",
            code=NOT_FOUND,
        )
    if len(found) > 1:
        raise JobctrlError(
            f"{name!r} is both a lane and a source: say `lane:{name}` or `source:{name}`",
            code=INVALID_INPUT,
        )
    return found[0]


def _bare_source(window: str) -> str:
    """A source window's source name (a window from before windows had the kind is it)."""
    kind, sep, rest = window.partition(":")
    return rest if sep and kind in SOURCE_KINDS else window


def resume(home: Home, name: str) -> Resumed:
    """Resume a paused lane or source (``resumed`` false and ``code`` None when it was
    not paused)."""
    name = (name or "").strip()
    store = Store.open(home)
    kind, name = _kind_of(home, store, name)
    code = stop_loss.resume(store, kind, name)
    return Resumed(kind=kind, name=name, resumed=code is not None, code=code)


def stop_loss_status(home: Home) -> StopLossStatus:
    """The threshold and the lanes and sources paused, the longest paused first."""
    store = Store.open(home)
    return StopLossStatus(
        threshold=int(Settings(store).get("stop_loss.threshold")),
        paused=[PauseView.from_row(p) for p in stop_loss.paused(store)],
    )

"""Commands on a job's materials: decide on the newest drafts, or write a new generation."""

from __future__ import annotations

from typing import Any

from jobctrl.app import runtime
from jobctrl.domain.errors import INVALID_INPUT, MISSING_INPUT, JobctrlError
from jobctrl.domain.materials import MaterialKind, MaterialState
from jobctrl.domain.stages import LATER_STAGES
from jobctrl.home import Home
from jobctrl.store import jobs, stage_states
from jobctrl.store import materials as stored
from jobctrl.store.store import Store
from jobctrl.workflows import starts

__all__ = ["DECISIONS", "decide_materials", "regenerate_materials"]

DECISIONS = {"approve": MaterialState.APPROVED, "reject": MaterialState.REJECTED}


def decide_materials(home: Home, ref: str, decision: str) -> list[dict[str, Any]]:
    """``approve`` or ``reject`` the newest draft of each kind (``no_draft`` if none).
    Approving supersedes the approved generation; rejecting leaves it accepted."""
    if decision not in DECISIONS:
        raise JobctrlError("decision must be approve, reject or regenerate", code=INVALID_INPUT)
    store = Store.open(home)
    return stored.decide(store, jobs.resolve_job_id(store, ref), DECISIONS[decision])


async def regenerate_materials(home: Home, ref: str, *, wait: bool = False) -> dict[str, Any]:
    """Write a new generation of the resume and letter; the approved one stays accepted
    until the new one is approved."""
    client = await runtime.client_for(home)
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    if jobs.score_row(store, job_id) is None:
        raise JobctrlError(f"job {job_id} has no score yet", code=MISSING_INPUT)
    latest = stored.latest(store, job_id, MaterialKind.RESUME)
    generation = 1 + (latest["generation"] if latest else 0)
    stage_states.reset_stages(store, job_id, tuple(s.value for s in LATER_STAGES), "regenerate")
    key = jobs.job_row(store, job_id)["idempotency_key"]
    started = await starts.start_preparation(
        client,
        home,
        store,
        job_id,
        key,
        workflow_id=f"prepare-regenerate-{job_id}-{generation}",
        materials=True,
    )
    if wait:
        await starts.wait_for_result(
            client,
            started,
            600,
            still_running=f"job {job_id}'s new materials are still being written after 600 s",
        )
    return {
        "jobId": job_id,
        "workflowId": started.workflow_id,
        "runId": started.run_id,
        "generation": generation,
    }

"""Commands on a job's materials: decide on the newest drafts, or write a new generation."""

from __future__ import annotations

from typing import Any

from jobctrl.app import runtime
from jobctrl.app.truth import latest_truth_check
from jobctrl.domain.errors import INVALID_INPUT, MISSING_INPUT, JobctrlError
from jobctrl.domain.materials import MaterialKind, MaterialState
from jobctrl.domain.stages import LATER_STAGES
from jobctrl.home import Home
from jobctrl.store import jobs, stage_states, truth_checks
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
    until the new one is approved. After the truth check refused a document, this is a
    new attempt at it. With ``wait``, the result carries this run's last ``truthCheck``."""
    client = await runtime.client_for(home)
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    if jobs.score_row(store, job_id) is None:
        raise JobctrlError(f"job {job_id} has no score yet", code=MISSING_INPUT)
    latest = stored.latest(store, job_id, MaterialKind.RESUME)
    generation = 1 + (latest["generation"] if latest else 0)
    # A refused document leaves the generation number where it was: the refusals seen so
    # far make the next request a new attempt (while one runs, a second request joins it).
    refused = truth_checks.refusals(store, job_id)
    workflow_id = f"prepare-regenerate-{job_id}-{generation}" + (f"-r{refused}" if refused else "")
    stage_states.reset_stages(store, job_id, tuple(s.value for s in LATER_STAGES), "regenerate")
    key = jobs.job_row(store, job_id)["idempotency_key"]
    started = await starts.start_preparation(
        client,
        home,
        store,
        job_id,
        key,
        workflow_id=workflow_id,
        materials=True,
    )
    result: dict[str, Any] = {
        "jobId": job_id,
        "workflowId": started.workflow_id,
        "runId": started.run_id,
        "generation": generation,
    }
    if wait:
        await starts.wait_for_result(
            client,
            started,
            600,
            still_running=f"job {job_id}'s new materials are still being written after 600 s",
        )
        # This run's last check: a refusal says which document and how many claims.
        check = latest_truth_check(store, job_id)
        result["truthCheck"] = check if check and check["runId"] == started.run_id else None
    return result

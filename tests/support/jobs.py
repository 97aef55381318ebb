"""Jobs in a given state, written through the store's own stage functions."""

from __future__ import annotations

from jobctrl.domain.errors import StageError
from jobctrl.store import jobs, stage_states
from jobctrl.store.store import Store


def failed_job(
    store: Store, url: str, *, stage: str = "enrich", code: str = "ENRICH_TIMEOUT"
) -> str:
    """A new job whose ``stage`` failed (retryable) on its first attempt; its id."""
    job = jobs.create_job(store, url)
    claim = stage_states.claim_stage(store, job.job_id, stage, "run-test")
    error = StageError(code, "failed in a test", retryable=True)
    stage_states.fail_stage(store, job.job_id, stage, "run-test", claim.attempt, error)
    return job.job_id

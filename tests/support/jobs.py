"""Jobs in a given state, written through the store's own stage functions."""

from __future__ import annotations

from datetime import date, datetime

from jobctrl.domain.clock import utcnow
from jobctrl.domain.errors import StageError
from jobctrl.domain.profile import Profile
from jobctrl.domain.scoring import ScoreReport
from jobctrl.llm.offline import score_offline
from jobctrl.store import jobs, schema, stage_states
from jobctrl.store.db import upsert
from jobctrl.store.store import Store
from tests.support.profile import TEST_PROFILE


def failed_job(
    store: Store, url: str, *, stage: str = "enrich", code: str = "ENRICH_TIMEOUT"
) -> str:
    """A new job whose ``stage`` failed (retryable) on its first attempt; its id."""
    job = jobs.create_job(store, url)
    claim = stage_states.claim_stage(store, job.job_id, stage, "run-test")
    error = StageError(code, "failed in a test", retryable=True)
    stage_states.fail_stage(store, job.job_id, stage, "run-test", claim.attempt, error)
    return job.job_id


def score_row(
    store: Store, job_id: str, posting: str, *, at: datetime | None = None
) -> ScoreReport:
    """The test profile's offline score of ``posting`` saved as the job's score row (as
    Score leaves it), in the store's tenant; the report."""
    profile = Profile.model_validate(TEST_PROFILE)
    report = score_offline("Backend Engineer", posting, profile, today=date(2025, 6, 1))
    values = {
        "tenant_id": store.tenant,
        "job_id": job_id,
        "score": report.score,
        "verdict": report.verdict,
        "provider": report.provider,
        "model": report.model,
        "report": report.model_dump(mode="json"),
        "report_artifact": "0" * 64,
        "owner_run_id": "test-run",
        "created_at": at or utcnow(),
    }
    with store.write() as tx:
        upsert(tx.conn, schema.job_scores, values, keys=["job_id"])
    return report

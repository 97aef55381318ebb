"""Postings the person hid ("not interested"): ``job_hides``, keyed by the job's
idempotency key, so the mark outlives a deleted job and a hidden posting found again by
discovery comes back hidden.

A hidden job is never prepared (``stage_states.claim_stage`` skips its stages with
``JOB_HIDDEN``), checked (``availability.due_jobs`` passes it over) or applied to
(``stages.apply_checks`` and the apply loop's claim refuse it). The reason is the
person's own words: it stays in this row, never in an event.
"""

from __future__ import annotations

from sqlalchemy import delete, select

from jobctrl.domain.errors import JOB_HIDDEN
from jobctrl.domain.events import JobHidden, JobUnhidden
from jobctrl.domain.stages import Stage
from jobctrl.store import schema, stage_states, tenancy
from jobctrl.store.db import upsert
from jobctrl.store.hidden import Hide, hidden_in
from jobctrl.store.store import Store

__all__ = ["hide", "is_hidden", "unhide"]

H, J = schema.job_hides, schema.jobs
REASON_LIMIT = 500


def is_hidden(store: Store, job_id: str) -> Hide | None:
    with store.read() as conn:
        return hidden_in(conn, job_id)


def hide(store: Store, job_id: str, reason: str | None) -> bool:
    """Hide the job (with the person's ``reason``, kept here only); False when it was
    hidden already (its reason is replaced when a new one is given)."""
    reason = (reason or "").strip()[:REASON_LIMIT] or None
    with store.write() as tx:
        key = tx.conn.execute(
            select(J.c.idempotency_key).where(J.c.id == job_id, tenancy.scoped(J, tx.conn))
        ).scalar_one()
        before = hidden_in(tx.conn, job_id)
        values = {"job_id": job_id, "reason": reason or (before.reason if before else None)}
        row = {"tenant_id": tx.tenant, "idempotency_key": key, "hidden_at": tx.now, **values}
        upsert(tx.conn, H, row, keys=["tenant_id", "idempotency_key"], update=list(values))
        if before is None:
            tx.append(
                JobHidden(job_id=job_id, has_reason=reason is not None),
                key=f"job-hidden:{job_id}:{tx.now.isoformat()}",
            )
    return before is None


def unhide(store: Store, job_id: str) -> list[str] | None:
    """Bring the job back into the inbox; its stages skipped because it was hidden wait
    again (returned; a preparation must be started for them). None: it was not hidden."""
    with store.write() as tx:
        if hidden_in(tx.conn, job_id) is None:
            return None
        key = tx.conn.execute(
            select(J.c.idempotency_key).where(J.c.id == job_id, tenancy.scoped(J, tx.conn))
        ).scalar_one()
        tx.conn.execute(delete(H).where(H.c.idempotency_key == key, tenancy.scoped(H, tx.conn)))
        skipped = stage_states.revive_skipped(tx, job_id, [s.value for s in Stage], JOB_HIDDEN)
        at = tx.now.isoformat()
        tx.append(JobUnhidden(job_id=job_id, reset=skipped), key=f"job-unhidden:{job_id}:{at}")
        if skipped:  # the list shows them waiting again
            stage_states.await_stages(tx, job_id, skipped, key=f"unhidden:{job_id}:{at}")
    return skipped

"""Postings the person's browser sent (``job_captures``, issue 32) and the jobs waiting for
it: those whose Enrich the site refused to a robot (``domain.extension.BROWSER_CODES``).

A capture is recorded in the transaction that admits its job; Enrich takes the job's
newest capture as its snapshot instead of fetching (``newest``), and marks it used in
the transaction that records the enrichment.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select, update

from jobctrl.domain.extension import BROWSER_CODES
from jobctrl.domain.stages import Stage, StageState
from jobctrl.store import schema, tenancy
from jobctrl.store.extension_tables import job_captures as CP
from jobctrl.store.hidden import not_hidden
from jobctrl.store.store import Store, WriteTx

__all__ = ["blocked_stage", "mark_used", "newest", "record", "waiting"]

S, J = schema.job_stage_states, schema.jobs


def record(
    tx: WriteTx,
    capture_id: str,
    job_id: str,
    url: str,
    snapshot: str,
    fields: dict[str, Any],
    token_name: str | None,
) -> None:
    tx.conn.execute(
        CP.insert().values(
            tenant_id=tx.tenant,
            capture_id=capture_id,
            job_id=job_id,
            url=url,
            snapshot_artifact=snapshot,
            fields=fields,
            token_name=token_name,
            created_at=tx.now,
        )
    )


def newest(store: Store, job_id: str) -> dict[str, Any] | None:
    """The job's newest capture (its id, snapshot artifact and fields), or None."""
    with store.read() as conn:
        row = conn.execute(
            select(CP.c.capture_id, CP.c.snapshot_artifact, CP.c.fields)
            .where(CP.c.job_id == job_id, tenancy.scoped(CP, conn))
            .order_by(CP.c.created_at.desc(), CP.c.capture_id.desc())
            .limit(1)
        ).first()
    return dict(row._mapping) if row else None


def mark_used(tx: WriteTx, capture_id: str) -> None:
    tx.conn.execute(
        update(CP)
        .where(CP.c.capture_id == capture_id, tenancy.scoped(CP, tx.conn))
        .values(used_at=tx.now)
    )


def blocked_stage(tx: WriteTx, job_id: str) -> dict[str, Any] | None:
    """The job's Enrich row when the site refused it to a robot (its error code and when
    it failed: the episode a capture resolves), else None."""
    row = tx.conn.execute(
        select(S.c.error_code, S.c.finished_at, S.c.updated_at).where(
            S.c.job_id == job_id,
            S.c.stage == Stage.ENRICH.value,
            S.c.state == StageState.FAILED.value,
            S.c.error_code.in_(sorted(BROWSER_CODES)),
            tenancy.scoped(S, tx.conn),
        )
    ).first()
    return dict(row._mapping) if row else None


def waiting(store: Store, limit: int = 50) -> list[dict[str, Any]]:
    """Jobs waiting for the person's browser, oldest refusal first: job id, URL, the
    refusal's code and when it was seen (hidden jobs left out)."""
    with store.read() as conn:
        rows = conn.execute(
            select(J.c.id, J.c.url, S.c.error_code, S.c.updated_at)
            .join(S, (S.c.job_id == J.c.id) & (S.c.tenant_id == J.c.tenant_id))
            .where(
                S.c.stage == Stage.ENRICH.value,
                S.c.state == StageState.FAILED.value,
                S.c.error_code.in_(sorted(BROWSER_CODES)),
                tenancy.scoped(S, conn),
                tenancy.scoped(J, conn),
                not_hidden(conn),
            )
            .order_by(S.c.updated_at, J.c.id)
            .limit(limit)
        ).all()
    return [
        {"job_id": r.id, "url": r.url, "error_code": r.error_code, "since": r.updated_at}
        for r in rows
    ]

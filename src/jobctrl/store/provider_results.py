"""Paid model outputs, stored the moment a call returns: keyed by lane, job and workflow
run, so a retried attempt of the same run reuses the output instead of paying again."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from jobctrl.store import schema
from jobctrl.store.db import upsert
from jobctrl.store.store import Store, WriteTx

PR = schema.provider_results


def stored_output(store: Store, key: str) -> Any | None:
    """The output stored under ``key`` (JSON), or None when no call was paid for yet."""
    with store.read() as conn:
        return conn.execute(select(PR.c.output).where(PR.c.key == key)).scalar()


def save_output(
    tx: WriteTx,
    *,
    key: str,
    lane: str,
    job_id: str,
    run_id: str,
    observation_id: str,
    output: Any,
) -> None:
    """Keep a paid output (the first one stored under ``key`` wins)."""
    upsert(
        tx.conn,
        PR,
        {
            "key": key,
            "lane": lane,
            "job_id": job_id,
            "run_id": run_id,
            "observation_id": observation_id,
            "output": output,
            "created_at": tx.now,
        },
        keys=["key"],
    )

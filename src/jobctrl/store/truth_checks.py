"""Truth checks: what the check found in each Tailor and Cover attempt's document.

A row per checked attempt (job, stage, run, attempt), written in the same transaction as
the attempt's outcome: with the new generation when the document passed, with the
stage's failure when it was refused (``TAILOR_FABRICATION`` / ``COVER_FABRICATION``). It
keeps each unsupported claim and the sentence it came from: domain data the person reads
in `jobctrl show` and on the Job page, which is why it lives here and never in an event,
a projection, a workflow history or a log (those carry the code and the count).

Bounded: at most ``MAX_FINDINGS`` findings a row (``finding_count`` keeps the full
number), each field cut to its limit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, func, select

from jobctrl.store import tenancy
from jobctrl.store.db import upsert
from jobctrl.store.store import Store, WriteTx
from jobctrl.store.truth_tables import truth_checks

if TYPE_CHECKING:  # a type only: a read of the checks needs not load the checker (issue 26)
    from jobctrl.domain.truth.document import Finding
    from jobctrl.domain.truth.repair import Change

__all__ = [
    "LIMITS",
    "MAX_FINDINGS",
    "bounded",
    "bounded_changes",
    "latest",
    "latest_in",
    "latest_per_stage",
    "record",
    "refusals",
]

TC = truth_checks

MAX_FINDINGS = 200
# Characters kept of each field of a finding (a profile bullet is at most 1,000).
LIMITS = {"where": 120, "sentence": 1_000, "kind": 32, "claim": 300}


def _cut(text: str, limit: int) -> str:
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def bounded(findings: Sequence[Finding]) -> list[dict[str, str]]:
    """The first ``MAX_FINDINGS`` findings as stored: each field cut to its limit."""
    return [
        {name: _cut(getattr(f, name), limit) for name, limit in LIMITS.items()}
        for f in findings[:MAX_FINDINGS]
    ]


def bounded_changes(changes: Sequence[Change]) -> list[dict[str, Any]]:
    """The first ``MAX_FINDINGS`` repairs as stored, each text cut to its limit."""
    return [
        {
            "where": _cut(c.where, LIMITS["where"]),
            "sentence": _cut(c.sentence, LIMITS["sentence"]),
            "action": c.action,
            "replacement": _cut(c.replacement, LIMITS["sentence"]),
            "reasons": c.reasons,
        }
        for c in changes[:MAX_FINDINGS]
    ]


def record(
    tx: WriteTx,
    *,
    job_id: str,
    stage: str,
    run_id: str,
    attempt: int,
    generation: int,
    checked: int,
    findings: Sequence[Finding],
    profile_version: int | None,
    passed: bool | None = None,
    changes: Sequence[Change] = (),
    repair_requested: bool = False,
) -> None:
    """Record one attempt's check, once: the caller's transaction is the one that records
    the attempt's outcome, fenced on its owner. ``passed``: the document was kept (by
    default, when nothing was found); ``findings`` are what the check found in the
    model's answer, ``changes`` what the repair did to keep it."""
    upsert(
        tx.conn,
        TC,
        {
            "tenant_id": tx.tenant,
            "job_id": job_id,
            "stage": stage,
            "run_id": run_id,
            "attempt": attempt,
            "generation": generation,
            "passed": not findings if passed is None else passed,
            "checked": checked,
            "finding_count": len(findings),
            "findings": bounded(findings),
            "changes": bounded_changes(changes),
            "repair_requested": repair_requested,
            "profile_version": profile_version,
            "created_at": tx.now,
        },
        keys=["job_id", "stage", "run_id", "attempt"],
    )


def latest_in(conn: Connection, job_id: str) -> dict[str, Any] | None:
    """The job's most recent check (either stage), on an open connection."""
    row = (
        conn.execute(
            select(TC)
            .where(tenancy.scoped(TC, conn), TC.c.job_id == job_id)
            .order_by(TC.c.id.desc())
            .limit(1)
        )
        .mappings()
        .first()
    )
    return dict(row) if row else None


def latest_per_stage(store: Store, job_id: str) -> list[dict[str, Any]]:
    """The job's most recent check of each stage (Tailor's, Cover's), newest first."""
    with store.read() as conn:
        rows = conn.execute(
            select(TC)
            .where(tenancy.scoped(TC, conn), TC.c.job_id == job_id)
            .order_by(TC.c.id.desc())
        ).mappings()
        newest: dict[str, dict[str, Any]] = {}
        for row in rows:
            newest.setdefault(row["stage"], dict(row))
    return list(newest.values())


def latest(store: Store, job_id: str) -> dict[str, Any] | None:
    """The job's most recent check (either stage), or None."""
    with store.read() as conn:
        return latest_in(conn, job_id)


def refusals(store: Store, job_id: str) -> int:
    """How many of the job's documents the check has refused (a regenerate after one is a
    new attempt, under a new workflow id)."""
    with store.read() as conn:
        count = conn.execute(
            select(func.count())
            .select_from(TC)
            .where(tenancy.scoped(TC, conn), TC.c.job_id == job_id, TC.c.passed.is_(False))
        ).scalar_one()
    return int(count)

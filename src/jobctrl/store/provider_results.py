"""Paid model answers, keyed by lane, job and workflow run, so a retried attempt of the
same run reuses the answer instead of paying again.

Two writes per paid call: the provider's answer (its raw response message) the moment it
arrives, in the same transaction as its usage (``save_response``); then the validated
output (``save_output``). A worker that dies between the two leaves the answer, and the
retry parses it again for nothing. Until the output is stored, ``output`` is JSON null.
Raw provider text lives here only: never in events, projections, heartbeats or logs.

An answer saved with its prompt's digest is kept as ``{"prompt": digest, "answer": ...}``
(older rows hold the bare answer): a later run may reuse an interrupted run's answer only
when it asks exactly the same (``llm.lanes``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select, update

from jobctrl.store import schema, tenancy
from jobctrl.store.db import upsert
from jobctrl.store.store import Store, WriteTx

PR = schema.provider_results


@dataclass(frozen=True)
class Stored:
    output: Any | None  # the validated output (JSON), None until it is stored
    response: Any | None  # the provider's raw answer (JSON), None for rows before 0019
    prompt: str | None = None  # the digest of what was asked, when it was saved with it


def _kept(response: Any, prompt: str | None) -> Any:
    return response if prompt is None else {"prompt": prompt, "answer": response}


def stored(store: Store, key: str) -> Stored | None:
    """What was paid for under ``key``, or None when no answer arrived yet."""
    with store.read() as conn:
        row = conn.execute(
            select(PR.c.output, PR.c.response).where(tenancy.scoped(PR, conn), PR.c.key == key)
        ).first()
    if row is None:
        return None
    return _stored(row.output, row.response)


def _stored(output: Any, kept: Any) -> Stored:
    if isinstance(kept, dict) and "prompt" in kept:
        return Stored(output, kept.get("answer"), str(kept["prompt"]))
    return Stored(output, kept)


def unparsed_answers(store: Store, lane: str, job_id: str, *, exclude_run: str) -> list[Stored]:
    """The answers to ``lane`` of ``job_id`` that no run parsed into an output (its worker
    died between the answer and the output), newest first, except ``exclude_run``'s; only
    those newer than the newest parsed one (after that, the step was done: asking again,
    a regenerated draft say, is asking anew)."""
    with store.read() as conn:
        rows = conn.execute(
            select(PR.c.output, PR.c.response)
            .where(
                tenancy.scoped(PR, conn),
                PR.c.lane == lane,
                PR.c.job_id == job_id,
                PR.c.run_id != exclude_run,
            )
            .order_by(PR.c.created_at.desc())
        ).all()
    unparsed = []
    for row in rows:
        if row.output is not None:
            break
        if row.response is not None:
            unparsed.append(_stored(None, row.response))
    return unparsed


def answered(store: Store, lane: str, job_id: str, prompt: str) -> Stored | None:
    """The newest answer to ``lane`` of ``job_id`` parsed into an output whose request's
    digest is ``prompt``: the same request answered before, by any run (a rescore of a
    posting against a profile it was already scored against pays nothing)."""
    with store.read() as conn:
        rows = conn.execute(
            select(PR.c.output, PR.c.response)
            .where(tenancy.scoped(PR, conn), PR.c.lane == lane, PR.c.job_id == job_id)
            .order_by(PR.c.created_at.desc())
        ).all()
    for row in rows:
        found = _stored(row.output, row.response)
        if found.output is not None and found.prompt == prompt:
            return found
    return None


def stored_output(store: Store, key: str) -> Any | None:
    """The output stored under ``key`` (JSON), or None when none was stored yet."""
    found = stored(store, key)
    return None if found is None else found.output


def _output_in(tx: WriteTx, key: str) -> tuple[bool, Any | None]:
    row = tx.conn.execute(
        select(PR.c.output).where(PR.c.tenant_id == tx.tenant, PR.c.key == key)
    ).first()
    return (row is not None, None if row is None else row.output)


def save_response(
    tx: WriteTx,
    *,
    key: str,
    lane: str,
    job_id: str,
    run_id: str,
    observation_id: str,
    response: Any,
    prompt: str | None = None,
) -> None:
    """Keep the provider's answer as it arrived (call it in the transaction recording its
    usage), with ``prompt`` (the digest of what was asked) when given. A newer answer
    replaces one that was never parsed into an output (an invalid answer is asked again);
    a stored output is never replaced."""
    response = _kept(response, prompt)
    exists, output = _output_in(tx, key)
    if output is not None:
        return
    if exists:
        tx.conn.execute(
            update(PR)
            .where(PR.c.tenant_id == tx.tenant, PR.c.key == key)
            .values(response=response, observation_id=observation_id, created_at=tx.now)
        )
        return
    upsert(
        tx.conn,
        PR,
        {
            "tenant_id": tx.tenant,
            "key": key,
            "lane": lane,
            "job_id": job_id,
            "run_id": run_id,
            "observation_id": observation_id,
            "output": None,  # JSON null: not parsed yet
            "response": response,
            "created_at": tx.now,
        },
        keys=["key"],
    )


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
    """Keep a paid output (the first output stored under ``key`` wins)."""
    exists, stored_output_ = _output_in(tx, key)
    if stored_output_ is not None:
        return
    if exists:
        tx.conn.execute(
            update(PR).where(PR.c.tenant_id == tx.tenant, PR.c.key == key).values(output=output)
        )
        return
    upsert(
        tx.conn,
        PR,
        {
            "tenant_id": tx.tenant,
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

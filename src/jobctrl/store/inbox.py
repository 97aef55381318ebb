"""What the Jobs inbox decides each job's next action from, read for many jobs at once:
the list row (status, stage, code), the posting's availability, whether the person hid
it, its application (and its follow-ups sent) and the state of its newest resume and
letter; plus the other
listings (sources) a job was found on.

Rows, never presentation: ``app.inbox`` builds the groups and ``domain.inbox`` decides.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, func, select

from jobctrl.domain.availability import Availability
from jobctrl.domain.stages import STAGE_ORDER, StageState
from jobctrl.store import job_list, outbound, schema, tenancy
from jobctrl.store.application_tables import applications as A
from jobctrl.store.job_list import JL, JobFilter
from jobctrl.store.store import Store

J, H, M, SO = schema.jobs, schema.job_hides, schema.materials, schema.source_observations
S = schema.job_stage_states

_CHUNK = 500  # ids per IN (...) list
# The list row's columns a list item shows (not the fold's own state).
_LISTED = (
    "job_id", "url", "title", "company", "location", "remote", "score", "verdict",
    "status", "current_stage", "error_code", "created_at", "updated_at",
)  # fmt: skip
_LEAN = ("job_id", "title", "company", "status", "error_code")


def inbox_rows(
    store: Store,
    wanted: JobFilter,
    *,
    paged: bool = False,
    job_ids: list[str] | None = None,
    lean: bool = False,
) -> list[dict[str, Any]]:
    """Every list row ``wanted`` matches in its order (with ``paged``, only its page:
    ``limit`` rows from ``offset``; with ``job_ids``, only those jobs'), each with the
    facts the next action is decided from: ``availability``, ``availability_checked_at``,
    ``availability_next_check_at``, ``availability_code``, ``text_artifact``, ``hidden``,
    ``application_status``, ``outcome``, ``applied_at`` and ``materials`` (the newest
    generation's state of each kind). ``lean``: only what the next action and the
    duplicates are decided from, for every job of a large inbox (``availability`` is
    ``unavailable`` or None; ``text_artifact`` only when another job shares it)."""
    if lean:
        return _lean_rows(store, wanted)
    with store.read() as conn:
        joined = JL.outerjoin(J, and_(J.c.id == JL.c.job_id, tenancy.scoped(J, conn)))
        joined = joined.outerjoin(
            H, and_(H.c.idempotency_key == J.c.idempotency_key, tenancy.scoped(H, conn))
        )
        joined = joined.outerjoin(A, and_(A.c.job_id == JL.c.job_id, tenancy.scoped(A, conn)))
        facts = [
            J.c.availability,
            J.c.text_artifact,
            H.c.hidden_at,
            A.c.status.label("application_status"),
            A.c.outcome,
            A.c.applied_at,
        ]
        shown = [J.c.availability_checked_at, J.c.availability_next_check_at, J.c.availability_code]
        listed = _LEAN if lean else _LISTED
        query = (
            select(*(JL.c[name] for name in listed), *facts, *([] if lean else shown))
            .select_from(joined)
            .where(*job_list.conditions(conn, wanted))
            .order_by(*job_list.order_of(wanted))
        )
        if paged:
            query = query.limit(wanted.limit).offset(wanted.offset)
        if job_ids is not None:
            query = query.where(JL.c.job_id.in_(job_ids))
        result = conn.execute(query)
        keys = list(result.keys())
        rows = [dict(zip(keys, r, strict=True)) for r in result.tuples()]
        few = None if len(rows) > _CHUNK else [r["job_id"] for r in rows]
        newest = _newest_materials(conn, few)
        failures = _failures(conn, few)
        followed = outbound.followup_counts(conn, few)
    for row in rows:
        row["followups_sent"], row["last_followup_at"] = followed.get(row["job_id"], (0, None))
        row["hidden"] = row.pop("hidden_at") is not None
        row["materials"] = tuple(state for _, state in newest.get(row["job_id"], {}).values())
        row["retryable"], row["auto_attempts"] = failures.get(row["job_id"], (None, 0))
    return rows


def _lean_rows(store: Store, wanted: JobFilter) -> list[dict[str, Any]]:
    """``inbox_rows(lean=True)``: the list rows, and of the facts only what decides: the
    closed postings, the hidden jobs, the applications, the materials and the texts two
    jobs share (each read apart: a few small reads cost less than a join per job)."""
    with store.read() as conn:
        mine = tenancy.scoped(J, conn)
        listed = conn.execute(
            select(*(JL.c[name] for name in _LEAN))
            .where(*job_list.conditions(conn, wanted))
            .order_by(*job_list.order_of(wanted))
        ).all()
        closed = set(
            conn.execute(
                select(J.c.id).where(mine, J.c.availability == Availability.UNAVAILABLE.value)
            ).scalars()
        )
        hidden = set(
            conn.execute(
                select(J.c.id)
                .select_from(J.join(H, H.c.idempotency_key == J.c.idempotency_key))
                .where(mine, tenancy.scoped(H, conn))
            ).scalars()
        )
        shared = (
            select(J.c.text_artifact)
            .where(mine, J.c.text_artifact.is_not(None))
            .group_by(J.c.text_artifact)
            .having(func.count() > 1)
        )
        texts = dict(
            conn.execute(
                select(J.c.id, J.c.text_artifact).where(mine, J.c.text_artifact.in_(shared))
            ).all()
        )
        applied = {
            job_id: (status, outcome, at)
            for job_id, status, outcome, at in conn.execute(
                select(A.c.job_id, A.c.status, A.c.outcome, A.c.applied_at).where(
                    tenancy.scoped(A, conn), A.c.job_id.is_not(None)
                )
            )
        }
        newest = _newest_materials(conn, None)
        failures = _failures(conn, None)
        followed = outbound.followup_counts(conn)
    rows = []
    unavailable, none3 = Availability.UNAVAILABLE.value, (None, None, None)
    for job_id, title, company, status, error_code in listed:
        app_status, outcome, applied_at = applied.get(job_id, none3)
        kinds = newest.get(job_id)
        rows.append(
            {
                "job_id": job_id,
                "title": title,
                "company": company,
                "status": status,
                "error_code": error_code,
                "availability": unavailable if job_id in closed else None,
                "text_artifact": texts.get(job_id),
                "hidden": job_id in hidden,
                "application_status": app_status,
                "outcome": outcome,
                "applied_at": applied_at,
                "materials": tuple(state for _, state in kinds.values()) if kinds else (),
                "retryable": failures.get(job_id, (None, 0))[0],
                "auto_attempts": failures.get(job_id, (None, 0))[1],
                "followups_sent": followed.get(job_id, (0, None))[0],
                "last_followup_at": followed.get(job_id, (0, None))[1],
            }
        )
    return rows


def _failures(conn: Any, job_ids: list[str] | None) -> dict[str, tuple[bool | None, int]]:
    """job id → (retryable, automatic attempts) of its failed stage (the first in
    pipeline order when several failed)."""
    query = select(S.c.job_id, S.c.stage, S.c.retryable, S.c.auto_attempts).where(
        S.c.state == StageState.FAILED.value
    )
    if job_ids is None:
        query = query.where(tenancy.scoped(S, conn))
    else:  # by the jobs' key: with the tenant to match, SQLite read all its stage rows
        query = query.where(tenancy.keyed(S, tenancy.tenant_of(conn)), S.c.job_id.in_(job_ids))
    found: dict[str, tuple[int, bool | None, int]] = {}
    for job_id, stage, retryable, attempts in conn.execute(query):
        order = STAGE_ORDER.get(stage, len(STAGE_ORDER))
        if job_id not in found or order < found[job_id][0]:
            found[job_id] = (order, retryable, int(attempts or 0))
    return {job_id: (retryable, attempts) for job_id, (_, retryable, attempts) in found.items()}


def _newest_materials(conn: Any, job_ids: list[str] | None) -> dict[str, dict[str, Any]]:
    """job id → kind → (generation, state) of its newest generation (every job of the
    tenant when ``job_ids`` is None: one scan instead of many IN lists)."""
    query = select(M.c.job_id, M.c.kind, M.c.generation, M.c.state).where(tenancy.scoped(M, conn))
    if job_ids is not None:
        query = query.where(M.c.job_id.in_(job_ids))
    newest: dict[str, dict[str, Any]] = {}
    for job_id, kind, generation, state in conn.execute(query):
        kinds = newest.setdefault(job_id, {})
        if kind not in kinds or kinds[kind][0] < generation:
            kinds[kind] = (generation, state)
    return newest


def listings(store: Store, job_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
    """Each job's listings (source kind and name, URL), oldest first."""
    found: dict[str, list[dict[str, Any]]] = {}
    with store.read() as conn:
        for start in range(0, len(job_ids), _CHUNK):
            chunk = job_ids[start : start + _CHUNK]
            query = (
                select(SO.c.job_id, SO.c.source_kind, SO.c.source_name, SO.c.url)
                .where(tenancy.keyed(SO, conn), SO.c.job_id.in_(chunk))
                .order_by(SO.c.job_id, SO.c.first_seen_at, SO.c.id)
            )
            for row in conn.execute(query).mappings():
                found.setdefault(row["job_id"], []).append(dict(row))
    return found

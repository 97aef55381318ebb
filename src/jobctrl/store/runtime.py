"""Worker runtime heartbeats (``worker_runtime_heartbeats``): each worker process upserts
its own row on every heartbeat (``publish``) and removes it on a clean stop (``withdraw``);
``read_runtime`` aggregates the fresh rows of one home and task queue for the operations
snapshot, joining preparation items to their job's title only through the exact
(workflow id, run id) of a ``workflow_run_projections`` row. The heartbeat rows' ``items``
are the JSON the workers publish (camelCase: the workers' wire format); what a reader gets
is ``RuntimeView`` and ``RuntimeItem`` dataclasses. Rules in domain/runtime.py.

The heartbeat rows are deployment-wide (``worker_runtime_heartbeats`` has no tenant: one
worker pool serves every tenant), so their slots, capacity and item totals are the
deployment's load figures. The items a reader sees are its store's tenant's only (by
``ids.owner_of`` of each item's workflow id: an id jobctrl does not make is local's), and
they are joined to that tenant's jobs only.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import and_, delete, or_, select

from jobctrl.domain import ids
from jobctrl.domain import runtime as rules
from jobctrl.domain.clock import as_utc
from jobctrl.domain.runtime import RuntimeItem, RuntimeView
from jobctrl.store import schema, tenancy
from jobctrl.store.db import upsert
from jobctrl.store.operations_tables import worker_runtime_heartbeats as hb
from jobctrl.store.store import Store

_COLUMNS = [
    "home_id",
    "task_queue",
    "started_at",
    "beat_at",
    "interval_seconds",
    "active_slots",
    "capacity",
    "items_total",
    "items",
    "durations",
    "queue",
]


def publish(store: Store, row: Mapping[str, Any]) -> None:
    """Upsert this worker's row (keyed by ``worker_id``) and delete the rows of workers
    not seen for a day."""
    with store.write() as tx:
        upsert(tx.conn, hb, dict(row), keys=["worker_id"], update=_COLUMNS)
        cutoff = as_utc(row["beat_at"]) - rules.FORGET_AFTER
        tx.conn.execute(delete(hb).where(hb.c.beat_at < cutoff))


def withdraw(store: Store, worker_id: str) -> None:
    """Remove a stopping worker's row: a stopped worker reads unavailable, never zero."""
    with store.write() as tx:
        tx.conn.execute(delete(hb).where(hb.c.worker_id == worker_id))


def heartbeat_rows(store: Store, *, home_id: str | None = None) -> list[dict[str, Any]]:
    """The stored rows as they are (newest beat first)."""
    query = select(hb).order_by(hb.c.beat_at.desc())
    if home_id is not None:
        query = query.where(hb.c.home_id == home_id)
    with store.read() as conn:
        return [dict(r._mapping) for r in conn.execute(query)]


def _valid_row(row: Mapping[str, Any]) -> bool:
    ints = (row["active_slots"], row["items_total"], row["capacity"])
    return (
        all(isinstance(n, int) and n >= 0 for n in ints)
        and row["capacity"] > 0
        and isinstance(row["items"], list)
        and isinstance(row["durations"], dict)
        and (row["queue"] is None or isinstance(row["queue"], dict))
        and isinstance(row["interval_seconds"], int | float)
        and row["interval_seconds"] > 0
    )


def _job_bindings(
    store: Store, items: list[dict[str, Any]]
) -> dict[tuple[str, str], dict[str, Any]]:
    """(workflowId, runId) -> the job of that exact preparation/recovery execution."""
    pairs = {(i["workflowId"], i["runId"]) for i in items}
    if not pairs:
        return {}
    w, j = schema.workflow_run_projections, schema.jobs
    query = (
        select(w.c.workflow_id, w.c.run_id, j.c.id, j.c.title, j.c.company, j.c.source)
        .join(j, j.c.id == w.c.job_id)
        .where(
            w.c.tenant_id == tenancy.tenant_param(),
            j.c.tenant_id == tenancy.tenant_param(),
            w.c.workflow_type.in_(rules.JOB_WORKFLOW_TYPES),
            or_(*(and_(w.c.workflow_id == wid, w.c.run_id == rid) for wid, rid in pairs)),
        )
    )
    with store.read() as conn:
        rows = conn.execute(query, {"tenant": tenancy.tenant_of(conn)})
        return {(r.workflow_id, r.run_id): dict(r._mapping) for r in rows}


def _cohort_members(
    store: Store, items: list[dict[str, Any]]
) -> dict[tuple[str, str, str], dict[str, Any]]:
    """Opaque item key -> the job a recovery cohort's item works on. A recovery run names
    no single job, so its items are matched, oldest first, with the stage rows that run
    holds running (oldest claim first): the members it is executing now."""
    run_ids = {i["runId"] for i in items if i["kind"] in rules.STAGE_OF_KIND}
    if not run_ids:
        return {}
    s, j = schema.job_stage_states, schema.jobs
    query = (
        select(s.c.owner_run_id, s.c.stage, j.c.id, j.c.title, j.c.company, j.c.source)
        .join(j, j.c.id == s.c.job_id)
        .where(
            s.c.tenant_id == tenancy.tenant_param(),
            j.c.tenant_id == tenancy.tenant_param(),
            s.c.owner_run_id.in_(run_ids),
            s.c.state == "running",
        )
        .order_by(s.c.started_at, s.c.job_id)
    )
    with store.read() as conn:
        rows = [dict(r._mapping) for r in conn.execute(query, {"tenant": tenancy.tenant_of(conn)})]
    found: dict[tuple[str, str, str], dict[str, Any]] = {}
    for item in sorted(items, key=lambda i: str(i["startedAt"])):
        stage = rules.STAGE_OF_KIND.get(item["kind"])
        for row in rows:
            if row["owner_run_id"] == item["runId"] and row["stage"] == stage:
                found[(item["workflowId"], item["runId"], item["key"])] = row
                rows.remove(row)
                break
    return found


def _present(store: Store, items: list[dict[str, Any]]) -> list[RuntimeItem]:
    bindings = _job_bindings(store, items)
    unbound = [i for i in items if (i["workflowId"], i["runId"]) not in bindings]
    members = _cohort_members(store, unbound)
    shown = []
    for item in items:
        kind = item["kind"]
        job = bindings.get((item["workflowId"], item["runId"])) or members.get(
            (item["workflowId"], item["runId"], item["key"])
        )
        if kind == "enrich" and job is not None and job["source"] == "manual":
            kind = rules.JOB_URL_IMPORT
        shown.append(
            RuntimeItem(
                kind=kind,
                label=rules.LABELS[kind],
                workflow_id=item["workflowId"],
                run_id=item["runId"],
                key=item["key"],
                started_at=item["startedAt"],
                stage=rules.STAGE_OF_KIND.get(kind),
                job_id=job["id"] if job is not None else None,
                job_title=job["title"] if job is not None else None,
                company=job["company"] if job is not None else None,
            )
        )
    return shown


def read_runtime(store: Store, now: datetime, *, home_id: str) -> RuntimeView:
    """What the workers of ``home_id`` execute now, on the task queue of its newest
    heartbeat. ``fresh`` when some worker beat within 3 x its interval (min 10 s): slots,
    capacity and totals add up over those workers, and zero means zero. ``stale`` (rows,
    none fresh) and ``unavailable`` (none) say ``None``: unknown, never zero."""
    now = as_utc(now)
    rows = [r for r in heartbeat_rows(store, home_id=home_id) if _valid_row(r)]
    if not rows:
        return RuntimeView(state="unavailable")
    newest = rows[0]
    beat_at = as_utc(newest["beat_at"])
    queue_rows = [r for r in rows if r["task_queue"] == newest["task_queue"]]
    fresh = [
        r for r in queue_rows if rules.is_fresh(as_utc(r["beat_at"]), r["interval_seconds"], now)
    ]
    if not fresh:
        return RuntimeView(state="stale", beat_at=beat_at)
    detail = sorted(
        (i for r in fresh for i in r["items"] if rules.valid_item(i)),
        key=lambda i: (i["startedAt"], i["key"]),
    )
    own = [i for i in detail if ids.owner_of(i["workflowId"]) == store.tenant]
    items = _present(store, own[: rules.MAX_ITEMS])
    # The deployment's total, like the slots: ``truncated`` when the published detail
    # (every tenant's) left some out, or this tenant's is longer than a view shows.
    items_total = sum(int(r["items_total"]) for r in fresh)
    return RuntimeView(
        state="fresh",
        active_slots=sum(int(r["active_slots"]) for r in fresh),
        capacity=sum(int(r["capacity"]) for r in fresh),
        items=items,
        items_total=items_total,
        truncated=items_total > len(detail) or len(own) > len(items),
        queue=fresh[0]["queue"],
        durations=rules.merge_durations(r["durations"] for r in fresh),
        workers=len(fresh),
        beat_at=beat_at,
    )

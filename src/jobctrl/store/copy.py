"""Copying a SQLite store into an empty PostgreSQL database (``jobctrl store copy``).

The source is read in one read transaction, so the copy is one consistent snapshot even
while a worker writes (what it writes later stays in the source only). The target is
migrated to the current schema, refused unless it holds no jobctrl rows, and written in
one write transaction (all or nothing): every table in foreign-key order with its rows
as they are (events keep their ``seq``), each sequence of an autoincrement column set
past the copied rows, the projections rebuilt from the copied event log (and compared
with the source's), and every table's row count checked before the commit.

JSON columns are copied as the text the source stored (SQL NULL and JSON ``null`` stay
apart); timestamps, stored without a zone by SQLite, are UTC. Artifacts are not rows:
they stay files in the home's ``artifacts/`` dir, which the target's processes must see.
The workers' runtime heartbeats and leases describe the source's live processes, not
data, and are left out. The copy is of the whole database: its statements reach every
tenant (``all_tenants``). The target's side (its URL, reaching it, refusing a used one,
its schema and sequences) is in ``copy_target``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    Column,
    Connection,
    DateTime,
    MetaData,
    Row,
    Table,
    Text,
    TypeDecorator,
    cast,
    func,
    insert,
    inspect,
    select,
    type_coerce,
)
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql.elements import BindParameter, ColumnElement

from jobctrl.domain import runtime as runtime_rules
from jobctrl.domain.errors import (
    INVALID_INPUT,
    STORE_COPY_FAILED,
    JobctrlError,
)
from jobctrl.domain.executions import WorkflowStatus
from jobctrl.store import (
    operations_tables,
    projections,
    schema,
)
from jobctrl.store.artifacts import ArtifactStore
from jobctrl.store.copy_target import (
    advance_sequences,
    driver_message,
    open_target,
    redacted,
    refuse_rows,
    refuse_used_target,
)
from jobctrl.store.store import Store
from jobctrl.store.tenancy import all_tenants

__all__ = [
    "CopyProgress",
    "CopyResult",
    "copy_to_postgresql",
    "source_database",
]

BATCH = 1000
# Runtime state of the source's live processes, not data: the target's workers write their
# own (a copied lease would keep the target's heartbeat duties waiting for it to expire).
SKIPPED = (operations_tables.worker_runtime_heartbeats, operations_tables.worker_leases)
# Rebuilt from the copied event log, never copied.
REBUILT = projections.PROJECTION_TABLES


@dataclass(frozen=True)
class CopyProgress:
    """Where a copy is: its phase, the table being copied, rows copied of all rows."""

    phase: str  # checking | copying | sequences | projections | verifying | committing
    table: str | None
    done: int
    total: int


@dataclass
class CopyResult:
    source: str
    target: str  # without its password
    tables: dict[str, int]  # copied rows per table, foreign-key order
    skipped: dict[str, int]  # the source's rows of the tables left out
    events: int
    last_seq: int
    sequences: dict[str, int]  # "table.column": the value the next insert gets
    projections: dict[str, int]  # rebuilt rows per projection table
    events_folded: int
    projection_differences: list[str]  # projection tables whose rebuild differs
    artifacts: int  # catalogued artifacts (rows of ``artifacts``)
    artifacts_missing: int  # of them, files not in the artifacts dir
    workers_running: int  # workers that beat against the source moments ago
    open_runs: int  # executions the source holds as running
    seconds: float = 0.0


def source_database(url: str) -> Path:
    """The SQLite file a store URL names, which must exist: the copy's source."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        raise JobctrlError(
            f"the source must be a SQLite home; JOBCTRL_DATABASE_URL names {redacted(parsed)} "
            "(unset it to copy the home's jobctrl.db)",
            code=INVALID_INPUT,
        )
    path = Path(parsed.database or "")
    if not parsed.database or parsed.database == ":memory:" or not path.is_file():
        raise JobctrlError(
            f"no jobctrl database at {path}: nothing to copy (is JOBCTRL_HOME right?)",
            code=INVALID_INPUT,
        )
    return path


def copy_to_postgresql(
    source: Store,
    target: URL,
    *,
    progress: Callable[[CopyProgress], None] | None = None,
    now: datetime | None = None,
    checked: bool = False,
) -> CopyResult:
    """Copy ``source`` (a SQLite store) into the empty PostgreSQL database ``target``;
    ``checked`` when the caller has already refused a used target (the check is repeated
    under the write lock anyway, by ``refuse_rows``)."""
    started = time.monotonic()
    report = progress or (lambda _p: None)
    if source.writer.dialect.name != "sqlite":
        raise JobctrlError("the source store is not SQLite", code=INVALID_INPUT)
    if not checked:
        report(CopyProgress("checking", None, 0, 0))
        refuse_used_target(target)
    store = open_target(target, source.artifacts)
    try:
        result = _copy(source, store, target, report, now or datetime.now(UTC))
    finally:
        store.dispose()
    result.seconds = round(time.monotonic() - started, 3)
    return result


# -- the copy -------------------------------------------------------------------------------


class JSONText(TypeDecorator[str]):
    """A JSON column's text exactly as the source stored it, cast to JSON by the target."""

    impl = Text
    cache_ok = True

    def bind_expression(self, bindvalue: BindParameter[str]) -> ColumnElement[Any]:
        return cast(bindvalue, JSON)


def _copied_tables(src: Connection) -> list[Table]:
    """The tables to copy, in foreign-key order; refuses a source with a table or column
    this version does not know (it would be lost)."""
    inspector = inspect(src)
    known = {t.name: t for t in schema.metadata.sorted_tables}
    for name in inspector.get_table_names():
        if name.startswith("sqlite_") or name == "alembic_version":
            continue
        if name not in known:
            raise JobctrlError(
                f"the source has a table this jobctrl does not know ({name}): upgrade jobctrl",
                code=STORE_COPY_FAILED,
            )
        extra = {c["name"] for c in inspector.get_columns(name)} - set(known[name].c.keys())
        if extra:
            raise JobctrlError(
                f"the source's {name} has columns this jobctrl does not know "
                f"({', '.join(sorted(extra))}): upgrade jobctrl",
                code=STORE_COPY_FAILED,
            )
    left_out = {t.name for t in (*SKIPPED, *REBUILT)}
    return [t for t in schema.metadata.sorted_tables if t.name not in left_out]


def _wire(source_table: Table) -> Table:
    """``source_table`` as the target is written: JSON columns take the source's text."""
    return Table(
        source_table.name,
        MetaData(),
        *[
            Column(c.name, JSONText() if isinstance(c.type, JSON) else c.type, autoincrement=False)
            for c in source_table.c
        ],
    )


def _as_stored(t: Table) -> Any:
    return all_tenants(
        select(
            *[type_coerce(c, Text).label(c.name) if isinstance(c.type, JSON) else c for c in t.c]
        ).order_by(*t.primary_key.columns)
    )


def _utc(row: Row[Any], zoned: frozenset[str]) -> dict[str, Any]:
    values = dict(row._mapping)
    for name in zoned:
        value = values[name]
        if value is not None and value.tzinfo is None:
            values[name] = value.replace(tzinfo=UTC)
    return values


def _count(conn: Connection, t: Table) -> int:
    return int(conn.execute(all_tenants(select(func.count()).select_from(t))).scalar_one())


def _copy(
    source: Store,
    target: Store,
    url: URL,
    report: Callable[[CopyProgress], None],
    now: datetime,
) -> CopyResult:
    with source.read() as src:
        tables = _copied_tables(src)
        counts = {t.name: _count(src, t) for t in tables}
        total = sum(counts.values())
        done = 0
        try:
            with target.write() as tx:
                dst = tx.conn
                refuse_rows(dst, set(inspect(dst).get_table_names()))  # now under the lock
                for t in tables:
                    report(CopyProgress("copying", t.name, done, total))
                    statement = all_tenants(insert(_wire(t)))
                    zoned = frozenset(c.name for c in t.c if isinstance(c.type, DateTime))
                    rows = src.execute(_as_stored(t), execution_options={"yield_per": BATCH})
                    for part in rows.partitions():
                        dst.execute(statement, [_utc(r, zoned) for r in part])
                        done += len(part)
                        report(CopyProgress("copying", t.name, done, total))
                report(CopyProgress("sequences", None, done, total))
                sequences = advance_sequences(dst)
                report(CopyProgress("projections", None, done, total))
                folded = projections.rebuild(dst)
                report(CopyProgress("verifying", None, done, total))
                rebuilt, differences = _compare_projections(src, dst)
                _verify_counts(dst, tables, counts)
                # The last moment to stop (a callback that raises rolls the copy back).
                report(CopyProgress("committing", None, done, total))
        except DBAPIError as exc:
            raise JobctrlError(
                f"the copy into {redacted(url)} was refused and rolled back, nothing of it "
                f"was kept: {driver_message(exc)}",
                code=STORE_COPY_FAILED,
            ) from None
        result = CopyResult(
            source=str(source.writer.url.database),
            target=redacted(url),
            tables=counts,
            skipped={t.name: _count(src, t) for t in SKIPPED},
            events=counts[schema.job_events.name],
            last_seq=int(
                src.execute(
                    all_tenants(select(func.coalesce(func.max(schema.job_events.c.seq), 0)))
                ).scalar()
                or 0
            ),
            sequences=sequences,
            projections=rebuilt,
            events_folded=folded,
            projection_differences=differences,
            artifacts=counts[schema.artifacts.name],
            artifacts_missing=_missing_artifacts(src, source.artifacts),
            workers_running=_workers_running(src, now),
            open_runs=_open_runs(src),
        )
    return result


def _comparable(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    if isinstance(value, date):
        return value.isoformat()
    return value


def _keyed_rows(conn: Connection, t: Table) -> dict[tuple[Any, ...], tuple[Any, ...]]:
    # Compared by key in Python: the two databases may collate strings differently.
    keys = [c.name for c in t.primary_key.columns]
    return {
        tuple(r._mapping[k] for k in keys): tuple(_comparable(v) for v in r)
        for r in conn.execute(all_tenants(select(t)))
    }


def _compare_projections(src: Connection, dst: Connection) -> tuple[dict[str, int], list[str]]:
    rows: dict[str, int] = {}
    differences: list[str] = []
    for t in REBUILT:
        rebuilt = _keyed_rows(dst, t)
        rows[t.name] = len(rebuilt)
        if rebuilt != _keyed_rows(src, t):
            differences.append(t.name)
    return rows, differences


def _verify_counts(dst: Connection, tables: list[Table], counts: Mapping[str, int]) -> None:
    for t in tables:
        copied = _count(dst, t)
        if copied != counts[t.name]:
            raise JobctrlError(
                f"{t.name}: {copied} rows in the target, {counts[t.name]} in the source; "
                "the copy was rolled back",
                code=STORE_COPY_FAILED,
            )


def _missing_artifacts(src: Connection, artifacts: ArtifactStore) -> int:
    shas = src.execute(select(schema.artifacts.c.sha256)).scalars()
    return sum(1 for sha in shas if not artifacts.path_for(sha).is_file())


def workers_running(source: Store, now: datetime) -> int:
    """Workers that beat against ``source`` moments ago (still writing to it)."""
    with source.read() as src:
        return _workers_running(src, now)


def _workers_running(src: Connection, now: datetime) -> int:
    hb = operations_tables.worker_runtime_heartbeats
    beats = src.execute(select(hb.c.beat_at, hb.c.interval_seconds)).all()
    return sum(
        1
        for beat_at, interval in beats
        if runtime_rules.is_fresh(_comparable(beat_at), interval, now)
    )


def _open_runs(src: Connection) -> int:
    wr = schema.workflow_run_projections
    open_ = (WorkflowStatus.RUNNING.value, WorkflowStatus.RECONCILED_NOT_FOUND.value)
    return int(
        src.execute(
            all_tenants(select(func.count()).select_from(wr).where(wr.c.status.in_(open_)))
        ).scalar_one()
    )

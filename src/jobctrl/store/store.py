"""The Store: one place that opens the database, runs write transactions and reads.

A write transaction (``Store.write()``) is the unit of work: domain rows change, events are
appended to ``job_events``, and the projections are folded up to the new events before the
same transaction commits, so a projection and its watermark can never disagree.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, CursorResult, Table, insert, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from jobctrl.domain.events import DomainEvent
from jobctrl.home import Home
from jobctrl.store import schema
from jobctrl.store.artifacts import ArtifactStore
from jobctrl.store.db import create_engines, migrate


def utcnow() -> datetime:
    return datetime.now(UTC)


_upserts: dict[tuple[str, str, tuple[str, ...], tuple[str, ...] | None], Any] = {}


def upsert(
    conn: Connection,
    table: Table,
    values: dict[str, Any],
    *,
    keys: list[str],
    update: Sequence[str] | dict[str, Any] | None = None,
) -> CursorResult[Any]:
    """INSERT ``values`` ... ON CONFLICT (``keys``) DO NOTHING, or DO UPDATE.

    ``update`` names the columns to overwrite with the new values (the statement is built
    once and reused: this runs several times per transaction), or maps columns to
    expressions such as ``calls + 1``.
    """
    builder = pg_insert if conn.dialect.name == "postgresql" else sqlite_insert
    if isinstance(update, dict):
        stmt = builder(table).values(**values)
        return conn.execute(stmt.on_conflict_do_update(index_elements=keys, set_=update))
    cols = tuple(update) if update is not None else None
    cache_key = (conn.dialect.name, table.name, tuple(keys), cols)
    stmt = _upserts.get(cache_key)
    if stmt is None:
        ins = builder(table)
        stmt = (
            ins.on_conflict_do_nothing(index_elements=keys)
            if cols is None
            else ins.on_conflict_do_update(
                index_elements=keys, set_={c: ins.excluded[c] for c in cols}
            )
        )
        _upserts[cache_key] = stmt
    return conn.execute(stmt, values)


@dataclass
class WriteTx:
    """An open write transaction; ``append`` adds an event exactly once per key."""

    conn: Connection
    appended: list[dict[str, Any]] = field(default_factory=list)

    def append(self, event: DomainEvent, *, key: str, job_id: str | None = None) -> bool:
        """Append ``event`` unless an event with ``key`` exists; True if it was new."""
        row = {
            "event_id": str(uuid.uuid4()),
            "type": event.type,
            "job_id": job_id if job_id is not None else getattr(event, "job_id", None),
            "payload": event.payload(),
            "idempotency_key": key,
            "occurred_at": utcnow(),
        }
        result = upsert(self.conn, schema.job_events, row, keys=["idempotency_key"])
        if result.rowcount:
            row["seq"] = int(result.inserted_primary_key[0])
            self.appended.append(row)
            return True
        return False


_write_locks: dict[str, threading.Lock] = {}
_write_locks_guard = threading.Lock()
_stores: dict[str, Store] = {}


def _write_lock(url: str) -> threading.Lock:
    with _write_locks_guard:
        return _write_locks.setdefault(url, threading.Lock())


class Store:
    def __init__(self, url: str, artifacts: ArtifactStore, *, run_migrations: bool = True) -> None:
        self.url = url
        self.writer, self.reader = create_engines(url)
        self.artifacts = artifacts
        if run_migrations:
            migrate(self.writer)

    @classmethod
    def open(cls, home: Home) -> Store:
        """The process's store for this home, created (and migrated) on first use.

        One per database: an engine keeps its compiled-statement cache, so a fresh engine
        per call would compile every statement again.
        """
        url = home.database_url
        with _write_locks_guard:
            store = _stores.get(url)
            if store is None:
                home.ensure()
                store = _stores[url] = cls(url, ArtifactStore(home.artifacts_dir))
        return store

    def dispose(self) -> None:
        """Close pooled connections (the store stays usable and opens new ones on demand)."""
        self.writer.dispose()
        if self.reader is not self.writer:
            self.reader.dispose()

    @contextmanager
    def write(self) -> Iterator[WriteTx]:
        from jobctrl.store.projections import fold_pending

        # Writers of this process queue on a lock and wake as soon as it is free; left to
        # SQLite's busy handler they would poll with sleeps of up to 100 ms. Writers in
        # other processes still meet at BEGIN IMMEDIATE.
        with _write_lock(self.url), self.writer.begin() as conn:
            tx = WriteTx(conn)
            yield tx
            if tx.appended:
                fold_pending(conn, appended=tx.appended)

    @contextmanager
    def read(self) -> Iterator[Connection]:
        with self.reader.connect() as conn:
            yield conn

    def record_artifact(self, tx: WriteTx, sha: str, kind: str, media_type: str, size: int) -> None:
        upsert(
            tx.conn,
            schema.artifacts,
            {
                "sha256": sha,
                "kind": kind,
                "media_type": media_type,
                "size": size,
                "created_at": utcnow(),
            },
            keys=["sha256"],
        )

    def events_after(self, seq: int, limit: int = 500) -> list[dict]:
        with self.read() as conn:
            rows = conn.execute(
                select(schema.job_events)
                .where(schema.job_events.c.seq > seq)
                .order_by(schema.job_events.c.seq)
                .limit(limit)
            ).mappings()
            return [dict(r) for r in rows]


__all__ = ["Store", "WriteTx", "insert", "upsert", "utcnow"]

"""The Store: one place that opens the database, runs write transactions and reads.

A write transaction (``Store.write()``) is the unit of work: domain rows change, events are
appended to ``job_events``, and the projections are folded up to the new events before the
same transaction commits, so a projection and its watermark can never disagree.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import Connection

from jobctrl.domain.clock import Clock, as_utc, utcnow
from jobctrl.domain.events import DomainEvent
from jobctrl.home import Home
from jobctrl.store import projections, schema
from jobctrl.store.artifacts import ArtifactStore
from jobctrl.store.db import busy_as_error, create_engines, migrate, upsert
from jobctrl.store.projections import AppendedEvent


@dataclass
class WriteTx:
    """An open write transaction. ``now`` (UTC, read once the write lock is held, so it
    never runs behind an earlier transaction's) is every time it stamps: its rows and its
    events. ``append`` adds an event exactly once per key."""

    conn: Connection
    now: datetime
    appended: list[AppendedEvent] = field(default_factory=list)

    def append(self, event: DomainEvent, *, key: str, job_id: str | None = None) -> bool:
        """Append ``event`` unless an event with ``key`` exists; True if it was new."""
        row = {
            "event_id": str(uuid.uuid4()),
            "type": event.type,
            "job_id": job_id if job_id is not None else getattr(event, "job_id", None),
            "payload": event.payload(),
            "idempotency_key": key,
            "occurred_at": self.now,
        }
        result = upsert(self.conn, schema.job_events, row, keys=["idempotency_key"])
        if result.rowcount:
            seq = int(result.inserted_primary_key[0])  # type: ignore[index]
            self.appended.append(AppendedEvent(seq, event, self.now))
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
            migrate(self.writer, self.reader)

    @classmethod
    def open(cls, home: Home) -> Store:
        """The process's store for this home, created, migrated and caught up on first use.

        One per database: an engine keeps its compiled-statement cache, so a fresh engine
        per call would compile every statement again.
        """
        url = home.database_url
        with _write_locks_guard:
            store = _stores.get(url)
            created = store is None
            if store is None:
                home.ensure()
                store = _stores[url] = cls(url, ArtifactStore(home.artifacts_dir))
        if created:  # outside the guard: catching up takes the write lock
            store.catch_up()
        return store

    @classmethod
    def forget(cls, url: str) -> None:
        """Close and drop this process's store for ``url`` (a database about to be
        dropped, as in the tests' throwaway PostgreSQL databases)."""
        with _write_locks_guard:
            store = _stores.pop(url, None)
        if store is not None:
            store.dispose()

    def dispose(self) -> None:
        """Close pooled connections (the store stays usable and opens new ones on demand)."""
        self.writer.dispose()
        if self.reader is not self.writer:
            self.reader.dispose()

    @contextmanager
    def write(self, *, clock: Clock | None = None) -> Iterator[WriteTx]:
        """A write transaction stamped with ``clock()`` (default: the current UTC time),
        read once the transaction holds the write lock."""
        # Writers of this process queue on a lock and wake as soon as it is free; left to
        # SQLite's busy handler they would poll with sleeps of up to 100 ms. Writers in
        # other processes still meet at BEGIN IMMEDIATE.
        with _write_lock(self.url), busy_as_error(), self.writer.begin() as conn:
            tx = WriteTx(conn, as_utc((clock or utcnow)()))
            yield tx
            if tx.appended:
                projections.fold_pending(conn, appended=tx.appended)

    @contextmanager
    def read(self) -> Iterator[Connection]:
        with busy_as_error(), self.reader.connect() as conn:
            yield conn

    def catch_up(self) -> int:
        """Fold the events the projections have not seen (after a migration reset them
        for a rebuild); how many were."""
        with self.read() as conn:
            behind = projections.behind(conn)
        if not behind:
            return 0
        with self.write() as tx:
            return projections.fold_pending(tx.conn)


__all__ = ["Store", "WriteTx"]

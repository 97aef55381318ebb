"""The Store: one place that opens the database, runs write transactions and reads.

A write transaction (``Store.write()``) is the unit of work: domain rows change, events are
appended to ``job_events``, and the projections are folded up to the new events before the
same transaction commits, so a projection and its watermark can never disagree.

A Store acts for one tenant (``Store.tenant``; ``Store.open(home)`` gives the one of
``home.tenant``, ``for_tenant`` another): every connection it hands out carries that
tenant (``store/tenancy.py``), and its write transactions stamp it on the events they
append. The views of one database share its engines.
"""

from __future__ import annotations

import copy
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import Connection

from jobctrl.domain.clock import Clock, as_utc, utcnow
from jobctrl.domain.errors import TENANT_UNKNOWN, NotFoundError
from jobctrl.domain.events import DomainEvent
from jobctrl.domain.tenants import LOCAL, checked_name
from jobctrl.home import Home
from jobctrl.store import projections, schema, tenancy, tenants
from jobctrl.store.artifacts import ArtifactStore
from jobctrl.store.db import busy_as_error, create_engines, damaged_as_error, migrate, upsert
from jobctrl.store.projections import AppendedEvent


@dataclass
class WriteTx:
    """An open write transaction. ``now`` (UTC, read once the write lock is held, so it
    never runs behind an earlier transaction's) is every time it stamps: its rows and its
    events. ``append`` adds an event exactly once per key, within ``tenant``."""

    conn: Connection
    now: datetime
    tenant: str = LOCAL
    appended: list[AppendedEvent] = field(default_factory=list)

    def append(self, event: DomainEvent, *, key: str, job_id: str | None = None) -> bool:
        """Append ``event`` unless an event with ``key`` exists in this tenant; True if it
        was new."""
        row = {
            "event_id": str(uuid.uuid4()),
            "type": event.type,
            "job_id": job_id if job_id is not None else getattr(event, "job_id", None),
            "payload": event.payload(),
            "idempotency_key": event_key(self.tenant, key),
            "occurred_at": self.now,
            "tenant_id": self.tenant,
        }
        result = upsert(self.conn, schema.job_events, row, keys=["idempotency_key"])
        if result.rowcount:
            seq = int(result.inserted_primary_key[0])  # type: ignore[index]
            self.appended.append(AppendedEvent(seq, event, self.now))
            return True
        return False


def event_key(tenant: str, key: str) -> str:
    """An event's stored idempotency key: ``key`` in ``local`` (as it always was), else
    ``tenant/key``, so one unique index holds every tenant's keys apart."""
    return key if tenant == LOCAL else f"{tenant}/{key}"


_write_locks: dict[str, threading.Lock] = {}
_write_locks_guard = threading.Lock()
_stores: dict[str, Store] = {}


def _write_lock(url: str) -> threading.Lock:
    with _write_locks_guard:
        return _write_locks.setdefault(url, threading.Lock())


class Store:
    tenant: str

    def __init__(
        self,
        url: str,
        artifacts: ArtifactStore,
        *,
        run_migrations: bool = True,
        tenant: str = LOCAL,
    ) -> None:
        self.url = url
        self.writer, self.reader = create_engines(url)
        if tenancy.guard_enabled():
            tenancy.install_guard(self.writer)
            tenancy.install_guard(self.reader)
        self.artifacts = artifacts
        self.tenant = checked_name(tenant)
        # Shared by every view of this database (``for_tenant`` copies the references).
        self._views: dict[str, Store] = {self.tenant: self}
        self._known = {LOCAL, self.tenant}  # tenants known to exist
        if run_migrations:
            migrate(self.writer, self.reader)

    @classmethod
    def open(cls, home: Home) -> Store:
        """The process's store for this home, created, migrated and caught up on first use,
        acting for ``home.tenant`` (``NotFoundError`` for a tenant never added).

        One per database: an engine keeps its compiled-statement cache, so a fresh engine
        per call would compile every statement again.
        """
        tenant = checked_name(home.tenant)
        url = home.database_url
        with _write_locks_guard, damaged_as_error():
            store = _stores.get(url)
            created = store is None
            if store is None:
                home.ensure()
                store = _stores[url] = cls(url, ArtifactStore(home.artifacts_dir))
        if created:  # outside the guard: catching up takes the write lock
            with damaged_as_error():
                store.catch_up()
        if not store.has_tenant(tenant):
            raise NotFoundError(
                f"unknown tenant {tenant} (jobctrl tenants add {tenant})", code=TENANT_UNKNOWN
            )
        return store.for_tenant(tenant)

    def for_tenant(self, tenant: str) -> Store:
        """This database's store acting for ``tenant`` (made once, then reused)."""
        with _write_locks_guard:
            view = self._views.get(tenant)
            if view is None:
                view = copy.copy(self)
                view.tenant = checked_name(tenant)
                self._views[tenant] = view
        return view

    def has_tenant(self, tenant: str) -> bool:
        """Whether ``tenant`` exists (``local`` always; another once added), read from
        the database until it is seen once."""
        if tenant in self._known:
            return True
        if tenants.exists(self, tenant):
            self._known.add(tenant)
            return True
        return False

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
            tenancy.bind(conn, self.tenant)
            tx = WriteTx(conn, as_utc((clock or utcnow)()), self.tenant)
            yield tx
            if tx.appended:
                projections.fold_pending(conn, appended=tx.appended)

    @contextmanager
    def read(self) -> Iterator[Connection]:
        with busy_as_error(), self.reader.connect() as conn:
            yield tenancy.bind(conn, self.tenant)

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

"""What a stage needs to do its work: the store, settings, fetcher, spend authority, a
clock and a heartbeat, acting for one tenant (``for_tenant``: the worker's context is
the local tenant's, and each activity acts for the tenant its input names)."""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime

from jobctrl.domain.clock import Clock, utcnow
from jobctrl.fetch.safe import FetchPolicy, SafeFetcher
from jobctrl.home import Home
from jobctrl.llm.spend import SpendAuthority
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store


def fetch_policy(settings: Settings) -> FetchPolicy:
    values = settings.all()
    return FetchPolicy(
        allow_hosts=frozenset(values["fetch.allow_hosts"]),
        max_bytes=int(values["fetch.max_bytes"]),
        timeout_seconds=float(values["fetch.timeout_seconds"]),
        min_host_interval_seconds=float(values["fetch.min_host_interval_seconds"]),
        respect_robots=bool(values["fetch.respect_robots"]),
    )


class FetcherPool:
    """One fetcher per fetch policy, shared by every tenant's context, so per-host
    politeness holds across the tenants whose settings give the same policy. At most
    ``size`` policies are kept; the least recently used one is dropped, and its fetcher
    closed once no fetch holds it (another tenant's fetch may be using it right now)."""

    def __init__(self, size: int = 8) -> None:
        self.size = size
        self._fetchers: OrderedDict[FetchPolicy, SafeFetcher] = OrderedDict()
        self._holds: dict[int, int] = {}  # id(fetcher) -> fetches holding it
        self._dropped: dict[int, SafeFetcher] = {}  # out of the pool, closed at last release
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def lease(self, policy: FetchPolicy) -> Iterator[SafeFetcher]:
        """The fetcher of ``policy``, never closed while the block uses it."""
        with self._lock:
            fetcher = self._fetchers.get(policy)
            if fetcher is None:
                fetcher = self._fetchers[policy] = SafeFetcher(policy)
                while len(self._fetchers) > self.size:
                    self._drop(self._fetchers.popitem(last=False)[1])
            else:
                self._fetchers.move_to_end(policy)
            self._holds[id(fetcher)] = self._holds.get(id(fetcher), 0) + 1
        try:
            yield fetcher
        finally:
            with self._lock:
                left = self._holds[id(fetcher)] - 1
                if left:
                    self._holds[id(fetcher)] = left
                else:
                    del self._holds[id(fetcher)]
                    if self._dropped.pop(id(fetcher), None) is not None:
                        fetcher.close()

    def _drop(self, fetcher: SafeFetcher) -> None:
        if self._holds.get(id(fetcher)):
            self._dropped[id(fetcher)] = fetcher
        else:
            fetcher.close()

    def close(self) -> None:
        with self._lock:
            for fetcher in [*self._fetchers.values(), *self._dropped.values()]:
                fetcher.close()
            self._fetchers.clear()
            self._dropped.clear()


@dataclass
class StageContext:
    """``clock`` is the time every stage write is stamped with (tests pass their own);
    ``heartbeat`` tells Temporal a long attempt is alive (a no-op outside an activity);
    ``keep_alive()`` keeps telling it from another thread while a block (a provider call)
    holds the attempt's thread;
    ``stopping`` says the attempt was asked to stop (a cancel) between two units of work."""

    home: Home
    store: Store
    heartbeat: Callable[..., None] = field(default=lambda *details: None)
    keep_alive: Callable[[], AbstractContextManager[object]] = contextlib.nullcontext
    stopping: Callable[[], bool] = field(default=lambda: False)
    clock: Clock = utcnow
    _pool: FetcherPool = field(default_factory=FetcherPool)

    def now(self) -> datetime:
        return self.clock()

    def for_tenant(self, tenant: str) -> StageContext:
        """This context acting for ``tenant``: its home (config.yaml, reports) and store
        (so its settings and spend), with the same clock, heartbeat and fetchers."""
        if tenant == self.store.tenant:
            return self
        # Made per call (a few microseconds): a test may set this context's clock later.
        return dataclasses.replace(
            self, home=self.home.with_tenant(tenant), store=self.store.for_tenant(tenant)
        )

    @property
    def settings(self) -> Settings:
        return Settings(self.store)

    @property
    def spend(self) -> SpendAuthority:
        return SpendAuthority(self.store, self.settings, clock=self.clock)

    def fetcher(self) -> AbstractContextManager[SafeFetcher]:
        """The fetcher of this tenant's policy for the block (one per policy, so per-host
        politeness is shared by all fetches): ``with ctx.fetcher() as f: f.fetch(url)``."""
        return self._pool.lease(fetch_policy(self.settings))

    def close(self) -> None:
        self._pool.close()

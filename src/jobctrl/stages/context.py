"""What a stage needs to do its work: the store, settings, fetcher, spend authority, a
clock and a heartbeat."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
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
    _fetcher: SafeFetcher | None = None
    _policy: FetchPolicy | None = None

    def now(self) -> datetime:
        return self.clock()

    @property
    def settings(self) -> Settings:
        return Settings(self.store)

    @property
    def spend(self) -> SpendAuthority:
        return SpendAuthority(self.store, self.settings, clock=self.clock)

    def fetcher(self) -> SafeFetcher:
        """One fetcher per policy, so per-host politeness is shared by all fetches."""
        policy = fetch_policy(self.settings)
        if self._fetcher is None or policy != self._policy:
            if self._fetcher is not None:
                self._fetcher.close()
            self._fetcher, self._policy = SafeFetcher(policy), policy
        return self._fetcher

    def close(self) -> None:
        if self._fetcher is not None:
            self._fetcher.close()
            self._fetcher = None

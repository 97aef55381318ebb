"""Per-host politeness: space out request starts to one host and honour rate-limit cooldowns.

One ``HostGate`` is shared by every fetch of a ``SafeFetcher`` (and so by every thread of the
worker). A request start to a host waits until ``min_interval`` has passed since the previous
start to that host; a short wait just sleeps, a long one fails fast. A host that answered 429
or 503 with Retry-After is in cooldown until then, and fetches to it fail at once with
``ENRICH_RATE_LIMITED`` so a worker thread is never parked on a sleep for minutes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import timedelta

from jobctrl.domain.errors import ENRICH_RATE_LIMITED, StageError

MAX_SLEEP_SECONDS = 5.0
_MAX_HOSTS = 4096


class HostGate:
    """Thread-safe gate for request starts, keyed by lowercase host name."""

    def __init__(
        self,
        min_interval_seconds: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        max_sleep_seconds: float = MAX_SLEEP_SECONDS,
    ) -> None:
        self._interval = max(0.0, min_interval_seconds)
        self._clock = clock
        self._sleep = sleep
        self._max_sleep = max_sleep_seconds
        self._lock = threading.Lock()
        self._next_start: dict[str, float] = {}
        self._cooldown_until: dict[str, float] = {}

    def check_cooldown(self, host: str) -> None:
        """Raise ``ENRICH_RATE_LIMITED`` if ``host`` is cooling down after a rate limit."""
        with self._lock:
            self._raise_if_cooling(host, self._clock())

    def acquire(self, host: str) -> None:
        """Wait for this host's turn to start a request, or raise if that would take too long."""
        with self._lock:
            now = self._clock()
            self._raise_if_cooling(host, now)
            start = max(now, self._next_start.get(host, now))
            wait = start - now
            if wait >= self._max_sleep:
                raise StageError(
                    ENRICH_RATE_LIMITED,
                    f"too many requests queued for {host}",
                    retryable=True,
                    retry_after=timedelta(seconds=wait),
                )
            # Reserve the slot before sleeping so concurrent callers queue up behind it.
            self._next_start[host] = start + self._interval
            self._forget_idle(now)
        if wait > 0:
            self._sleep(wait)

    def cool_down(self, host: str, delay: timedelta) -> None:
        """Refuse requests to ``host`` for ``delay`` from now (a later cooldown is kept)."""
        seconds = delay.total_seconds()
        if seconds <= 0:
            return
        with self._lock:
            until = self._clock() + seconds
            self._cooldown_until[host] = max(until, self._cooldown_until.get(host, until))

    def _raise_if_cooling(self, host: str, now: float) -> None:
        until = self._cooldown_until.get(host)
        if until is None:
            return
        if until <= now:
            del self._cooldown_until[host]
            return
        raise StageError(
            ENRICH_RATE_LIMITED,
            f"{host} asked us to wait before fetching again",
            retryable=True,
            retry_after=timedelta(seconds=until - now),
        )

    def _forget_idle(self, now: float) -> None:
        # A long-running worker meets many hosts; drop those whose turn has long passed.
        if len(self._next_start) <= _MAX_HOSTS:
            return
        self._next_start = {h: t for h, t in self._next_start.items() if t > now}
        self._cooldown_until = {h: t for h, t in self._cooldown_until.items() if t > now}

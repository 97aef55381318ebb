"""robots.txt rules per origin (RFC 9309), cached, deciding whether a URL may be fetched.

``RobotsCache`` loads ``/robots.txt`` through a callable the fetcher supplies (so it goes
through the same address checks, politeness gate and redirect limit as any page) and keeps the
verdict for an hour. A 2xx body is parsed with protego and obeyed for our user agent; a 4xx
(or more than 5 redirects) means no rules; a 5xx or another failure to read it means nothing
may be fetched, remembered only briefly because the failure may pass.

When robots.txt cannot be requested at all (refused, unresolvable, timed out, unsafe address,
rate-limited) that error is raised as is and nothing is cached: the page could not have been
fetched either, and its own code says why better than "robots disallowed" would.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlsplit

from protego import Protego

from jobctrl.domain.errors import (
    DETAIL_UNSAFE_URL,
    ENRICH_RATE_LIMITED,
    ENRICH_ROBOTS_DISALLOWED,
    ENRICH_TIMEOUT,
    ENRICH_TOO_MANY_REDIRECTS,
    ENRICH_UNREACHABLE,
    StageError,
)

# Loads one robots.txt URL: returns the final status and body, raises StageError when the
# request could not be made or answered.
RobotsLoader = Callable[[str], tuple[int, bytes]]

ROBOTS_TTL_SECONDS = 3600.0
ROBOTS_FAILURE_TTL_SECONDS = 300.0
_MAX_ORIGINS = 4096
# Failures that are about reaching the host at all rather than about its robots.txt.
_PASSED_THROUGH = frozenset(
    {DETAIL_UNSAFE_URL, ENRICH_RATE_LIMITED, ENRICH_TIMEOUT, ENRICH_UNREACHABLE}
)


@dataclass(frozen=True)
class _Verdict:
    rules: Protego | None  # None: no rules, everything allowed (unless unreachable)
    unreachable: bool
    expires_at: float


class RobotsCache:
    """Thread-safe robots.txt verdicts keyed by origin (scheme, host and port)."""

    def __init__(
        self,
        load: RobotsLoader,
        *,
        user_agent: str,
        clock: Callable[[], float] = time.monotonic,
        ttl_seconds: float = ROBOTS_TTL_SECONDS,
        failure_ttl_seconds: float = ROBOTS_FAILURE_TTL_SECONDS,
    ) -> None:
        self._load = load
        self._user_agent = user_agent
        self._clock = clock
        self._ttl = ttl_seconds
        self._failure_ttl = failure_ttl_seconds
        self._lock = threading.Lock()
        self._verdicts: dict[str, _Verdict] = {}
        self._loading: dict[str, threading.Event] = {}

    def check(self, url: str) -> None:
        """Raise ``ENRICH_ROBOTS_DISALLOWED`` unless robots.txt lets us fetch ``url``."""
        parts = urlsplit(url)
        host = parts.hostname or ""
        origin = f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}".lower()
        verdict = self._verdict(origin)
        if verdict.unreachable:
            remaining = max(0.0, verdict.expires_at - self._clock())
            raise StageError(
                ENRICH_ROBOTS_DISALLOWED,
                f"robots.txt of {host} could not be read, so nothing there may be fetched",
                retryable=True,
                retry_after=timedelta(seconds=remaining),
            )
        if verdict.rules is not None and not verdict.rules.can_fetch(url, self._user_agent):
            raise StageError(
                ENRICH_ROBOTS_DISALLOWED,
                f"robots.txt of {host} disallows this page",
                retryable=False,
            )

    def _verdict(self, origin: str) -> _Verdict:
        while True:
            with self._lock:
                verdict = self._verdicts.get(origin)
                if verdict is not None and verdict.expires_at > self._clock():
                    return verdict
                pending = self._loading.get(origin)
                if pending is None:
                    pending = self._loading[origin] = threading.Event()
                    break
            # Another thread is loading this origin's robots.txt: use its answer.
            pending.wait()
        try:
            verdict = self._fetch_verdict(origin)
            with self._lock:
                self._store(origin, verdict)
            return verdict
        finally:
            with self._lock:
                del self._loading[origin]
            pending.set()

    def _fetch_verdict(self, origin: str) -> _Verdict:
        now = self._clock()
        try:
            status, body = self._load(f"{origin}/robots.txt")
        except StageError as exc:
            if exc.code in _PASSED_THROUGH:
                raise
            if exc.code == ENRICH_TOO_MANY_REDIRECTS:
                # RFC 9309 2.3.1.2: too many redirects means robots.txt is unavailable.
                return _Verdict(rules=None, unreachable=False, expires_at=now + self._ttl)
            return _Verdict(rules=None, unreachable=True, expires_at=now + self._failure_ttl)
        if 200 <= status < 300:
            rules = Protego.parse(body.decode("utf-8", errors="replace"))
            return _Verdict(rules=rules, unreachable=False, expires_at=now + self._ttl)
        if 400 <= status < 500:
            return _Verdict(rules=None, unreachable=False, expires_at=now + self._ttl)
        return _Verdict(rules=None, unreachable=True, expires_at=now + self._failure_ttl)

    def _store(self, origin: str, verdict: _Verdict) -> None:
        self._verdicts[origin] = verdict
        if len(self._verdicts) > _MAX_ORIGINS:
            now = self._clock()
            live = {o: v for o, v in self._verdicts.items() if v.expires_at > now}
            # Still too many: drop the oldest half (dicts keep insertion order).
            if len(live) > _MAX_ORIGINS:
                live = dict(list(live.items())[len(live) // 2 :])
            self._verdicts = live

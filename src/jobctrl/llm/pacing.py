"""One pace per provider endpoint, shared by every thread of this worker: a rate limit is
the provider's, not one request's.

An endpoint is a provider, its base URL and its key (``endpoint_id``: a digest of the key,
never the key). Every request to it starts with ``Pacer.acquire``, which returns the
``Ticket`` of that one request:

- after a 429 every request to the endpoint holds until its ``Retry-After`` (a
  provider-wide hold), not only the one refused;
- starts are paced to the provider's request limit: at most ``limit`` starts of this worker
  in any ``WINDOW`` (a sliding log, ``MARGIN`` longer to cover the trip to the provider;
  it keeps within a sliding-window and a token-bucket provider alike). A start is logged
  when its turn is taken and moved to the moment the request is sent (``Ticket.sent``,
  from the SDK client's request hook): on a loaded machine the two can be a second apart.
  The limit comes from the rate-limit headers when the provider sends them (OpenAI
  ``x-ratelimit-*-requests``, Anthropic ``anthropic-ratelimit-requests-*``; the SDK
  client's response hook hands them to ``Ticket.observe``), else it is learned from a 429:
  the starts the provider admitted in the window before the refused one, when its
  ``Retry-After`` agrees that it is a rate (a refusal that asks for much less than one
  slot's time at that rate is a passing refusal, not a rate);
- once a hold ends, one request goes first (a probe) and the others follow only when the
  provider answered it, so waiters released together are not all refused together;
- waiters go first come, first served, call ``heartbeat`` at least every ``BEAT`` s so
  Temporal does not time their attempt out, and give up with ``PROVIDER_RATE_LIMITED``
  when the wait would outlast their bound. A heartbeat that raises (a cancelled attempt)
  ends the wait with its exception: nothing was sent.

Hand-written rather than a limiter library (pyrate-limiter, aiolimiter): those fix the
rate when they are built and block without a callback, while here the limit changes at
run time (headers, learning), the provider itself imposes holds, and a wait must heartbeat
and stop on a cancel.
"""

from __future__ import annotations

import bisect
import email.utils
import hashlib
import math
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from jobctrl.domain import errors
from jobctrl.llm.remote import ProviderError

WINDOW = 60.0  # seconds: the providers' request limits are per minute
LEARNED_FOR = 600.0  # seconds a learned limit holds after the 429 that taught it
MARGIN = 1.0  # a start counts this much longer than the window (the trip to the provider)
BEAT = 0.25  # longest sleep between two heartbeats of a waiting request
DEFAULT_HOLD = 5.0  # a 429 that names no delay holds the endpoint this long
# A learned limit must be backed by a Retry-After of at least this share of one slot's
# time (WINDOW / limit): a provider refusing for a moment asks for less.
AGREEMENT = 0.5

Clock = Callable[[], float]


@dataclass(frozen=True)
class RateHeaders:
    """What a response says about the endpoint's request limit (None: not said)."""

    limit: int | None = None  # requests per window
    remaining: int | None = None  # requests left in it now
    reset: float | None = None  # seconds until the window is full again
    retry_after: float | None = None  # seconds a refused request should wait


_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_UNIT = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def _duration(text: str) -> float | None:
    """OpenAI's reset format (``1s``, ``6m0s``, ``20ms``, ``1h2m3.5s``) in seconds."""
    text = text.strip()
    parts = _DURATION.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        try:
            return max(0.0, float(text))  # a bare number of seconds
        except ValueError:
            return None
    return sum(float(n) * _UNIT[u] for n, u in parts)


def _count(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def _until(text: str, now: datetime) -> float | None:
    """Seconds from ``now`` to an RFC 3339 or HTTP date (0 when past)."""
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - now).total_seconds())


def _retry_after(h: Mapping[str, str], now: datetime) -> float | None:
    if (ms := h.get("retry-after-ms")) is not None:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = h.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return _until(value, now)


def read_headers(headers: Mapping[str, str], now: datetime | None = None) -> RateHeaders:
    """The request-limit figures of a response's headers, OpenAI's or Anthropic's."""
    now = now or datetime.now(UTC)
    h = {str(k).lower(): str(v) for k, v in headers.items()}
    retry_after = _retry_after(h, now)
    if "anthropic-ratelimit-requests-limit" in h:
        reset = h.get("anthropic-ratelimit-requests-reset")
        return RateHeaders(
            limit=_count(h.get("anthropic-ratelimit-requests-limit")),
            remaining=_count(h.get("anthropic-ratelimit-requests-remaining")),
            reset=_until(reset, now) if reset else None,
            retry_after=retry_after,
        )
    reset = h.get("x-ratelimit-reset-requests")
    return RateHeaders(
        limit=_count(h.get("x-ratelimit-limit-requests")),
        remaining=_count(h.get("x-ratelimit-remaining-requests")),
        reset=_duration(reset) if reset else None,
        retry_after=retry_after,
    )


class Ticket:
    """One request's start: ``observe`` its response (status and headers, from the SDK
    client's hook), ``refused`` when it was a 429."""

    def __init__(self, pacer: Pacer, started: float) -> None:
        self.pacer = pacer
        self.started = started
        self.seen: RateHeaders | None = None
        self.done = False

    def sent(self) -> None:
        """The request is on its way (the SDK client's request hook)."""
        self.pacer.sent(self)

    def observe(self, status: int, headers: Mapping[str, str]) -> None:
        self.pacer.observe(self, status, read_headers(headers))

    def refused(self, retry_after: float | None = None) -> None:
        """The provider refused this request (429); ``retry_after`` when the hook did not
        see the response's own."""
        self.pacer.refused(self, retry_after)

    def finish(self) -> None:
        """The request is over, however it ended (a probe that got no answer frees the
        turn of the next one)."""
        self.pacer.finish(self)


class Pacer:
    """The pace of one endpoint (see the module's docstring). ``clock`` is monotonic."""

    def __init__(self, clock: Clock = time.monotonic) -> None:
        self.clock = clock
        self.limit: int | None = None
        self.limit_from: str | None = None  # "headers" | "learned"
        self.learned_at = 0.0  # a learned limit lapses LEARNED_FOR after its last 429
        self.hold_until = 0.0
        self._probing = False  # since a 429, until a request is answered
        self._probe: Ticket | None = None  # the request sent while probing, not yet over
        self._starts: deque[float] = deque()  # this worker's starts, oldest first
        self._queue: deque[object] = deque()  # waiters, first come first served
        self._cond = threading.Condition()

    def ready_at(self, now: float) -> float:
        """When the next request may start (locked)."""
        if self.limit_from == "learned" and now - self.learned_at > LEARNED_FOR:
            self.limit = self.limit_from = None  # no 429 for long: the provider's, not ours
        while self._starts and self._starts[0] <= now - WINDOW - MARGIN:
            self._starts.popleft()
        ready = max(now, self.hold_until)
        if self.limit is not None and len(self._starts) >= self.limit:
            ready = max(ready, self._starts[len(self._starts) - self.limit] + WINDOW + MARGIN)
        return ready

    def acquire(self, heartbeat: Callable[[], object], give_up_at: float) -> Ticket:
        """Wait for this endpoint's next start (in turn, heartbeating) and take it; raises
        ``ProviderError`` (``PROVIDER_RATE_LIMITED``, retryable, the wait left as its
        delay) when the start would come after ``give_up_at``."""
        me = object()
        with self._cond:
            self._queue.append(me)
        try:
            while True:
                with self._cond:
                    now = self.clock()
                    ready = self.ready_at(now)
                    turn = self._queue[0] is me and self._probe is None
                    if turn and ready <= now:
                        self._queue.popleft()
                        self._starts.append(now)
                        ticket = Ticket(self, now)
                        if self._probing:
                            self._probe = ticket
                        self._cond.notify_all()
                        return ticket
                    if ready > give_up_at or now >= give_up_at:
                        raise ProviderError(
                            errors.PROVIDER_RATE_LIMITED,
                            "rate limited: the provider's pace outlasts the wait allowed "
                            "(llm.rate_limit_max_wait_seconds)",
                            retryable=True,
                            retry_after=timedelta(seconds=math.ceil(max(ready - now, 1))),
                        )
                    # Not its turn: woken when a start, an answer or a leaver changes it.
                    self._cond.wait(min(max(ready - now, 0.005), BEAT) if turn else BEAT)
                heartbeat()  # outside the lock: it may raise (a cancel) or take a moment
        finally:
            with self._cond:
                if me in self._queue:
                    self._queue.remove(me)
                    self._cond.notify_all()

    def sent(self, ticket: Ticket) -> None:
        """Log the ticket's start at the moment it is sent (the log stays in order)."""
        with self._cond:
            if ticket.done or ticket.started not in self._starts:
                return
            self._starts.remove(ticket.started)
            ticket.started = max(ticket.started, self.clock())
            bisect.insort(self._starts, ticket.started)

    def observe(self, ticket: Ticket, status: int, seen: RateHeaders) -> None:
        """A response's headers: the limit they state replaces any learned one; none left
        holds the endpoint for one slot's time at that rate (at most until the reset); a
        429 holds it the moment it arrives (``refused``)."""
        with self._cond:
            ticket.seen = seen
            if seen.limit is not None and seen.limit > 0:
                self.limit, self.limit_from = seen.limit, "headers"
            if seen.remaining == 0 and self.limit:
                pause = min(WINDOW / self.limit, seen.reset if seen.reset is not None else WINDOW)
                self.hold_until = max(self.hold_until, self.clock() + pause)
            if status == 429:
                self.refused(ticket, None)
            elif ticket is self._probe:  # answered: the provider admits again
                self._probing, self._probe = False, None
            self._cond.notify_all()

    def refused(self, ticket: Ticket, retry_after: float | None) -> None:
        """A 429: its start is taken back (the provider did not admit it), every request
        holds until its Retry-After, and without stated limits one is learned."""
        with self._cond:
            if ticket.done:
                return
            ticket.done = True
            self._probing = True
            if self._probe is ticket:
                self._probe = None
            now = self.clock()
            if ticket.started in self._starts:
                self._starts.remove(ticket.started)
            seen = ticket.seen
            after = seen.retry_after if seen and seen.retry_after is not None else retry_after
            if self.limit_from != "headers" and not (seen and seen.limit):
                self._learn(ticket.started, after)
            if after is None:
                after = DEFAULT_HOLD if self.limit is None else self.ready_at(now) - now
            self.hold_until = max(self.hold_until, now + after)
            self._cond.notify_all()

    def _learn(self, started: float, after: float | None) -> None:
        """The limit the provider kept to before refusing the request started at
        ``started``: the starts it admitted in the window before (locked)."""
        admitted = sum(1 for s in self._starts if started - WINDOW < s < started)
        # Without a Retry-After that agrees it is a rate (a quota's 429, a short
        # refusal), nothing is learned: a wrong limit would throttle the endpoint.
        if admitted < 1 or after is None or after < AGREEMENT * WINDOW / admitted:
            return
        self.limit = admitted if self.limit is None else min(self.limit, admitted)
        self.limit_from = "learned"
        self.learned_at = self.clock()

    def finish(self, ticket: Ticket) -> None:
        with self._cond:
            if self._probe is ticket:
                self._probe = None
                self._cond.notify_all()

    def waiting(self) -> int:
        with self._cond:
            return len(self._queue)


_pacers: dict[str, Pacer] = {}
_pacers_guard = threading.Lock()


def endpoint_id(provider: str, base_url: str | None, key: str) -> str:
    """The endpoint a request goes to: provider, base URL and a digest of the key."""
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return f"{provider} {base_url or 'default'} {digest}"


def pacer_for(endpoint: str) -> Pacer:
    """This worker's pacer of ``endpoint`` (``endpoint_id``), shared by all its threads."""
    with _pacers_guard:
        pacer = _pacers.get(endpoint)
        if pacer is None:
            pacer = _pacers[endpoint] = Pacer()
        return pacer

"""Whether a saved job's posting is still open, and when to look again.

A check finds ``active`` (the page answers), ``unavailable`` (404/410, or its JSON-LD
``validThrough`` has passed) or ``unknown`` (any other failure). Confirmed unavailable
evidence blocks later preparation. ``next_check`` is the recheck policy.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum

from jobctrl.domain.clock import as_utc


class Availability(StrEnum):
    ACTIVE = "active"
    UNAVAILABLE = "unavailable"
    UNKNOWN = "unknown"


ACTIVE_INTERVAL = timedelta(hours=24)
UNAVAILABLE_INTERVAL = timedelta(days=7)
UNKNOWN_FIRST_RETRY = timedelta(minutes=5)
UNKNOWN_MAX_RETRY = timedelta(hours=24)


def next_check(state: str, failures: int, now: datetime) -> datetime:
    """When a job whose latest check found ``state`` is due again.

    Active evidence is rechecked after 24 h and unavailable evidence after 7 days; an
    unknown result retries after 5 minutes, doubling with each unknown in a row
    (``failures``), capped at 24 h.
    """
    if state == Availability.ACTIVE:
        return now + ACTIVE_INTERVAL
    if state == Availability.UNAVAILABLE:
        return now + UNAVAILABLE_INTERVAL
    if state != Availability.UNKNOWN:
        raise ValueError(f"not an availability state: {state!r}")
    exponent = max(failures, 1) - 1
    # Compare exponents, not products: 2**exponent overflows timedelta for long outages.
    if exponent >= 9:  # 5 min × 2**9 is already past the cap
        return now + UNKNOWN_MAX_RETRY
    return now + min(UNKNOWN_MAX_RETRY, UNKNOWN_FIRST_RETRY * (1 << exponent))


class ShownAvailability(StrEnum):
    """What a person reads about a posting: open, closed, unknown, or a check overdue."""

    OPEN = "open"
    CLOSED = "closed"
    UNKNOWN = "unknown"
    OVERDUE = "overdue"


# A check this late past its time is overdue (the worker sweeps every few minutes).
OVERDUE_AFTER = timedelta(hours=1)


def shown_state(state: str | None, next_check_at: datetime | None, now: datetime) -> str:
    """The posting's availability as shown: ``closed`` once a check confirmed it (a
    closed posting stays closed while its recheck waits), else ``overdue`` when its next
    check is more than ``OVERDUE_AFTER`` late, else ``open`` or ``unknown`` (never
    checked, or the last check could not tell)."""
    if state == Availability.UNAVAILABLE:
        return ShownAvailability.CLOSED.value
    if next_check_at is not None and as_utc(next_check_at) + OVERDUE_AFTER < as_utc(now):
        return ShownAvailability.OVERDUE.value
    if state == Availability.ACTIVE:
        return ShownAvailability.OPEN.value
    return ShownAvailability.UNKNOWN.value

"""UTC instants. Everything jobctrl stamps (rows, events, checks) is UTC; a ``Clock`` is
what tests pass instead of the current time."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(value: datetime) -> datetime:
    """``value`` in UTC; a naive value (SQLite reads timestamps back without a zone) is
    taken to be UTC already."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)

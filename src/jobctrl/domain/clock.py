"""UTC instants. Everything jobctrl stamps (rows, events, checks) is UTC; a ``Clock`` is
what tests pass instead of the current time."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime

Clock = Callable[[], datetime]


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(value: datetime) -> datetime:
    """``value`` in UTC; a naive value (SQLite reads timestamps back without a zone) is
    taken to be UTC already."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def iso(value: date | datetime | None) -> str | None:
    """``value`` as ISO 8601 text (``isoformat``: ``+00:00``, never ``Z``), or None: the one
    way every read model writes an instant or a day."""
    return value.isoformat() if value is not None else None

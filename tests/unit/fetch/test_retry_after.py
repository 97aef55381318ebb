"""Retry-After parsing: delta-seconds and HTTP-date, clamped to [0, 1 hour]."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from jobctrl.fetch.safe import parse_retry_after

NOW = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("7", timedelta(seconds=7)),
        (" 120 ", timedelta(seconds=120)),
        ("0", timedelta(0)),
        ("-5", timedelta(0)),
        ("86400", timedelta(hours=1)),
        ("99999999999999999999999", timedelta(hours=1)),
    ],
)
def test_delta_seconds(value: str, expected: timedelta) -> None:
    assert parse_retry_after(value, now=NOW) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Sat, 01 Mar 2025 12:00:30 GMT", timedelta(seconds=30)),
        ("Saturday, 01-Mar-25 12:02:00 GMT", timedelta(minutes=2)),  # RFC 850
        ("Sat Mar  1 12:00:10 2025", timedelta(seconds=10)),  # asctime
        ("Sat, 01 Mar 2025 11:00:00 GMT", timedelta(0)),  # in the past
        ("Sun, 02 Mar 2025 12:00:00 GMT", timedelta(hours=1)),  # capped
    ],
)
def test_http_dates(value: str, expected: timedelta) -> None:
    assert parse_retry_after(value, now=NOW) == expected


def test_http_date_is_measured_from_the_current_time_by_default() -> None:
    soon = datetime.now(UTC) + timedelta(seconds=60)
    delay = parse_retry_after(soon.strftime("%a, %d %b %Y %H:%M:%S GMT"))

    assert delay is not None
    assert timedelta(seconds=55) <= delay <= timedelta(seconds=60)


@pytest.mark.parametrize("value", [None, "", "   ", "soon", "1.5", "7 seconds", "Sat, 99 Foo"])
def test_missing_or_garbage_is_none(value: str | None) -> None:
    assert parse_retry_after(value, now=NOW) is None

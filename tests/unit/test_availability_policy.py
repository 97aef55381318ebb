"""Availability policy: when a job is checked again, and which due jobs come first."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from jobctrl.domain.availability import Availability, next_check
from jobctrl.store.availability import due_jobs, record_check
from jobctrl.store.jobs import create_job
from jobctrl.store.store import Store

NOW = datetime(2030, 3, 1, 12, 0, tzinfo=UTC)


def test_active_evidence_is_rechecked_after_a_day() -> None:
    assert next_check("active", 0, NOW) == NOW + timedelta(hours=24)


def test_unavailable_evidence_is_rechecked_after_a_week() -> None:
    assert next_check("unavailable", 0, NOW) == NOW + timedelta(days=7)


@pytest.mark.parametrize(
    ("failures", "minutes"),
    [(1, 5), (2, 10), (3, 20), (4, 40), (5, 80), (8, 640), (9, 1280), (10, 1440), (500, 1440)],
)
def test_unknown_backs_off_from_five_minutes_doubling_to_a_day(failures: int, minutes: int) -> None:
    assert next_check("unknown", failures, NOW) == NOW + timedelta(minutes=minutes)


def test_unknown_without_a_failure_count_retries_after_five_minutes() -> None:
    assert next_check("unknown", 0, NOW) == NOW + timedelta(minutes=5)


def test_an_unknown_state_name_is_refused() -> None:
    with pytest.raises(ValueError):
        next_check("closed", 0, NOW)


def _job(store: Store, n: int, next_at: datetime | None) -> str:
    """A job never checked, or one whose active check a day before makes it due at
    ``next_at``."""
    job_id = create_job(store, f"https://jobs.example.com/posting/{n}").job_id
    if next_at is not None:
        record_check(store, job_id, Availability.ACTIVE, None, next_at - timedelta(hours=24))
    return job_id


def test_due_jobs_put_never_checked_first_then_oldest_due_then_job_id(store: Store) -> None:
    never = sorted([_job(store, 1, None), _job(store, 2, None)])
    oldest = _job(store, 3, NOW - timedelta(hours=5))
    tied = sorted(
        [_job(store, 4, NOW - timedelta(hours=1)), _job(store, 5, NOW - timedelta(hours=1))]
    )
    exactly_now = _job(store, 6, NOW)
    _job(store, 7, NOW + timedelta(seconds=1))  # not due yet

    assert due_jobs(store, NOW, 100) == [*never, oldest, *tied, exactly_now]
    assert due_jobs(store, NOW, 3) == [*never, oldest]
    assert due_jobs(store, NOW, 0) == []

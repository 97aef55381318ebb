"""Per-host spacing of requests and Retry-After cooldowns across fetches of one fetcher."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from jobctrl.domain.errors import ENRICH_HTTP_SERVER_ERROR, ENRICH_RATE_LIMITED, StageError


def test_429_with_retry_after_cools_the_host_down(make_fetcher, site, clock) -> None:
    site.route("/job", b"slow down", status=429, headers={"Retry-After": "7"})
    fetcher = make_fetcher()

    with pytest.raises(StageError) as first:
        fetcher.fetch("http://public.test/job")
    clock.advance(2)
    with pytest.raises(StageError) as second:
        fetcher.fetch("http://public.test/job")

    assert first.value.code == ENRICH_RATE_LIMITED
    assert first.value.retryable is True
    assert first.value.retry_after == timedelta(seconds=7)
    assert second.value.code == ENRICH_RATE_LIMITED
    assert second.value.retry_after == timedelta(seconds=5)
    assert site.hits["/job"] == 1  # the second fetch failed fast, without a request
    assert clock.sleeps == []


def test_the_host_is_fetched_again_after_the_cooldown(make_fetcher, site, clock) -> None:
    site.route("/job", b"slow down", status=429, headers={"Retry-After": "7"})
    fetcher = make_fetcher()
    with pytest.raises(StageError):
        fetcher.fetch("http://public.test/job")

    site.route("/job")
    clock.advance(7.5)

    assert fetcher.fetch("http://public.test/job").status == 200


def test_a_cooldown_applies_to_its_host_only(make_fetcher, make_site, internet, site) -> None:
    other = make_site()
    internet.servers["93.184.216.35"] = other.port
    other.route("/job")
    site.route("/job", b"", status=429, headers={"Retry-After": "60"})
    fetcher = make_fetcher()
    with pytest.raises(StageError):
        fetcher.fetch("http://public.test/job")

    assert fetcher.fetch("http://other.test/job").status == 200


def test_503_with_an_http_date_retry_after(make_fetcher, site) -> None:
    when = datetime.now(UTC) + timedelta(seconds=120)
    site.route("/job", b"", status=503, headers={"Retry-After": format_datetime(when, True)})

    with pytest.raises(StageError) as caught:
        make_fetcher().fetch("http://public.test/job")

    assert caught.value.code == ENRICH_HTTP_SERVER_ERROR
    assert caught.value.retryable is True
    assert caught.value.retry_after is not None
    assert 110 <= caught.value.retry_after.total_seconds() <= 120


def test_requests_to_one_host_are_spaced_by_the_min_interval(make_fetcher, site, clock) -> None:
    site.route("/jobs/1")
    site.route("/jobs/2")
    fetcher = make_fetcher(min_host_interval_seconds=1.0, respect_robots=False)

    fetcher.fetch("http://public.test/jobs/1")
    fetcher.fetch("http://public.test/jobs/2")

    assert clock.sleeps == [1.0]

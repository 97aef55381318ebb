"""RobotsCache verdicts per origin: rules, missing files, failures and caching."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest

from jobctrl.domain.errors import (
    DETAIL_UNSAFE_URL,
    ENRICH_ROBOTS_DISALLOWED,
    ENRICH_TOO_MANY_REDIRECTS,
    ENRICH_UNREACHABLE,
    StageError,
)
from jobctrl.fetch.robots import RobotsCache


class FakeRobots:
    """Answers robots.txt loads from a table and counts them."""

    def __init__(self, answer: tuple[int, bytes] | StageError) -> None:
        self.answer = answer
        self.loads: list[str] = []

    def __call__(self, url: str) -> tuple[int, bytes]:
        self.loads.append(url)
        if isinstance(self.answer, StageError):
            raise self.answer
        return self.answer


def disallowed(cache: RobotsCache, url: str) -> StageError | None:
    try:
        cache.check(url)
    except StageError as exc:
        assert exc.code == ENRICH_ROBOTS_DISALLOWED
        return exc
    return None


def test_rules_for_our_agent_are_obeyed(clock) -> None:
    load = FakeRobots((200, b"User-agent: jobctrl\nDisallow: /admin\n"))
    cache = RobotsCache(load, user_agent="jobctrl", clock=clock)

    refused = disallowed(cache, "https://jobs.example/admin/x")

    assert refused is not None and refused.retryable is False
    assert disallowed(cache, "https://jobs.example/jobs/1") is None
    assert load.loads == ["https://jobs.example/robots.txt"]


def test_each_origin_has_its_own_robots(clock) -> None:
    load = FakeRobots((404, b""))
    cache = RobotsCache(load, user_agent="jobctrl", clock=clock)

    cache.check("https://a.example/x")
    cache.check("http://a.example/x")
    cache.check("https://a.example:8443/x")
    cache.check("https://user:pw@a.example/y")

    assert load.loads == [
        "https://a.example/robots.txt",
        "http://a.example/robots.txt",
        "https://a.example:8443/robots.txt",
    ]


def test_verdicts_expire_after_the_ttl(clock) -> None:
    load = FakeRobots((200, b""))
    cache = RobotsCache(load, user_agent="jobctrl", clock=clock)

    cache.check("https://a.example/x")
    clock.advance(3599)
    cache.check("https://a.example/x")
    clock.advance(2)
    cache.check("https://a.example/x")

    assert len(load.loads) == 2


@pytest.mark.parametrize("status", [500, 503])
def test_a_server_error_disallows_everything_for_a_while(status, clock) -> None:
    load = FakeRobots((status, b""))
    cache = RobotsCache(load, user_agent="jobctrl", clock=clock, failure_ttl_seconds=300)

    first = disallowed(cache, "https://a.example/x")
    clock.advance(100)
    second = disallowed(cache, "https://a.example/y")
    clock.advance(201)
    load.answer = (200, b"")
    third = disallowed(cache, "https://a.example/y")

    assert first is not None and first.retryable is True
    assert second is not None and second.retry_after == timedelta(seconds=200)
    assert third is None
    assert len(load.loads) == 2


def test_too_many_redirects_counts_as_no_robots(clock) -> None:
    load = FakeRobots(StageError(ENRICH_TOO_MANY_REDIRECTS, "loop"))
    cache = RobotsCache(load, user_agent="jobctrl", clock=clock)

    assert disallowed(cache, "https://a.example/x") is None


@pytest.mark.parametrize("code", [DETAIL_UNSAFE_URL, ENRICH_UNREACHABLE])
def test_failures_to_reach_the_host_are_raised_as_they_are_and_not_cached(code, clock) -> None:
    load = FakeRobots(StageError(code, "no"))
    cache = RobotsCache(load, user_agent="jobctrl", clock=clock)

    for _ in range(2):
        with pytest.raises(StageError) as caught:
            cache.check("https://a.example/x")
        assert caught.value.code == code

    assert len(load.loads) == 2


def test_concurrent_checks_load_robots_once() -> None:
    loads: list[str] = []
    release = threading.Event()

    def slow_load(url: str) -> tuple[int, bytes]:
        loads.append(url)
        release.wait(2)
        return 200, b"User-agent: *\nDisallow: /private\n"

    cache = RobotsCache(slow_load, user_agent="jobctrl")
    results: list[bool] = []

    def check() -> None:
        results.append(disallowed(cache, "https://a.example/private/1") is not None)

    threads = [threading.Thread(target=check) for _ in range(4)]
    for thread in threads:
        thread.start()
    time.sleep(0.05)
    release.set()
    for thread in threads:
        thread.join()

    assert loads == ["https://a.example/robots.txt"]
    assert results == [True] * 4

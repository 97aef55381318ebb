"""Loopback fixtures for the feed and careers-page sources: a fixture server whose routes are
reset for every test (one server per module, since stopping one takes half a second) and a
fresh SafeFetcher per test, allowed to reach 127.0.0.1 without politeness delays."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.support.http import FixtureServer, Route

from jobctrl.fetch.safe import FetchPolicy, SafeFetcher


@pytest.fixture(scope="module")
def _module_server() -> Iterator[tuple[FixtureServer, dict[str, Route]]]:
    with FixtureServer() as fixture:
        yield fixture, dict(fixture.routes)


@pytest.fixture
def server(_module_server: tuple[FixtureServer, dict[str, Route]]) -> FixtureServer:
    fixture, defaults = _module_server
    fixture.routes = dict(defaults)
    fixture.hits = {}
    return fixture


@pytest.fixture
def fetcher() -> Iterator[SafeFetcher]:
    policy = FetchPolicy(
        allow_hosts=frozenset({"127.0.0.1"}), min_host_interval_seconds=0, timeout_seconds=5.0
    )
    with SafeFetcher(policy) as safe:
        yield safe

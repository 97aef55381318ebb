"""Fixtures for the sources: loopback servers and fetchers allowed to reach them.

``api`` is a ``JsonApi`` (provider-shaped JSON, paged by query) for the ATS adapters;
``server`` a ``FixtureServer`` (pages by path) for the feed and careers-page sources. Both
are fresh per test (tests/support/http.py). ``fetcher`` and ``make_fetcher`` give a
SafeFetcher that may reach 127.0.0.1 without politeness delays, policy fields overridable.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from tests.support.http import FixtureServer, JsonApi

from jobctrl.fetch.safe import FetchPolicy, SafeFetcher


@pytest.fixture
def api() -> Iterator[JsonApi]:
    with JsonApi() as server:
        yield server


@pytest.fixture
def server() -> Iterator[FixtureServer]:
    with FixtureServer() as fixture:
        yield fixture


@pytest.fixture
def make_fetcher() -> Iterator[Callable[..., SafeFetcher]]:
    fetchers: list[SafeFetcher] = []

    def make(**overrides: Any) -> SafeFetcher:
        settings: dict[str, Any] = {
            "allow_hosts": frozenset({"127.0.0.1"}),
            "min_host_interval_seconds": 0,
            "timeout_seconds": 5.0,
        }
        settings.update(overrides)
        fetchers.append(SafeFetcher(FetchPolicy(**settings)))
        return fetchers[-1]

    yield make
    for fetcher in fetchers:
        fetcher.close()


@pytest.fixture
def fetcher(make_fetcher: Callable[..., SafeFetcher]) -> SafeFetcher:
    return make_fetcher()

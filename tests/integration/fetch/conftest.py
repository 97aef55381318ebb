"""Fixtures for the fetch client: loopback HTTP sites and a simulated internet.

``FixtureSite`` is a ``LoopbackServer`` (tests/support/loopback.py) with shorthands for
pages and redirects; tests that stall or trickle route a handler with ``site.on``.

``internet`` is a fake DNS plus a connector: it maps pretend public IPs (``PUBLIC_IP``) to
fixture servers on 127.0.0.1, lets loopback addresses through, and fails the test on any
other address, so no test can reach a non-loopback host even by accident. Names it does not
know are only parsed as numeric addresses (never sent to real DNS).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import httpcore
import pytest
from tests.support.clock import FakeClock
from tests.support.loopback import LoopbackServer, Response

from jobctrl.fetch.safe import FetchPolicy, SafeFetcher

PUBLIC_IP = "93.184.216.34"
SECOND_PUBLIC_IP = "93.184.216.35"


class FixtureSite(LoopbackServer):
    """A loopback site whose GET paths answer as the test programs them (no robots.txt
    unless routed: it answers 404, which allows everything)."""

    def route(
        self,
        path: str,
        body: bytes = b"<html><body>ok</body></html>",
        *,
        status: int = 200,
        content_type: str = "text/html; charset=utf-8",
        headers: dict[str, str] | None = None,
    ) -> None:
        self.on(
            "GET", path, Response(status, body, {"Content-Type": content_type, **(headers or {})})
        )

    def redirect(self, path: str, location: str, status: int = 302) -> None:
        self.route(path, b"", status=status, headers={"Location": location})


class LoopbackInternet:
    """Fake DNS and TCP connector that only ever touch 127.0.0.1."""

    def __init__(self) -> None:
        self.dns: dict[str, list[str] | Callable[[], list[str]]] = {}
        self.servers: dict[str, int] = {}  # pretend IP -> loopback port
        self.lookups: list[str] = []
        self.connects: list[str] = []

    def resolve(self, host: str, port: int) -> list[str]:
        self.lookups.append(host)
        answer = self.dns.get(host)
        if answer is not None:
            return answer() if callable(answer) else list(answer)
        # Numeric spellings such as 2130706433 or 127.1 are parsed locally, never looked up.
        infos = socket.getaddrinfo(host, port, flags=socket.AI_NUMERICHOST, type=socket.SOCK_STREAM)
        return [str(info[4][0]) for info in infos]

    def connect(self, ip: str, port: int, timeout: float | None) -> httpcore.NetworkStream:
        self.connects.append(ip)
        backend = httpcore.SyncBackend()
        if ip in self.servers:
            return backend.connect_tcp("127.0.0.1", self.servers[ip], timeout=timeout)
        if ipaddress.ip_address(ip).is_loopback:
            return backend.connect_tcp(ip, port, timeout=timeout)
        raise AssertionError(f"the fetcher tried to connect to non-loopback address {ip}")


@pytest.fixture
def make_site() -> Iterator[Callable[[], FixtureSite]]:
    with ExitStack() as sites:
        yield lambda: sites.enter_context(FixtureSite())


@pytest.fixture
def internet() -> LoopbackInternet:
    net = LoopbackInternet()
    net.dns.update(
        {
            "public.test": [PUBLIC_IP],
            "other.test": [SECOND_PUBLIC_IP],
            "private.test": ["10.1.2.3"],
            "mixed.test": [PUBLIC_IP, "10.0.0.5"],
        }
    )
    return net


@pytest.fixture
def site(make_site: Callable[[], FixtureSite], internet: LoopbackInternet) -> FixtureSite:
    """A site reachable as http://public.test/ (pretend address PUBLIC_IP)."""
    public = make_site()
    internet.servers[PUBLIC_IP] = public.port
    return public


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def make_fetcher(
    internet: LoopbackInternet, clock: FakeClock
) -> Iterator[Callable[..., SafeFetcher]]:
    """Build a fetcher on the loopback internet; policy fields may be overridden."""
    fetchers: list[SafeFetcher] = []

    def make(**overrides: Any) -> SafeFetcher:
        settings: dict[str, Any] = {"min_host_interval_seconds": 0.0, "timeout_seconds": 5.0}
        settings.update(overrides)
        fetcher = SafeFetcher(
            FetchPolicy(**settings),
            resolver=internet.resolve,
            connector=internet.connect,
            clock=clock,
            sleep=clock.sleep,
        )
        fetchers.append(fetcher)
        return fetcher

    yield make
    for fetcher in fetchers:
        fetcher.close()

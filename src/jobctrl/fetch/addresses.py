"""Which network addresses a fetch may reach, and the httpcore backend that connects only there.

``is_public_address`` classifies one IP. ``AddressGuard`` resolves a host once and refuses it
unless every address is public (or the host is explicitly allowed). ``GuardedNetworkBackend``
is the httpcore network backend that uses the guard for every TCP connect and then connects to
one of exactly the addresses it checked, so DNS cannot change its answer between check and
connect. It also holds each fetch's total deadline and clamps every socket operation to it.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import httpcore

from jobctrl.domain.errors import ENRICH_UNREACHABLE, StageError
from jobctrl.domain.public_fetch import DNS_NON_PUBLIC, LITERAL_NON_PUBLIC, UnsafeAddressError

Resolver = Callable[[str, int], list[str]]
Connector = Callable[[str, int, float | None], httpcore.NetworkStream]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# IANA special-purpose ranges that are not globally reachable, spelled out instead of relying on
# ``is_global`` alone, whose answer differs between Python patch releases.
_BLOCKED_V4 = tuple(
    ipaddress.IPv4Network(net)
    for net in (
        "0.0.0.0/8",  # "this network"
        "10.0.0.0/8",  # RFC 1918
        "100.64.0.0/10",  # carrier-grade NAT
        "127.0.0.0/8",  # loopback
        "169.254.0.0/16",  # link-local, including cloud metadata 169.254.169.254
        "172.16.0.0/12",  # RFC 1918
        "192.0.0.0/24",  # IETF protocol assignments
        "192.0.2.0/24",  # documentation
        "192.31.196.0/24",  # AS112
        "192.52.193.0/24",  # AMT
        "192.88.99.0/24",  # 6to4 relay anycast
        "192.168.0.0/16",  # RFC 1918
        "192.175.48.0/24",  # AS112
        "198.18.0.0/15",  # benchmarking
        "198.51.100.0/24",  # documentation
        "203.0.113.0/24",  # documentation
        "224.0.0.0/4",  # multicast
        "240.0.0.0/4",  # reserved, including broadcast
    )
)
_GLOBAL_UNICAST_V6 = ipaddress.IPv6Network("2000::/3")
_BLOCKED_V6 = tuple(
    ipaddress.IPv6Network(net)
    for net in (
        "2001::/23",  # IETF protocol assignments (Teredo is handled before this)
        "2001:db8::/32",  # documentation
        "3fff::/20",  # documentation
    )
)
_IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")  # deprecated ::a.b.c.d, also :: and ::1
_IPV4_TRANSLATED = ipaddress.IPv6Network("::ffff:0:0:0/96")  # SIIT
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_TEREDO = ipaddress.IPv6Network("2001::/32")


def is_public_address(ip: str) -> bool:
    """Whether ``ip`` is a globally reachable unicast address a fetch may connect to.

    Anything that does not parse as an IP address is not public.
    """
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv4Address):
        return _is_public_v4(address)
    return _is_public_v6(address)


def _is_public_v4(address: ipaddress.IPv4Address) -> bool:
    return address.is_global and not any(address in net for net in _BLOCKED_V4)


def _is_public_v6(address: ipaddress.IPv6Address) -> bool:
    # Addresses that embed an IPv4 address reach that address: judge them by it.
    if address.ipv4_mapped is not None:
        return _is_public_v4(address.ipv4_mapped)
    if address in _IPV4_COMPATIBLE or address in _IPV4_TRANSLATED:
        return False
    if address in _NAT64:
        return _is_public_v4(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    if address.sixtofour is not None:
        return _is_public_v4(address.sixtofour)
    if address in _TEREDO and address.teredo is not None:
        server, client = address.teredo
        return _is_public_v4(server) and _is_public_v4(client)
    # Outside 2000::/3 everything is multicast, link-local, ULA (incl. fd00:ec2::254) or reserved.
    return address in _GLOBAL_UNICAST_V6 and not any(address in net for net in _BLOCKED_V6)


def parse_ip_literal(host: str) -> IPAddress | None:
    """The IP address ``host`` spells (brackets allowed), or None for a host name."""
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def normalize_host(host: str) -> str:
    """The form of a host name or IP literal used to compare it with ``allow_hosts``."""
    literal = parse_ip_literal(host)
    if literal is not None:
        return str(literal)
    name = host.strip().rstrip(".").lower()
    try:
        return name.encode("idna").decode("ascii")
    except UnicodeError:
        return name


def system_resolver(host: str, port: int) -> list[str]:
    """Resolve ``host`` with the operating system resolver, in its preference order."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def system_connector(ip: str, port: int, timeout: float | None) -> httpcore.NetworkStream:
    """Open a plain TCP connection to an already checked IP address."""
    return httpcore.SyncBackend().connect_tcp(ip, port, timeout=timeout)


class AddressGuard:
    """Decides whether a host may be connected to, resolving it at most once per decision."""

    def __init__(self, allow_hosts: Iterable[str], resolver: Resolver | None = None) -> None:
        self._allowed = frozenset(normalize_host(host) for host in allow_hosts)
        self._resolve = resolver or system_resolver

    def is_allowed(self, host: str) -> bool:
        return normalize_host(host) in self._allowed

    def check_literal(self, host: str) -> None:
        """Refuse ``host`` now if it is an IP literal that is not public and not allowed."""
        literal = parse_ip_literal(host)
        if (
            literal is not None
            and not self.is_allowed(host)
            and not is_public_address(str(literal))
        ):
            raise _unsafe(host, LITERAL_NON_PUBLIC)

    def addresses(self, host: str, port: int) -> list[str]:
        """The checked addresses to connect to for ``host``; raises StageError otherwise."""
        literal = parse_ip_literal(host)
        if literal is not None:
            self.check_literal(host)
            return [str(literal)]
        try:
            found = list(self._resolve(host, port))
        except (OSError, UnicodeError):
            found = []
        if not found:
            raise StageError(ENRICH_UNREACHABLE, f"could not resolve {host}", retryable=True)
        if not self.is_allowed(host) and not all(is_public_address(ip) for ip in found):
            raise _unsafe(host, DNS_NON_PUBLIC)
        return found


def _unsafe(host: str, reason: str) -> StageError:
    """``DETAIL_UNSAFE_URL`` with its evidence: a name that resolved to a non-public
    address (the public-fetch recheck may try it again later) or a non-public literal."""
    return UnsafeAddressError(host, reason)


class GuardedNetworkBackend(httpcore.NetworkBackend):
    """An httpcore backend whose TCP connects go only to addresses the guard approved.

    TLS is untouched: httpcore wraps the returned stream with the URL's host name for SNI and
    certificate checks. The per-thread deadline (httpcore's sync pool does all I/O on the
    calling thread) caps connect, TLS, read and write so one fetch cannot outlive it.
    """

    def __init__(self, guard: AddressGuard, connector: Connector | None = None) -> None:
        self._guard = guard
        self._connector = connector or system_connector
        self._local = threading.local()

    @contextmanager
    def deadline(self, at: float) -> Iterator[None]:
        """Cap all socket operations on this thread to finish by ``at`` (time.monotonic)."""
        previous = getattr(self._local, "deadline", None)
        self._local.deadline = at if previous is None else min(at, previous)
        try:
            yield
        finally:
            self._local.deadline = previous

    def clamp(self, timeout: float | None, expired: type[Exception]) -> float | None:
        deadline: float | None = getattr(self._local, "deadline", None)
        if deadline is None:
            return timeout
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise expired("the fetch deadline passed")
        return remaining if timeout is None else min(timeout, remaining)

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        failure: Exception | None = None
        for ip in self._checked_addresses(host, port, timeout):
            try:
                stream = self._connector(ip, port, self.clamp(timeout, httpcore.ConnectTimeout))
            except (httpcore.ConnectError, httpcore.ConnectTimeout, OSError) as exc:
                failure = exc
                continue
            return _DeadlineStream(stream, self)
        if isinstance(failure, httpcore.ConnectTimeout | TimeoutError):
            raise httpcore.ConnectTimeout("no checked address answered in time") from failure
        raise httpcore.ConnectError("no checked address accepted the connection") from failure

    def _checked_addresses(self, host: str, port: int, timeout: float | None) -> list[str]:
        """The guard's answer for ``host``, given up on when the connect timeout passes.

        getaddrinfo has no timeout of its own, so a name lookup runs on a helper thread; a
        lookup that hangs is abandoned there instead of holding the fetch past its deadline.
        """
        limit = self.clamp(timeout, httpcore.ConnectTimeout)
        if limit is None or parse_ip_literal(host) is not None:
            return self._guard.addresses(host, port)
        outcome: list[list[str] | BaseException] = []

        def resolve() -> None:
            try:
                outcome.append(self._guard.addresses(host, port))
            except BaseException as exc:  # handed to the waiting thread below
                outcome.append(exc)

        worker = threading.Thread(target=resolve, name=f"resolve {host}", daemon=True)
        worker.start()
        worker.join(limit)
        if not outcome:
            raise httpcore.ConnectTimeout("name resolution did not finish in time")
        if isinstance(outcome[0], BaseException):
            raise outcome[0]
        return outcome[0]

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("unix sockets are never fetched")

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


class _DeadlineStream(httpcore.NetworkStream):
    """A network stream whose every operation is clamped to the fetch deadline."""

    def __init__(self, stream: httpcore.NetworkStream, backend: GuardedNetworkBackend) -> None:
        self._stream = stream
        self._backend = backend

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, self._backend.clamp(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, self._backend.clamp(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(
        self,
        ssl_context: Any,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        clamped = self._backend.clamp(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(
            self._stream.start_tls(ssl_context, server_hostname, clamped), self._backend
        )

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)

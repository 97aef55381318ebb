"""The safe HTTP fetch client: one GET of a public web page, with every guard a crawler needs.

``SafeFetcher.fetch`` validates the URL, obeys robots.txt and per-host politeness, connects
only to public addresses (checked at connect time, see ``addresses``), follows redirects by
hand re-checking each hop, enforces one total deadline, caps the decoded body size while
streaming, and turns every failure into a ``StageError`` with a stable code and a short
message that names at most the host and the status.
"""

from __future__ import annotations

import re
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from http.cookiejar import CookieJar, DefaultCookiePolicy
from types import TracebackType

import httpcore
import httpx
import idna

from jobctrl.domain.errors import (
    ENRICH_HTTP_CLIENT_ERROR,
    ENRICH_HTTP_NOT_FOUND,
    ENRICH_HTTP_SERVER_ERROR,
    ENRICH_INVALID_URL,
    ENRICH_LOGIN_WALL,
    ENRICH_RATE_LIMITED,
    ENRICH_TIMEOUT,
    ENRICH_TOO_LARGE,
    ENRICH_TOO_MANY_REDIRECTS,
    ENRICH_UNREACHABLE,
    ENRICH_UNSUPPORTED_CONTENT,
    ENRICH_UNSUPPORTED_SCHEME,
    StageError,
)
from jobctrl.domain.posting_url import host_is_valid
from jobctrl.fetch.addresses import AddressGuard, Connector, GuardedNetworkBackend, Resolver
from jobctrl.fetch.politeness import HostGate
from jobctrl.fetch.robots import RobotsCache

__all__ = ["FetchPolicy", "FetchResult", "SafeFetcher", "parse_retry_after"]

MAX_RETRY_AFTER = timedelta(hours=1)
ROBOTS_MAX_REDIRECTS = 5
# A login or bot wall: only the person's own browser gets the page (999: LinkedIn's own).
LOGIN_WALL_STATUSES = frozenset({401, 403, 999})
ROBOTS_MAX_BYTES = 500 * 1024  # RFC 9309: parse at least 500 KiB, ignore the rest
_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_OUTPUT_CHUNK = 64 * 1024
_DELTA_SECONDS = re.compile(r"[+-]?[0-9]+", re.ASCII)


@dataclass(frozen=True)
class FetchPolicy:
    """What a fetcher may do. Only ``allow_hosts`` bypasses the public-address check."""

    allow_hosts: frozenset[str] = frozenset()
    max_bytes: int = 5_000_000  # cap on the decoded body
    timeout_seconds: float = 20.0  # total deadline for one fetch, redirects and robots included
    connect_timeout_seconds: float = 10.0
    max_redirects: int = 5
    accept_content_types: tuple[str, ...] = ("text/html", "application/xhtml+xml")
    user_agent: str = "jobctrl/0.1"
    robots_user_agent: str = "jobctrl"
    min_host_interval_seconds: float = 1.0
    respect_robots: bool = True


DEFAULT_POLICY = FetchPolicy()


@dataclass(frozen=True)
class FetchResult:
    """A fetched page. ``body`` is decoded (no Content-Encoding left); ``headers`` are as sent,
    lowercase names, repeated headers joined with ", ". ``redirects`` lists each redirect
    target in order, so a redirected fetch has ``redirects[-1] == final_url``."""

    url: str
    final_url: str
    status: int
    content_type: str
    body: bytes
    redirects: tuple[str, ...]
    headers: dict[str, str]


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> timedelta | None:
    """The delay a Retry-After header asks for (delta-seconds or HTTP-date), within [0, 1 h].

    Returns None when the header is missing or unreadable.
    """
    text = (value or "").strip()
    if not text:
        return None
    if _DELTA_SECONDS.fullmatch(text):
        seconds = int(text)
        return timedelta(seconds=max(0, min(seconds, int(MAX_RETRY_AFTER.total_seconds()))))
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = now or datetime.now(UTC)
    if current.tzinfo is None:
        current = current.replace(tzinfo=UTC)
    return max(timedelta(0), min(when - current, MAX_RETRY_AFTER))


class SafeFetcher:
    """Fetches public web pages safely; share one instance per worker (it is thread-safe).

    ``clock`` and ``sleep`` drive politeness, rate-limit cooldowns and the robots cache;
    socket deadlines always use real time, since sockets do.
    """

    def __init__(
        self,
        policy: FetchPolicy = DEFAULT_POLICY,
        *,
        resolver: Resolver | None = None,
        connector: Connector | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._policy = policy
        self._guard = AddressGuard(policy.allow_hosts, resolver)
        self._backend = GuardedNetworkBackend(self._guard, connector)
        self._gate = HostGate(policy.min_host_interval_seconds, clock=clock, sleep=sleep)
        self._robots = RobotsCache(
            self._load_robots, user_agent=policy.robots_user_agent, clock=clock
        )
        self._client = httpx.Client(
            transport=_GuardedTransport(self._backend),
            trust_env=False,  # never route through proxies named in the environment
            follow_redirects=False,  # every hop is re-validated by _follow
            cookies=CookieJar(policy=DefaultCookiePolicy(allowed_domains=[])),  # stateless
            timeout=httpx.Timeout(policy.timeout_seconds, connect=policy.connect_timeout_seconds),
            headers={
                "User-Agent": policy.user_agent,
                # Only encodings we can inflate with a bounded output buffer.
                "Accept-Encoding": "gzip, deflate",
            },
        )

    def fetch(
        self,
        url: str,
        *,
        accept_content_types: tuple[str, ...] | None = None,
        robots: bool = True,
    ) -> FetchResult:
        """GET ``url`` and return the page, or raise StageError.

        An empty ``accept_content_types`` accepts any content type. ``robots=False`` is for
        documented public APIs meant for programs (ATS job-board APIs); the address checks,
        politeness and Retry-After still apply.
        """
        accept = (
            self._policy.accept_content_types
            if accept_content_types is None
            else accept_content_types
        )
        with self._backend.deadline(time.monotonic() + self._policy.timeout_seconds):
            response, redirects = self._follow(
                url,
                self._policy.max_redirects,
                check_robots=robots and self._policy.respect_robots,
                accept=", ".join(accept) or "*/*",
            )
            try:
                host = _host(response.url)
                error = _status_error(response, host)
                if error is not None:
                    raise error
                content_type = response.headers.get("content-type", "").strip()
                if not _accepts(content_type, accept):
                    raise StageError(
                        ENRICH_UNSUPPORTED_CONTENT,
                        f"{host} answered with a content type that is not read",
                    )
                body = self._read_body(response, host, self._policy.max_bytes, truncate=False)
            finally:
                response.close()
        return FetchResult(
            url=url,
            final_url=str(response.url),
            status=response.status_code,
            content_type=content_type,
            body=body,
            redirects=tuple(redirects),
            headers=dict(response.headers.items()),
        )

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> SafeFetcher:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _follow(
        self, url: str, max_redirects: int, *, check_robots: bool, accept: str
    ) -> tuple[httpx.Response, list[str]]:
        """Send GETs from ``url`` along redirects; returns the first non-redirect response."""
        target = self._validate(url)
        redirects: list[str] = []
        while True:
            response = self._send(target, check_robots=check_robots, accept=accept)
            location = response.headers.get("location", "").strip()
            if response.status_code not in _REDIRECT_STATUSES or not location:
                return response, redirects
            response.close()
            if len(redirects) >= max_redirects:
                raise StageError(
                    ENRICH_TOO_MANY_REDIRECTS,
                    f"more than {max_redirects} redirects starting at {_host(target)}",
                )
            try:
                next_url = target.join(location)
            except (httpx.InvalidURL, ValueError, TypeError):
                raise _invalid_url() from None
            target = self._validate(next_url)
            redirects.append(str(target))

    def _validate(self, url: str | httpx.URL) -> httpx.URL:
        try:
            parsed = httpx.URL(url)
        except (httpx.InvalidURL, ValueError, TypeError):
            raise _invalid_url() from None
        if not parsed.scheme:
            raise _invalid_url()
        if parsed.scheme not in ("http", "https"):
            raise StageError(ENRICH_UNSUPPORTED_SCHEME, "only http and https URLs are fetched")
        if not parsed.raw_host or not 0 < (parsed.port or 80) < 65536:
            raise _invalid_url()
        # A malformed IDNA label (`xn--` alone) would raise inside httpx's send (issue 30)
        if not _HOST_RE.fullmatch(_host(parsed)) or not host_is_valid(_host(parsed)):
            raise _invalid_url()
        self._guard.check_literal(_host(parsed))
        return parsed

    def _send(self, url: httpx.URL, *, check_robots: bool, accept: str) -> httpx.Response:
        host = _host(url)
        self._gate.check_cooldown(host)
        if check_robots:
            self._robots.check(str(url))
        self._gate.acquire(host)
        with _transport_errors(host):
            request = self._client.build_request("GET", url, headers={"Accept": accept})
            response = self._client.send(request, stream=True)
        if response.status_code in (429, 503):
            delay = parse_retry_after(response.headers.get("retry-after"))
            if delay:
                self._gate.cool_down(host, delay)
        return response

    def _load_robots(self, robots_url: str) -> tuple[int, bytes]:
        response, _ = self._follow(
            robots_url, ROBOTS_MAX_REDIRECTS, check_robots=False, accept="text/plain, */*;q=0.5"
        )
        try:
            status, host = response.status_code, _host(response.url)
            if status == 429:
                # A rate limit is about the host, not its rules: report it as one.
                raise _rate_limited(response, host)
            if not 200 <= status < 300:
                return status, b""
            return status, self._read_body(response, host, ROBOTS_MAX_BYTES, truncate=True)
        finally:
            response.close()

    def _read_body(
        self, response: httpx.Response, host: str, limit: int, *, truncate: bool
    ) -> bytes:
        """Read the decoded body, up to ``limit`` bytes: past it, cut (truncate) or refuse."""
        encoding = response.headers.get("content-encoding", "")
        try:
            decoder = _BodyDecoder(encoding)
        except ValueError:
            raise StageError(
                ENRICH_UNSUPPORTED_CONTENT, f"{host} sent a content encoding that is not read"
            ) from None
        length = response.headers.get("content-length", "")
        if not truncate and decoder.identity and length.isdigit() and int(length) > limit:
            raise _too_large(host)
        body = bytearray()
        raw_total = 0
        raw_limit = limit + _OUTPUT_CHUNK  # compressed data hardly outgrows what it inflates to
        with _transport_errors(host):
            try:
                for raw in response.iter_raw():
                    raw_total += len(raw)
                    for piece in decoder.feed(raw):
                        if len(body) + len(piece) > limit:
                            if truncate:
                                return bytes(body + piece[: limit - len(body)])
                            raise _too_large(host)
                        body += piece
                    if raw_total > raw_limit:
                        if truncate:
                            return bytes(body)
                        raise _too_large(host)
                for piece in decoder.flush():
                    body += piece
            except zlib.error:
                raise StageError(
                    ENRICH_UNSUPPORTED_CONTENT, f"could not decode the compressed page from {host}"
                ) from None
        if len(body) > limit:
            if truncate:
                return bytes(body[:limit])
            raise _too_large(host)
        return bytes(body)


class _GuardedTransport(httpx.HTTPTransport):
    """httpx's transport with its httpcore pool swapped for one on the guarded backend.

    ``HTTPTransport`` has no parameter for a network backend, so we subclass it and replace
    its pool: this keeps httpx's request/response mapping and exception translation intact
    and changes only how TCP connections are opened. The replacement pool has no proxy
    support at all, so no environment setting can route a fetch through a proxy.
    """

    def __init__(self, backend: httpcore.NetworkBackend) -> None:
        ssl_context = httpx.create_ssl_context(trust_env=False)
        super().__init__(verify=ssl_context, trust_env=False)
        self._pool = httpcore.ConnectionPool(
            ssl_context=ssl_context,
            network_backend=backend,
            http1=True,
            http2=False,
            max_connections=100,
            max_keepalive_connections=20,
            keepalive_expiry=5.0,
        )


class _Inflater:
    """Streaming gzip/deflate that yields at most ``_OUTPUT_CHUNK`` bytes per step.

    httpx's own decoders inflate each network chunk in one go, so a few kilobytes of gzip can
    become gigabytes in memory before any size check; here the caller can stop after any step.
    """

    def __init__(self, encoding: str) -> None:
        self._gzip = encoding in ("gzip", "x-gzip")
        self._wbits = zlib.MAX_WBITS | 16 if self._gzip else zlib.MAX_WBITS
        self._zlib = zlib.decompressobj(self._wbits)
        self._produced = False
        self._next_member = False
        self._finished = False

    def feed(self, data: bytes) -> Iterator[bytes]:
        pending = data
        while not self._finished:
            if self._zlib.eof:
                if not pending:
                    return
                if not self._gzip:
                    self._finished = True  # bytes after a deflate stream are ignored
                    return
                self._zlib = zlib.decompressobj(self._wbits)  # gzip may hold several members
                self._next_member = True
            out = self._step(pending)
            if out:
                self._produced = True
                yield out
            pending = self._zlib.unused_data if self._zlib.eof else self._zlib.unconsumed_tail
            # zlib can hold output back when the output cap, not the input, stopped it.
            if not pending and len(out) < _OUTPUT_CHUNK and not self._zlib.eof:
                return

    def flush(self) -> Iterator[bytes]:
        if not self._finished and not self._zlib.eof:
            # Everything fed has been drained by feed(); this only ends a truncated stream.
            tail = self._zlib.flush()
            if tail:
                yield tail

    def _step(self, pending: bytes) -> bytes:
        try:
            return self._zlib.decompress(pending, _OUTPUT_CHUNK)
        except zlib.error:
            if self._next_member:
                self._finished = True  # trailing bytes after the last gzip member, as browsers do
                return b""
            if self._gzip or self._produced:
                raise
            # Many servers send raw deflate although "deflate" promises a zlib wrapper.
            self._wbits = -zlib.MAX_WBITS
            self._zlib = zlib.decompressobj(self._wbits)
            return self._zlib.decompress(pending, _OUTPUT_CHUNK)


class _BodyDecoder:
    """Undoes a Content-Encoding list step by step, bounded at every stage."""

    def __init__(self, content_encoding: str) -> None:
        codings = [c.strip().lower() for c in content_encoding.split(",")]
        codings = [c for c in codings if c and c != "identity"]
        if any(c not in ("gzip", "x-gzip", "deflate") for c in codings):
            raise ValueError("unsupported content encoding")
        self._stages = [_Inflater(c) for c in reversed(codings)]
        self.identity = not self._stages

    def feed(self, data: bytes) -> Iterator[bytes]:
        yield from self._pipe(0, data)

    def flush(self) -> Iterator[bytes]:
        for index, stage in enumerate(self._stages):
            for piece in stage.flush():
                yield from self._pipe(index + 1, piece)

    def _pipe(self, index: int, data: bytes) -> Iterator[bytes]:
        if index == len(self._stages):
            if data:
                yield data
            return
        for piece in self._stages[index].feed(data):
            yield from self._pipe(index + 1, piece)


@contextmanager
def _transport_errors(host: str) -> Iterator[None]:
    """Turn httpx's transport exceptions into StageErrors without their raw text."""
    try:
        yield
    except httpx.TimeoutException:
        raise StageError(ENRICH_TIMEOUT, f"{host} did not answer in time", retryable=True) from None
    except (httpx.InvalidURL, idna.IDNAError):  # IDNA: a redirect to `xn--` (issue 30)
        raise _invalid_url() from None
    except httpx.ConnectError:
        raise StageError(
            ENRICH_UNREACHABLE, f"could not connect to {host}", retryable=True
        ) from None
    except httpx.TransportError:
        raise StageError(
            ENRICH_UNREACHABLE, f"the connection to {host} failed", retryable=True
        ) from None


def _status_error(response: httpx.Response, host: str) -> StageError | None:
    status = response.status_code
    if 200 <= status < 300:
        return None
    message = f"server answered {status} for {host}"
    retry_after = parse_retry_after(response.headers.get("retry-after"))
    if status in (404, 410):
        return StageError(ENRICH_HTTP_NOT_FOUND, message)
    if status == 429:
        return _rate_limited(response, host)
    if status in LOGIN_WALL_STATUSES:
        return StageError(ENRICH_LOGIN_WALL, message)
    if status >= 500:
        return StageError(
            ENRICH_HTTP_SERVER_ERROR, message, retryable=True, retry_after=retry_after
        )
    # Other 4xx, and a 1xx/3xx we cannot act on (a redirect without Location, a 304).
    return StageError(ENRICH_HTTP_CLIENT_ERROR, message, retryable=status == 408)


def _rate_limited(response: httpx.Response, host: str) -> StageError:
    return StageError(
        ENRICH_RATE_LIMITED,
        f"server answered 429 for {host}",
        retryable=True,
        retry_after=parse_retry_after(response.headers.get("retry-after")),
    )


def _accepts(content_type: str, accept: tuple[str, ...]) -> bool:
    if not accept:
        return True
    media = content_type.split(";", 1)[0].strip().lower()
    for pattern in (p.strip().lower() for p in accept):
        if pattern in ("*/*", media):
            return True
        if pattern.endswith("/*") and media.startswith(pattern[:-1]):
            return True
    return False


def _host(url: httpx.URL) -> str:
    return url.raw_host.decode("ascii", errors="replace").lower()


# A host name (IDNA-encoded by httpx) or an IP literal: anything else (spaces, percent
# escapes, underscores in odd places) is a malformed URL, not an unreachable host.
_HOST_RE = re.compile(r"[a-z0-9_](?:[a-z0-9_.-]*[a-z0-9_])?\.?|[0-9a-f:.]+")


def _invalid_url() -> StageError:
    return StageError(ENRICH_INVALID_URL, "the URL could not be parsed")


def _too_large(host: str) -> StageError:
    return StageError(ENRICH_TOO_LARGE, f"the page from {host} is larger than the size limit")

"""Local-app security: a page the user visits must not be able to drive jobctrl.

- Host header must be the bound loopback name or address (DNS rebinding) → 403; or, behind
  a reverse proxy, a host named by one of the public URLs the operator gave
  (``JOBCTRL_PUBLIC_URL``), each an exact name: no wildcards, so a rebinding name can never
  match.
- A request with a Bearer token (any method, reads too) acts for the tenant whose API
  token it is (``app.tenants.TokenResolver``: by its sha256 in the store); a token no
  tenant has → 403, never the server's tenant. A request without one acts for the
  server's tenant (``JOBCTRL_TENANT`` of `jobctrl up`), unless
  ``JOBCTRL_API_REQUIRE_TOKEN=1`` (a reverse proxy injects each person's token) → 401.
- State-changing requests need the API token → 401 without one; or a same-origin browser
  request (Origin and Sec-Fetch-Site). A cross-site browser request → 403. A public URL's
  origin counts as the same origin only with its exact scheme (``https://…``).
- ``X-Forwarded-*`` headers are never read (uvicorn is told not to either): the scheme of a
  request that names a public host comes from its configured URL, not from a header.
- A paired browser extension's token (``app.extension``, issue 32) acts for its tenant on
  the capture, status and task routes only (403 elsewhere); it is the only cross-origin
  caller allowed, from its own ``chrome-extension://ID`` origin. ``POST /v1/extension/pair``
  needs no token: its one-time code is its credential.
- No CORS headers are ever sent (an extension with host permissions needs none); pages
  cannot be framed.

Plain ASGI middleware rather than Starlette's BaseHTTPMiddleware: it wraps every request,
including the long-lived event stream, without buffering or an extra task.
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from anyio import to_thread
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from jobctrl.api.deps import EXTENSION_STATE, TENANT_STATE
from jobctrl.app.extension import Holder
from jobctrl.app.tenants import api_token
from jobctrl.domain.errors import (
    CROSS_SITE,
    FORBIDDEN,
    FORBIDDEN_HOST,
    INVALID_INPUT,
    UNAUTHORIZED,
    JobctrlError,
    status_of,
)
from jobctrl.domain.extension import EXTENSION_PATHS, PAIR_PATH, extension_origin

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
REQUIRE_TOKEN_ENV = "JOBCTRL_API_REQUIRE_TOKEN"


def require_token_from_env() -> bool:
    """``JOBCTRL_API_REQUIRE_TOKEN=1``: every request must carry a tenant's token."""
    return os.environ.get(REQUIRE_TOKEN_ENV, "").strip().lower() in ("1", "true", "yes")


def _refused(code: str, message: str) -> tuple[int, str, str]:
    return status_of(code).http, code, message


# Pages load only their own scripts and styles (no inline code); nothing may frame them,
# except that the app's own Job page shows a material's PDF in an <object>.
CSP = "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; "
RESPONSE_HEADERS = [
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", f"{CSP}frame-ancestors 'none'".encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
]
EMBEDDABLE_HEADERS = [
    (b"x-frame-options", b"SAMEORIGIN"),
    (b"content-security-policy", f"{CSP}frame-ancestors 'self'".encode()),
    *RESPONSE_HEADERS[2:],
]
EMBEDDABLE_PREFIX = "/v1/artifacts/"


DEFAULT_PORTS = {"http": 80, "https": 443}
# A DNS name or an IPv4 address as a browser writes it in Host (lower case, ASCII).
HOST_NAME = re.compile(r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*")


@dataclass(frozen=True)
class PublicOrigin:
    """A URL a reverse proxy serves the app as: ``scheme://host[:port]``, lower case, the
    scheme's default port left out (as a browser writes it in ``Origin``)."""

    scheme: str
    netloc: str

    @property
    def origin(self) -> str:
        return f"{self.scheme}://{self.netloc}"

    @property
    def host_headers(self) -> frozenset[str]:
        """The ``Host`` values that name it: as written, and with the default port spelled."""
        if self.netloc.rsplit(":", 1)[-1].isdigit():
            return frozenset({self.netloc})
        return frozenset({self.netloc, f"{self.netloc}:{DEFAULT_PORTS[self.scheme]}"})


def public_origins(value: str | None) -> tuple[PublicOrigin, ...]:
    """``JOBCTRL_PUBLIC_URL``: one URL or a comma list, each ``http(s)://name[:port]`` with
    no path, user, query or wildcard; a bad one is refused with the reason."""
    found: dict[str, PublicOrigin] = {}
    for raw in (value or "").split(","):
        text = raw.strip()
        if not text:
            continue
        origin = _public_origin(text)
        for host in origin.host_headers:
            if host in found and found[host] != origin:
                raise _bad(text, f"{host} is already named as {found[host].origin}")
            found[host] = origin
    return tuple(dict.fromkeys(found.values()))


def _public_origin(text: str) -> PublicOrigin:
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise _bad(text, str(exc)) from None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise _bad(text, "it must start with https:// (or http://)")
    if "*" in parts.netloc:
        raise _bad(text, "name each host exactly: no wildcard")
    if not parts.hostname:
        raise _bad(text, "it names no host")
    if not (HOST_NAME.fullmatch(parts.hostname) or _is_ipv6(parts.hostname)):
        raise _bad(text, "not a host name (an international one in its xn-- form)")
    if parts.username is not None or parts.password is not None:
        raise _bad(text, "a user or password does not belong in it")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise _bad(text, "jobctrl is served at the root of its own host name: no path")
    host = parts.hostname.lower()
    netloc = f"[{host}]" if ":" in host else host
    if port is not None and port != DEFAULT_PORTS[scheme]:
        netloc = f"{netloc}:{port}"
    return PublicOrigin(scheme, netloc)


def _is_ipv6(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).version == 6
    except ValueError:
        return False


def _bad(text: str, why: str) -> JobctrlError:
    return JobctrlError(f"JOBCTRL_PUBLIC_URL {text!r} cannot be used: {why}", code=INVALID_INPUT)


class LocalSecurity:
    """``resolve_token``: a Bearer token → its tenant (None: nobody's); ``default_tenant``:
    who a request without a token acts for; ``require_token``: refuse those (401)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        hosts: frozenset[str],
        resolve_token: Callable[[str], str | None],
        default_tenant: str,
        require_token: bool = False,
        public: tuple[PublicOrigin, ...] = (),
        resolve_extension: Callable[[str], Holder | None] | None = None,
    ) -> None:
        self.app = app
        self.resolve_extension = resolve_extension
        # The scheme a public host's requests are served under, by its Host header.
        self.public_hosts = {h: p.scheme for p in public for h in p.host_headers}
        self.hosts = hosts | frozenset(self.public_hosts)
        # An Origin names a port (or its scheme's default): only host:port entries match.
        self.origins = frozenset(h for h in hosts if h.rsplit(":", 1)[-1].isdigit())
        self.public_origins = frozenset(p.origin for p in public)
        self.resolve_token = resolve_token
        self.default_tenant = default_tenant
        self.require_token = require_token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        tenant: str | None = None
        holder: Holder | None = None
        refusal = self._host_refusal(headers)
        if refusal is None:
            token = _bearer(headers)
            if token is not None:
                tenant = await self._tenant_of(token)
                if tenant is None and token and self.resolve_extension is not None:
                    holder = await to_thread.run_sync(self.resolve_extension, token)
                    tenant = holder.tenant if holder is not None else None
                if tenant is None:
                    refusal = _refused(FORBIDDEN, "the token does not match")
                elif holder is not None:
                    refusal = _extension_refusal(scope["path"], headers, holder)
            else:
                tenant = self.default_tenant
                if not _pairing(scope["method"], scope["path"], headers):
                    refusal = self._tokenless_refusal(headers)
            if (
                refusal is None
                and holder is None
                and not _pairing(scope["method"], scope["path"], headers)
            ):
                refusal = self._browser_refusal(scope["method"], headers, tokenless=token is None)
        if refusal is not None:
            status, code, message = refusal
            body = json.dumps({"error": {"code": code, "message": message}}).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": status,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                        *RESPONSE_HEADERS,
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return

        # The tenant the request acts for (api/deps.py reads it).
        state = {**scope.get("state", {}), TENANT_STATE: tenant}
        if holder is not None:  # the extension token's name (api/extension.py reads it)
            state[EXTENSION_STATE] = holder.name
        scope = {**scope, "state": state}
        scheme = self.public_hosts.get((headers.get("host") or "").lower())
        if scheme is not None:
            # The proxy ended TLS: a URL the app builds (a redirect) names the public scheme.
            scope = {**scope, "scheme": scheme}
        extra = (
            EMBEDDABLE_HEADERS if scope["path"].startswith(EMBEDDABLE_PREFIX) else RESPONSE_HEADERS
        )

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, send_with_headers)

    async def _tenant_of(self, token: str) -> str | None:
        cached = getattr(self.resolve_token, "cached", None)
        if cached is not None:
            known, tenant = cached(token)
            if known:
                return tenant
        # A store read: in a thread, never on the event loop.
        return await to_thread.run_sync(self.resolve_token, token)

    def _host_refusal(self, headers: Headers) -> tuple[int, str, str] | None:
        if (headers.get("host") or "").lower() not in self.hosts:
            return _refused(
                FORBIDDEN_HOST,
                "this server answers only to its loopback address and JOBCTRL_PUBLIC_URL's hosts",
            )
        return None

    def _tokenless_refusal(self, headers: Headers) -> tuple[int, str, str] | None:
        if self.require_token:
            return _refused(UNAUTHORIZED, "send Authorization: Bearer TOKEN (your api-token)")
        return None

    def _browser_refusal(
        self, method: str, headers: Headers, *, tokenless: bool
    ) -> tuple[int, str, str] | None:
        """A change asked by a page of another site is refused, token or not: behind a
        reverse proxy that adds each person's token after its login (docs/DEPLOY.md), the
        browser's ambient login would otherwise carry any site's form post. A script sends
        neither Origin nor Sec-Fetch-Site: with a token it passes; without one it must
        send a token."""
        if method in SAFE_METHODS:
            return None
        origin = headers.get("origin")
        site = headers.get("sec-fetch-site")
        if origin is None and site is None:
            if tokenless:
                return _refused(UNAUTHORIZED, "send Authorization: Bearer TOKEN (see api-token)")
            return None
        same_origin = origin is not None and (
            origin.split("://", 1)[-1].lower() in self.origins
            or origin.lower() in self.public_origins
        )
        if tokenless:  # the page itself: its origin must be ours
            allowed = same_origin and site in (None, "same-origin")
        else:  # a browser sent it: no other site named
            allowed = (origin is None or same_origin) and site in (None, "same-origin", "none")
        return (
            None
            if allowed
            else _refused(CROSS_SITE, "a request from another site cannot change jobctrl")
        )


def _extension_refusal(path: str, headers: Headers, holder: Holder) -> tuple[int, str, str] | None:
    """An extension token opens only the capture, status and task routes; sent by a
    browser, only from an extension's origin (the one it paired from, when known)."""
    if path not in EXTENSION_PATHS:
        return _refused(
            FORBIDDEN, "an extension's token opens only captures, their status and its tasks"
        )
    origin = headers.get("origin")
    if origin is None:
        return None
    if not extension_origin(origin) or (
        holder.origin is not None and origin.lower() != holder.origin.lower()
    ):
        return _refused(CROSS_SITE, "this token belongs to another extension")
    return None


def _pairing(method: str, path: str, headers: Headers) -> bool:
    """The pairing request: its code is its credential (the only route a code opens),
    sent by an extension (its origin) or a script (none)."""
    origin = headers.get("origin")
    return method == "POST" and path == PAIR_PATH and (origin is None or extension_origin(origin))


def _bearer(headers: Headers) -> str | None:
    """The Bearer token of ``Authorization``; None only without that header. A header in
    any other form (another scheme, no token, odd spacing) counts as a wrong token, "":
    it must never fall back to acting for the server's tenant."""
    auth = headers.get("authorization")
    if auth is None:
        return None
    parts = auth.split(None, 1)
    return parts[1].strip() if len(parts) == 2 and parts[0].lower() == "bearer" else ""


__all__ = [
    "REQUIRE_TOKEN_ENV",
    "LocalSecurity",
    "PublicOrigin",
    "api_token",
    "public_origins",
    "require_token_from_env",
]

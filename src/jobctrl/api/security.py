"""Local-app security: a page the user visits must not be able to drive jobctrl.

- Host header must be the bound loopback name or address (DNS rebinding) → 403.
- State-changing requests need the API token (``Authorization: Bearer``, compared in
  constant time) → 401 without one, 403 with a wrong one; or a same-origin browser
  request (Origin and Sec-Fetch-Site). A cross-site browser request → 403.
- No CORS headers are ever sent; pages cannot be framed.

Plain ASGI middleware rather than Starlette's BaseHTTPMiddleware: it wraps every request,
including the long-lived event stream, without buffering or an extra task.
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
from pathlib import Path

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from jobctrl.domain.errors import CROSS_SITE, FORBIDDEN, FORBIDDEN_HOST, UNAUTHORIZED, status_of

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


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


def api_token(path: Path) -> str:
    """The token in ``path`` (0600), created with 256 random bits on first use."""
    if path.exists():
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it first
        return path.read_text().strip()
    with os.fdopen(fd, "w") as fh:
        fh.write(token + "\n")
    return token


class LocalSecurity:
    def __init__(self, app: ASGIApp, *, hosts: frozenset[str], token: str) -> None:
        self.app = app
        self.hosts = hosts
        # An Origin names a port (or its scheme's default): only host:port entries match.
        self.origins = frozenset(h for h in hosts if h.rsplit(":", 1)[-1].isdigit())
        self.token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        refusal = self._refusal(scope["method"], headers)
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

        extra = (
            EMBEDDABLE_HEADERS if scope["path"].startswith(EMBEDDABLE_PREFIX) else RESPONSE_HEADERS
        )

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def _refusal(self, method: str, headers: Headers) -> tuple[int, str, str] | None:
        if (headers.get("host") or "").lower() not in self.hosts:
            return _refused(FORBIDDEN_HOST, "this server answers only on its loopback address")
        if method in SAFE_METHODS:
            return None
        auth = headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            if hmac.compare_digest(auth[7:].strip().encode(), self.token):
                return None
            return _refused(FORBIDDEN, "the token does not match")
        origin = headers.get("origin")
        site = headers.get("sec-fetch-site")
        if origin is None and site is None:
            return _refused(UNAUTHORIZED, "send Authorization: Bearer TOKEN (see api-token)")
        same_origin = origin is not None and origin.split("://", 1)[-1].lower() in self.origins
        if same_origin and site in (None, "same-origin"):
            return None
        return _refused(CROSS_SITE, "a request from another site cannot change jobctrl")

"""Local-app security: a page the user visits must not be able to drive jobctrl.

- Host header must be the bound loopback name or address (DNS rebinding) → 403.
- State-changing requests need the API token (``Authorization: Bearer``, compared in
  constant time) or a same-origin browser request (Origin and Sec-Fetch-Site) → 401/403.
- No CORS headers are ever sent; pages cannot be framed.
"""

from __future__ import annotations

import hmac
import os
import secrets
from pathlib import Path

from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def api_token(path: Path) -> str:
    """The token in ``path`` (0600), created with 256 random bits on first use."""
    if path.exists():
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(token + "\n")
    return token


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


class LocalSecurity(BaseHTTPMiddleware):
    def __init__(self, app, *, hosts: frozenset[str], token: str) -> None:  # type: ignore[no-untyped-def]
        super().__init__(app)
        self.hosts = hosts
        self.token = token

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        host = (request.headers.get("host") or "").lower()
        if host not in self.hosts:
            return _error(403, "forbidden_host", "this server answers only on its loopback address")
        if request.method not in SAFE_METHODS and not self._authorised(request):
            if request.headers.get("authorization"):
                return _error(403, "forbidden", "the token does not match")
            return _error(401, "unauthorized", "send Authorization: Bearer TOKEN (see api-token)")
        response = await call_next(request)
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Content-Security-Policy"] = "frame-ancestors 'none'"
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response

    def _authorised(self, request: Request) -> bool:
        auth = request.headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            return hmac.compare_digest(auth[7:].strip().encode(), self.token.encode())
        origin = request.headers.get("origin")
        site = request.headers.get("sec-fetch-site")
        same_origin = origin is not None and origin.split("://", 1)[-1].lower() in self.hosts
        return same_origin and site in (None, "same-origin")

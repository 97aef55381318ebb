"""The HTTP API (FastAPI): routes that call the application layer (``jobctrl.app``), the
same functions the CLI calls. Errors are JSON with a stable code and a message; the
status comes from the one table in ``domain.errors``."""

from __future__ import annotations

import asyncio
import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from jobctrl.api import (
    applications,
    apply,
    apply_browser,
    apply_loop,
    contacts,
    control,
    discovery,
    events,
    executions,
    extension,
    followups,
    inbox,
    jobs,
    operations,
    outreach,
    pages,
    profile,
    settings,
)
from jobctrl.api.events import KEEPALIVE_SECONDS
from jobctrl.api.security import LocalSecurity, PublicOrigin, require_token_from_env
from jobctrl.app import extension as app_extension
from jobctrl.app import tenants as app_tenants
from jobctrl.domain.errors import (
    HTTP_ERROR,
    INTERNAL_ERROR,
    INVALID_INPUT,
    METHOD_NOT_ALLOWED,
    NOT_FOUND,
    JobctrlError,
    status_of,
    storage_error,
)
from jobctrl.home import Home

log = logging.getLogger("jobctrl.api")


def error_response(code: str, message: str, status: int | None = None) -> JSONResponse:
    """``{"error": {"code", "message"}}`` with the code's HTTP status (or ``status``)."""
    return JSONResponse(
        {"error": {"code": code, "message": message}}, status or status_of(code).http
    )


def create_app(
    home: Home,
    *,
    port: int = 8765,
    host: str = "127.0.0.1",
    public: tuple[PublicOrigin, ...] = (),
    keepalive_seconds: float = KEEPALIVE_SECONDS,
) -> FastAPI:
    """The app for ``home`` served on ``host:port`` (the Host header must name them, or a
    ``public`` URL a reverse proxy serves it as); ``keepalive_seconds`` spaces the event
    stream's keep-alive comments. A request acts for its token's tenant, else for
    ``home.tenant`` (api/security.py)."""
    app = FastAPI(title="jobctrl", version="1", docs_url=None, redoc_url=None)
    hosts = {f"127.0.0.1:{port}", f"localhost:{port}", "127.0.0.1", "localhost"}
    hosts |= {f"{host}:{port}", host}
    app.state.home = home  # the server's: api/deps.py derives each request's tenant from it
    app_tenants.require_tenant(home)
    app_tenants.ensure_token(home)  # its hash recorded: the server's own token resolves too
    app.add_middleware(
        LocalSecurity,
        hosts=frozenset(hosts),
        resolve_token=app_tenants.TokenResolver(home),
        default_tenant=home.tenant,
        require_token=require_token_from_env(),
        public=public,
        resolve_extension=app_extension.ExtensionResolver(home),
    )

    @app.exception_handler(JobctrlError)
    async def _jobctrl_error(_: Request, exc: JobctrlError) -> JSONResponse:
        return error_response(exc.code, exc.message)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()))
        message = f"{where}: {first.get('msg', 'invalid input')}" if where else "invalid input"
        return error_response(INVALID_INPUT, message, 422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        codes = {404: NOT_FOUND, 405: METHOD_NOT_ALLOWED}
        code = codes.get(exc.status_code, HTTP_ERROR)
        return error_response(code, str(exc.detail), exc.status_code)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        # A bug: the traceback goes to the home's log, the client gets a code and where
        # to look (as the CLI does), never the exception text.
        storage = storage_error(exc)  # a full or read-only disk: not a bug
        if storage is not None:
            return error_response(storage.code, storage.message)
        log.error("unexpected error in %s %s", request.method, request.url.path)
        where = home.log_exception(exc)
        # The log's path is the operator's to know: a request with a token (any tenant's;
        # this handler runs outside the middleware that resolves it) is told it was logged.
        own = "authorization" not in request.headers
        details = (
            (f" (details in {where})" if own else " (logged for the operator)") if where else ""
        )
        return error_response(INTERNAL_ERROR, f"unexpected internal error{details}")

    app.state.keepalive_seconds = keepalive_seconds  # the event stream's (api/events.py)
    # Set by serve_app when the process stops: open event streams end themselves, rather
    # than being cancelled by uvicorn's shutdown with a traceback each (issue 30).
    app.state.stopping = asyncio.Event()
    app.mount("/static", StaticFiles(directory=pages.STATIC), name="static")
    # Every route is on a module-level router whose tenant dependency is the router's
    # (api/deps.py). /v1/apply/loop comes before any /v1/apply/{job}.
    for router in (
        apply_loop.router,
        jobs.router,
        inbox.router,
        discovery.router,
        settings.router,
        applications.router,
        contacts.router,
        followups.router,
        outreach.router,
        apply.router,
        profile.router,
        apply_browser.router,
        operations.router,
        control.router,
        executions.router,
        extension.router,
        events.router,
        pages.router,
    ):
        app.include_router(router)
    return app

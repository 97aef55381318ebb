"""The HTTP API (FastAPI): routes that call the application layer (``jobctrl.app``), the
same functions the CLI calls. Errors are JSON with a stable code and a message; the
status comes from the one table in ``domain.errors``."""

from __future__ import annotations

import logging
from typing import Annotated, Any

from fastapi import Body, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from jobctrl.api.applications import register_applications
from jobctrl.api.apply import register_apply
from jobctrl.api.apply_browser import register_apply_browser
from jobctrl.api.apply_loop import register_apply_loop
from jobctrl.api.control import register_control
from jobctrl.api.deps import TenantHome
from jobctrl.api.events import KEEPALIVE_SECONDS, register_event_stream
from jobctrl.api.executions import register_executions
from jobctrl.api.operations import register_operations
from jobctrl.api.pages import register_pages
from jobctrl.api.profile import register_profile
from jobctrl.api.security import LocalSecurity, PublicOrigin, require_token_from_env
from jobctrl.app import discovery, jobs, materials, queries
from jobctrl.app import settings as app_settings
from jobctrl.app import tenants as app_tenants
from jobctrl.domain.errors import (
    HTTP_ERROR,
    INTERNAL_ERROR,
    INVALID_INPUT,
    METHOD_NOT_ALLOWED,
    NOT_FOUND,
    JobctrlError,
    status_of,
)
from jobctrl.home import Home

log = logging.getLogger("jobctrl.api")


def error_response(code: str, message: str, status: int | None = None) -> JSONResponse:
    """``{"error": {"code", "message"}}`` with the code's HTTP status (or ``status``)."""
    return JSONResponse(
        {"error": {"code": code, "message": message}}, status or status_of(code).http
    )


class AddJob(BaseModel):
    url: str = Field(min_length=1, max_length=2048, description="The posting's URL.")


class RetryStage(BaseModel):
    stage: str | None = Field(None, description="The failed stage; default: the first one.")


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
        log.error("unexpected error in %s %s", request.method, request.url.path)
        where = home.log_exception(exc)
        # The log's path is the operator's to know: a request with a token (any tenant's;
        # this handler runs outside the middleware that resolves it) is told it was logged.
        own = "authorization" not in request.headers
        details = (
            (f" (details in {where})" if own else " (logged for the operator)") if where else ""
        )
        return error_response(INTERNAL_ERROR, f"unexpected internal error{details}")

    register_apply_loop(app, home)  # first: /v1/apply/loop before any /v1/apply/{job}

    # -- reads ------------------------------------------------------------------------------

    @app.get("/v1/jobs", tags=["jobs"])
    def list_jobs(
        home: TenantHome,
        stage: str | None = Query(None, max_length=32),
        status: str | None = Query(None, max_length=32),
        min_score: int | None = Query(None, ge=0, le=100),
        q: str | None = Query(None, max_length=200),
        sort: str = Query("score", pattern="^(score|updated|created)$"),
        limit: int = Query(50, ge=1, le=500),
        offset: int = Query(0, ge=0, le=1_000_000),
    ) -> dict[str, Any]:
        """Jobs from the list projection, best score first unless ``sort`` says otherwise."""
        items, total = queries.find_jobs(
            home,
            stage=stage,
            status=status,
            min_score=min_score,
            q=q,
            sort=sort,
            limit=limit,
            offset=offset,
        )
        return {"items": items, "total": total, "limit": limit, "offset": offset}

    @app.get("/v1/jobs/{job_id}", tags=["jobs"])
    def get_job(home: TenantHome, job_id: str) -> dict[str, Any]:
        """One job: posting, score report, stage timeline and materials."""
        view = queries.show_job(home, job_id)
        view["materials"] = queries.job_materials(home, job_id)
        return view

    @app.get("/v1/runs", tags=["discovery"])
    def runs(home: TenantHome) -> dict[str, Any]:
        """Recent discovery runs with their progress."""
        return {"items": queries.discovery_runs(home)}

    @app.get("/v1/spend", tags=["spend"])
    def spend(home: TenantHome) -> dict[str, Any]:
        """Today's estimated spend per lane against the daily ceiling (UTC day)."""
        return queries.spend_summary(home)

    @app.get("/v1/settings", tags=["settings"])
    def settings(home: TenantHome) -> dict[str, Any]:
        """Every runtime setting with its current value."""
        return queries.settings_values(home)

    @app.get(
        "/v1/artifacts/{artifact_id}",
        tags=["materials"],
        response_class=Response,
        responses={200: {"content": {"application/pdf": {}}}},
    )
    def artifact(home: TenantHome, artifact_id: str) -> Response:
        """A material's PDF, shown inline."""
        data, name = queries.material_pdf(home, artifact_id)
        return Response(
            data,
            media_type="application/pdf",
            headers={"Content-Disposition": f'inline; filename="{name}"'},
        )

    # -- commands (the same application functions the CLI calls) ----------------------------

    @app.post("/v1/jobs", tags=["jobs"], status_code=202)
    async def add_job(home: TenantHome, body: AddJob) -> dict[str, Any]:
        """Add a posting URL and start its preparation (as `jobctrl add`)."""
        return await jobs.add_job(home, body.url)

    @app.post("/v1/jobs/{job_id}/retry", tags=["jobs"], status_code=202)
    async def retry(
        home: TenantHome, job_id: str, body: RetryStage | None = None
    ) -> dict[str, Any]:
        """Run a failed stage again; 503 worker_runtime_unavailable changes nothing."""
        return await jobs.retry_stage(home, job_id, body.stage if body else None)

    @app.post("/v1/jobs/{job_id}/materials/{decision}", tags=["materials"])
    async def decide(home: TenantHome, job_id: str, decision: str) -> Response:
        """Approve, reject or regenerate a job's materials."""
        if decision == "regenerate":
            started = await materials.regenerate_materials(home, job_id)
            return JSONResponse(started, 202)
        items = materials.decide_materials(home, job_id, decision)
        return JSONResponse({"items": items})

    @app.post("/v1/discovery", tags=["discovery"], status_code=202)
    async def start_discovery(home: TenantHome) -> dict[str, Any]:
        """Start a discovery run (or join the one in progress)."""
        return await discovery.start_discovery(home)

    @app.post("/v1/discovery/cancel", tags=["discovery"])
    async def cancel_discovery(home: TenantHome) -> dict[str, Any]:
        """Cancel the discovery run in progress; what it found so far stays."""
        return await discovery.cancel_discovery(home)

    @app.patch("/v1/settings", tags=["settings"])
    def change_settings(
        home: TenantHome,
        changes: Annotated[dict[str, Any], Body(examples=[{"min_fit_score": 60}])],
    ) -> dict[str, Any]:
        """Change settings (all validated before any is written)."""
        return app_settings.change_settings(home, changes)

    register_applications(app, home)
    register_apply(app, home)
    register_profile(app, home)
    register_apply_browser(app, home)
    register_operations(app, home)
    register_control(app, home)
    register_executions(app, home)
    register_event_stream(app, home, keepalive_seconds=keepalive_seconds)
    register_pages(app, home)
    return app

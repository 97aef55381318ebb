"""The HTTP API (FastAPI). Reads come from the projections; commands call the same
application services as the CLI. Errors are JSON with a stable code and a message."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Query, Request
from fastapi.responses import JSONResponse
from sqlalchemy import func, or_, select

from jobctrl import services
from jobctrl.api.security import LocalSecurity, api_token
from jobctrl.domain.errors import JobctrlError
from jobctrl.home import Home
from jobctrl.llm.spend import SpendAuthority
from jobctrl.store import schema
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store

JL = schema.job_list_projections
SORTS = {"score": JL.c.score, "updated": JL.c.updated_at, "created": JL.c.created_at}


def create_app(home: Home, *, port: int = 8765) -> FastAPI:
    app = FastAPI(title="jobctrl", version="1", docs_url=None, redoc_url=None)
    hosts = frozenset({f"127.0.0.1:{port}", f"localhost:{port}", "127.0.0.1", "localhost"})
    app.add_middleware(LocalSecurity, hosts=hosts, token=api_token(home.root / "api-token"))

    @app.exception_handler(JobctrlError)
    async def _jobctrl_error(_: Request, exc: JobctrlError) -> JSONResponse:
        status = 404 if exc.code in ("job_not_found", "ambiguous_job") else 400
        if exc.exit_code == 2:
            status = 503
        return JSONResponse({"error": {"code": exc.code, "message": exc.message}}, status)

    @app.get("/v1/jobs")
    def list_jobs(
        stage: str | None = None,
        status: str | None = None,
        min_score: int | None = Query(None, ge=0, le=100),
        q: str | None = Query(None, max_length=200),
        sort: str = Query("score", pattern="^(score|updated|created)$"),
        limit: int = Query(50, ge=1, le=500),
        offset: int = Query(0, ge=0),
    ) -> dict[str, Any]:
        where = []
        if stage:
            where.append(JL.c.current_stage == stage)
        if status:
            where.append(JL.c.status == status)
        if min_score is not None:
            where.append(JL.c.score >= min_score)
        if q:
            like = f"%{q}%"
            where.append(or_(JL.c.title.ilike(like), JL.c.company.ilike(like)))
        order = SORTS[sort]
        store = Store.open(home)
        with store.read() as conn:
            total = conn.execute(select(func.count()).select_from(JL).where(*where)).scalar_one()
            rows = conn.execute(
                select(JL)
                .where(*where)
                .order_by(order.is_(None), order.desc(), JL.c.job_id)
                .limit(limit)
                .offset(offset)
            ).mappings()
            items = [
                {
                    "jobId": r["job_id"],
                    "title": r["title"],
                    "company": r["company"],
                    "location": r["location"],
                    "score": r["score"],
                    "verdict": r["verdict"],
                    "status": r["status"],
                    "currentStage": r["current_stage"],
                    "errorCode": r["error_code"],
                    "url": r["url"],
                }
                for r in rows
            ]
        return {"items": items, "total": total, "limit": limit, "offset": offset}

    @app.get("/v1/jobs/{job_id}")
    def get_job(job_id: str) -> dict[str, Any]:
        view = services.show_job(home, job_id)
        view["materials"] = services.job_materials(home, job_id)
        return view

    @app.get("/v1/runs")
    def runs() -> dict[str, Any]:
        return {"items": services.discovery_runs(home)}

    @app.get("/v1/spend")
    def spend() -> dict[str, Any]:
        store = Store.open(home)
        return SpendAuthority(store, Settings(store)).summary()

    @app.get("/v1/settings")
    def settings() -> dict[str, Any]:
        return Settings(Store.open(home)).all()

    return app

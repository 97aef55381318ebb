"""What a route acts for: the home of the request's tenant.

``LocalSecurity`` (api/security.py) puts the tenant in the request's state: the tenant of
its Bearer token, else the server's own (``JOBCTRL_TENANT`` of `jobctrl up`). Every route
lives on a module-level router made by ``tenant_router``: the tenant dependency is the
router's, so no handler runs without it, and there is no server home in scope for a
handler to reach by mistake. A handler takes ``home: TenantHome`` (the same dependency,
resolved once per request) and hands it to the application layer, which opens that
tenant's store and reads its config.yaml.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field

from jobctrl.domain.errors import FORBIDDEN, JobctrlError
from jobctrl.home import Home

__all__ = [
    "ERRORS",
    "EXTENSION_STATE",
    "TENANT_STATE",
    "ErrorBody",
    "ServerTenant",
    "TenantHome",
    "server_tenant",
    "tenant_home",
    "tenant_router",
]

TENANT_STATE = "tenant"  # the key in scope["state"] the middleware sets
EXTENSION_STATE = "extension"  # the extension token's name, when one was sent


def tenant_home(request: Request) -> Home:
    """The server's home acting for the request's tenant. A request the middleware named
    no tenant for (a scope it passed through unchecked) acts for none: refused, never the
    server's own tenant by default."""
    tenant = request.scope.get("state", {}).get(TENANT_STATE)
    if not tenant:
        raise JobctrlError("this request acts for no tenant", code=FORBIDDEN)
    base: Home = request.app.state.home
    return base.with_tenant(tenant)


TenantHome = Annotated[Home, Depends(tenant_home)]


def server_tenant(request: Request) -> str:
    """The tenant the server itself runs for (``JOBCTRL_TENANT`` of `jobctrl up`): whose
    screen a browser window may open on, say. Never a home to act in."""
    return str(request.app.state.home.tenant)


ServerTenant = Annotated[str, Depends(server_tenant)]


class ErrorDetail(BaseModel):
    code: str = Field(description="A stable code (domain/errors.py), for scripts.")
    message: str = Field(description="One sentence for the person.")


class ErrorBody(BaseModel):
    """Every error answer: ``{"error": {"code", "message"}}`` (a command's failed result
    may carry its own fields beside it)."""

    model_config = ConfigDict(extra="allow")
    error: ErrorDetail


ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": text}
    for status, text in (
        (401, "No token where one is needed"),
        (403, "A wrong token, host or origin"),
        (404, "No such object of this tenant"),
        (409, "Refused in the object's current state"),
        (422, "Invalid input"),
    )
}
"""The error answers every route may give, documented once (also replacing FastAPI's own
422 schema, which is not the shape this API answers with)."""


def tenant_router(**kwargs: Any) -> APIRouter:
    """An ``APIRouter`` every route of which needs the request's tenant (``tenant_home``
    as a router-level dependency: a request acting for no tenant is refused before its
    handler runs, whether or not the handler names ``home``), with ``ERRORS`` documented."""
    return APIRouter(dependencies=[Depends(tenant_home)], responses=dict(ERRORS), **kwargs)

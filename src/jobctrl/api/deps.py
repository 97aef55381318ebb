"""What a route acts for: the home of the request's tenant.

``LocalSecurity`` (api/security.py) puts the tenant in the request's state: the tenant of
its Bearer token, else the server's own (``JOBCTRL_TENANT`` of `jobctrl up`). Every route
takes ``home: TenantHome`` and hands it to the application layer, which opens that
tenant's store and reads its config.yaml: no route reaches the server's home by closure.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from jobctrl.domain.errors import FORBIDDEN, JobctrlError
from jobctrl.home import Home

__all__ = ["TENANT_STATE", "TenantHome", "tenant_home"]

TENANT_STATE = "tenant"  # the key in scope["state"] the middleware sets


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

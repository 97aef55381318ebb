"""What a request with a token (another tenant's) is told of a server bug: that it was
logged, not where (the log's path is the operator's); a tokenless request, the server's
own tenant, is told where, as the CLI does. And a request no tenant was named for is
refused, never the server's tenant by default."""

from __future__ import annotations

import httpx
import pytest
from fastapi import Request

from jobctrl.api.app import create_app
from jobctrl.api.deps import tenant_home
from jobctrl.app import activity as activity_module
from jobctrl.domain.errors import JobctrlError
from tests.support.tenants import ACME_TOKEN, TwoTenants


async def test_a_bug_tells_another_tenant_it_was_logged_not_where(
    two_tenants: TwoTenants, monkeypatch
) -> None:
    def broken(*_args, **_kwargs):
        raise RuntimeError("secret provider text")

    monkeypatch.setattr(activity_module, "discovery_runs", broken)
    app = create_app(two_tenants.local_home, port=8765)
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as c:
        acme = await c.get("/v1/runs", headers={"Authorization": f"Bearer {ACME_TOKEN}"})
        own = await c.get("/v1/runs")
    log_path = str(two_tenants.local_home.logs_dir)
    assert acme.status_code == own.status_code == 500
    assert log_path not in acme.text and "logged for the operator" in acme.text
    assert log_path in own.text
    assert "secret" not in acme.text + own.text


def test_a_request_named_for_no_tenant_is_refused(two_tenants: TwoTenants) -> None:
    app = create_app(two_tenants.local_home, port=8765)
    request = Request({"type": "http", "app": app, "state": {}, "headers": []})
    with pytest.raises(JobctrlError) as refused:
        tenant_home(request)
    assert refused.value.code == "forbidden"

"""Settings and spend over HTTP: every runtime setting, a validated change, and today's
spend against the ceiling — the same ``app.settings`` and ``app.queries`` functions the
CLI calls."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Body

from jobctrl.api.deps import TenantHome, tenant_router
from jobctrl.app import queries
from jobctrl.app import settings as app_settings

__all__ = ["router"]

router = tenant_router()


@router.get("/v1/spend", tags=["spend"], response_model=queries.SpendSummary)
def spend(home: TenantHome) -> queries.SpendSummary:
    """Today's estimated spend per lane against the daily ceiling (UTC day)."""
    return queries.spend_summary(home)


@router.get("/v1/settings", tags=["settings"], response_model=queries.SettingsValues)
def settings(home: TenantHome) -> queries.SettingsValues:
    """Every runtime setting with its current value."""
    return queries.settings_values(home)


@router.patch("/v1/settings", tags=["settings"], response_model=queries.SettingsValues)
def change_settings(
    home: TenantHome,
    changes: Annotated[dict[str, Any], Body(examples=[{"min_fit_score": 60}])],
) -> queries.SettingsValues:
    """Change settings (all validated before any is written)."""
    return app_settings.change_settings(home, changes)

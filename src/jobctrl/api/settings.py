"""Settings and spend over HTTP: every runtime setting, a validated change, and today's
spend against the ceiling — the same ``app.settings`` and ``app.queries`` functions the
CLI calls."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Body

from jobctrl.api.deps import TenantHome, tenant_router
from jobctrl.app import activity, configuration
from jobctrl.app import settings as app_settings

__all__ = ["router"]

router = tenant_router()


@router.get("/v1/spend", tags=["spend"], response_model=activity.SpendSummary)
def spend(home: TenantHome) -> activity.SpendSummary:
    """Today's estimated spend per lane against the daily ceiling (UTC day)."""
    return activity.spend_summary(home)


@router.get("/v1/settings", tags=["settings"], response_model=configuration.SettingsValues)
def settings(home: TenantHome) -> configuration.SettingsValues:
    """Every runtime setting with its current value."""
    return configuration.settings_values(home)


@router.patch("/v1/settings", tags=["settings"], response_model=configuration.SettingsValues)
def change_settings(
    home: TenantHome,
    changes: Annotated[dict[str, Any], Body(examples=[{"min_fit_score": 60}])],
) -> configuration.SettingsValues:
    """Change settings (all validated before any is written)."""
    return app_settings.change_settings(home, changes)

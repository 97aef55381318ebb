"""Settings and spend over HTTP: every runtime setting, a validated change, today's
spend against the ceiling — the same ``app.settings`` and ``app.queries`` functions the
CLI calls — and the roles and places discovery looks for (``app.target_search``)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Body

from jobctrl.api.deps import TenantHome, tenant_router
from jobctrl.app import activity, configuration, target_search
from jobctrl.app import settings as app_settings
from jobctrl.app.target_search import TargetSearchView

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


@router.get("/v1/target-search", tags=["settings"], response_model=TargetSearchView)
def get_target_search(home: TenantHome) -> TargetSearchView:
    """The roles and places discovery looks for (config.yaml's ``target_search``)."""
    return target_search.target_search(home)


@router.patch("/v1/target-search", tags=["settings"], response_model=TargetSearchView)
def change_target_search(
    home: TenantHome,
    changes: Annotated[
        dict[str, Any],
        Body(examples=[{"titles": ["Backend Engineer"], "locations": ["Berlin", "Remote"]}]),
    ],
) -> TargetSearchView:
    """Change what discovery looks for (`titles`, `excludeTitles`, `locations`,
    `remoteOnly`, `keywords`, `seniority`; a list may be a comma-separated text), all
    validated before config.yaml is rewritten with its comments kept."""
    return target_search.change_target_search(home, changes)

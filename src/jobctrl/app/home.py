"""Setting up a home: the commented config.yaml and the database."""

from __future__ import annotations

from typing import Any

from jobctrl import config as config_file
from jobctrl.domain import tenants
from jobctrl.home import Home
from jobctrl.store.store import Store

__all__ = ["init_home"]


def init_home(
    home: Home,
    *,
    profile: dict[str, Any] | None = None,
    target_search: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Write config.yaml (unless present; optionally with a profile and target search
    filled in) and create and migrate the database."""
    wrote = config_file.write_template(home, profile=profile, target_search=target_search)
    Store.open(home)
    return {
        "home": str(home.root),
        "config": str(home.config_path),
        "configCreated": wrote,
        "database": home.database_url,
    }


def current_home() -> Home:
    """The home and tenant a command acts for (``JOBCTRL_HOME``, ``JOBCTRL_TENANT``); a
    tenant name that cannot be one is refused before any of its files is touched (the
    name is a directory under the home)."""
    home = Home.resolve()
    tenants.checked_name(home.tenant)
    return home

"""Setting up a home: the commented config.yaml and the database."""

from __future__ import annotations

from typing import Any

from jobctrl import config as config_file
from jobctrl.app.models import View
from jobctrl.domain import tenants
from jobctrl.home import Home
from jobctrl.store.store import Store

__all__ = ["HomeReady", "current_home", "init_home"]


class HomeReady(View):
    """A home set up: its folder, its config.yaml (``configCreated``: written now, not
    kept) and its database URL."""

    home: str
    config: str
    config_created: bool
    database: str


def init_home(
    home: Home,
    *,
    profile: dict[str, Any] | None = None,
    target_search: dict[str, Any] | None = None,
) -> HomeReady:
    """Write config.yaml (unless present; optionally with a profile and target search
    filled in) and create and migrate the database."""
    wrote = config_file.write_template(home, profile=profile, target_search=target_search)
    Store.open(home)
    return HomeReady(
        home=str(home.root),
        config=str(home.config_path),
        config_created=wrote,
        database=home.database_url,
    )


def current_home() -> Home:
    """The home and tenant a command acts for (``JOBCTRL_HOME``, ``JOBCTRL_TENANT``); a
    tenant name that cannot be one is refused before any of its files is touched (the
    name is a directory under the home)."""
    home = Home.resolve()
    tenants.checked_name(home.tenant)
    return home

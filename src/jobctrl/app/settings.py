"""Changing runtime settings: one path for the CLI (`settings set KEY VALUE`) and the API
(`PATCH /v1/settings`)."""

from __future__ import annotations

import json
from typing import Any

from jobctrl.domain.errors import INVALID_INPUT, JobctrlError
from jobctrl.home import Home
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store

__all__ = ["change_settings"]


def change_settings(home: Home, changes: dict[str, Any]) -> dict[str, Any]:
    """Validate every change, then write them all at once; returns every setting.

    A value may be typed JSON (number, bool, list, object) or the text the CLI takes;
    an unknown key or a bad value is refused before anything is written.
    """
    if not changes:
        raise JobctrlError("name at least one setting to change", code=INVALID_INPUT)
    parsed = {
        key: Settings.parse(key, value if isinstance(value, str) else json.dumps(value))
        for key, value in changes.items()
    }
    settings = Settings(Store.open(home))
    settings.set_values(parsed)  # one transaction: all of them or none
    return settings.all()

"""Changing runtime settings: one path for the CLI (`settings set KEY VALUE`) and the API
(`PATCH /v1/settings`).

A few settings reach past the tenant (``domain.settings.OPERATOR_ONLY``: the hosts the
worker may fetch, the SMTP password's variable, unencrypted SMTP): a tenant other than
``local`` may not set them over HTTP (``setting_operator_only``, 403). The CLI, which has
the database itself, is the operator's and may set them for any tenant.
"""

from __future__ import annotations

import json
from typing import Any

from jobctrl.app.configuration import SettingsValues
from jobctrl.domain.errors import INVALID_INPUT, SETTING_OPERATOR_ONLY, JobctrlError
from jobctrl.domain.settings import operator_only
from jobctrl.domain.tenants import LOCAL
from jobctrl.home import Home
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store

__all__ = ["change_settings"]


def change_settings(
    home: Home, changes: dict[str, Any], *, by_operator: bool = False
) -> SettingsValues:
    """Validate every change, then write them all at once; returns every setting.

    A value may be typed JSON (number, bool, list, object) or the text the CLI takes;
    an unknown key or a bad value is refused before anything is written, and so is an
    operator-only one for a tenant other than ``local`` unless ``by_operator``.
    """
    if not changes:
        raise JobctrlError("name at least one setting to change", code=INVALID_INPUT)
    parsed = {
        key: Settings.parse(key, value if isinstance(value, str) else json.dumps(value))
        for key, value in changes.items()
    }
    if home.tenant != LOCAL and not by_operator:
        for key, value in parsed.items():
            if (why := operator_only(key, value)) is not None:
                raise JobctrlError(why, code=SETTING_OPERATOR_ONLY)
    settings = Settings(Store.open(home))
    settings.set_values(parsed)  # one transaction: all of them or none
    return SettingsValues(settings.all())

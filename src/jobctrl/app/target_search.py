"""What discovery looks for — the roles and places a person wants (config.yaml's
``target_search``): read, and changed from the Settings page (``PATCH /v1/target-search``)
without editing YAML (issue 30: settings that matter to a job seeker first)."""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from jobctrl import config as config_file
from jobctrl.app.models import View
from jobctrl.domain.errors import INVALID_INPUT, JobctrlError
from jobctrl.domain.profile import TargetSearch
from jobctrl.home import Home

__all__ = ["TargetSearchView", "change_target_search", "target_search"]


class TargetSearchView(View):
    """The roles discovery keeps (``titles``; none: any) and never keeps
    (``exclude_titles``), the places (``locations``; none: anywhere), ``remote_only``, and
    the ``keywords`` and ``seniority`` a posting must mention."""

    titles: list[str]
    exclude_titles: list[str]
    locations: list[str]
    remote_only: bool
    keywords: list[str]
    seniority: list[str]

    @classmethod
    def of(cls, target: TargetSearch) -> TargetSearchView:
        return cls.model_validate(target.model_dump())


FIELDS = tuple(TargetSearch.model_fields)
ALIASES = {TargetSearchView.model_fields[f].alias or f: f for f in FIELDS}  # camelCase too


def target_search(home: Home) -> TargetSearchView:
    """What discovery looks for now."""
    return TargetSearchView.of(config_file.load_config(home).target_search)


def change_target_search(home: Home, changes: dict[str, Any]) -> TargetSearchView:
    """Set the fields in ``changes`` (snake_case or camelCase; a list, or for a list a
    comma-separated text); all validated with the whole config before config.yaml is
    rewritten (its comments kept). An unknown field or a bad value changes nothing."""
    if not isinstance(changes, dict) or not changes:
        raise JobctrlError("say what to change: titles, locations, …", code=INVALID_INPUT)
    named = {ALIASES.get(key, key): value for key, value in changes.items()}
    unknown = sorted(set(named) - set(FIELDS))
    if unknown:
        raise JobctrlError(
            f"no target search field {unknown[0]!r}; one of: {', '.join(FIELDS)}",
            code=INVALID_INPUT,
        )
    for key, value in named.items():
        if isinstance(value, str) and key != "remote_only":
            named[key] = [part.strip() for part in value.split(",") if part.strip()]
    try:
        json.dumps(named, ensure_ascii=False).encode("utf-8")
        current = config_file.load_config(home).target_search.model_dump()
        target = TargetSearch.model_validate({**current, **named})
    except (UnicodeEncodeError, ValueError) as exc:
        raise JobctrlError(_problem(exc), code=INVALID_INPUT) from None
    config_file.edit_target_search(home, target)
    return target_search(home)


def _problem(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors(include_input=False, include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"])
        return f"{where}: {first['msg']}" if where else str(first["msg"])
    return "the target search must be text that UTF-8 can hold"

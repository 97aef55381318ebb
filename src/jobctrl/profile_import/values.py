"""Reading loosely typed values out of a parsed resume file: strings, lists, mappings,
dates as ``"YYYY-MM"``/``"YYYY"``/``"present"``, and lists without repeats."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

__all__ = ["as_dict", "as_list", "as_text", "month_or_year", "unique"]

_DATE = re.compile(r"(\d{4})(?:-(\d{1,2})(?:-\d{1,2})?)?(?:[T ].*)?")


def month_or_year(value: Any) -> str:
    """``"YYYY-MM"``, ``"YYYY"``, ``"present"`` or ``""`` (YAML gives dates and ints too)."""
    if isinstance(value, date):
        return f"{value.year:04d}-{value.month:02d}"
    text = as_text(value)
    if text.lower() in {"present", "current", "now"}:
        return "present"
    match = _DATE.fullmatch(text)
    if not match:
        return ""
    year, month = match[1], match[2]
    return f"{year}-{int(month):02d}" if month and 1 <= int(month) <= 12 else year


def unique(values: list[Any]) -> list[str]:
    """Non-empty stripped strings, first of each case-insensitive spelling, order kept."""
    seen: set[str] = set()
    out: list[str] = []
    for text in map(as_text, values):
        if text and text.casefold() not in seen:
            seen.add(text.casefold())
            out.append(text)
    return out


def as_text(value: Any) -> str:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return ""


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def as_dict(value: Any) -> dict[Any, Any]:
    return value if isinstance(value, dict) else {}

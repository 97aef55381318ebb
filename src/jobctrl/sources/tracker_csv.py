"""The application tracker as CSV: RFC 4180, one header row, ``CSV_COLUMNS`` in order.

Company names, roles and notes come from postings and people: a cell a spreadsheet would
run as a formula (starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return)
is written with a leading ``'`` so it opens as text.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping
from datetime import date
from typing import Any

__all__ = ["CSV_COLUMNS", "write_csv"]

CSV_COLUMNS = ("company", "role", "status", "outcome", "applied", "follow_up", "notes",
               "score", "url", "job_id", "application_id", "source")  # fmt: skip
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _csv_cell(value: Any) -> str:
    """A CSV cell; text a spreadsheet would run as a formula is quoted with ``'``."""
    if value is None:
        return ""
    text = value.isoformat() if isinstance(value, date) else str(value)
    if isinstance(value, str) and text.startswith(_FORMULA_START):
        return "'" + text
    return text


def write_csv(records: Iterable[Mapping[str, Any]]) -> str:
    """The tracker as CSV (RFC 4180, a header row, ``CSV_COLUMNS`` in that order)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CSV_COLUMNS)
    for record in records:
        writer.writerow([_csv_cell(record.get(c)) for c in CSV_COLUMNS])
    return buffer.getvalue()

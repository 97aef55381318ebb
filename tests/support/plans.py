"""SQLite query plans of the statements a store runs: capture them, and name those that
look a row up by its key yet do not search by that key.

``Statements`` records every distinct SELECT/UPDATE/DELETE the store's engines execute
(with the parameters of its first run). ``Planner`` asks SQLite for a statement's plan
(``EXPLAIN QUERY PLAN``) and returns the plan lines that betray a key lookup: a ``SCAN``
of the keyed table, or a ``SEARCH`` whose index constraint holds no key column of that
table (``(tenant_id=?)`` alone: the walk of a whole tenant that SQLite, without
statistics, may prefer to the key's index; ``tenancy.keyed`` is the cure).

Without statistics two indexes that each match one leading equality tie, and SQLite
takes the one it meets first, which depends on the order the indexes were created in
(and a migration may create them in an order that changes from run to run). So the plan
is asked of two empty copies of the store's schema, one with the indexes in the store's
order and one in the reverse: a lookup that loses a tie either way is named every run.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from types import TracebackType
from typing import Any

from sqlalchemy import event

from jobctrl.store.schema import metadata
from jobctrl.store.store import Store

# Columns that name one row (or one job's or run's few rows) when compared with a value.
KEY_COLUMNS = (
    "job_id",
    "workflow_id",
    "application_id",
    "id",
    "run_id",
    "event_id",
    "idempotency_key",
)
KINDS = ("SELECT", "UPDATE", "DELETE")

_KEY = re.compile(r"(?<![\w.])(?:(?P<qual>\w+)\.)?(?P<col>" + "|".join(KEY_COLUMNS) + r")\s*=\s*\?")
_PLAN = re.compile(r"^(?P<op>SCAN|SEARCH) (?P<table>\w+)(?: AS (?P<alias>\w+))?(?P<rest>.*)$")
_TARGET = re.compile(r"^(?:UPDATE|DELETE FROM) (\w+)", re.IGNORECASE)


def normalized(statement: str) -> str:
    return " ".join(statement.split())


class Statements:
    """Every distinct SELECT/UPDATE/DELETE ``store`` executes while open, with the
    parameters of its first run (``executemany`` batches are left out)."""

    def __init__(self, store: Store) -> None:
        self.engines = list({id(e): e for e in (store.writer, store.reader)}.values())
        self.seen: dict[str, Sequence[Any]] = {}

    def _on_execute(
        self, conn: Any, cursor: Any, statement: str, params: Any, context: Any, many: bool
    ) -> None:
        text = normalized(statement)
        if not many and text.split(" ", 1)[0].upper() in KINDS:
            self.seen.setdefault(text, params)

    def __enter__(self) -> Statements:
        for engine in self.engines:
            event.listen(engine, "before_cursor_execute", self._on_execute)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        for engine in self.engines:
            event.remove(engine, "before_cursor_execute", self._on_execute)


def keys_of(statement: str) -> list[tuple[str | None, str]]:
    """``(qualifier, column)`` of each key compared with a value in ``statement``; the
    qualifier is the table (or alias) named before the column, else the UPDATE's or
    DELETE's table, else ``None`` (any table of the plan with that column)."""
    target = _TARGET.match(statement)
    found = {
        (m["qual"] or (target[1] if target else None), m["col"]) for m in _KEY.finditer(statement)
    }
    return sorted(found, key=lambda k: (k[0] or "", k[1]))


def _constraint_columns(rest: str) -> set[str]:
    """The columns of a plan line's index constraint: ``(job_id=? AND stage=?)``."""
    m = re.search(r"\(([^()]*)\)\s*$", rest)
    return set(re.findall(r"(\w+)\s*[=<>]", m[1])) if m else set()


def _has_column(table: str, column: str) -> bool:
    t = metadata.tables.get(table)
    return t is not None and column in t.c


def offending_lines(plan: Sequence[str], keys: Sequence[tuple[str | None, str]]) -> list[str]:
    """The lines of ``plan`` that walk a table ``keys`` name rather than search it by a
    key (its primary key, or an index constrained on a key column)."""
    bad = []
    for detail in plan:
        m = _PLAN.match(detail)
        if m is None:
            continue
        names = {m["table"], m["alias"]} - {None}
        if not any((q in names) if q else _has_column(m["table"], c) for q, c in keys):
            continue
        rest = m["rest"]
        by_key = "PRIMARY KEY" in rest or bool(_constraint_columns(rest) & set(KEY_COLUMNS))
        if m["op"] == "SCAN" or not by_key:
            bad.append(detail)
    return bad


def _schema_copy(entries: Sequence[tuple[str, str]]) -> sqlite3.Connection:
    copy = sqlite3.connect(":memory:")
    for _, sql in entries:
        copy.execute(sql)
    return copy


class Planner:
    """Plans of statements on two empty copies of ``store``'s SQLite schema: its indexes
    in the store's order and in the reverse order (see the module's docstring)."""

    def __init__(self, store: Store) -> None:
        raw = store.reader.raw_connection()
        try:
            rows = raw.cursor().execute(
                "SELECT type, sql FROM sqlite_master WHERE sql IS NOT NULL"
                " AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
            )
            entries = [(kind, sql) for kind, sql in rows]
        finally:
            raw.close()
        tables = [e for e in entries if e[0] == "table"]
        indexes = [e for e in entries if e[0] == "index"]
        rest = [e for e in entries if e[0] not in ("table", "index")]
        self.copies = [
            _schema_copy(tables + indexes + rest),
            _schema_copy(tables + indexes[::-1] + rest),
        ]

    def close(self) -> None:
        for copy in self.copies:
            copy.close()

    def __enter__(self) -> Planner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def offenses(self, statement: str, params: Sequence[Any]) -> list[str]:
        """The plan lines, on either copy, of a key lookup not searched by its key."""
        keys = keys_of(statement)
        if not keys:
            return []
        bad: list[str] = []
        for copy in self.copies:
            plan = [row[3] for row in copy.execute("EXPLAIN QUERY PLAN " + statement, params)]
            bad += [line for line in offending_lines(plan, keys) if line not in bad]
        return bad


def key_plan_offenders(store: Store, statements: Statements) -> tuple[int, list[str]]:
    """How many captured statements look a row up by a key, and one entry per statement
    whose plan does not search by it (the statement, then the offending plan lines)."""
    checked, offenders = 0, []
    with Planner(store) as planner:
        for statement, params in statements.seen.items():
            if not keys_of(statement):
                continue
            checked += 1
            bad = planner.offenses(statement, params)
            if bad:
                offenders.append(f"{_head(statement)}\n    plan: {' | '.join(bad)}")
    return checked, offenders


def _head(statement: str, width: int = 400) -> str:
    return statement if len(statement) <= width else statement[:width] + " …"

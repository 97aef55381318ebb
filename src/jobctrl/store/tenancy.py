"""Tenancy in the store: which rows a statement may touch, and the guard that checks it.

Every connection the ``Store`` hands out (``read()``, ``write()``) carries its tenant as the
execution option ``jobctrl_tenant``: a store function finds it with ``tenant_of(conn)`` and
writes the predicate itself (``scoped``) or stamps the row (``stamped``). Nothing rewrites
statements behind the code's back: the SQL you read is the SQL that runs.

A forgotten predicate is caught by the guard (``JOBCTRL_TENANT_GUARD=1``, for tests; it
costs a walk of every statement): on a connection bound to a tenant it refuses a
statement that reads, changes or deletes rows of a tenant table without
``tenant_id = <the connection's tenant>`` for every occurrence of that table (aliases too),
and an INSERT without that ``tenant_id``. A statement built once at module level compares
with ``tenant_param()`` and gets ``{"tenant": tenant_of(conn)}`` with its parameters. The
few readers that span every tenant (the projections' fold, the tenants' list, the store
copy) mark their statements ``all_tenants``. A connection bound to no tenant (migrations,
tools opening an engine themselves) is not checked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

from sqlalchemy import (
    Alias,
    BinaryExpression,
    BindParameter,
    ColumnElement,
    Connection,
    Delete,
    Engine,
    Executable,
    FromClause,
    Insert,
    Join,
    Select,
    Table,
    TextClause,
    Update,
    bindparam,
    event,
)
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql import operators, visitors
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.ddl import ExecutableDDLElement
from sqlalchemy.sql.elements import ColumnClause
from sqlalchemy.sql.visitors import InternalTraversal

from jobctrl.store import (
    application_tables,
    contact_tables,
    extension_tables,
    operations_tables,
    outbound_tables,
    tenant_tables,
    truth_tables,
)
from jobctrl.store.schema import metadata
from jobctrl.testing import hooks

TENANT_OPTION = "jobctrl_tenant"
ALL_TENANTS_OPTION = "jobctrl_all_tenants"
TENANT_PARAM = "tenant"

# Loaded so the metadata holds every table (their modules define them on it).
TABLE_MODULES = (
    application_tables,
    contact_tables,
    extension_tables,
    operations_tables,
    outbound_tables,
    tenant_tables,
    truth_tables,
)
# Deployment-wide on purpose, with why; every other table has ``tenant_id``.
GLOBAL_TABLES: Mapping[str, str] = {
    "projection_watermarks": "the fold runs once over the one global event sequence",
    "artifacts": "content-addressed blobs, reached only through a tenant's rows",
    "worker_runtime_heartbeats": "the worker processes serve every tenant",
    "worker_leases": "one set of heartbeat duties per task queue, looping over tenants",
    "tenants": "the list of tenants itself",
}
TENANT_TABLES = frozenset(name for name, t in metadata.tables.items() if "tenant_id" in t.c)

S = TypeVar("S", bound=Executable)


class TenancyError(RuntimeError):
    """A statement would reach past its tenant, or a connection has none: a bug."""


def tenant_of(conn: Connection) -> str:
    """The tenant ``conn`` acts for (set by ``Store.read()``/``write()``)."""
    tenant = conn.get_execution_options().get(TENANT_OPTION)
    if not tenant:
        raise TenancyError("this connection is bound to no tenant (use Store.read/write)")
    return str(tenant)


def bind(conn: Connection, tenant: str) -> Connection:
    """Bind ``conn`` to ``tenant``, in place: the options live on this checked-out
    ``Connection`` only, never on the pooled DBAPI connection."""
    return conn.execution_options(**{TENANT_OPTION: tenant})


def scoped(table: Table | Alias, conn: Connection) -> ColumnElement[bool]:
    """``table.tenant_id = <conn's tenant>``: the predicate every statement carries."""
    return table.c.tenant_id == tenant_of(conn)


class _NotIndexed(ColumnElement[str]):
    """A column SQLite's planner may not pick an index for (``+column``, SQLite's own
    way to say so); the column itself on other databases."""

    inherit_cache = True
    _traverse_internals = [("column", InternalTraversal.dp_clauseelement)]  # noqa: RUF012

    def __init__(self, column: ColumnElement[str]) -> None:
        self.column = column
        self.type = column.type


@compiles(_NotIndexed)
def _plain(element: _NotIndexed, compiler: SQLCompiler, **kw: Any) -> str:
    return compiler.process(element.column, **kw)


@compiles(_NotIndexed, "sqlite")
def _unary_plus(element: _NotIndexed, compiler: SQLCompiler, **kw: Any) -> str:
    return "+" + compiler.process(element.column, **kw)


def not_indexed(column: ColumnElement[str]) -> ColumnElement[str]:
    """``column`` where SQLite's planner may not use an index for it (``+column``): for a
    filter beside a key whose own index would tie with one led by this column."""
    return _NotIndexed(column)


def keyed(table: FromClause, tenant: str | ColumnElement[str] | Connection) -> ColumnElement[bool]:
    """``table.tenant_id = tenant`` for a row found by a key the tenant does not narrow
    (a job id is one tenant's already). SQLite keeps no statistics: offered
    ``tenant_id = ? AND job_id = ?`` its planner may walk a tenant-first index (every row
    of the tenant) rather than the key's; written ``+tenant_id`` it takes the key's.
    ``tenant`` may be an outer row's ``tenant_id`` (a correlated subquery), or a
    connection (the tenant it acts for, as ``scoped``)."""
    if isinstance(tenant, Connection):
        tenant = tenant_of(tenant)
    return _NotIndexed(table.c.tenant_id) == tenant


def tenant_param() -> BindParameter[str]:
    """For a statement built once: compare with this, execute with ``{"tenant": …}``."""
    return bindparam(TENANT_PARAM)


def stamped(conn: Connection, row: Mapping[str, Any]) -> dict[str, Any]:
    """``row`` with the connection's tenant as its ``tenant_id``."""
    return {**row, "tenant_id": tenant_of(conn)}


def all_tenants(stmt: S) -> S:
    """``stmt`` marked as reaching every tenant (deployment-wide readers only)."""
    return stmt.execution_options(**{ALL_TENANTS_OPTION: True})


# -- the guard -----------------------------------------------------------------------------


def guard_enabled() -> bool:
    return hooks.hook(hooks.TENANT_GUARD) == "1"


def install_guard(engine: Engine) -> None:
    """Check every statement ``engine`` runs on a tenant-bound connection (once)."""
    if not event.contains(engine, "before_execute", _before_execute):
        event.listen(engine, "before_execute", _before_execute)


def _before_execute(
    conn: Connection,
    clauseelement: Any,
    multiparams: Sequence[Mapping[str, Any]],
    params: Mapping[str, Any],
    execution_options: Mapping[str, Any],
) -> None:
    tenant = conn.get_execution_options().get(TENANT_OPTION)
    if not tenant or execution_options.get(ALL_TENANTS_OPTION):
        return
    check(clauseelement, str(tenant), [params] if params else list(multiparams), conn)


def check(
    stmt: Any,
    tenant: str,
    params: Sequence[Mapping[str, Any]] = (),
    conn: Connection | None = None,
) -> None:
    """Raise ``TenancyError`` unless ``stmt`` keeps to ``tenant`` (the rules above)."""
    if isinstance(stmt, Executable) and stmt.get_execution_options().get(ALL_TENANTS_OPTION):
        return
    if isinstance(stmt, ExecutableDDLElement):
        return
    if isinstance(stmt, TextClause):
        named = sorted(t for t in TENANT_TABLES if re.search(rf"\b{t}\b", stmt.text))
        if named:
            raise TenancyError(f"raw SQL on tenant tables ({', '.join(named)}): {stmt.text!r}")
        return
    target = stmt.table if isinstance(stmt, Insert) else None
    if isinstance(target, Table) and target.name in TENANT_TABLES:
        _check_insert(stmt, target, tenant, params, conn)
    occurrences = {
        id(f): f
        for f in _occurrences(stmt)
        if target is None or not _is_table_or_excluded(f, target)
    }
    if not occurrences:
        return
    scoped_ids = set()
    for node in visitors.iterate(stmt):
        if not isinstance(node, BinaryExpression) or node.operator is not operators.eq:
            continue
        for col, value in ((node.left, node.right), (node.right, node.left)):
            col = col.column if isinstance(col, _NotIndexed) else col
            if (
                isinstance(col, ColumnClause)
                and col.name == "tenant_id"
                and id(col.table) in occurrences
                and isinstance(value, BindParameter)
            ):
                _expect(_bound_values(value, params), tenant, f"{_name(col.table)}.tenant_id")
                scoped_ids.add(id(col.table))
    unscoped = [_name(f) for key, f in occurrences.items() if key not in scoped_ids]
    if unscoped:
        raise TenancyError(
            f"no tenant_id = {tenant!r} predicate on {', '.join(sorted(unscoped))}: {stmt}"
        )


def _name(from_: Any) -> str:
    return str(getattr(from_, "name", from_))


def _is_table_or_excluded(from_: Any, target: Any) -> bool:
    """An INSERT's own table, and the ``excluded`` row of its ON CONFLICT clause."""
    return from_ is target or (isinstance(from_, Alias) and from_.element is target)


def _tenant_from(from_: Any) -> Any | None:
    if isinstance(from_, Table) and from_.name in TENANT_TABLES:
        return from_
    if isinstance(from_, Alias) and isinstance(from_.element, Table):
        return from_ if from_.element.name in TENANT_TABLES else None
    return None


def _froms(from_: Any) -> Iterable[Any]:
    if isinstance(from_, Join):
        yield from _froms(from_.left)
        yield from _froms(from_.right)
    else:
        yield from_


def _occurrences(stmt: Any) -> Iterable[Any]:
    """Every tenant table (or alias of one) ``stmt`` reads or changes."""
    for node in visitors.iterate(stmt):
        if isinstance(node, Select):
            candidates: Iterable[Any] = [f for top in node.get_final_froms() for f in _froms(top)]
        elif isinstance(node, Update | Delete):
            candidates = _froms(node.table)
        elif isinstance(node, ColumnClause) and node.table is not None:
            candidates = [node.table]
        else:
            continue
        for f in candidates:
            found = _tenant_from(f)
            if found is not None:
                yield found


def _bound_values(bind: BindParameter[Any], params: Sequence[Mapping[str, Any]]) -> list[Any]:
    if bind.value is not None or not bind.required:
        return [bind.effective_value]
    return [p.get(bind.key) for p in params] or [None]


def _expect(values: Iterable[Any], tenant: str, where: str) -> None:
    wrong = {str(v) for v in values if v != tenant}
    if wrong:
        raise TenancyError(f"{where} is {', '.join(sorted(wrong))}, not this tenant ({tenant})")


def _check_insert(
    stmt: Insert,
    target: Table,
    tenant: str,
    params: Sequence[Mapping[str, Any]],
    conn: Connection | None,
) -> None:
    """An INSERT into a tenant table carries this tenant's ``tenant_id`` in every row."""
    keys = list(params[0]) if params else None
    compiled = stmt.compile(dialect=conn.dialect if conn is not None else None, column_keys=keys)
    if stmt.select is not None:
        if "tenant_id" not in str(compiled).split("SELECT", 1)[0]:
            raise TenancyError(f"INSERT INTO {target.name} … SELECT without tenant_id")
        return
    # Values written into the statement (not the placeholders of values to come); else
    # (a statement built once) the parameters.
    embedded: list[Any] = [
        v
        for k, v in compiled.params.items()
        if isinstance(v, str) and re.fullmatch(r"tenant_id(_m\d+)?", k)
    ]
    values = embedded or [p.get("tenant_id") for p in params] or [None]
    _expect(values, tenant, f"INSERT INTO {target.name}: tenant_id")


__all__ = [
    "ALL_TENANTS_OPTION",
    "GLOBAL_TABLES",
    "TENANT_OPTION",
    "TENANT_PARAM",
    "TENANT_TABLES",
    "TenancyError",
    "all_tenants",
    "bind",
    "check",
    "guard_enabled",
    "install_guard",
    "keyed",
    "not_indexed",
    "scoped",
    "stamped",
    "tenant_of",
    "tenant_param",
]

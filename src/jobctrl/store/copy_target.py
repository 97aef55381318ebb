"""The target of ``jobctrl store copy``: its URL (PostgreSQL through psycopg 3, printed
only without its password), reaching it, refusing it while it holds any jobctrl row,
bringing it to the current schema, and setting its sequences past the copied rows.
"""

from __future__ import annotations

import re

from alembic.util import CommandError
from sqlalchemy import (
    Connection,
    column,
    create_engine,
    func,
    inspect,
    literal,
    select,
    table,
    text,
)
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, OperationalError, SQLAlchemyError
from sqlalchemy.pool import NullPool

from jobctrl.domain.errors import (
    INVALID_INPUT,
    STORE_COPY_FAILED,
    STORE_TARGET_NOT_EMPTY,
    STORE_TARGET_UNREACHABLE,
    JobctrlError,
)
from jobctrl.store import application_tables, operations_tables, schema, truth_tables
from jobctrl.store.artifacts import ArtifactStore
from jobctrl.store.store import Store

__all__ = [
    "advance_sequences",
    "driver_message",
    "open_target",
    "redacted",
    "refuse_rows",
    "refuse_used_target",
    "target_url",
]

CONNECT_TIMEOUT_SECONDS = 10
# libpq's words for an error the server sent while connecting (bad password, no such role
# or database): "connection to server at …, port … failed: FATAL:  …".
_SERVER_REFUSED = re.compile(r"failed: (?:FATAL|ERROR|PANIC):")
# Loaded so the metadata holds every table (their modules define them on it).
TABLE_MODULES = (application_tables, operations_tables, truth_tables)


def redacted(url: str | URL) -> str:
    """``url`` without its password, in the user part or the query string (``password``,
    ``sslpassword``): never printed, logged or returned."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        return "(not a database URL)"
    secret = {k: "***" for k in parsed.query if "password" in k.lower()}
    shown = parsed.update_query_dict(secret).render_as_string(hide_password=True)
    return shown.replace("=%2A%2A%2A", "=***")


def target_url(raw: str) -> URL:
    """The PostgreSQL URL to copy into, with psycopg 3 as its driver; ``postgresql://`` and
    ``postgres://`` are taken as ``postgresql+psycopg://``. Anything else is refused."""
    try:
        url = make_url(raw.strip())
    except ArgumentError:
        raise JobctrlError(
            "--to is not a database URL; use postgresql+psycopg://USER[:PASSWORD]@HOST[:PORT]/DB",
            code=INVALID_INPUT,
        ) from None
    backend, _, driver = url.drivername.partition("+")
    if backend not in ("postgresql", "postgres"):
        raise JobctrlError(
            f"the target must be PostgreSQL (postgresql+psycopg://…), not {backend}",
            code=INVALID_INPUT,
        )
    if driver not in ("", "psycopg"):
        raise JobctrlError(
            f"jobctrl reaches PostgreSQL through psycopg 3: use postgresql+psycopg://, "
            f"not +{driver}",
            code=INVALID_INPUT,
        )
    if not url.database:
        raise JobctrlError(
            f"the target URL names no database: {redacted(url)}/DBNAME", code=INVALID_INPUT
        )
    return url.set(drivername="postgresql+psycopg")


def driver_message(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None) or exc
    diag = getattr(orig, "diag", None)
    message = getattr(diag, "message_primary", None) or str(orig)
    return (message.strip().splitlines() or ["(no message)"])[0]


def refuse_used_target(url: URL) -> None:
    """Reach the target (within a few seconds) and refuse it if any jobctrl table of it
    holds a row, before anything (even the schema) is written to it."""
    engine = create_engine(
        url, poolclass=NullPool, connect_args={"connect_timeout": CONNECT_TIMEOUT_SECONDS}
    )
    try:
        with engine.connect() as conn:
            refuse_rows(conn, set(inspect(conn).get_table_names()))
    except OperationalError as exc:
        if _SERVER_REFUSED.search(str(getattr(exc, "orig", exc))):
            # The server answered and refused the login or the database: a wrong --to,
            # not an outage. (libpq gives no SQLSTATE for errors while connecting.)
            raise JobctrlError(
                f"{redacted(url)} refused the connection: {driver_message(exc)}",
                code=INVALID_INPUT,
            ) from None
        raise JobctrlError(
            f"cannot reach {redacted(url)}: {driver_message(exc)}", code=STORE_TARGET_UNREACHABLE
        ) from None
    except DBAPIError as exc:
        raise JobctrlError(
            f"{redacted(url)} refused: {driver_message(exc)}", code=STORE_COPY_FAILED
        ) from None
    finally:
        engine.dispose()


def refuse_rows(conn: Connection, present: set[str]) -> None:
    used = [
        t.name
        for t in schema.metadata.sorted_tables
        if t.name in present
        and conn.execute(select(literal(1)).select_from(table(t.name)).limit(1)).first()
    ]
    if used:
        raise JobctrlError(
            "the target database already holds jobctrl data (rows in "
            f"{', '.join(used[:5])}{' …' if len(used) > 5 else ''}); copy into an empty "
            "database — nothing was changed",
            code=STORE_TARGET_NOT_EMPTY,
        )


def open_target(url: URL, artifacts: ArtifactStore) -> Store:
    """The target as a store, migrated to the current schema."""
    try:
        return Store(url.render_as_string(hide_password=False), artifacts)
    except (SQLAlchemyError, CommandError) as exc:
        raise JobctrlError(
            f"could not bring {redacted(url)} to jobctrl's schema: {driver_message(exc)}",
            code=STORE_COPY_FAILED,
        ) from None


def advance_sequences(conn: Connection) -> dict[str, int]:
    """Set every sequence owned by a column (serial or identity) of the target's schema
    past the copied rows; the value each one's next insert gets."""
    owned = conn.execute(
        text(
            "SELECT t.relname AS tab, a.attname AS col,"
            " quote_ident(n.nspname) || '.' || quote_ident(s.relname) AS seq"
            " FROM pg_depend d"
            " JOIN pg_class s ON s.oid = d.objid AND s.relkind = 'S'"
            " JOIN pg_class t ON t.oid = d.refobjid"
            " JOIN pg_namespace n ON n.oid = t.relnamespace"
            " JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = d.refobjsubid"
            " WHERE d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_class'::regclass"
            " AND d.deptype IN ('a', 'i') AND n.nspname = current_schema()"
            " ORDER BY t.relname, a.attname"
        )
    ).all()
    advanced: dict[str, int] = {}
    for tab, col, seq in owned:
        highest = conn.execute(select(func.max(column(col))).select_from(table(tab))).scalar()
        following = int(highest or 0) + 1
        conn.execute(
            text("SELECT setval(CAST(:seq AS regclass), :value, false)"),
            {"seq": seq, "value": following},
        )
        advanced[f"{tab}.{col}"] = following
    return advanced

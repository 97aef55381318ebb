"""Reading the Jobs list (``job_list_projections``): filtered, sorted, a page at a time."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Connection, func, or_, select

from jobctrl.store import schema, tenancy
from jobctrl.store.store import Store

JL = schema.job_list_projections
SORTS = ("score", "updated", "created")

# Each order matches an index of migration 0009 expression for expression (led by
# tenant_id since 0023, which every query fixes first), so a page is read in index order.
_ORDER_BY = {
    "score": (JL.c.score.is_(None), JL.c.score.desc(), JL.c.job_id),
    "updated": (JL.c.updated_at.desc(), JL.c.job_id),
    "created": (JL.c.created_at.desc(), JL.c.job_id),
}


@dataclass(frozen=True)
class JobFilter:
    """Which jobs a list shows, in what order, and which page of them: the Jobs list of
    `jobctrl jobs`, ``GET /v1/jobs`` and the Jobs page. Empty fields filter nothing;
    ``limit`` None is every row from ``offset`` on."""

    stage: str | None = None
    status: str | None = None
    min_score: int | None = None
    q: str | None = None
    sort: str = "score"  # one of SORTS
    limit: int | None = None
    offset: int = 0


def conditions(conn: Connection, wanted: JobFilter) -> list[ColumnElement[bool]]:
    """The WHERE of ``wanted`` on ``conn``'s tenant, the tenant first (the list indexes
    lead with it)."""
    where = [tenancy.scoped(JL, conn)]
    if wanted.stage:
        where.append(JL.c.current_stage == wanted.stage)
    if wanted.status:
        where.append(JL.c.status == wanted.status)
    if wanted.min_score is not None:
        where.append(JL.c.score >= wanted.min_score)
    if wanted.q:
        where.append(or_(JL.c.title.ilike(f"%{wanted.q}%"), JL.c.company.ilike(f"%{wanted.q}%")))
    return where


def order_of(wanted: JobFilter) -> tuple[Any, ...]:
    """The ORDER BY of ``wanted``'s sort."""
    return _ORDER_BY[wanted.sort]


def find(store: Store, wanted: JobFilter | None = None) -> tuple[list[dict[str, Any]], int]:
    """List rows matching ``wanted`` in its order (best score first, no score last),
    and how many match in all."""
    w = wanted or JobFilter()
    with store.read() as conn:
        where = conditions(conn, w)
        query = select(JL).where(*where).order_by(*order_of(w)).limit(w.limit)
        rows = [dict(r) for r in conn.execute(query.offset(w.offset)).mappings()]
        if w.limit is None and not w.offset:
            return rows, len(rows)
        total = conn.execute(select(func.count()).select_from(JL).where(*where)).scalar_one()
    return rows, int(total)


def count(store: Store, wanted: JobFilter) -> int:
    """How many rows match ``wanted`` (its page aside)."""
    with store.read() as conn:
        query = select(func.count()).select_from(JL).where(*conditions(conn, wanted))
        return int(conn.execute(query).scalar_one())

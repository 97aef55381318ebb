"""Reading the Jobs list (``job_list_projections``): filtered, sorted, a page at a time."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, or_, select

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


def find(
    store: Store,
    *,
    stage: str | None = None,
    status: str | None = None,
    min_score: int | None = None,
    q: str | None = None,
    sort: str = "score",
    limit: int | None = None,
    offset: int = 0,
) -> tuple[list[dict[str, Any]], int]:
    """List rows matching the filters in ``sort`` order (best score first, no score
    last), and how many match in all."""
    where = []
    if stage:
        where.append(JL.c.current_stage == stage)
    if status:
        where.append(JL.c.status == status)
    if min_score is not None:
        where.append(JL.c.score >= min_score)
    if q:
        where.append(or_(JL.c.title.ilike(f"%{q}%"), JL.c.company.ilike(f"%{q}%")))
    with store.read() as conn:
        where.insert(0, tenancy.scoped(JL, conn))  # first: the list indexes lead with it
        query = select(JL).where(*where).order_by(*_ORDER_BY[sort]).limit(limit).offset(offset)
        rows = [dict(r) for r in conn.execute(query).mappings()]
        if limit is None and not offset:
            return rows, len(rows)
        total = conn.execute(select(func.count()).select_from(JL).where(*where)).scalar_one()
    return rows, int(total)

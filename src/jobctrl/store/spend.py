"""The spend ledger: ``llm_spend`` (UPSERT by UTC day and lane), the provider observations
that feed it (each counted once), and the strict mode's reservations.

The rules (what may be admitted, what a call costs) live in ``llm.spend``; this module
only reads and writes the rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, case, func, select, update

from jobctrl.domain.clock import as_utc
from jobctrl.store import schema, tenancy
from jobctrl.store.db import upsert
from jobctrl.store.store import Store, WriteTx

LS = schema.llm_spend
LR = schema.llm_reservations
OBS = schema.llm_usage_observations


# Read before every provider call: built once, for the tenant passed as ``{"tenant": …}``.
_LANE_TOKENS = case(
    (LS.c.lane == bindparam("lane"), LS.c.input_tokens + LS.c.output_tokens), else_=0
)
_SPENT_TODAY = select(
    func.coalesce(func.sum(LS.c.cost_usd), 0.0), func.coalesce(func.sum(_LANE_TOKENS), 0)
).where(LS.c.tenant_id == tenancy.tenant_param(), LS.c.day == bindparam("day"))
# Grouped by a subquery's column: PostgreSQL will not match two copies of
# ``expires_at > :now`` (two bind parameters) as one grouping expression.
_OPEN = (
    select((LR.c.expires_at > bindparam("now")).label("live"), LR.c.amount_usd)
    .where(
        LR.c.tenant_id == tenancy.tenant_param(),
        LR.c.day == bindparam("day"),
        LR.c.settled_at.is_(None),
    )
    .subquery()
)
_UNSETTLED = select(
    _OPEN.c.live, func.count(), func.coalesce(func.sum(_OPEN.c.amount_usd), 0.0)
).group_by(_OPEN.c.live)


def spent_today(conn: Connection, day: str, lane: str) -> tuple[float, int]:
    """(the day's estimated USD over all lanes, the lane's input+output tokens)."""
    params = {"tenant": tenancy.tenant_of(conn), "day": day, "lane": lane}
    spent, tokens = conn.execute(_SPENT_TODAY, params).one()
    return float(spent), int(tokens)


@dataclass(frozen=True)
class Held:
    """What open reservations hold: their USD over all lanes, and one lane's tokens."""

    usd: float
    lane_tokens: int


def open_reservation(tx: WriteTx, reservation_id: str) -> float | None:
    """The USD an open reservation with this id holds, or None."""
    row = tx.conn.execute(
        select(LR.c.amount_usd, LR.c.settled_at).where(
            LR.c.tenant_id == tx.tenant, LR.c.reservation_id == reservation_id
        )
    ).first()
    if row is None or row.settled_at is not None:
        return None
    return float(row.amount_usd)


def held(tx: WriteTx, day: str, lane: str) -> Held:
    """What the day's unsettled reservations hold: calls in flight and calls whose worker
    died before their usage was recorded (those never expire: they may have been paid)."""
    usd, tokens = tx.conn.execute(
        select(
            func.coalesce(func.sum(LR.c.amount_usd), 0.0),
            func.coalesce(func.sum(case((LR.c.lane == lane, LR.c.tokens), else_=0)), 0),
        ).where(LR.c.tenant_id == tx.tenant, LR.c.day == day, LR.c.settled_at.is_(None))
    ).one()
    return Held(float(usd), int(tokens))


def add_reservation(
    tx: WriteTx,
    *,
    reservation_id: str,
    day: str,
    lane: str,
    provider: str,
    model: str,
    amount_usd: float,
    tokens: int,
    expires_at: datetime,
    owner: str | None = None,
) -> None:
    row = {
        "tenant_id": tx.tenant,
        "reservation_id": reservation_id,
        "day": day,
        "lane": lane,
        "provider": provider,
        "model": model,
        "amount_usd": amount_usd,
        "tokens": tokens,
        "created_at": tx.now,
        "expires_at": expires_at,
        "settled_at": None,
        "owner": owner,
    }
    upsert(tx.conn, LR, row, keys=["reservation_id"], update=list(row))


def _update_open(tx: WriteTx, reservation_id: str, **values: Any) -> None:
    """Change the reservation while it is open (a closed one is left as it is)."""
    tx.conn.execute(
        update(LR)
        .where(
            LR.c.tenant_id == tx.tenant,
            LR.c.reservation_id == reservation_id,
            LR.c.settled_at.is_(None),
        )
        .values(**values)
    )


def renew(tx: WriteTx, reservation_id: str) -> None:
    """The open reservation's age counts from now (``created_at``: what waiters read)."""
    _update_open(tx, reservation_id, created_at=tx.now)


def disown(tx: WriteTx, reservation_id: str) -> None:
    """The reservation's attempt is over without a recorded answer: nobody waits on it
    any longer (it stays open, counted: it may have been paid)."""
    _update_open(tx, reservation_id, owner=None)


@dataclass(frozen=True)
class Asking:
    """An open reservation whose attempt may still be asking the provider."""

    reservation_id: str
    owner: str
    created_at: datetime


def asking(store: Store, prefix: str, days: list[str], *, besides: str) -> list[Asking]:
    """The open, owned reservations (of ``days``) whose id starts with ``prefix``, other
    than ``besides``: calls of one lane of one job that may still be answered."""
    with store.read() as conn:
        rows = conn.execute(
            select(LR.c.reservation_id, LR.c.owner, LR.c.created_at).where(
                LR.c.tenant_id == tenancy.tenant_of(conn),
                LR.c.day.in_(days),
                LR.c.settled_at.is_(None),
                LR.c.owner.is_not(None),
                LR.c.reservation_id.startswith(prefix, autoescape=True),
                LR.c.reservation_id != besides,
            )
        ).all()
    return [Asking(r.reservation_id, r.owner, as_utc(r.created_at)) for r in rows]


def attempts_begun(store: Store, prefix: str) -> int:
    """How many attempts (reservations or recorded observations, any day) have ids that
    start with ``prefix``: a step asked outside a stage row (a profile import) numbers
    its next attempt after them, so a new attempt never reuses a counted id."""
    with store.read() as conn:
        tenant = tenancy.tenant_of(conn)
        reserved = select(LR.c.reservation_id.label("id")).where(
            LR.c.tenant_id == tenant, LR.c.reservation_id.startswith(prefix, autoescape=True)
        )
        observed = select(OBS.c.observation_id.label("id")).where(
            OBS.c.tenant_id == tenant,
            OBS.c.observation_id.startswith(prefix, autoescape=True),
            ~OBS.c.observation_id.contains("#", autoescape=True),
        )
        ids = reserved.union(observed).subquery()
        return int(conn.execute(select(func.count()).select_from(ids)).scalar_one())


def settle(tx: WriteTx, reservation_id: str) -> None:
    """Close the reservation (if still open)."""
    _update_open(tx, reservation_id, settled_at=tx.now)


def add_observation(
    tx: WriteTx,
    *,
    observation_id: str,
    day: str,
    lane: str,
    provider: str,
    model: str,
    input_tokens: int,
    output_tokens: int,
    cost_usd: float,
) -> bool:
    """Count one provider observation in the day's ledger row of its lane, once per
    observation id, and close the attempt's reservation (same id) in the same write, so
    no reader counts the call twice, as spend and as reserved (closed also when the
    observation was counted already). False if already counted."""
    settle(tx, observation_id)
    inserted = upsert(
        tx.conn,
        OBS,
        {
            "tenant_id": tx.tenant,
            "observation_id": observation_id,
            "day": day,
            "lane": lane,
            "provider": provider,
            "model": model,
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "cost_usd": cost_usd,
            "created_at": tx.now,
        },
        keys=["observation_id"],
    ).rowcount
    if not inserted:
        return False
    upsert(
        tx.conn,
        LS,
        {
            "tenant_id": tx.tenant,
            "day": day,
            "lane": lane,
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "cost_usd": cost_usd,
            "calls": 1,
            "updated_at": tx.now,
        },
        keys=["tenant_id", "day", "lane"],
        update={
            "input_tokens": LS.c.input_tokens + input_tokens,
            "output_tokens": LS.c.output_tokens + output_tokens,
            "cost_usd": LS.c.cost_usd + cost_usd,
            "calls": LS.c.calls + 1,
            "updated_at": tx.now,
        },
    )
    return True


@dataclass(frozen=True)
class Unsettled:
    """The day's unsettled reservations: those still within their time (in flight) and
    those past it (assumed spent: the worker died before the usage was recorded)."""

    in_flight: int
    in_flight_usd: float
    assumed: int
    assumed_usd: float


def unsettled(store: Store, day: str, now: datetime) -> Unsettled:
    with store.read() as conn:
        return unsettled_in(conn, day, now)


def unsettled_in(conn: Connection, day: str, now: datetime) -> Unsettled:
    params = {"tenant": tenancy.tenant_of(conn), "day": day, "now": now}
    rows = conn.execute(_UNSETTLED, params).all()
    by_kind = {bool(live): (int(count), float(usd)) for live, count, usd in rows}
    in_flight, assumed = by_kind.get(True, (0, 0.0)), by_kind.get(False, (0, 0.0))
    return Unsettled(in_flight[0], in_flight[1], assumed[0], assumed[1])


def preflight_reads(store: Store, day: str, lane: str, now: datetime) -> tuple[float, int]:
    """(the day's USD, spent and assumed paid by unsettled reservations whose worker died;
    the lane's tokens), in one read."""
    with store.read() as conn:
        spent, tokens = spent_today(conn, day, lane)
        return spent + unsettled_in(conn, day, now).assumed_usd, tokens


def lane_rows(store: Store, day: str) -> list[dict[str, Any]]:
    """The day's ledger rows, one per lane, by lane name."""
    with store.read() as conn:
        rows = conn.execute(
            select(LS).where(tenancy.scoped(LS, conn), LS.c.day == day).order_by(LS.c.lane)
        ).mappings()
        return [dict(r) for r in rows]


def daily_totals(store: Store, first: str, last: str) -> dict[str, float]:
    """Estimated USD per UTC day from ``first`` to ``last`` (days without spend absent)."""
    with store.read() as conn:
        rows = conn.execute(
            select(LS.c.day, func.sum(LS.c.cost_usd))
            .where(tenancy.scoped(LS, conn), LS.c.day >= first, LS.c.day <= last)
            .group_by(LS.c.day)
        ).all()
    return {str(day): float(total or 0.0) for day, total in rows}

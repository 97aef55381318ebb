"""The heartbeat's census: which tenants have something for the lease holder to do now, in
one statement over every tenant (``all_tenants``), so a beat costs in proportion to the
tenants with work, not to the deployment's size.

Each arm names a duty (``domain.duties.Duty``) and the tenants whose rows call for it. An
arm may find a tenant the duty then finds nothing for (its clock rules, its settings,
the lanes' budgets are the duty's own), never the other way round: every arm is the
duty's own selection without what only the duty can judge. Besides the duties, the
statement reads the tenants whose settings changed since ``since`` (an event sequence:
their whole pass runs once, so a setting turned off is acted on), those with
``auto_apply`` stored, on the first census those with a discovery schedule stored (its
desired state lives only in settings), and the newest event's sequence for the next call.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Select,
    String,
    and_,
    case,
    cast,
    exists,
    func,
    literal,
    not_,
    or_,
    select,
    union_all,
)

from jobctrl.domain import public_fetch as recheck_rules
from jobctrl.domain import recovery as rules
from jobctrl.domain.applications import LIVE_ATTEMPT_STATES
from jobctrl.domain.clock import as_utc
from jobctrl.domain.duties import Duty
from jobctrl.domain.errors import BUDGET_EXCEEDED, CONFIG_INVALID, DETAIL_UNSAFE_URL
from jobctrl.domain.events import SettingChanged
from jobctrl.domain.executions import WorkflowStatus, WorkflowType
from jobctrl.domain.stages import NOT_ASKED_FOR, STAGE_ORDER, Stage, StageState
from jobctrl.store import application_tables as apps
from jobctrl.store import operations_tables as ops
from jobctrl.store import schema, tenancy
from jobctrl.store.store import Store

__all__ = ["Census", "census"]

S, J, WR, E, ST = (
    schema.job_stage_states,
    schema.jobs,
    schema.workflow_run_projections,
    schema.job_events,
    schema.settings,
)
OPEN_RUNS = (WorkflowStatus.RUNNING.value, WorkflowStatus.RECONCILED_NOT_FOUND.value)
ENDED_RUNS = (WorkflowStatus.COMPLETED.value, WorkflowStatus.FAILED.value)
PREPARING = (WorkflowType.PREPARATION.value, WorkflowType.RECOVERY.value)
SCHEDULE_KEYS = ("discovery.schedule_enabled", "discovery.schedule_cron")
AUTO_APPLY = "auto_apply"
_CHANGED, _AUTO, _SEQ = "~changed", "~auto_apply", "~seq"  # rows that are not duties


@dataclass(frozen=True)
class Census:
    """What one census found: each tenant's duties, the tenants whose settings changed,
    the tenants with ``auto_apply`` on, and the sequence to pass as the next ``since``."""

    duties: Mapping[str, frozenset[Duty]]
    changed: frozenset[str]
    auto_apply: frozenset[str]
    seq: int


def _arm(table: Any, kind: str, *where: ColumnElement[bool]) -> Select[Any]:
    """The tenants with a row of ``table`` (a table or an alias) that matches ``where``."""
    none = cast(literal(None), String)
    return select(table.c.tenant_id, literal(kind, String), none).where(*where).distinct()


def _stage_order(column: ColumnElement[str]) -> ColumnElement[int]:
    return case(dict(STAGE_ORDER), value=column, else_=99)


def _recovery_rows() -> ColumnElement[bool]:
    """Rows automatic recovery may pick (``store.recovery``'s selection without the clock,
    the lanes, the tenant's own attempt limit (at most five) and the per-job vetoes)."""
    earlier, runs = S.alias("earlier"), WR.alias("ended")
    done = or_(
        earlier.c.state == StageState.SUCCEEDED.value,
        and_(earlier.c.state == StageState.SKIPPED.value, earlier.c.error_code.in_(NOT_ASKED_FOR)),
    )
    # The job's own rows by their key: offered the tenant too, SQLite (no statistics)
    # walked a stage's rows of the tenant for each row, 71 s at 20,000 jobs.
    unfinished_before = exists().where(
        tenancy.keyed(earlier, S.c.tenant_id),
        earlier.c.job_id == S.c.job_id,
        earlier.c.stage.in_(rules.RECOVERABLE_STAGES),
        _stage_order(earlier.c.stage) < _stage_order(S.c.stage),
        not_(done),
    )
    failed = and_(
        S.c.stage.in_(rules.RECOVERABLE_STAGES),
        S.c.state == StageState.FAILED.value,
        S.c.retryable.is_(True),
        or_(S.c.error_code.is_(None), S.c.error_code.not_in(rules.NON_RETRYABLE_CODES)),
    )
    later = [stage for stage in rules.RECOVERABLE_STAGES if stage != Stage.ENRICH.value]
    pending = and_(
        S.c.stage.in_(later), S.c.state == StageState.PENDING.value, not_(unfinished_before)
    )
    prepared = exists().where(
        runs.c.job_id == S.c.job_id,
        runs.c.tenant_id == S.c.tenant_id,
        runs.c.workflow_type.in_(PREPARING),
        runs.c.status.in_(ENDED_RUNS),
    )
    stranded = and_(
        S.c.stage == Stage.ENRICH.value,
        S.c.state == StageState.PENDING.value,
        or_(S.c.auto_attempts > 0, prepared),
    )
    return and_(
        or_(failed, pending, stranded),
        S.c.reserved_by.is_(None),
        S.c.auto_attempts < rules.MAX_AUTO_ATTEMPTS,
    )


def _statement(now: datetime, since: int | None) -> Any:
    rc, pf = ops.recovery_cohorts, ops.public_fetch_rechecks
    dr, sr, oe = schema.discovery_runs, ops.stop_requests, ops.orphan_executions
    hides, attempts, intents = schema.job_hides, apps.apply_attempts, schema.start_intents
    failed = S.c.state == StageState.FAILED.value
    day_start = as_utc(now).replace(hour=0, minute=0, second=0, microsecond=0)
    settled_check = exists().where(  # a refusal whose checks are over (or never were)
        pf.c.tenant_id == S.c.tenant_id,
        pf.c.job_id == S.c.job_id,
        or_(
            pf.c.checks >= recheck_rules.MAX_CHECKS,
            pf.c.result == recheck_rules.CheckResult.PUBLIC.value,
            pf.c.cause.not_in(recheck_rules.RECHECKABLE),
        ),
        pf.c.run_id == S.c.owner_run_id,
        pf.c.attempt == S.c.attempts,
    )
    hidden = exists().where(
        hides.c.tenant_id == J.c.tenant_id, hides.c.idempotency_key == J.c.idempotency_key
    )
    arms = [
        _arm(WR, Duty.RUNS, WR.c.status.in_(OPEN_RUNS)),
        _arm(dr, Duty.RUNS, dr.c.status.in_(OPEN_RUNS)),
        _arm(S, Duty.ABANDONED, S.c.state == StageState.RUNNING.value),
        _arm(sr, Duty.STOPS, sr.c.observed_closed_at.is_(None), sr.c.gave_up_at.is_(None)),
        _arm(oe, Duty.ORPHANS),  # to be cleared once gone
        _arm(
            J,
            Duty.AVAILABILITY,
            J.c.url != "",
            or_(J.c.availability_next_check_at.is_(None), J.c.availability_next_check_at <= now),
            not_(hidden),
        ),
        _arm(attempts, Duty.SENDS, attempts.c.state.in_([s.value for s in LIVE_ATTEMPT_STATES])),
        _arm(intents, Duty.INTENTS, intents.c.started_at.is_(None)),
        _arm(
            S, Duty.BUDGET, failed, S.c.error_code == BUDGET_EXCEEDED, S.c.finished_at < day_start
        ),
        _arm(S, Duty.CONFIG, failed, S.c.error_code == CONFIG_INVALID),
        _arm(
            S,
            Duty.RECHECK,
            failed,
            S.c.stage == Stage.ENRICH.value,
            S.c.error_code == DETAIL_UNSAFE_URL,
            not_(settled_check),
        ),
        _arm(rc, Duty.RECOVERY, rc.c.state.in_(("reserved", "started"))),
        _arm(S, Duty.RECOVERY, _recovery_rows()),
        select(ST.c.tenant_id, literal(_AUTO, String), cast(ST.c.value, String)).where(
            ST.c.key == AUTO_APPLY
        ),
        select(literal("", String), literal(_SEQ, String), cast(func.max(E.c.seq), String)),
    ]
    if since is None:  # the first census: the schedules settings ask for, once
        arms.append(_arm(ST, Duty.SCHEDULE, ST.c.key.in_(SCHEDULE_KEYS)))
    else:
        arms.append(_arm(E, _CHANGED, E.c.seq > since, E.c.type == SettingChanged.type))
    return tenancy.all_tenants(union_all(*arms))


def _on(raw: str | None) -> bool:
    """A stored JSON boolean, as each database casts it to text."""
    if raw is None:
        return False
    try:
        return bool(json.loads(raw))
    except ValueError:
        return raw.strip().lower() == "true"


def census(store: Store, now: datetime, *, since: int | None) -> Census:
    """Every tenant's duties now (the tenants with none are left out); ``since``: the
    ``seq`` of the previous census (None on the first)."""
    duties: dict[str, set[Duty]] = defaultdict(set)
    changed: set[str] = set()
    auto: set[str] = set()
    seq = since or 0
    with store.read() as conn:
        rows = conn.execute(_statement(now, since)).all()
    for tenant, kind, detail in rows:
        if kind == _SEQ:
            seq = int(detail) if detail is not None else seq
        elif kind == _CHANGED:
            changed.add(str(tenant))
        elif kind == _AUTO:
            if _on(detail):
                auto.add(str(tenant))
        else:
            duties[str(tenant)].add(Duty(kind))
    found = {tenant: frozenset(kinds) for tenant, kinds in duties.items()}
    return Census(found, frozenset(changed), frozenset(auto), seq)

"""What has happened: recent discovery runs with their progress, today's spend and the
last days', and the event log — reads that change nothing, as models."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from jobctrl.app.models import Timestamp, View
from jobctrl.domain.clock import as_utc
from jobctrl.domain.discovery import RunStatus, total_counts
from jobctrl.domain.plain_words import sentence
from jobctrl.home import Home
from jobctrl.llm.spend import SpendAuthority
from jobctrl.store import discovery, discovery_refusals, events, spend
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store

__all__ = [
    "DiscoveryRunView",
    "LaneSpend",
    "LoggedEvent",
    "OpenReservations",
    "RunProgress",
    "SpendBar",
    "SpendSummary",
    "daily_spend",
    "discovery_runs",
    "event_log",
    "latest_event_seq",
    "spend_summary",
]


# -- discovery -----------------------------------------------------------------------------


class RunProgress(View):
    """Steps done of the steps planned."""

    done: int
    total: int


class DiscoveryRunView(View):
    """A discovery run: status, progress and counts (over all steps and per step). A run
    ``refused`` at its first step (``discovery_busy``: another run was still finding or
    preparing jobs) names the run it yielded to, and says why in ``sentence``."""

    workflow_id: str
    run_id: str
    status: str
    families: list[str]
    progress: RunProgress
    counts: dict[str, int]
    counts_by_step: dict[str, Any]
    error_code: str | None
    started_at: Timestamp
    finished_at: Timestamp | None
    yielded_to: str | None = None
    sentence: str | None = None


def _run_view(row: dict[str, Any]) -> DiscoveryRunView:
    return DiscoveryRunView(
        workflow_id=row["workflow_id"],
        run_id=row["run_id"],
        status=row["status"],
        families=row["families"],
        progress=RunProgress(done=row["progress_done"], total=row["progress_total"] or 0),
        counts=total_counts(row["counts"] or {}),
        counts_by_step=row["counts"] or {},
        error_code=row["error_code"],
        started_at=row["started_at"],
        finished_at=row["finished_at"],
    )


def _refused_view(row: dict[str, Any]) -> DiscoveryRunView:
    return DiscoveryRunView(
        workflow_id=row["workflow_id"],
        run_id=row["run_id"],
        status=RunStatus.REFUSED.value,
        families=[],
        progress=RunProgress(done=0, total=0),
        counts={},
        counts_by_step={},
        error_code=row["error_code"],
        started_at=row["refused_at"],
        finished_at=row["refused_at"],
        yielded_to=row["yielded_to_run_id"],
        sentence=sentence(row["error_code"]),
    )


def discovery_runs(home: Home, limit: int = 20) -> list[DiscoveryRunView]:
    """Recent discovery runs, newest first, with their progress and counts; the runs
    refused at their first step among them."""
    store = Store.open(home)
    found = [_run_view(r) for r in discovery.recent_runs(store, limit)]
    found += [_refused_view(r) for r in discovery_refusals.recent_refusals(store, limit)]
    return sorted(found, key=lambda r: as_utc(r.started_at), reverse=True)[:limit]


# -- spend ---------------------------------------------------------------------------------


Usd = int | float  # as computed: a sum of nothing is the int 0, and prints as it always did


class LaneSpend(View):
    """One lane's usage today (UTC): tokens, estimated USD and calls."""

    lane: str
    input_tokens: int
    output_tokens: int
    cost_usd: Usd
    calls: int


class OpenReservations(View):
    """Calls in flight that reserved their worst case (strict budgets)."""

    count: int
    amount_usd: Usd


class SpendSummary(View):
    """Today's (UTC) estimated spend against the ceiling (``remainingUsd`` None: no
    ceiling). Observed: what providers reported; assumed: calls whose worker died before
    their usage was recorded, at their worst case."""

    day: str
    strict: bool
    open_reservations: OpenReservations
    daily_budget_usd: Usd
    spent_usd: Usd
    assumed_usd: Usd
    assumed_calls: int
    remaining_usd: Usd | None
    lane_token_limits: dict[str, Any]
    lanes: list[LaneSpend]
    estimate: bool


class SpendBar(View):
    """One UTC day's estimated spend and its bar's height out of 100."""

    day: str
    cost_usd: Usd
    height: float


def spend_summary(home: Home) -> SpendSummary:
    """Today's (UTC) estimated spend per lane against the ceiling, and open reservations."""
    store = Store.open(home)
    return SpendSummary.model_validate(SpendAuthority(store, Settings(store)).summary())


def daily_spend(home: Home, today: str, days: int = 14) -> list[SpendBar]:
    """The last ``days`` UTC days' estimated spend (zero for a day without any), oldest
    first, with each bar's height out of 100."""
    first = date.fromisoformat(today) - timedelta(days=days - 1)
    spent = spend.daily_totals(Store.open(home), first.isoformat(), today)
    days_shown = [(first + timedelta(days=n)).isoformat() for n in range(days)]
    top = max(spent.get(d, 0.0) for d in days_shown) or 1.0
    return [
        SpendBar(day=d, cost_usd=spent.get(d, 0.0), height=round(100 * spent.get(d, 0.0) / top, 1))
        for d in days_shown
    ]


# -- the event log -------------------------------------------------------------------------


class LoggedEvent(View):
    """An event of the log: ids, type, when (a UTC datetime, as the database returns it:
    naive on SQLite) and its payload (codes, counts, ids and refs only)."""

    seq: int
    event_id: str
    type: str
    job_id: str | None
    occurred_at: Timestamp
    payload: dict[str, Any]


def latest_event_seq(home: Home) -> int:
    return events.latest_seq(Store.open(home))


def event_log(home: Home, after: int, limit: int = 500) -> list[LoggedEvent]:
    """Up to ``limit`` events after sequence ``after``, oldest first."""
    return [LoggedEvent.from_row(e) for e in events.events_after(Store.open(home), after, limit)]

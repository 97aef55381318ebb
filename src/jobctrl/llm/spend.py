"""The spend authority and the ``llm_spend`` ledger.

``SpendAuthority.preflight(lane)`` is called before every provider attempt, retries
included: it raises ``BudgetExceededError`` (non-retryable) when the UTC day's estimated
USD spend already meets ``daily_budget_usd`` or the lane's input+output tokens meet its
``lane_token_limits`` entry. ``record`` writes one provider observation: it is stored once
per observation id (a repeated callback is not counted twice) and added to the ledger row
of its UTC day and lane with an UPSERT.

Strict mode (``budget.strict``, on by default) goes further than a preflight: ``reserve``
admits a call only if today's spend plus every open reservation plus this call's
worst-case cost (its measured input and its maximum output) stays within the ceiling, and
records the reservation in the same write transaction, so concurrent calls cannot
overshoot together. ``settle`` replaces the reservation with the observed usage.

A reservation whose worker died mid-call (no usage, no settle) may still have been paid
for: it counts against the day at its worst case for good, shown as assumed spend once
it is older than ``budget.reservation_ttl_seconds``; the preflight counts it too.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar

from jobctrl.domain.clock import as_utc, utcnow
from jobctrl.domain.errors import BudgetExceededError, DatabaseBusyError, StageError
from jobctrl.domain.processes import process_owner
from jobctrl.llm import prices
from jobctrl.store import spend as ledger
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store, WriteTx

T = TypeVar("T")


def estimate_cost_usd(
    provider: str,
    model: str,
    input_tokens: int,
    output_tokens: int,
    *,
    cache_read_tokens: int = 0,
    cache_write_tokens: int = 0,
) -> float:
    """Estimated USD (genai-prices, cached input at the provider's cache prices; a generic
    rate for models it does not know)."""
    return prices.estimate_cost_usd(
        provider, model, input_tokens, output_tokens,
        cache_read_tokens=cache_read_tokens, cache_write_tokens=cache_write_tokens,
    )[0]  # fmt: skip


@dataclass(frozen=True)
class Usage:
    input_tokens: int  # all of them, cached ones included
    output_tokens: int
    cache_read_tokens: int = 0  # of the input, read from the provider's prompt cache
    cache_write_tokens: int = 0  # of the input, written to it


def utc_day(now: datetime | None = None) -> str:
    return as_utc(now or utcnow()).strftime("%Y-%m-%d")


class SpendAuthority:
    def __init__(
        self, store: Store, settings: Settings, clock: Callable[[], datetime] | None = None
    ):
        self.store = store
        self.settings = settings
        self.clock = clock or utcnow

    def preflight(self, lane: str) -> None:
        now = self.clock()
        day = utc_day(now)
        values = self.settings.all()
        budget = float(values["daily_budget_usd"])
        lane_limit = int(values["lane_token_limits"].get(lane, 0) or 0)
        # Calls whose worker died mid-call may have been paid: they count, at their worst.
        spent, tokens = ledger.preflight_reads(self.store, day, lane, now)
        if budget > 0 and spent >= budget:
            raise BudgetExceededError(
                f"today's estimated spend ${spent:.4f} has reached the ${budget:.2f} daily budget"
            )
        if lane_limit > 0 and tokens >= lane_limit:
            raise BudgetExceededError(
                f"the {lane} lane has used {tokens} of its {lane_limit} daily tokens"
            )

    def record(
        self,
        *,
        observation_id: str,
        lane: str,
        provider: str,
        model: str,
        usage: Usage,
    ) -> bool:
        """Add one observation to the ledger; False if this observation was already counted."""
        with self.store.write(clock=self.clock) as tx:
            return record_in(
                tx,
                observation_id=observation_id,
                lane=lane,
                provider=provider,
                model=model,
                usage=usage,
            )

    def reserve(
        self,
        *,
        reservation_id: str,
        lane: str,
        provider: str,
        model: str,
        input_tokens: int,
        max_output_tokens: int,
        owner: str | None = None,
    ) -> float:
        """Admit one call at its worst case, or raise ``BudgetExceededError``; returns the
        reserved USD. Reserving the same id again is a no-op while it is open. ``owner``
        (``domain.processes``) is the process whose attempt may ask under it."""
        now = self.clock()
        day = utc_day(now)
        worst = estimate_cost_usd(provider, model, input_tokens, max_output_tokens)
        tokens = input_tokens + max_output_tokens
        values = self.settings.all()
        budget = float(values["daily_budget_usd"])
        lane_limit = int(values["lane_token_limits"].get(lane, 0) or 0)
        ttl = timedelta(seconds=float(values["budget.reservation_ttl_seconds"]))
        with self.store.write(clock=lambda: now) as tx:
            existing = ledger.open_reservation(tx, reservation_id)
            if existing is not None:
                return existing
            spent, used = ledger.spent_today(tx.conn, day, lane)
            held = ledger.held(tx, day, lane)
            if budget > 0 and (spent >= budget or spent + held.usd + worst > budget):
                raise BudgetExceededError(
                    f"a call of up to ${worst:.4f} does not fit: ${spent:.4f} spent and "
                    f"${held.usd:.4f} reserved of the ${budget:.2f} daily budget"
                )
            if lane_limit > 0 and used + held.lane_tokens + tokens > lane_limit:
                raise BudgetExceededError(
                    f"a call of up to {tokens} tokens does not fit the {lane} lane's "
                    f"{lane_limit} daily tokens ({used} used, {held.lane_tokens} reserved)"
                )
            ledger.add_reservation(
                tx,
                reservation_id=reservation_id,
                day=day,
                lane=lane,
                provider=provider,
                model=model,
                amount_usd=worst,
                tokens=tokens,
                expires_at=now + ttl,
                owner=owner,
            )
        return worst

    def settle(self, reservation_id: str) -> None:
        """Close a reservation (its usage, if any, is recorded with ``record``)."""
        with self.store.write(clock=self.clock) as tx:
            ledger.settle(tx, reservation_id)

    def renew(self, reservation_id: str) -> None:
        """Count the open reservation's age from now (its attempt waited for another's
        answer before asking: ``llm.lanes``)."""
        with self.store.write(clock=self.clock) as tx:
            ledger.renew(tx, reservation_id)

    def disown(self, reservation_id: str) -> None:
        """The attempt is over without a recorded answer: its reservation stays open (it
        may have been paid) but nobody waits on it for an answer any longer."""
        with self.store.write(clock=self.clock) as tx:
            ledger.disown(tx, reservation_id)

    def guarded_call(
        self,
        *,
        lane: str,
        observation_id: str,
        provider: str,
        model: str,
        call: Callable[[], tuple[T, Usage | None]],
        input_tokens: int | None = None,
        max_output_tokens: int | None = None,
    ) -> T:
        """Admit the attempt (a strict reservation when its size is known, else the
        preflight), call the provider, and record its usage before the result is used.

        ``call`` returns its result and usage, or ``None`` for a usage it recorded itself
        (as the response arrived). Recording a usage closes the attempt's reservation in
        the same write, so only a failed call needs a write of its own to close it: a
        ``StageError`` (the provider's failure, whose usage ``call`` recorded). Anything
        else (a cancellation raised into the attempt's thread as the answer arrived, a
        bug) may have been paid for unseen: its reservation stays open, counted at its
        worst case like a call whose worker died. So does a ``DatabaseBusyError``: a
        StageError, but raised by the write that records an answer that has arrived.
        Either way the reservation is disowned: no later attempt waits for its answer.

        The reservation is owned by this process (``domain.processes``) while the call
        may be answered: a later attempt of the same lane of the same job, on another
        worker, waits for that answer instead of paying again (``llm.lanes``)."""
        strict = (
            input_tokens is not None
            and max_output_tokens is not None
            and bool(self.settings.get("budget.strict"))
        )
        if strict:
            self.reserve(
                reservation_id=observation_id,
                lane=lane,
                provider=provider,
                model=model,
                input_tokens=input_tokens or 0,
                max_output_tokens=max_output_tokens or 0,
                owner=process_owner(),
            )
        else:
            self.preflight(lane)
        try:
            result, usage = call()
        except StageError as error:
            if strict and not isinstance(error, DatabaseBusyError):
                self.settle(observation_id)
            elif strict:
                self.disown_quietly(observation_id)
            raise
        except BaseException:
            if strict:
                self.disown_quietly(observation_id)
            raise
        if usage is not None:
            self.record(
                observation_id=observation_id,
                lane=lane,
                provider=provider,
                model=model,
                usage=usage,
            )
        return result

    def disown_quietly(self, reservation_id: str) -> None:
        # The attempt's own error is the one to raise; a write that fails too leaves the
        # reservation owned, and whoever waits on it stops once the owner is gone or late.
        with contextlib.suppress(Exception):
            self.disown(reservation_id)

    def summary(self, day: str | None = None) -> dict[str, Any]:
        day = day or utc_day(self.clock())
        lanes = [
            {
                "lane": r["lane"],
                "inputTokens": r["input_tokens"],
                "outputTokens": r["output_tokens"],
                "costUsd": round(r["cost_usd"], 6),
                "calls": r["calls"],
            }
            for r in ledger.lane_rows(self.store, day)
        ]
        budget = float(self.settings.get("daily_budget_usd"))
        spent = sum(lane["costUsd"] for lane in lanes)
        unsettled = ledger.unsettled(self.store, day, self.clock())
        counted = spent + unsettled.assumed_usd
        return {
            "day": day,
            "strict": bool(self.settings.get("budget.strict")),
            "openReservations": {
                "count": unsettled.in_flight,
                "amountUsd": round(unsettled.in_flight_usd, 6),
            },
            "dailyBudgetUsd": budget,
            # Observed: what providers reported. Assumed: calls whose worker died before
            # their usage was recorded, at their worst case (never silently forgotten).
            "spentUsd": round(spent, 6),
            "assumedUsd": round(unsettled.assumed_usd, 6),
            "assumedCalls": unsettled.assumed,
            "remainingUsd": None if budget == 0 else round(max(0.0, budget - counted), 6),
            "laneTokenLimits": self.settings.get("lane_token_limits"),
            "lanes": lanes,
            "estimate": True,
        }


def record_in(
    tx: WriteTx,
    *,
    observation_id: str,
    lane: str,
    provider: str,
    model: str,
    usage: Usage,
) -> bool:
    """``SpendAuthority.record`` inside the caller's transaction (to store usage together
    with the output it paid for); the day is that of the transaction's clock. The
    attempt's reservation (same id) closes in the same transaction."""
    cost = estimate_cost_usd(
        provider, model, usage.input_tokens, usage.output_tokens,
        cache_read_tokens=usage.cache_read_tokens, cache_write_tokens=usage.cache_write_tokens,
    )  # fmt: skip
    return ledger.add_observation(
        tx,
        observation_id=observation_id,
        day=utc_day(tx.now),
        lane=lane,
        provider=provider,
        model=model,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cost_usd=cost,
    )

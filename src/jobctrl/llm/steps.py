"""Which attempt of one step (a lane of a job's run) may ask the provider, across workers.

``llm.lanes`` asks these just before a request leaves: whether the attempt still owns its
stage row (``still_this_attempt``), whether it is still in time (``still_in_time``), and,
before that, whether another attempt's call of the same lane of the same job may still be
answered, to wait for that answer instead of paying again (``waited_for_others``). The
store's reservations (``store.spend``) name the process that may ask under each."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime, timedelta

from jobctrl.domain import processes
from jobctrl.domain.errors import OWNERSHIP_LOST, PROVIDER_RATE_LIMITED, JobctrlError, StageError
from jobctrl.domain.stages import Stage
from jobctrl.llm.remote_types import REQUEST_TIMEOUT_SECONDS
from jobctrl.llm.spend import SpendAuthority, utc_day
from jobctrl.store import spend as ledger
from jobctrl.store import stage_lookups

log = logging.getLogger(__name__)

# The lanes whose calls are one stage's attempt (the stage row fences them).
STAGE_LANES = frozenset({Stage.SCORE.value, Stage.TAILOR.value, Stage.COVER.value})


def still_this_attempt(
    spend: SpendAuthority, lane: str, job_id: str, run_id: str, attempt: int
) -> None:
    """Refuse to pay for an attempt whose stage row has moved on: one Temporal gave up on
    (timed out while it waited for the database or its turn at the provider) whose next
    attempt, maybe on another worker, claimed the row and paid. Asked just before the
    request leaves, after every wait."""
    if lane in STAGE_LANES and not stage_lookups.attempt_owns(
        spend.store, job_id, lane, run_id, attempt
    ):
        raise StageError(
            OWNERSHIP_LOST,
            f"{lane} attempt {attempt} of job {job_id} was taken over; nothing was asked",
        )


# A call asks within ``llm.rate_limit_max_wait_seconds`` + this of its reservation (or of
# the end of its wait for another's answer), else not at all; its answer then comes within
# the request timeout, and is recorded within this again. Another process's call is over,
# whatever happened to it, once that much has passed since its reservation.
ANSWER_MARGIN_SECONDS = 60.0
WAIT_STEP_SECONDS = 0.5


def still_in_time(
    spend: SpendAuthority, observation_id: str, reserved_by: datetime, max_wait: float
) -> None:
    """Refuse to ask later than another attempt would wait for this one (retryable:
    nothing was asked; the next attempt reserves anew)."""
    if spend.clock() - reserved_by > timedelta(seconds=max_wait + ANSWER_MARGIN_SECONDS):
        raise StageError(
            PROVIDER_RATE_LIMITED,
            f"{observation_id} waited too long for its turn at the provider; nothing was asked",
            retryable=True,
        )


def waited_for_others(
    spend: SpendAuthority,
    lane: str,
    job_id: str,
    run_id: str,
    attempt: int,
    observation_id: str,
    max_wait: float,
    keep_alive: Callable[[], AbstractContextManager[object]],
    heartbeat: Callable[[], object],
) -> bool:
    """Wait while another attempt of this lane of this job may still get its answer (one
    Temporal gave up on, whose heartbeats stopped reaching the server while its request
    was out): its answer is then reused, not paid for again. True when there was one to
    wait for. Another process's attempt is waited on while that process lives (this
    host's; another host's is assumed to) and for at most the time its call can take
    (``still_in_time``, the request timeout, the margin: a dead worker on another host
    delays this attempt by that much); this process's attempts of this run are in turn
    already (``llm.lanes._one_call_per_step``), its attempts of another run are waited on too.
    An attempt whose row is taken over while it waits stops (``OWNERSHIP_LOST``).

    Why this is enough: an attempt reserves (owning the reservation) before it checks,
    just before asking, that its stage row is still its own; the attempt that took the
    row over claimed it first and looks for owned reservations after its own, so it sees
    every earlier attempt that may still ask; one that answered meanwhile closed its
    reservation after recording the answer, which the caller then reuses."""
    bound = timedelta(
        seconds=max_wait + ANSWER_MARGIN_SECONDS + REQUEST_TIMEOUT_SECONDS + ANSWER_MARGIN_SECONDS
    )
    same_run = f"{lane}:{job_id}:{run_id}:"
    waited = False
    try:
        while True:
            now = spend.clock()
            days = sorted({utc_day(now - bound), utc_day(now)})
            others = [
                other
                for other in ledger.asking(
                    spend.store, f"{lane}:{job_id}:", days, besides=observation_id
                )
                if now - other.created_at < bound
                and not (
                    other.reservation_id.startswith(same_run)
                    and processes.is_this_process(other.owner)
                )
                and processes.owner_is_alive(other.owner)
            ]
            if not others:
                return waited
            if not waited:
                log.info("%s waits for another attempt's call of the same step", observation_id)
            waited = True
            with keep_alive():
                heartbeat()  # raises when this attempt is cancelled
                time.sleep(WAIT_STEP_SECONDS)
            still_this_attempt(spend, lane, job_id, run_id, attempt)
    except BaseException:
        try:
            spend.settle(observation_id)  # nothing was asked under it
        except JobctrlError:
            spend.disown_quietly(observation_id)
        raise

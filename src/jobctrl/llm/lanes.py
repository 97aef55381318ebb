"""One model call for one lane of one job's step, at most once.

Each lane (score, tailor, cover) names its provider and model in config.yaml. The offline
provider answers locally. A remote provider's attempt is admitted by the spend authority
(a strict reservation of its worst case). Its usage and the answer itself are recorded in
one transaction the moment the response arrives, before it is parsed (settling the
reservation); its validated output is stored next, keyed by lane, job and workflow run.
A retried attempt of the same run (after a crash, say) reuses that output, or parses the
stored answer again, instead of paying for the call again. A worker that dies mid-call
leaves its reservation unsettled: counted as assumed spend, never forgotten.

While the provider is asked, ``keep_alive`` (the stage context's) keeps the attempt alive
(activity heartbeats from another thread): a call slower than the heartbeat timeout must
not let Temporal start a second attempt that pays again while the first still waits. And
should a second attempt of the same step start anyway (heartbeats that could not reach
the server for longer than the timeout), the first asks nothing once the second has
claimed the stage row, and the second waits for the first's answer and reuses it: in one
worker, one attempt of a step asks at a time; across workers, the second waits while the
first's reservation is open and its process may still get the answer
(``llm.steps``).

A remote provider's requests are paced per endpoint (``llm.pacing``: provider-wide holds
after a 429, starts at the rate the provider allows). A 429 is answered inside the
attempt: it costs nothing, so the attempt keeps its reservation, waits (heartbeating;
a cancel ends the wait) and asks again, without using one of the stage's attempts or
counting towards stop-loss, for at most ``llm.rate_limit_max_wait_seconds`` of waiting;
past that it fails ``PROVIDER_RATE_LIMITED`` (retryable) as any attempt would.

A step retried in a new execution (automatic recovery after a worker died between the
answer and the stage's result) is a new run: the stage passes the run of the interrupted
attempt it follows (``Claim.interrupted_run``; never after a refused or invalid answer),
and its answer is reused when it was an answer to exactly the same request (provider,
model, system and prompt: their digest is kept with the answer), instead of paying again.
So is any earlier run's answer to this lane of this job that was never parsed into an
output (killed twice in a row on one step; a row retried after it was settled
interrupted): ``llm.reuse``."""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any, TypeVar

from pydantic import BaseModel

from jobctrl.config import LaneProvider, load_config
from jobctrl.domain.errors import PROVIDER_RATE_LIMITED, JobctrlError
from jobctrl.home import Home
from jobctrl.llm import pacing, steps
from jobctrl.llm.remote import (
    LaneModel,
    ProviderError,
    api_key,
    build_model,
    run_structured,
)
from jobctrl.llm.reuse import (
    request_digest,
    reusable_answer,
    reuse_earlier,
    reuse_own,
    reuse_same_request,
    step_key,
    store_output,
)
from jobctrl.llm.spend import SpendAuthority, Usage, record_in
from jobctrl.store import provider_results
from jobctrl.testing import hooks

T = TypeVar("T", bound=BaseModel)
U = TypeVar("U", bound=BaseModel)
log = logging.getLogger(__name__)
# ``profile``: a whole resume as a structured profile (two pages are about 3,000 tokens).
MAX_OUTPUT_TOKENS = {"score": 2_000, "tailor": 3_000, "cover": 1_200, "profile": 8_000}


_asking: dict[str, threading.Event] = {}  # steps whose provider call runs in this worker
_asking_guard = threading.Lock()


@contextlib.contextmanager
def _one_call_per_step(
    key: str,
    keep_alive: Callable[[], AbstractContextManager[object]],
    heartbeat: Callable[[], object],
) -> Iterator[None]:
    """One attempt of a step at a time in this worker: a later attempt of the same run
    waits (kept alive) until the earlier one's call has returned or raised, then finds its
    answer. Only a live call of this process holds ``key``, so a dead worker's never
    blocks anyone; across workers, the heartbeats keep the earlier attempt the only one."""
    mine = threading.Event()
    try:
        while True:
            with _asking_guard:
                ahead = _asking.setdefault(key, mine)
            if ahead is mine:
                break
            with keep_alive():
                # A cancelled attempt stops here (the heartbeat raises); a holder gone
                # without setting its event (interrupted in its finally) frees the key too.
                while not ahead.wait(0.5) and _asking.get(key) is ahead:
                    heartbeat()
        yield
    finally:
        with _asking_guard:
            if _asking.get(key) is mine:
                del _asking[key]
        mine.set()


def lane_provider(home: Home, lane: str) -> LaneProvider:
    return load_config(home).providers.get(lane) or LaneProvider()


def answered_before(
    spend: SpendAuthority,
    lane: str,
    config: LaneProvider,
    *,
    job_id: str,
    system: str,
    prompt: str,
    output_type: type[BaseModel],
) -> bool:
    """Whether ``config``'s provider already answered exactly this request for the job in
    a form ``call_lane`` reuses (paid for once: using it again costs nothing)."""
    asked = request_digest(config, system, prompt, output_type)
    return reusable_answer(spend.store, lane, job_id, asked, output_type) is not None


def estimate_tokens(text: str) -> int:
    """A conservative token estimate for the reservation (about four characters a token)."""
    return max(1, len(text) // 3)


def call_lane(
    spend: SpendAuthority,
    lane: str,
    config: LaneProvider,
    *,
    job_id: str,
    run_id: str,
    attempt: int,
    output_type: type[T],
    system: str,
    prompt: Callable[[], str],
    offline: Callable[[], U],
    keep_alive: Callable[[], AbstractContextManager[object]] = contextlib.nullcontext,
    heartbeat: Callable[[], object] = lambda: None,
    interrupted_run: str | None = None,
    step: str = "",
    same_request: bool = False,
) -> T | U:
    """The lane's output for this step: offline, stored from an earlier attempt, or paid.
    A model answers ``output_type`` (what it must judge or write: ``llm.answers``); the
    offline writer gives the finished document, which may be another type.

    ``config`` is the lane's provider as the caller read it once (``lane_provider``), so
    the provider recorded with the output is the one that was asked; ``spend`` admits
    the attempt and records what it cost; ``keep_alive()`` is entered for the time the
    provider is asked; ``heartbeat()`` is called while the request waits for its turn
    at the provider (it raises when the attempt is cancelled, which ends the wait);
    ``interrupted_run`` is the run of an interrupted earlier attempt of this step, whose
    answer to the same request is reused. ``step`` names a second request of the same
    attempt (``"repair"``: the truth check's one repair request), paid once and reused
    like the first, under its own key. With ``same_request`` (Score), any earlier run's
    parsed answer to exactly the same request is the answer: never paid for twice."""
    key = step_key(lane, job_id, run_id, step)
    observation_id = f"{lane}:{job_id}:{run_id}:{attempt}" + (f":{step}" if step else "")
    if config.provider == "offline":
        return spend.guarded_call(
            lane=lane,
            observation_id=observation_id,
            provider="offline",
            model=config.model,
            call=lambda: (offline(), None),
        )
    with _one_call_per_step(key, keep_alive, heartbeat):
        return _call_remote(
            spend, lane, config, key, observation_id,
            job_id=job_id, run_id=run_id, attempt=attempt, output_type=output_type,
            system=system, prompt=prompt, keep_alive=keep_alive, heartbeat=heartbeat,
            interrupted_run=interrupted_run, step=step, same_request=same_request,
        )  # fmt: skip


def _call_remote(
    spend: SpendAuthority,
    lane: str,
    config: LaneProvider,
    key: str,
    observation_id: str,
    *,
    job_id: str,
    run_id: str,
    attempt: int,
    output_type: type[T],
    system: str,
    prompt: Callable[[], str],
    keep_alive: Callable[[], AbstractContextManager[object]],
    heartbeat: Callable[[], object],
    interrupted_run: str | None,
    step: str,
    same_request: bool = False,
) -> T:
    """The remote lane's output: reused from this run's earlier answer (or an interrupted
    run's answer to the same request; with ``same_request``, any run's), or paid once."""
    hook_name = f"{lane}:{step}" if step else lane  # what a crash test's fault names
    reused = reuse_own(
        spend, key, lane, job_id, run_id, observation_id, output_type, system, config
    )
    if reused is not None:
        return reused  # paid for already: never again
    text = prompt()
    asked = request_digest(config, system, text, output_type)
    earlier = reuse_earlier(
        spend, key, asked, interrupted_run,
        lane=lane, job_id=job_id, run_id=run_id, observation_id=observation_id,
        output_type=output_type, system=system, step=step,
    )  # fmt: skip
    if earlier is not None:
        return earlier  # an interrupted run paid for this very request
    if same_request:
        answered = reuse_same_request(
            spend, key, asked, lane=lane, job_id=job_id, run_id=run_id,
            observation_id=observation_id, output_type=output_type,
        )  # fmt: skip
        if answered is not None:
            return answered  # an earlier run was answered this very request
    max_out = MAX_OUTPUT_TOKENS.get(lane, 2_000)
    lane_model = LaneModel(
        config.provider, config.model, config.base_url, config.api_key_env, config.output, lane
    )

    responses = 0

    def record_response(usage: Usage, response: Any) -> None:
        # The first response settles the attempt's reservation (same id); a second one in
        # the same run (none expected: no tools, no output retries) is counted apart. The
        # answer is kept with its usage, in the same transaction: a worker that dies before
        # the output is stored leaves it for the retry to parse again.
        nonlocal responses
        responses += 1
        seen = observation_id if responses == 1 else f"{observation_id}#{responses}"
        with spend.store.write(clock=spend.clock) as tx:
            record_in(
                tx,
                observation_id=seen,
                lane=lane,
                provider=config.provider,
                model=config.model,
                usage=usage,
            )
            provider_results.save_response(
                tx,
                key=key,
                lane=lane,
                job_id=job_id,
                run_id=run_id,
                observation_id=seen,
                response=response,
                prompt=asked,
            )
        if hooks.hook(hooks.EXIT_AFTER_PROVIDER_RESPONSE) == hook_name:
            os._exit(137)

    def reuse_answered() -> T | None:
        own = reuse_own(
            spend, key, lane, job_id, run_id, observation_id, output_type, system, config
        )
        if own is not None:
            return own
        return reuse_earlier(
            spend, key, asked, interrupted_run,
            lane=lane, job_id=job_id, run_id=run_id, observation_id=observation_id,
            output_type=output_type, system=system, step=step,
        )  # fmt: skip

    # At or before the reservation's own time (guarded_call reserves after this): how
    # long this attempt may still ask is counted from it, as others count its age.
    reserved_by = spend.clock()

    def call() -> tuple[T, Usage | None]:
        nonlocal reserved_by
        endpoint = pacing.endpoint_id(config.provider, config.base_url, api_key(lane_model))
        pacer = pacing.pacer_for(endpoint)
        max_wait = float(spend.settings.get("llm.rate_limit_max_wait_seconds"))
        give_up_at = pacer.clock() + max_wait
        first = True
        while True:
            waited = steps.waited_for_others(
                spend, lane, job_id, run_id, attempt, observation_id, max_wait,
                keep_alive, heartbeat,
            )  # fmt: skip
            if waited or first:
                # An answer recorded by another attempt after this one first looked (the
                # other's reservation then closed, so there was nothing to wait for).
                answered = reuse_answered()
                if answered is not None:
                    spend.settle(observation_id)  # nothing asked under this reservation
                    return answered, None
            if waited:  # counted from now again, by this attempt and by the others
                reserved_by = spend.clock()
                spend.renew(observation_id)
                give_up_at = pacer.clock() + max_wait
            first = False
            ticket = _turn_at_provider(spend, observation_id, pacer, heartbeat, give_up_at)
            try:
                steps.still_in_time(spend, observation_id, reserved_by, max_wait)
                steps.still_this_attempt(spend, lane, job_id, run_id, attempt)
                with keep_alive():
                    output, usage = run_structured(
                        build_model(lane_model, observe=ticket.observe, sent=ticket.sent),
                        output_type,
                        system=system,
                        prompt=text,
                        max_output_tokens=max_out,
                        on_response=record_response,
                        lane=lane_model,
                    )
                break
            except ProviderError as error:
                if error.code == PROVIDER_RATE_LIMITED and error.usage is None and not responses:
                    # Refused, not answered: nothing paid. Hold (every request to the
                    # endpoint does) and ask again; past the bound the turn raises.
                    after = error.retry_after
                    ticket.refused(after.total_seconds() if after is not None else None)
                    continue
                _record_failed(spend, error, responses, observation_id, lane, config)
                raise
            finally:
                ticket.finish()
        store_output(spend, key, lane, job_id, run_id, observation_id, output, usage, config)
        if hooks.hook(hooks.EXIT_AFTER_PROVIDER_CALL) == hook_name:
            os._exit(137)
        return output, None  # usage is already recorded: as it arrived, and with the output

    return spend.guarded_call(
        lane=lane,
        observation_id=observation_id,
        provider=config.provider,
        model=config.model,
        call=call,
        input_tokens=estimate_tokens(system + text),
        max_output_tokens=max_out,
    )


def _turn_at_provider(
    spend: SpendAuthority,
    observation_id: str,
    pacer: pacing.Pacer,
    heartbeat: Callable[[], object],
    give_up_at: float,
) -> pacing.Ticket:
    """The request's turn at the provider. A wait the attempt's cancel ends (its heartbeat
    raises) sent nothing: the attempt's reservation is closed before the cancel goes on
    (an answer it had would have closed it already)."""
    try:
        return pacer.acquire(heartbeat, give_up_at)
    except ProviderError:
        raise  # past the bound: ``guarded_call`` closes the reservation
    except BaseException:
        with contextlib.suppress(JobctrlError):
            spend.settle(observation_id)
        raise


def _record_failed(
    spend: SpendAuthority,
    error: ProviderError,
    responses: int,
    observation_id: str,
    lane: str,
    config: LaneProvider,
) -> None:
    """What a failed call spent, unless its response was recorded as it arrived."""
    if error.usage is not None and not responses:
        spend.record(
            observation_id=observation_id,
            lane=lane,
            provider=config.provider,
            model=config.model,
            usage=error.usage,
        )

"""Paid answers reused instead of paying again (``llm.lanes``): this run's own answer, or
an earlier run's answer to exactly the same request (``request_digest``: provider, model,
system and prompt): an interrupted run's, or (for a lane that asks it, Score) any run's
that was parsed (``reuse_same_request``: a posting scored again against a profile it was
scored against already is not paid for twice).

An answer cut off at its output cap (``PROVIDER_OUTPUT_TRUNCATED``) is reused like any
other, by this run and by a run recovering an interrupted one: it fails again, free,
instead of being paid for again (the same cap would cut it again)."""

from __future__ import annotations

import hashlib
import json
from typing import TypeVar

from pydantic import BaseModel

from jobctrl.config import LaneProvider
from jobctrl.domain.errors import PROVIDER_OUTPUT_TRUNCATED
from jobctrl.llm.remote import ProviderError, replay_structured
from jobctrl.llm.spend import SpendAuthority, Usage, record_in
from jobctrl.store import provider_results
from jobctrl.store.store import Store

T = TypeVar("T", bound=BaseModel)


def reuse_own(
    spend: SpendAuthority,
    key: str,
    lane: str,
    job_id: str,
    run_id: str,
    observation_id: str,
    output_type: type[T],
    system: str,
    config: LaneProvider,
) -> T | None:
    """This run's paid output: stored, or parsed again from the stored answer (a worker
    died between the answer and its output; its usage is recorded already). None when no
    answer was stored, or the stored one does not fit (that attempt failed on it: ask
    again, as its retry would); a stored answer cut off at its cap raises its
    ``PROVIDER_OUTPUT_TRUNCATED`` again (paid once, never asked again in this run)."""
    found = provider_results.stored(spend.store, key)
    if found is None:
        return None
    if found.output is not None:
        try:
            return output_type.model_validate(found.output)
        except ValueError:
            return None  # an output of an older shape (issue 31's answers): ask again
    if found.response is None:
        return None
    try:
        output = replay_structured(output_type, system=system, response=found.response)
    except ProviderError as error:
        if error.code == PROVIDER_OUTPUT_TRUNCATED:
            raise
        return None
    store_output(spend, key, lane, job_id, run_id, observation_id, output, None, config)
    return output


def step_key(lane: str, job_id: str, run_id: str, step: str = "") -> str:
    """What a run's answer to one lane of one job is kept under; ``step`` names a second
    request of the same step (the truth check's ``repair``)."""
    return f"{lane}:{job_id}:{run_id}" + (f":{step}" if step else "")


def request_digest(
    config: LaneProvider, system: str, text: str, output_type: type[BaseModel]
) -> str:
    """What identifies a request: the provider and model asked, the system and the prompt,
    the output asked for (its schema: an answer in an older shape answered another
    request), and how structured output was asked for (an answer in one output mode is
    never reused for another; ``tool`` adds nothing)."""
    schema = json.dumps(output_type.model_json_schema(), sort_keys=True)
    fields = [config.provider, config.model, system, text, schema]
    if config.output != "tool":
        fields.append(f"output={config.output}")
    asked = json.dumps(fields, ensure_ascii=False)
    return hashlib.sha256(asked.encode()).hexdigest()


def reuse_earlier(
    spend: SpendAuthority,
    key: str,
    asked: str,
    interrupted_run: str | None,
    *,
    lane: str,
    job_id: str,
    run_id: str,
    observation_id: str,
    output_type: type[T],
    system: str,
    step: str = "",
) -> T | None:
    """An earlier run's answer to exactly this request (``asked``), instead of paying
    again: the interrupted run's this attempt follows (``Claim.interrupted_run``), else
    the newest answer to this lane of this job that no run ever parsed into an output (a
    worker killed between the answer and its output, then killed again before the next
    run reused it; or a row a person retried after it was settled interrupted). Its
    output, or its answer parsed again; kept under this run's ``key`` too (answer, digest
    and output; its usage stays recorded once, by the run that paid). None when there is
    none that answered this request and fits."""
    candidates = []
    if interrupted_run is not None and interrupted_run != run_id:
        found = provider_results.stored(spend.store, step_key(lane, job_id, interrupted_run, step))
        if found is not None:
            candidates.append(found)
    interrupted = len(candidates)  # the first candidate, if any, is the interrupted run's
    candidates += provider_results.unparsed_answers(spend.store, lane, job_id, exclude_run=run_id)
    for index, found in enumerate(candidates):
        if found.prompt != asked or found.response is None:
            continue
        try:
            if found.output is not None:
                output = output_type.model_validate(found.output)
            else:
                output = replay_structured(output_type, system=system, response=found.response)
        except ProviderError as error:
            if error.code == PROVIDER_OUTPUT_TRUNCATED and index < interrupted:
                raise  # recovering the run that paid for it: fails as it did, free
            continue  # an answer that did not fit: its run failed on it, as this one would
        except ValueError:
            continue
        ids = {"key": key, "lane": lane, "job_id": job_id, "run_id": run_id}
        with spend.store.write(clock=spend.clock) as tx:
            provider_results.save_response(
                tx, **ids, observation_id=observation_id, response=found.response, prompt=asked
            )
            provider_results.save_output(
                tx,
                **ids,
                observation_id=observation_id,
                output=json.loads(output.model_dump_json()),
            )
        return output
    return None


def reusable_answer(
    store: Store, lane: str, job_id: str, asked: str, output_type: type[T]
) -> tuple[provider_results.Stored, T] | None:
    """The stored answer to exactly this request (``asked``) and its output as
    ``output_type``, when both are there (an output of an older shape is asked again)."""
    found = provider_results.answered(store, lane, job_id, asked)
    if found is None or found.response is None:
        return None
    try:
        return found, output_type.model_validate(found.output)
    except ValueError:
        return None


def reuse_same_request(
    spend: SpendAuthority,
    key: str,
    asked: str,
    *,
    lane: str,
    job_id: str,
    run_id: str,
    observation_id: str,
    output_type: type[T],
) -> T | None:
    """Any earlier run's parsed output for exactly this request (``asked``), kept under
    this run's ``key`` too; None when this request was never answered and parsed."""
    reusable = reusable_answer(spend.store, lane, job_id, asked, output_type)
    if reusable is None:
        return None
    found, output = reusable
    ids = {"key": key, "lane": lane, "job_id": job_id, "run_id": run_id}
    with spend.store.write(clock=spend.clock) as tx:
        provider_results.save_response(
            tx, **ids, observation_id=observation_id, response=found.response, prompt=asked
        )
        provider_results.save_output(
            tx, **ids, observation_id=observation_id, output=json.loads(output.model_dump_json())
        )
    return output


def store_output(
    spend: SpendAuthority,
    key: str,
    lane: str,
    job_id: str,
    run_id: str,
    observation_id: str,
    output: BaseModel,
    usage: Usage | None,
    config: LaneProvider,
) -> None:
    """The output (and its usage, if the response tap did not record it already), in one
    transaction, before anything else uses them."""
    with spend.store.write(clock=spend.clock) as tx:
        provider_results.save_output(
            tx,
            key=key,
            lane=lane,
            job_id=job_id,
            run_id=run_id,
            observation_id=observation_id,
            output=json.loads(output.model_dump_json()),
        )
        if usage is None:
            return
        record_in(
            tx,
            observation_id=observation_id,
            lane=lane,
            provider=config.provider,
            model=config.model,
            usage=usage,
        )

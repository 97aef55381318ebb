"""Structuring an imported resume document with the profile lane's model, when one is set.

The document's extracted text goes to the model through ``llm.lanes.call_lane`` like every
paid lane's request: admitted by the spend authority (its strict reservation, the daily
budget), paced per endpoint (a 429 is waited out), its usage and answer recorded as the
answer arrives, and paid once: the answer is kept under a key made of the text's digest
(with the tenant's name: keys are unique across tenants) and the model asked, so the same
file imported again (a dry run, then the import) reuses it. A transient failure (5xx,
timeout, an answer that does not fit) is asked again up to ``retry.max_attempts`` times,
``retry.initial_interval_seconds`` apart (doubling).

What the model returns is held to the text (``profile_import.grounding``): a value the
text does not state is dropped and listed. When the model cannot be asked or keeps
failing, or keeps nothing, the section parser's reading is the result, with a note that
says why.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from pydantic import ValidationError

from jobctrl.config import LaneProvider
from jobctrl.domain.errors import JobctrlError, StageError
from jobctrl.domain.profile import Answers, Profile
from jobctrl.home import Home
from jobctrl.llm import prompts
from jobctrl.llm.lanes import call_lane, lane_provider
from jobctrl.llm.spend import SpendAuthority
from jobctrl.profile_import import ParsedProfile
from jobctrl.profile_import.grounding import Dropped, ResumeFields, ground, unplaced_lines
from jobctrl.store import spend as ledger
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store

__all__ = ["LANE", "Structured", "request_ids", "structure_resume"]

LANE = "profile"


@dataclass
class Structured:
    """An imported document's profile: by the model (``model``: "provider model") or by
    the section parser (``model`` None); the values dropped as not in the text; the
    text's lines left unplaced; and, when the model was set but not used, why."""

    profile: Profile
    unplaced: list[str]
    model: str | None = None
    dropped: list[Dropped] = field(default_factory=list)
    note: str | None = None


def request_ids(tenant: str, lane: LaneProvider, text: str) -> tuple[str, str]:
    """(job id, run id) the request is kept under: the digest of the tenant's text (ids of
    answers, reservations and usage are unique across tenants, as job ids are), and of
    the model asked with the instructions it was given (another model, prompt or output
    mode asks again; ``tool``, the default, adds nothing, so earlier imports keep their ids)."""
    job_id = hashlib.sha256(f"{tenant}\0{text}".encode()).hexdigest()[:32]
    fields = [lane.provider, lane.model, lane.base_url, prompts.PROFILE_SYSTEM]
    if lane.output != "tool":
        fields.append(f"output={lane.output}")
    asked = json.dumps(fields)
    return job_id, f"import-{hashlib.sha256(asked.encode()).hexdigest()[:16]}"


def structure_resume(
    home: Home, parsed: ParsedProfile, *, sleep: Callable[[float], None] = time.sleep
) -> Structured:
    """The profile of an imported document: the profile lane's, when a model is set on
    it and answers; else the section parser's."""
    offline = Structured(parsed.profile, parsed.unplaced)
    if not parsed.text.strip():
        return offline  # a structured file (JSON Resume, RenderCV): nothing to structure
    lane = lane_provider(home, LANE)
    if lane.provider == "offline":
        return offline
    named = f"{lane.provider} {lane.model}"
    try:
        fields = _ask(home, lane, parsed.text, sleep)
    except JobctrlError as exc:
        offline.note = (
            f"the profile lane's model ({named}) could not structure the resume "
            f"({exc.code}: {exc}); this is the section parser's reading."
        )
        return offline
    grounded = ground(fields, parsed.text)
    try:
        profile = Profile.model_validate(grounded.profile.model_dump())
    except ValidationError:
        offline.note = (
            f"the profile lane's model ({named}) returned more than a profile holds; "
            "this is the section parser's reading."
        )
        return offline
    if profile.model_copy(update={"answers": Answers()}) == Profile():
        offline.note = (
            f"nothing the profile lane's model ({named}) returned is in the resume's text; "
            "this is the section parser's reading."
        )
        return offline
    return Structured(
        profile=profile,
        unplaced=unplaced_lines(profile, parsed.text),
        model=named,
        dropped=grounded.dropped,
    )


def _ask(home: Home, lane: LaneProvider, text: str, sleep: Callable[[float], None]) -> ResumeFields:
    store = Store.open(home)
    settings = Settings(store)
    spend = SpendAuthority(store, settings)
    job_id, run_id = request_ids(home.tenant, lane, text)
    attempts = int(settings.get("retry.max_attempts"))
    delay = float(settings.get("retry.initial_interval_seconds"))
    for tried in range(1, attempts + 1):
        # A new attempt's id follows every earlier one's (this import's or an earlier
        # import's): its reservation and usage are counted apart, never merged.
        attempt = ledger.attempts_begun(store, f"{LANE}:{job_id}:{run_id}:") + 1
        try:
            return call_lane(
                spend,
                LANE,
                lane,
                job_id=job_id,
                run_id=run_id,
                attempt=attempt,
                output_type=ResumeFields,
                system=prompts.PROFILE_SYSTEM,
                prompt=lambda: prompts.profile_prompt(text),
                offline=ResumeFields,  # not reached: the lane is not offline
            )
        except StageError as exc:
            if not exc.retryable or tried == attempts:
                raise
        sleep(delay * 2 ** (tried - 1))
    raise AssertionError("unreachable")  # the loop returns or raises

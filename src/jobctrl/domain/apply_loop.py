"""The apply workflow's claim rules: which job it may take to prepare an application for,
and how long a claim holds.

A claim is the workflow's live attempt on one job: at most one per job at a time (held
under the write lock and by a partial unique index), refused while a send or a prefill of
the job's application is live. The settings a claim obeys are read at the claim, so a
change applies to the next one:

- ``min_fit_score``: a job scoring below it is not taken (``MIN_SCORE``);
- ``apply_approval_required`` (default true): every material the job has must be decided
  — a resume or letter still awaiting the person's decision parks the job — and the
  resume approved. With false, an approved resume is enough (a letter still awaiting a
  decision is left out). Materials are never used unapproved either way;
- ``apply_concurrency``: how many jobs one poll of the standing loop takes at once.

A posting confirmed closed is refused with ``POSTING_UNAVAILABLE``. Preparing is all the
workflow does: a draft email waiting for the person's exact approval, or a note that a
form waits for them to prefill and submit. It never sends or submits.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from jobctrl.domain import errors
from jobctrl.domain.applications import DONE_STATUSES, ApplicationStatus

__all__ = [
    "APPLY_LANE",
    "CLAIM_LEASE",
    "ApplyRunStatus",
    "ClaimFacts",
    "ClaimState",
    "claim_refusal",
    "claim_retry_at",
    "new_claim_id",
]

# The spend lane of every apply step: the workflow's preflight, and any model an apply
# step asks (a free-text answer, say).
APPLY_LANE = "apply"

# A claim whose workflow died holds its job this long, then another claim may take it.
CLAIM_LEASE = timedelta(minutes=10)

FIRST_RETRY = timedelta(minutes=5)
MAX_RETRY = timedelta(hours=24)


class ApplyRunStatus(StrEnum):
    """How one run of the apply workflow ended."""

    COMPLETED = "completed"
    FAILED = "failed"
    CANCELED = "canceled"
    CONTINUED = "continued"  # the standing loop went on in a new run (continue-as-new)


class ClaimState(StrEnum):
    CLAIMED = "claimed"  # live: the workflow is preparing the job's application
    READY = "ready"  # prepared: a draft waits for the person's approval (or a form for them)
    FAILED = "failed"  # preparing failed with a code; tried again after a pause
    RELEASED = "released"  # let go unfinished (the workflow was cancelled, or its lease ran out)


@dataclass(frozen=True)
class ClaimFacts:
    """What the claim reads about a job under the write lock."""

    score: int | None  # None: not scored
    resume_approved: bool  # an approved resume with its PDF
    undecided: bool  # the newest resume or letter still awaits the person's decision
    posting_closed: bool  # the availability check confirmed the posting closed
    application_status: str | None  # None: no application yet
    prepared: bool  # the application has a channel (prepared by the person or a claim)
    live_attempt: bool  # a send or prefill of its application is live
    live_claim: bool  # another claim holds the job
    # A resume, letter or PDF of it is being written (a letter the person asked for):
    # nothing goes out before the person has seen what it holds.
    writing: bool = False


def claim_refusal(facts: ClaimFacts, *, min_fit_score: int, approval_required: bool) -> str | None:
    """Why the job may not be claimed now (an error code), or None: it may."""
    if facts.posting_closed:
        return errors.POSTING_UNAVAILABLE
    if facts.live_attempt or facts.live_claim:
        return errors.APPLY_ATTEMPT_LIVE
    if facts.application_status in DONE_STATUSES:
        return errors.APPLY_ALREADY_DONE
    if facts.application_status in (ApplicationStatus.UNKNOWN, ApplicationStatus.SENDING):
        return errors.APPLY_OUTCOME_UNKNOWN
    if facts.score is None or facts.score < min_fit_score:
        return errors.MIN_SCORE
    if not facts.resume_approved or (approval_required and facts.undecided) or facts.writing:
        return errors.APPLY_MATERIALS_NOT_APPROVED
    return None


def claim_retry_at(failures: int, now: datetime) -> datetime:
    """When a job whose preparation failed ``failures`` times in a row may be claimed
    again: after 5 minutes, doubling, at most a day (a failing job never spins the loop,
    nor starves the others)."""
    exponent = min(max(failures, 1) - 1, 9)
    return now + min(MAX_RETRY, FIRST_RETRY * (1 << exponent))


def new_claim_id() -> str:
    return "clm-" + secrets.token_hex(6)

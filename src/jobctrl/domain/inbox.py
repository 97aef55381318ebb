"""What a job asks of the person next: the Jobs inbox's groups.

``next_action`` reads a job's state (its status in the list, its newest materials, its
application, its posting's availability, whether the person hid it) and says which one
thing the person does next, with a sentence on why. It is a pure rule: the app layer
gathers the facts, the CLI, the API and the Jobs page show the answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from jobctrl.domain.applications import ApplicationStatus
from jobctrl.domain.availability import Availability
from jobctrl.domain.clock import as_utc
from jobctrl.domain.errors import MIN_SCORE, POSTING_EXPIRED, POSTING_UNAVAILABLE
from jobctrl.domain.extension import BROWSER_CODES
from jobctrl.domain.followups import NO_ANSWER_YET, next_followup_due
from jobctrl.domain.materials import MaterialState
from jobctrl.domain.plain_words import sentence
from jobctrl.domain.stages import JobStatus, Stage

__all__ = [
    "ACTION_ORDER",
    "COLLAPSED",
    "JobFacts",
    "NextAction",
    "NextStep",
    "next_action",
]

DEFAULT_FOLLOWUP_DAYS = 7
# A posting whose site refused jobctrl's robot (a sign-in or robots rule, issue 32).
NEEDS_BROWSER_REASON = (
    "The site shows this posting only to a signed-in person: open it in your browser and "
    "click the jobctrl button (a paired extension can do it for you)."
)


class NextAction(StrEnum):
    """The inbox's groups, each with its one button."""

    NEEDS_YOU = "needs_you"  # failed with a reason the person can act on
    NEEDS_BROWSER = "needs_browser"  # the site shows the posting only to the person's browser
    REVIEW = "review"  # prepared: the materials wait for a decision
    READY_TO_APPLY = "ready_to_apply"  # approved, not applied yet
    FOLLOW_UP = "follow_up"  # applied long enough ago with no outcome yet
    IN_PROGRESS = "in_progress"  # being prepared
    APPLIED = "applied"  # applied: nothing to do until a follow-up is due
    NOT_A_FIT = "not_a_fit"  # below the minimum fit score
    CLOSED = "closed"  # the posting is no longer available
    HIDDEN = "hidden"  # the person said "not interested": out of the inbox


# Each group's heading, in a job seeker's words.
TITLES: dict[NextAction, str] = {
    NextAction.NEEDS_YOU: "Needs you",
    NextAction.NEEDS_BROWSER: "Needs your browser",
    NextAction.REVIEW: "Review",
    NextAction.READY_TO_APPLY: "Ready to apply",
    NextAction.FOLLOW_UP: "Follow up",
    NextAction.IN_PROGRESS: "In progress",
    NextAction.APPLIED: "Applied",
    NextAction.NOT_A_FIT: "Not a fit",
    NextAction.CLOSED: "Closed",
    NextAction.HIDDEN: "Hidden",
}

# The order the inbox shows its groups in; the collapsed ones are folded away.
ACTION_ORDER: tuple[NextAction, ...] = tuple(NextAction)
COLLAPSED = frozenset(
    {NextAction.APPLIED, NextAction.NOT_A_FIT, NextAction.CLOSED, NextAction.HIDDEN}
)

# Applications whose approval was given but whose sending or submitting is not done.
_APPROVED_NOT_APPLIED = frozenset(
    {
        ApplicationStatus.APPROVED,
        ApplicationStatus.SENDING,
        ApplicationStatus.PREFILLED,
        ApplicationStatus.FAILED,
        ApplicationStatus.NOT_SENT,
    }
)
_APPLIED = frozenset(
    {ApplicationStatus.SENT, ApplicationStatus.SUBMITTED, ApplicationStatus.APPLIED}
)


@dataclass(frozen=True)
class JobFacts:
    """What the rule reads about one job (all of it already stored)."""

    status: str  # JobStatus
    error_code: str | None = None  # the list's code: the failure or skip reason
    # The newest generation's state of each material kind (resume, cover), if any.
    materials: tuple[str, ...] = ()
    application_status: str | None = None
    outcome: str | None = None
    applied_at: datetime | None = None
    availability: str | None = None  # domain.availability.Availability; None: never checked
    hidden: bool = False
    min_fit_score: int = 50
    # A failure automatic recovery will try again (retryable, attempts left, recovery on).
    retried_automatically: bool = False
    followups_sent: int = 0  # follow-up emails that went out (or may have)
    last_followup_at: datetime | None = None
    followup_max_count: int = 2
    # The stage the list's status is about (the first unfinished one), if any.
    current_stage: str | None = None


@dataclass(frozen=True)
class NextStep:
    """The group a job is in and the sentence saying why."""

    action: NextAction
    reason: str


def next_action(
    facts: JobFacts, now: datetime, *, followup_after_days: int = DEFAULT_FOLLOWUP_DAYS
) -> NextStep:
    """The one thing ``facts``' job asks of the person at ``now``.

    Precedence: hidden, then an application already sent (follow up once
    ``followup_after_days`` have passed with no outcome), then a closed posting, then the
    preparation's status (in progress — also a failure automatic recovery tries again —,
    failed, below the minimum score), then, for a prepared job, its materials and
    approval."""
    if facts.hidden:
        return NextStep(NextAction.HIDDEN, "You said you are not interested in this job.")
    if facts.application_status == ApplicationStatus.UNKNOWN:
        return NextStep(NextAction.NEEDS_YOU, sentence("APPLY_OUTCOME_UNKNOWN"))
    if facts.application_status in _APPLIED:
        return _after_applying(facts, now, followup_after_days)
    closed = facts.availability == Availability.UNAVAILABLE or facts.error_code in (
        POSTING_UNAVAILABLE,
        POSTING_EXPIRED,
    )
    if closed:
        return NextStep(NextAction.CLOSED, sentence(POSTING_UNAVAILABLE))
    if facts.status == JobStatus.PENDING and facts.current_stage == Stage.PDF and facts.materials:
        # Written, not yet a PDF (issue 34's receipt): not "reading and scoring" any more.
        what = "Your resume and letter are" if len(facts.materials) > 1 else "Your resume is"
        return NextStep(NextAction.IN_PROGRESS, f"{what} written; the PDF is still to be made.")
    if facts.status in (JobStatus.PENDING, JobStatus.RUNNING):
        return NextStep(NextAction.IN_PROGRESS, "jobctrl is reading and scoring this posting.")
    if facts.status == JobStatus.FAILED and facts.retried_automatically:
        again = f"{sentence(facts.error_code).rstrip('.')}: it is tried again on its own."
        return NextStep(NextAction.IN_PROGRESS, again)
    if facts.status == JobStatus.FAILED and facts.error_code in BROWSER_CODES:
        return NextStep(NextAction.NEEDS_BROWSER, NEEDS_BROWSER_REASON)
    if facts.status == JobStatus.FAILED:
        return NextStep(NextAction.NEEDS_YOU, sentence(facts.error_code))
    if facts.status == JobStatus.SKIPPED:
        if facts.error_code == MIN_SCORE:
            reason = f"Below your minimum fit score ({facts.min_fit_score})."
            return NextStep(NextAction.NOT_A_FIT, reason)
        return NextStep(NextAction.NEEDS_YOU, sentence(facts.error_code))
    if facts.application_status in _APPROVED_NOT_APPLIED:
        return NextStep(NextAction.READY_TO_APPLY, "Approved: send or submit the application.")
    if MaterialState.DRAFT in facts.materials or not facts.materials:
        # One kind only: the resume (a letter is written after it, or when asked for).
        drafts = sum(state == MaterialState.DRAFT for state in facts.materials)
        what = (
            "Prepared: read the fit and decide."
            if not facts.materials
            else "Your tailored resume waits for your decision; on the job's page you can "
            "have its cover letter written too."
            if len(facts.materials) == 1
            else "Your tailored resume and cover letter wait for your decision."
            if drafts > 1
            else "A new draft waits for your decision on the job's page."
        )
        return NextStep(NextAction.REVIEW, what)
    if all(state == MaterialState.APPROVED for state in facts.materials):
        return NextStep(NextAction.READY_TO_APPLY, "Materials approved: apply when ready.")
    return NextStep(
        NextAction.REVIEW, "You rejected a draft: write it again or edit it, then approve."
    )


def _after_applying(facts: JobFacts, now: datetime, days: int) -> NextStep:
    if facts.outcome not in NO_ANSWER_YET:
        return NextStep(NextAction.APPLIED, f"Applied; the outcome so far: {facts.outcome}.")
    if facts.applied_at is None:
        return NextStep(NextAction.APPLIED, "Applied.")
    due = next_followup_due(
        facts.applied_at,
        facts.followups_sent,
        facts.last_followup_at,
        after_days=days,
        max_count=facts.followup_max_count,
    )
    if due is None:
        sent = facts.followups_sent
        return NextStep(
            NextAction.APPLIED,
            f"Applied; {sent} follow-up{'s' if sent != 1 else ''} sent with no answer yet.",
        )
    if facts.followups_sent and as_utc(now) >= due:
        return NextStep(
            NextAction.FOLLOW_UP,
            f"Followed up {(as_utc(now) - due).days + days} days ago with no answer yet: "
            "follow up once more.",
        )
    if as_utc(now) >= due:
        ago = (as_utc(now) - as_utc(facts.applied_at)).days
        return NextStep(
            NextAction.FOLLOW_UP, f"Applied {ago} days ago with no answer yet: follow up."
        )
    return NextStep(NextAction.APPLIED, f"Applied; a follow-up is due on {due.date()}.")

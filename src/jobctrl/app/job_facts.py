"""What the Jobs list says of each job beyond its list row: its next action and why
(``domain.inbox``), its code in plain words (``domain.plain_words``), its posting's
availability and the listings (sources) it was found on. The Jobs list (`jobctrl jobs`,
``GET /v1/jobs``), the inbox and `jobctrl show` share these."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from jobctrl.app.models import Timestamp, View
from jobctrl.domain.availability import Availability, ShownAvailability, shown_state
from jobctrl.domain.errors import MIN_SCORE, POSTING_REFUSALS
from jobctrl.domain.inbox import (
    DEFAULT_FOLLOWUP_DAYS,
    JobFacts,
    NextAction,
    NextStep,
    next_action,
)
from jobctrl.domain.plain_words import ago, sentence
from jobctrl.domain.recovery import MAX_AUTO_ATTEMPTS, retryable_code
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store

__all__ = [
    "AvailabilityView",
    "InboxRules",
    "Listing",
    "availability_view",
    "button_for",
    "error_sentence",
    "inbox_rules",
    "next_step",
    "next_steps",
]


class AvailabilityView(View):
    """A posting's availability: ``state`` open, closed, unknown or overdue (its next
    check is late), the last check's time and what it found (``evidence``: a code, or
    ``PAGE_ONLINE``), when it is checked next, and a sentence saying so."""

    state: str
    checked_at: Timestamp | None
    next_check_at: Timestamp | None
    evidence: str | None
    sentence: str


class Listing(View):
    """One listing of a job: the source it was found on and that listing's own URL."""

    source_kind: str
    source_name: str
    url: str


@dataclass(frozen=True)
class InboxRules:
    """The settings the next action reads."""

    min_fit_score: int = 50
    followup_after_days: int = DEFAULT_FOLLOWUP_DAYS
    followup_max_count: int = 2
    recovery: bool = True  # automatic recovery retries failures that can succeed later


def inbox_rules(store: Store) -> InboxRules:
    settings = Settings(store)
    return InboxRules(
        min_fit_score=int(settings.get("min_fit_score")),
        followup_after_days=int(settings.get("followup.after_days")),
        followup_max_count=int(settings.get("followup.max_count")),
        recovery=bool(settings.get("recovery.enabled")),
    )


PAGE_ONLINE = "PAGE_ONLINE"


def availability_view(row: dict[str, Any], now: datetime) -> AvailabilityView:
    """The availability of the job whose ``jobs`` columns ``row`` holds."""
    checked = row.get("availability_checked_at")
    due = row.get("availability_next_check_at")
    state = shown_state(row.get("availability"), due, now)
    evidence = row.get("availability_code") or (
        PAGE_ONLINE if row.get("availability") == Availability.ACTIVE else None
    )
    when = f" (checked {ago(checked, now)})" if checked else ""
    if state == ShownAvailability.CLOSED:
        words = f"The posting is no longer online{when}."
    elif state == ShownAvailability.OVERDUE and due is not None:
        words = f"Its check is overdue (due {ago(due, now)}); it is checked soon."
    elif state == ShownAvailability.OPEN:
        words = f"The posting is online{when}."
    elif checked:
        words = f"Could not tell whether the posting is online{when}: {sentence(evidence)}"
    else:
        words = "Not checked yet."
    return AvailabilityView(
        state=state, checked_at=checked, next_check_at=due, evidence=evidence, sentence=words
    )


def next_step(row: dict[str, Any], rules: InboxRules, now: datetime) -> NextStep:
    """The next action of the job whose inbox row (``store.inbox.inbox_rows``) is ``row``."""
    facts = JobFacts(
        status=row["status"],
        error_code=row.get("error_code"),
        materials=tuple(row.get("materials") or ()),
        application_status=row.get("application_status"),
        outcome=row.get("outcome"),
        applied_at=row.get("applied_at"),
        availability=row.get("availability"),
        hidden=bool(row.get("hidden")),
        min_fit_score=rules.min_fit_score,
        retried_automatically=rules.recovery
        and retryable_code(row.get("error_code"), row.get("retryable"))
        and int(row.get("auto_attempts") or 0) < MAX_AUTO_ATTEMPTS,
        followups_sent=int(row.get("followups_sent") or 0),
        last_followup_at=row.get("last_followup_at"),
        followup_max_count=rules.followup_max_count,
        current_stage=row.get("current_stage"),
    )
    return next_action(facts, now, followup_after_days=rules.followup_after_days)


def next_steps(rows: list[dict[str, Any]], rules: InboxRules, now: datetime) -> list[NextStep]:
    """``next_step`` of many rows; rows with the same facts (most of a large inbox) are
    decided once."""
    decided: dict[tuple[Any, ...], NextStep] = {}
    steps = []
    for row in rows:
        key = tuple(row.get(name) for name in _FACTS)
        step = decided.get(key)
        if step is None:
            step = decided[key] = next_step(row, rules, now)
        steps.append(step)
    return steps


_FACTS = (
    "status", "error_code", "materials", "application_status", "outcome", "applied_at",
    "availability", "hidden", "retryable", "auto_attempts", "followups_sent",
    "last_followup_at", "current_stage",
)  # fmt: skip


# The label of each group's one button; a group not named opens the job's page.
BUTTONS: dict[NextAction, str] = {
    NextAction.NEEDS_YOU: "Retry",
    NextAction.REVIEW: "Review",
    NextAction.READY_TO_APPLY: "Apply",
    NextAction.FOLLOW_UP: "Follow up",
    NextAction.HIDDEN: "Unhide",
}


def button_for(action: NextAction, error_code: str | None) -> tuple[str, str]:
    """A row's one button: its label, and what it does (``open`` the page the group is
    about, ``retry`` the failed stage, ``hide`` or ``unhide`` the job)."""
    if action == NextAction.NEEDS_YOU:
        if error_code in POSTING_REFUSALS:  # trying again cannot help: hide it
            return "Not interested", "hide"
        if error_code is None:  # an application in doubt: its page says what to check
            return "Open", "open"
        return "Retry", "retry"
    if action == NextAction.HIDDEN:
        return "Unhide", "unhide"
    return BUTTONS.get(action, "Open"), "open"


def error_sentence(code: str | None, rules: InboxRules) -> str | None:
    """The list's code in plain words (None without a code)."""
    if not code:
        return None
    if code == MIN_SCORE:
        return f"Below your minimum fit score ({rules.min_fit_score})."
    return sentence(code)

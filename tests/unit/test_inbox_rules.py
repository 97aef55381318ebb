"""The inbox's rule (domain/inbox.py): which one thing each job asks of the person next."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from jobctrl.domain.availability import shown_state
from jobctrl.domain.inbox import JobFacts, NextAction, next_action

NOW = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)


def _action(**facts: object) -> NextAction:
    return next_action(JobFacts(**facts), NOW).action  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("facts", "action"),
    [
        ({"status": "pending"}, NextAction.IN_PROGRESS),
        ({"status": "running"}, NextAction.IN_PROGRESS),
        ({"status": "failed", "error_code": "ENRICH_INVALID_URL"}, NextAction.NEEDS_YOU),
        ({"status": "skipped", "error_code": "MIN_SCORE"}, NextAction.NOT_A_FIT),
        ({"status": "skipped", "error_code": "POSTING_UNAVAILABLE"}, NextAction.CLOSED),
        ({"status": "prepared", "availability": "unavailable"}, NextAction.CLOSED),
        ({"status": "prepared", "materials": ("draft", "draft")}, NextAction.REVIEW),
        ({"status": "prepared", "materials": ("approved", "draft")}, NextAction.REVIEW),
        ({"status": "prepared"}, NextAction.REVIEW),  # prepared without materials
        ({"status": "prepared", "materials": ("approved", "approved")}, NextAction.READY_TO_APPLY),
        ({"status": "prepared", "materials": ("rejected",)}, NextAction.REVIEW),
        ({"status": "prepared", "application_status": "approved"}, NextAction.READY_TO_APPLY),
        ({"status": "prepared", "application_status": "unknown"}, NextAction.NEEDS_YOU),
        ({"status": "prepared", "hidden": True}, NextAction.HIDDEN),
        ({"status": "failed", "error_code": "X", "hidden": True}, NextAction.HIDDEN),
    ],
)
def test_each_state_has_its_one_next_action(facts: dict[str, object], action: NextAction) -> None:
    assert _action(**facts) == action


def test_a_follow_up_comes_due_after_the_days_set_with_no_outcome() -> None:
    sent = {"status": "prepared", "application_status": "sent", "outcome": None}
    six_days = JobFacts(**sent, applied_at=NOW - timedelta(days=6))  # type: ignore[arg-type]
    seven_days = JobFacts(**sent, applied_at=NOW - timedelta(days=7))  # type: ignore[arg-type]
    assert next_action(six_days, NOW).action == NextAction.APPLIED
    due = next_action(seven_days, NOW)
    assert due.action == NextAction.FOLLOW_UP and "7 days ago" in due.reason
    assert next_action(six_days, NOW, followup_after_days=3).action == NextAction.FOLLOW_UP
    # the clock moves on: the same application comes due a day later
    assert next_action(six_days, NOW + timedelta(days=1)).action == NextAction.FOLLOW_UP
    answered = JobFacts(
        status="prepared",
        application_status="sent",
        outcome="interview",
        applied_at=NOW - timedelta(days=30),
    )
    assert next_action(answered, NOW).action == NextAction.APPLIED


def test_an_application_sent_wins_over_a_posting_closed_since() -> None:
    facts = JobFacts(
        status="prepared",
        application_status="submitted",
        applied_at=NOW - timedelta(days=8),
        availability="unavailable",
    )
    assert next_action(facts, NOW).action == NextAction.FOLLOW_UP


def test_every_reason_is_a_sentence_not_a_code() -> None:
    step = next_action(JobFacts(status="failed", error_code="DETAIL_UNSAFE_URL"), NOW)
    assert "DETAIL_UNSAFE_URL" not in step.reason and step.reason.endswith(".")
    low = next_action(JobFacts(status="skipped", error_code="MIN_SCORE", min_fit_score=60), NOW)
    assert low.reason == "Below your minimum fit score (60)."


def test_availability_is_shown_open_closed_unknown_or_overdue() -> None:
    later, earlier = NOW + timedelta(hours=3), NOW - timedelta(hours=2)
    assert shown_state("active", later, NOW) == "open"
    assert shown_state("unavailable", earlier, NOW) == "closed"
    assert shown_state("unknown", later, NOW) == "unknown"
    assert shown_state(None, None, NOW) == "unknown"
    assert shown_state("active", earlier, NOW) == "overdue"
    assert shown_state("active", NOW - timedelta(minutes=30), NOW) == "open"  # not yet late


def test_a_failure_recovery_tries_again_is_in_progress_until_it_gives_up() -> None:
    timeout = {"status": "failed", "error_code": "ENRICH_TIMEOUT"}
    tried = next_action(JobFacts(**timeout, retried_automatically=True), NOW)  # type: ignore[arg-type]
    assert tried.action == NextAction.IN_PROGRESS and "tried again on its own" in tried.reason
    given_up = next_action(JobFacts(**timeout), NOW)  # type: ignore[arg-type]
    assert given_up.action == NextAction.NEEDS_YOU


def test_a_follow_up_sent_moves_the_next_one_an_interval_on_and_the_last_ends_them() -> None:
    sent = {"status": "prepared", "application_status": "sent", "outcome": "no_answer"}
    applied = NOW - timedelta(days=20)

    def facts(count: int, last_days_ago: float) -> JobFacts:
        return JobFacts(
            **sent,  # type: ignore[arg-type]
            applied_at=applied,
            followups_sent=count,
            last_followup_at=NOW - timedelta(days=last_days_ago),
        )

    assert next_action(facts(1, 3), NOW).action == NextAction.APPLIED
    again = next_action(facts(1, 8), NOW)
    assert again.action == NextAction.FOLLOW_UP and "8 days ago" in again.reason
    done = next_action(facts(2, 30), NOW)
    assert done.action == NextAction.APPLIED and "2 follow-ups sent" in done.reason

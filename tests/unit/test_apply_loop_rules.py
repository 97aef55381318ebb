"""The apply workflow's claim rules (domain.apply_loop): which job it may take, with the
settings as read at the claim, and how long a failed job waits before it is taken again."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from jobctrl.domain import ids
from jobctrl.domain.apply_loop import ClaimFacts, claim_refusal, claim_retry_at

READY = ClaimFacts(
    score=80,
    resume_approved=True,
    undecided=False,
    posting_closed=False,
    application_status=None,
    prepared=False,
    live_attempt=False,
    live_claim=False,
)


def _refusal(facts: ClaimFacts, min_fit_score: int = 50, approval_required: bool = True):
    return claim_refusal(facts, min_fit_score=min_fit_score, approval_required=approval_required)


def test_an_approved_job_above_the_bar_may_be_claimed() -> None:
    assert _refusal(READY) is None


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"posting_closed": True}, "POSTING_UNAVAILABLE"),
        ({"live_attempt": True}, "APPLY_ATTEMPT_LIVE"),
        ({"live_claim": True}, "APPLY_ATTEMPT_LIVE"),
        ({"application_status": "sent"}, "APPLY_ALREADY_DONE"),
        ({"application_status": "unknown"}, "APPLY_OUTCOME_UNKNOWN"),
        ({"score": 49}, "MIN_SCORE"),
        ({"score": None}, "MIN_SCORE"),
        ({"resume_approved": False}, "APPLY_MATERIALS_NOT_APPROVED"),
        ({"undecided": True}, "APPLY_MATERIALS_NOT_APPROVED"),
        # a letter the person asked for is being written: nothing goes out before it
        ({"writing": True}, "APPLY_MATERIALS_NOT_APPROVED"),
    ],
)
def test_a_claim_is_refused_with_its_code(change: dict, code: str) -> None:
    assert _refusal(replace(READY, **change)) == code


def test_a_closed_posting_is_refused_before_anything_else() -> None:
    everything = replace(READY, posting_closed=True, live_attempt=True, score=1)
    assert _refusal(everything) == "POSTING_UNAVAILABLE"


def test_the_settings_read_at_the_claim_decide() -> None:
    assert _refusal(READY, min_fit_score=81) == "MIN_SCORE"
    letter_waits = replace(READY, undecided=True)
    assert _refusal(letter_waits, approval_required=False) is None, "an approved resume suffices"
    unapproved = replace(READY, resume_approved=False)
    assert _refusal(unapproved, approval_required=False) == "APPLY_MATERIALS_NOT_APPROVED"


def test_a_failed_job_waits_longer_after_each_failure_at_most_a_day() -> None:
    now = datetime(2026, 12, 1, tzinfo=UTC)
    waits = [claim_retry_at(n, now) - now for n in (1, 2, 3, 30)]
    assert waits[:3] == [timedelta(minutes=5), timedelta(minutes=10), timedelta(minutes=20)]
    assert waits[3] == timedelta(hours=24)


def test_apply_workflow_ids_are_deterministic() -> None:
    assert ids.APPLY_LOOP_ID == "apply-auto-local"
    one = ids.apply_workflow_id("3f2a9c000000", "sha-a,sha-b", "local")
    assert one == ids.apply_workflow_id("3f2a9c000000", "sha-a,sha-b", "local")
    assert one.startswith("apply-3f2a9c000000-") and len(one.rsplit("-", 1)[1]) == 12
    assert one != ids.apply_workflow_id("3f2a9c000000", "sha-c", "local")

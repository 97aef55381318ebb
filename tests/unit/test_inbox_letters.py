"""The inbox's review sentence says which documents wait, with or without a letter
(issue 31: a letter is written by itself only above materials.cover_min_score)."""

from __future__ import annotations

from datetime import UTC, datetime

from jobctrl.domain.inbox import JobFacts, NextAction, next_action
from jobctrl.domain.materials import MaterialState

NOW = datetime(2026, 12, 7, tzinfo=UTC)
DRAFT, APPROVED = MaterialState.DRAFT.value, MaterialState.APPROVED.value


def _reason(*materials: str) -> str:
    step = next_action(JobFacts(status="prepared", materials=materials), NOW)
    assert step.action == NextAction.REVIEW
    return step.reason


def test_a_resume_alone_says_the_letter_can_be_asked_for() -> None:
    assert "cover letter written" in _reason(DRAFT)


def test_both_drafts_are_named_and_one_new_draft_is_not_called_two() -> None:
    assert _reason(DRAFT, DRAFT) == "Your tailored resume and cover letter wait for your decision."
    # an approved resume and the letter asked for later: only the letter waits
    one = _reason(APPROVED, DRAFT)
    assert "resume and cover letter" not in one and "draft" in one

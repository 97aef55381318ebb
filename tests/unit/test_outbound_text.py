"""A follow-up's or outreach message's words held to the profile (domain/outbound_text.py,
domain/truth/connections.py) and when a follow-up is due (domain/followups.py)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from jobctrl.domain.followups import next_followup_due, reply_subject
from jobctrl.domain.outbound_text import (
    MessageFacts,
    check_message,
    followup_body,
    followup_record,
    outreach_body,
)
from jobctrl.domain.profile import Profile
from jobctrl.domain.truth.connections import connection_claims
from tests.support.profile import TEST_PROFILE

PROFILE = Profile.model_validate(TEST_PROFILE)
FACTS = MessageFacts(
    company="Acme Robotics",
    role="Senior Backend Engineer",
    reader="Jane Smith",
    applied_on=date(2026, 11, 30),
    posting="5+ years of Python. Experience with PostgreSQL. Kubernetes and Docker.",
)


def _claims(body: str, subject: str = "Re: Application", sequence: int = 1) -> list[str]:
    record = [followup_record(FACTS, sequence), "Application"]
    return [f.claim for f in check_message(body, subject, PROFILE, FACTS, record=record)]


@pytest.mark.parametrize("sequence", [1, 2])
def test_what_jobctrl_writes_passes_its_own_check(sequence: int) -> None:
    body = followup_body(PROFILE, FACTS, sequence)
    assert "Kubernetes" in body and "30 November 2026" in body
    assert _claims(body, sequence=sequence) == []
    for note in (False, True):
        written = outreach_body(PROFILE, FACTS, note=note)
        subject = "" if note else "The Senior Backend Engineer role at Acme Robotics"
        assert check_message(written, subject, PROFILE, FACTS) == []
    assert len(outreach_body(PROFILE, FACTS, note=True)) <= 300


@pytest.mark.parametrize(
    ("added", "claim"),
    [
        ("I led a team of 40 engineers at Google.", "40 engineers"),
        ("I have 10 years of experience with Rust.", "10 years"),
        ("Jordan Lee from your team referred me to this role.", "referred"),
        ("As we discussed last week, I am a strong fit.", "As we discussed"),
        ("A mutual friend suggested I write.", "mutual friend"),
    ],
)
def test_an_added_claim_the_profile_does_not_support_is_reported(added: str, claim: str) -> None:
    body = followup_body(PROFILE, FACTS, 1).replace("Thank you", f"{added} Thank you")
    assert any(claim.lower() in c.lower() for c in _claims(body)), _claims(body)


def test_a_changed_record_line_is_held_to_the_profile() -> None:
    body = followup_body(PROFILE, FACTS, 1).replace("30 November", "12 November")
    assert "12 November 2026" in _claims(body)


def test_a_plain_subject_passes_and_a_claiming_one_does_not() -> None:
    body = "Dear Jane Smith,\n\nThank you."
    assert _claims(body, "Hello") == []
    assert _claims(body, "Quick question about the role") == []
    assert "Google" in _claims(body, "I led 40 engineers at Google")
    assert connection_claims("Referred by Sam") == ["Referred"]


def test_followups_are_spaced_by_the_interval_and_end_at_the_cap() -> None:
    applied = datetime(2026, 11, 1, tzinfo=UTC)
    assert next_followup_due(applied, 0, None, after_days=7, max_count=2) == applied + timedelta(7)
    last = applied + timedelta(days=9)
    assert next_followup_due(applied, 1, last, after_days=7, max_count=2) == last + timedelta(7)
    assert next_followup_due(applied, 2, last, after_days=7, max_count=2) is None
    assert next_followup_due(None, 0, None, after_days=7, max_count=2) is None
    assert reply_subject("Application: Engineer") == "Re: Application: Engineer"
    assert reply_subject("RE: Application") == "RE: Application"

"""A person's edit of a resume or letter: the text form round-trips, unchanged lines keep
their citations, a changed line is cited and checked like generated text, and an
unsupported sentence is found (never repaired)."""

from __future__ import annotations

from datetime import date

import pytest

from jobctrl.demo.profile import DEMO_PROFILE
from jobctrl.domain.errors import INVALID_INPUT, JobctrlError
from jobctrl.domain.material_text import (
    letter_from_text,
    letter_text,
    resume_from_text,
    resume_text,
)
from jobctrl.domain.profile import Profile
from jobctrl.domain.truth.citing import cite_letter, cite_resume
from jobctrl.domain.truth.claims import ClaimContext
from jobctrl.domain.truth.document import check_letter, check_resume
from jobctrl.llm.offline import score_offline
from jobctrl.llm.offline_materials import cover_offline, tailor_offline

TODAY = date(2025, 6, 1)
TITLE = "Senior Backend Engineer"
COMPANY = "Acme Logistics"
DESCRIPTION = """Acme Logistics builds software for freight carriers.

Requirements

- 5+ years of experience building backend services in Python.
- Experience running services on Kubernetes and AWS.
- Experience with CI/CD pipelines and automated testing.
"""
PROFILE = Profile(**DEMO_PROFILE)
CONTEXT = ClaimContext(free_names=(COMPANY, TITLE), today=TODAY)
REPORT = score_offline(TITLE, DESCRIPTION, PROFILE, today=TODAY)
RESUME = tailor_offline(PROFILE, REPORT, TITLE, COMPANY)
LETTER = cover_offline(PROFILE, REPORT, TITLE, COMPANY)
INVENTED = "I led a team of 40 engineers at NASA and won a Turing Award."


def _letter(text: str):
    return cite_letter(
        letter_from_text(text, company=COMPANY, role=TITLE), LETTER, PROFILE, CONTEXT
    )


def test_the_letter_text_round_trips_with_its_citations():
    text = letter_text(LETTER)
    assert letter_from_text(text, company=COMPANY, role=TITLE).paragraph_texts() == (
        LETTER.paragraph_texts()
    )
    assert _letter(text) == LETTER
    assert letter_text(_letter(text)) == text


def test_the_resume_text_round_trips_with_its_citations():
    text = resume_text(RESUME)
    again = cite_resume(resume_from_text(text), RESUME, PROFILE, CONTEXT)
    assert resume_text(again) == text
    assert again.model_dump() == RESUME.model_dump()
    assert not check_resume(again, PROFILE, CONTEXT)


def test_an_unsupported_sentence_added_to_a_letter_is_found_not_repaired():
    lines = letter_text(LETTER).splitlines()
    lines.insert(2, INVENTED)
    letter = _letter("\n".join(lines))
    findings = check_letter(letter, PROFILE, CONTEXT)
    assert findings and {f.sentence for f in findings} == {INVENTED}
    assert INVENTED in letter_text(letter)  # shown as written, never rewritten


def test_a_new_sentence_the_profile_supports_is_cited_and_passes():
    held = PROFILE.experience[0]
    said = f"At {held.company} I worked as {held.title}."
    lines = letter_text(LETTER).splitlines()
    lines.insert(2, said)
    letter = _letter("\n".join(lines))
    assert not check_letter(letter, PROFILE, CONTEXT)
    cited = [s for p in letter.paragraphs for s in p.sentences if s.text == said]
    assert cited and cited[0].facts  # it rests on the profile, cited


def test_a_changed_resume_bullet_is_held_to_the_profile():
    text = resume_text(RESUME)
    bullet = RESUME.experience[0].bullets[0].text
    edited = text.replace(f"- {bullet}", "- Cut cloud costs by 97% across 12 countries.")
    resume = cite_resume(resume_from_text(edited), RESUME, PROFILE, CONTEXT)
    findings = check_resume(resume, PROFILE, CONTEXT)
    assert findings and all("97%" in f.sentence for f in findings)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("Dear team,\n\nKind regards,\nJane", "greeting, at least one paragraph"),
        ("Jane Doe\n## Summary\nHi", "Email:, Phone:"),
        ("# Jane Doe\n## Hobbies\nchess", "unknown section 'Hobbies'"),
        ("# Jane Doe\n## Experience\n- a bullet without an entry", "start each entry"),
        ("# Jane Doe\n## Experience\n### a | b | c | d | e | f", "line 3"),
    ],
)
def test_a_text_that_cannot_be_read_is_refused_with_the_line(text, says):
    with pytest.raises(JobctrlError) as caught:
        if text.startswith("Dear"):
            letter_from_text(text, company=COMPANY, role=TITLE)
        else:
            resume_from_text(text)
    assert caught.value.code == INVALID_INPUT
    assert says in str(caught.value)

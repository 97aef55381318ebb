"""Offline materials: an extractive tailored resume and a cover letter backed by the profile."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

import pytest

from jobctrl.demo.profile import DEMO_PROFILE
from jobctrl.domain.facts import (
    Fact,
    education_fact_id,
    experience_fact_id,
    fact_index,
    summary_sentences,
)
from jobctrl.domain.materials import CoverLetter, texts
from jobctrl.domain.profile import Experience, Profile
from jobctrl.domain.scoring import ScoreReport
from jobctrl.domain.truth import document
from jobctrl.domain.truth.claims import ClaimContext, Unsupported
from jobctrl.domain.truth.document import check_resume
from jobctrl.llm import prompts
from jobctrl.llm.offline import score_offline
from jobctrl.llm.offline_materials import cover_offline, tailor_offline

TODAY = date(2025, 6, 1)
TITLE = "Senior Backend Engineer"
DESCRIPTION = """Acme Logistics builds software that freight carriers run their day on.

What you'll do

- Design and run the APIs our carriers integrate with.
- Own services in production, including on-call.

Requirements

- 5+ years of experience building backend services in Python.
- Experience running services on Kubernetes and AWS.
- Experience with event streaming (Kafka or similar).
- Experience with CI/CD pipelines and automated testing.
- Experience with Go.

Nice to have

- Mentoring other engineers.
- Airflow or other data pipeline tools.

Benefits

- 30 days of holiday.
"""

PROFILE = Profile(**DEMO_PROFILE)


def _report(profile: Profile = PROFILE) -> ScoreReport:
    return score_offline(TITLE, DESCRIPTION, profile, today=TODAY)


CONTEXT = ClaimContext(free_names=("Acme Logistics", TITLE), today=TODAY)


def numbers_in(text: str) -> set[str]:
    return {n.replace(",", "") for n in re.findall(r"\d+(?:[.,]\d+)*", text)}


def _all_profile_numbers(profile: Profile) -> set[str]:
    return numbers_in(profile.model_dump_json())


@pytest.fixture
def walk_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The truth check's walk (entries, dates, skills, citations) without the sentence
    checker, which tests/unit/test_truth_check.py runs on these documents."""

    def no_findings(text: str, cited: Sequence[Fact], context: ClaimContext) -> list[Unsupported]:
        return []

    monkeypatch.setattr(document, "check_sentence", no_findings)


def _letter_text(letter: CoverLetter) -> str:
    return " ".join(letter.paragraph_texts())


def test_tailored_bullets_are_ordered_by_how_many_matched_requirements_quote_them() -> None:
    resume = tailor_offline(PROFILE, _report(), TITLE, "Acme Logistics")
    lumen = PROFILE.experience[0].bullets
    # The Kafka pipeline bullet backs two matched requirements (event streaming, pipelines).
    assert resume.experience[0].bullets[0].text == lumen[2]
    assert texts(resume.experience[0].bullets) != lumen
    # Brightwell: the Airflow bullet is the only one quoted, so it moves to the top.
    assert resume.experience[1].bullets[0].text == PROFILE.experience[1].bullets[1]


def test_tailoring_keeps_every_fact_and_passes_the_truth_check(walk_only: None) -> None:
    resume = tailor_offline(PROFILE, _report(), TITLE, "Acme Logistics")
    assert check_resume(resume, PROFILE, CONTEXT) == []
    assert resume.name == PROFILE.name and resume.contact == PROFILE.contact
    assert resume.summary_text() == PROFILE.summary
    assert [e.model_dump(exclude={"fact"}) for e in resume.education] == [
        e.model_dump() for e in PROFILE.education
    ]
    assert sorted(resume.skills) == sorted(PROFILE.skills)
    for tailored, original in zip(resume.experience, PROFILE.experience, strict=True):
        assert (tailored.title, tailored.company, tailored.start, tailored.end) == (
            original.title,
            original.company,
            original.start,
            original.end,
        )
        assert sorted(texts(tailored.bullets)) == sorted(original.bullets)


def test_every_line_and_entry_of_the_resume_cites_the_fact_it_states() -> None:
    resume = tailor_offline(PROFILE, _report(), TITLE, "Acme Logistics")
    facts = fact_index(PROFILE)
    assert resume.headline.facts == [experience_fact_id(PROFILE.experience[0])]
    for line, sentence in zip(resume.summary, summary_sentences(PROFILE.summary), strict=True):
        assert line.text == sentence
        assert [(facts[f].kind, facts[f].text) for f in line.facts] == [("summary", sentence)]
    for tailored, original in zip(resume.experience, PROFILE.experience, strict=True):
        assert tailored.fact == experience_fact_id(original)
        for bullet in tailored.bullets:
            [cited] = bullet.facts
            assert facts[cited].kind == "highlight" and facts[cited].text == bullet.text
            assert facts[cited].parent == tailored.fact
    assert [e.fact for e in resume.education] == [education_fact_id(e) for e in PROFILE.education]


def test_headline_is_the_most_recent_title_held_not_the_postings() -> None:
    resume = tailor_offline(PROFILE, _report(), "Principal Platform Architect", "Acme")
    assert resume.headline.text == PROFILE.experience[0].title


def test_matched_skills_come_first_in_profile_order() -> None:
    resume = tailor_offline(PROFILE, _report(), TITLE, "Acme Logistics")
    first = resume.skills[:4]
    assert first == ["Python", "Kubernetes", "AWS", "Airflow"]
    assert resume.skills.index("Redis") > resume.skills.index("Kafka")


def test_only_the_weakest_bullets_beyond_five_per_role_are_dropped(walk_only: None) -> None:
    data = PROFILE.model_dump()
    extra = [f"Organised the office book club number {n}." for n in range(1, 4)]
    data["experience"][0]["bullets"] = extra + data["experience"][0]["bullets"]
    profile = Profile(**data)
    resume = tailor_offline(profile, _report(profile), TITLE, "Acme Logistics")
    kept = texts(resume.experience[0].bullets)
    assert len(kept) == 5
    assert not any("book club" in b for b in kept)
    assert len(resume.experience[2].bullets) == 1
    assert check_resume(resume, profile, CONTEXT) == []


def test_tailoring_without_a_report_match_keeps_profile_order() -> None:
    report = score_offline(TITLE, "Requirements\n\n- Fluent Japanese.\n", PROFILE, today=TODAY)
    resume = tailor_offline(PROFILE, report, TITLE, None)
    assert [texts(e.bullets) for e in resume.experience] == [e.bullets for e in PROFILE.experience]
    assert resume.skills == PROFILE.skills


def test_cover_letter_is_addressed_short_and_backed_by_profile_evidence() -> None:
    report = _report()
    letter = cover_offline(PROFILE, report, TITLE, "Acme Logistics")
    assert letter.greeting == "Dear Hiring Team at Acme Logistics,"
    assert letter.company == "Acme Logistics" and letter.role == TITLE
    assert letter.signature == PROFILE.name
    assert 3 <= len(letter.paragraphs) <= 4
    assert letter.word_count() <= 350
    text = _letter_text(letter)
    assert "12 million carrier updates" in text  # the Kafka requirement's evidence
    assert "900 ms to 180 ms" in text
    assert numbers_in(text) <= _all_profile_numbers(PROFILE)


def test_cover_letter_names_a_missing_must_have_only_when_asked() -> None:
    # materials.mention_gaps is off by default (issue 29): a letter does not volunteer gaps.
    quiet = cover_offline(PROFILE, _report(), TITLE, "Acme Logistics")
    assert not any("not yet" in p or "Go" in p.split() for p in quiet.paragraph_texts())
    told = cover_offline(PROFILE, _report(), TITLE, "Acme Logistics", mention_gaps=True)
    assert any("have not yet worked with Go" in p for p in told.paragraph_texts())


def test_cover_letter_respects_max_words_by_trimming_evidence_first() -> None:
    full = cover_offline(PROFILE, _report(), TITLE, "Acme Logistics")
    short = cover_offline(PROFILE, _report(), TITLE, "Acme Logistics", max_words=90)
    assert short.word_count() <= 90 < full.word_count()
    assert short.paragraphs[0] == full.paragraphs[0]
    assert short.paragraphs[-1] == full.paragraphs[-1]
    evidence = short.paragraphs[1].text()
    assert evidence in full.paragraphs[1].text()
    assert len(evidence) < len(full.paragraphs[1].text())
    tiny = cover_offline(PROFILE, _report(), TITLE, "Acme Logistics", max_words=25)
    assert tiny.word_count() <= 25


def test_unknown_company_gets_a_generic_greeting() -> None:
    letter = cover_offline(PROFILE, _report(), TITLE, None)
    assert letter.greeting == "Dear Hiring Team,"
    assert letter.company == ""
    assert "your team" in letter.paragraphs[-1].text()


def test_cover_letter_for_a_past_role_does_not_claim_it_is_current() -> None:
    data = PROFILE.model_dump()
    data["experience"] = [
        Experience(
            title="Analyst",
            company="Fenwick Data",
            start="2018",
            end="2022",
            bullets=["Built SQL reports for 3 regional teams."],
        ).model_dump()
    ]
    profile = Profile(**data)
    letter = cover_offline(profile, _report(profile), "Data Analyst", "Acme Logistics")
    assert "Most recently I worked as an Analyst at Fenwick Data." in letter.paragraphs[0].text()
    assert "I built SQL reports for 3 regional teams." in _letter_text(letter)
    assert numbers_in(_letter_text(letter)) <= _all_profile_numbers(profile)


def test_letter_sentences_cite_what_they_quote_and_politeness_cites_nothing() -> None:
    letter = cover_offline(PROFILE, _report(), TITLE, "Acme Logistics")
    facts = fact_index(PROFILE)
    lumen = experience_fact_id(PROFILE.experience[0])
    intro = letter.paragraphs[0].sentences
    assert intro[0].text == f"I am writing to apply for the {TITLE} role at Acme Logistics."
    assert intro[0].facts == []
    assert intro[1].text.startswith("I currently work as a Senior Backend Engineer")
    assert intro[1].facts == [lumen]
    for sentence in letter.paragraphs[1].sentences:  # the evidence
        kinds = [facts[f].kind for f in sentence.facts]
        assert kinds[:2] == ["highlight", "experience"] and set(kinds[2:]) <= {"skill"}
        highlight = facts[sentence.facts[0]]
        assert highlight.parent == sentence.facts[1]
        assert highlight.text.rstrip(".")[-20:] in sentence.text
    assert all(s.facts == [] for s in letter.paragraphs[-1].sentences)  # politeness
    kafka = next(s for s in letter.paragraphs[1].sentences if "12 million" in s.text)
    assert facts[kafka.facts[0]].text == PROFILE.experience[0].bullets[2]


def test_a_letter_names_a_matched_term_only_when_a_cited_fact_states_it() -> None:
    letter = cover_offline(PROFILE, _report(), TITLE, "Acme Logistics")
    facts = fact_index(PROFILE)
    for sentence in letter.paragraphs[1].sentences:
        cited = " ".join(facts[f].text for f in sentence.facts).casefold()
        lead = sentence.text.split(" at ", 1)[0]
        for term in ("Python", "Kubernetes", "AWS", "Kafka", "Airflow", "Go"):
            if term in lead.split(":")[0].replace(",", " ").split():
                assert term.casefold() in cited


def test_materials_are_deterministic() -> None:
    report = _report()
    assert tailor_offline(PROFILE, report, TITLE, "Acme") == tailor_offline(
        PROFILE, report, TITLE, "Acme"
    )
    assert cover_offline(PROFILE, report, TITLE, "Acme") == cover_offline(
        PROFILE, report, TITLE, "Acme"
    )


def test_the_cover_prompt_forbids_gaps_unless_the_setting_allows_them() -> None:
    assert prompts.cover_system(mention_gaps=False) == prompts.COVER_SYSTEM
    assert "Never mention a requirement the candidate does not meet" in prompts.COVER_SYSTEM
    allowed = prompts.cover_system(mention_gaps=True)
    assert "Never mention" not in allowed and "at most one unmet must-have" in allowed
    assert allowed.endswith(prompts.CITING)

"""Offline materials: an extractive tailored resume and a cover letter backed by the profile."""

from __future__ import annotations

from datetime import date

from jobctrl.demo.profile import DEMO_PROFILE
from jobctrl.domain.profile import Experience, Profile
from jobctrl.domain.scoring import ScoreReport
from jobctrl.domain.truth import check_resume, numbers_in
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


def _all_profile_numbers(profile: Profile) -> set[str]:
    return numbers_in(profile.model_dump_json())


def test_tailored_bullets_are_ordered_by_how_many_matched_requirements_quote_them() -> None:
    resume = tailor_offline(PROFILE, _report(), TITLE, "Acme Logistics")
    lumen = PROFILE.experience[0].bullets
    # The Kafka pipeline bullet backs two matched requirements (event streaming, pipelines).
    assert resume.experience[0].bullets[0] == lumen[2]
    assert resume.experience[0].bullets != lumen
    # Brightwell: the Airflow bullet is the only one quoted, so it moves to the top.
    assert resume.experience[1].bullets[0] == PROFILE.experience[1].bullets[1]


def test_tailoring_keeps_every_fact_and_passes_the_truth_check() -> None:
    resume = tailor_offline(PROFILE, _report(), TITLE, "Acme Logistics")
    assert check_resume(resume, PROFILE) == []
    assert resume.name == PROFILE.name and resume.contact == PROFILE.contact
    assert resume.summary == PROFILE.summary
    assert resume.education == PROFILE.education
    assert sorted(resume.skills) == sorted(PROFILE.skills)
    for tailored, original in zip(resume.experience, PROFILE.experience, strict=True):
        assert (tailored.title, tailored.company, tailored.start, tailored.end) == (
            original.title,
            original.company,
            original.start,
            original.end,
        )
        assert sorted(tailored.bullets) == sorted(original.bullets)


def test_headline_is_the_most_recent_title_held_not_the_postings() -> None:
    resume = tailor_offline(PROFILE, _report(), "Principal Platform Architect", "Acme")
    assert resume.headline == PROFILE.experience[0].title


def test_matched_skills_come_first_in_profile_order() -> None:
    resume = tailor_offline(PROFILE, _report(), TITLE, "Acme Logistics")
    first = resume.skills[:4]
    assert first == ["Python", "Kubernetes", "AWS", "Airflow"]
    assert resume.skills.index("Redis") > resume.skills.index("Kafka")


def test_only_the_weakest_bullets_beyond_five_per_role_are_dropped() -> None:
    data = PROFILE.model_dump()
    extra = [f"Organised the office book club number {n}." for n in range(1, 4)]
    data["experience"][0]["bullets"] = extra + data["experience"][0]["bullets"]
    profile = Profile(**data)
    resume = tailor_offline(profile, _report(profile), TITLE, "Acme Logistics")
    kept = resume.experience[0].bullets
    assert len(kept) == 5
    assert not any("book club" in b for b in kept)
    assert len(resume.experience[2].bullets) == 1
    assert check_resume(resume, profile) == []


def test_tailoring_without_a_report_match_keeps_profile_order() -> None:
    report = score_offline(TITLE, "Requirements\n\n- Fluent Japanese.\n", PROFILE, today=TODAY)
    resume = tailor_offline(PROFILE, report, TITLE, None)
    assert [e.bullets for e in resume.experience] == [e.bullets for e in PROFILE.experience]
    assert resume.skills == PROFILE.skills


def test_cover_letter_is_addressed_short_and_backed_by_profile_evidence() -> None:
    report = _report()
    letter = cover_offline(PROFILE, report, TITLE, "Acme Logistics")
    assert letter.greeting == "Dear Hiring Team at Acme Logistics,"
    assert letter.company == "Acme Logistics" and letter.role == TITLE
    assert letter.signature == PROFILE.name
    assert 3 <= len(letter.paragraphs) <= 4
    assert letter.word_count() <= 350
    text = " ".join(letter.paragraphs)
    assert "12 million carrier updates" in text  # the Kafka requirement's evidence
    assert "900 ms to 180 ms" in text
    assert numbers_in(text) <= _all_profile_numbers(PROFILE)


def test_cover_letter_names_a_missing_must_have_honestly() -> None:
    letter = cover_offline(PROFILE, _report(), TITLE, "Acme Logistics")
    assert any("have not yet worked with Go" in p for p in letter.paragraphs)


def test_cover_letter_respects_max_words_by_trimming_evidence_first() -> None:
    full = cover_offline(PROFILE, _report(), TITLE, "Acme Logistics")
    short = cover_offline(PROFILE, _report(), TITLE, "Acme Logistics", max_words=90)
    assert short.word_count() <= 90 < full.word_count()
    assert short.paragraphs[0] == full.paragraphs[0]
    assert short.paragraphs[-1] == full.paragraphs[-1]
    evidence = short.paragraphs[1]
    assert evidence in full.paragraphs[1] and len(evidence) < len(full.paragraphs[1])
    tiny = cover_offline(PROFILE, _report(), TITLE, "Acme Logistics", max_words=25)
    assert tiny.word_count() <= 25


def test_unknown_company_gets_a_generic_greeting() -> None:
    letter = cover_offline(PROFILE, _report(), TITLE, None)
    assert letter.greeting == "Dear Hiring Team,"
    assert letter.company == ""
    assert "your team" in letter.paragraphs[-1]


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
    assert "Most recently I worked as an Analyst at Fenwick Data." in letter.paragraphs[0]
    assert "I built SQL reports for 3 regional teams." in " ".join(letter.paragraphs)
    assert numbers_in(" ".join(letter.paragraphs)) <= _all_profile_numbers(profile)


def test_materials_are_deterministic() -> None:
    report = _report()
    assert tailor_offline(PROFILE, report, TITLE, "Acme") == tailor_offline(
        PROFILE, report, TITLE, "Acme"
    )
    assert cover_offline(PROFILE, report, TITLE, "Acme") == cover_offline(
        PROFILE, report, TITLE, "Acme"
    )

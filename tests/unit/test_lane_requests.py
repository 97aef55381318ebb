"""What the model lanes send and answer (issue 31): the profile once, as its facts; the
posting without its boilerplate; the job's own text last; answers that cite fact ids and
leave to code what code knows."""

from __future__ import annotations

import re
from datetime import date

import pytest

from jobctrl.demo.profile import DEMO_PROFILE
from jobctrl.domain.facts import profile_facts
from jobctrl.domain.fit_verdict import FitRules, settle_model_report
from jobctrl.domain.profile import Profile
from jobctrl.domain.scoring import ScoreReport
from jobctrl.llm import prompts
from jobctrl.llm.answers import (
    LetterAnswer,
    ResumeAnswer,
    ScoreAnswer,
    answer_from_letter,
    answer_from_report,
    answer_from_resume,
    to_letter,
    to_report,
    to_resume,
)
from jobctrl.llm.offline import score_offline
from jobctrl.llm.offline_materials import cover_offline, tailor_offline
from jobctrl.llm.requirements import extract_requirements, trim_boilerplate
from tests.fixtures.fit.corpus import load_postings

PROFILE = Profile.model_validate(DEMO_PROFILE)
FACTS = {f.id: f for f in profile_facts(PROFILE)}
TODAY = date(2026, 12, 1)
POSTING = (
    "About us\n\nWe move freight.\n\nRequirements\n\n- 5+ years of Python\n- PostgreSQL\n\n"
    "Benefits\n\n- Unlimited PTO\n- 401k matching\n\n"
    "Acme is an equal opportunity employer and does not discriminate regardless of race.\n"
)


def _request(lane: str, **more: object) -> prompts.LaneRequest:
    report = score_offline("Backend Engineer", POSTING, PROFILE, today=TODAY)
    return prompts.lane_request(
        lane, title="Backend Engineer", company="Acme", description=POSTING, profile=PROFILE,
        report=report, **more,  # type: ignore[arg-type]
    )  # fmt: skip


def test_the_profile_goes_once_as_its_facts_before_the_job() -> None:
    for lane in ("score", "tailor", "cover"):
        prompt = _request(lane).prompt
        assert prompts.facts_listing(PROFILE) in prompt
        assert '"experience"' not in prompt and PROFILE.contact.email not in prompt
        assert prompt.index(prompts.facts_listing(PROFILE)) < prompt.index("Backend Engineer")
        assert prompt.count(PROFILE.experience[0].bullets[0]) == 1  # quoted once, as a fact


def test_requests_for_two_jobs_share_their_leading_text() -> None:
    one = prompts.lane_request(
        "score", title="Backend Engineer", company="Acme", description=POSTING, profile=PROFILE
    )
    two = prompts.lane_request(
        "score", title="Data Engineer", company="Zeta", description="Requirements\n- SQL",
        profile=PROFILE,
    )  # fmt: skip
    assert one.system == two.system
    shared = len(prompts.facts_listing(PROFILE))
    assert one.prompt[: shared + 20] == two.prompt[: shared + 20]


def test_the_posting_loses_its_boilerplate_never_a_requirement() -> None:
    trimmed = trim_boilerplate(POSTING)
    assert "Unlimited PTO" not in trimmed and "equal opportunity" not in trimmed
    assert "5+ years of Python" in trimmed and "We move freight" not in trimmed
    assert "Unlimited PTO" not in _request("score").prompt


@pytest.mark.parametrize("key", sorted(load_postings()))
def test_trimming_a_real_posting_keeps_every_requirement(key: str) -> None:
    description = load_postings()[key].description
    assert extract_requirements(trim_boilerplate(description)) == extract_requirements(description)


def test_answers_ask_for_nothing_code_fills_in() -> None:
    asked = {
        "score": set(ScoreAnswer.model_json_schema()["properties"]),
        "tailor": set(ResumeAnswer.model_json_schema()["properties"]),
        "cover": set(LetterAnswer.model_json_schema()["properties"]),
    }
    for fields in asked.values():
        assert not fields & {"provider", "model", "verdict", "name", "contact", "signature"}
    requirement = ScoreAnswer.model_json_schema()["$defs"]["RequirementAnswer"]["properties"]
    assert "facts" in requirement and "evidence" not in requirement
    entry = ResumeAnswer.model_json_schema()["$defs"]["EntryAnswer"]["properties"]
    assert set(entry) == {"fact", "bullets"}  # title, employer, dates from the profile


def test_a_score_answer_cites_facts_and_code_makes_the_report() -> None:
    skill = next(f for f in FACTS.values() if f.kind == "skill" and f.text == "Python")
    answer = ScoreAnswer(
        score=90,
        summary="Fits.",
        requirements=[
            {"requirement": "Python", "matched": True, "facts": [skill.id]},
            {"requirement": "Rust", "matched": True, "facts": ["sk-0000000000"]},
        ],
    )
    report = to_report(answer, PROFILE, provider="openai", model="gpt-test")
    assert report.requirements[0].evidence[0].text == "Python"
    assert report.requirements[1].evidence == []  # an id the profile does not have
    settled = settle_model_report(
        report, FitRules(), title="Backend Engineer", description=POSTING, profile=PROFILE,
        today=TODAY,
    )  # fmt: skip
    assert "missing must-have: rust" in settled.verdict.lower()  # unproven, unmet


def test_a_resume_answer_gets_its_entries_and_contact_from_the_profile() -> None:
    report = score_offline("Backend Engineer", POSTING, PROFILE, today=TODAY)
    written = tailor_offline(PROFILE, report, "Backend Engineer", "Acme")
    rebuilt = to_resume(answer_from_resume(written), PROFILE)
    assert rebuilt == written
    assert rebuilt.name == PROFILE.name and rebuilt.contact == PROFILE.contact


def test_a_letter_answer_gets_its_greeting_and_signature_by_code() -> None:
    report = score_offline("Backend Engineer", POSTING, PROFILE, today=TODAY)
    written = cover_offline(PROFILE, report, "Backend Engineer", "Acme")
    rebuilt = to_letter(
        answer_from_letter(written), PROFILE, company="Acme", role="Backend Engineer"
    )
    assert rebuilt.greeting == written.greeting and rebuilt.signature == PROFILE.name
    assert rebuilt.paragraphs == written.paragraphs


def test_a_score_answer_round_trips_through_the_report() -> None:
    report = score_offline("Backend Engineer", POSTING, PROFILE, today=TODAY)
    answer = answer_from_report(report, PROFILE)
    assert [r.requirement for r in answer.requirements] == [
        r.requirement for r in report.requirements
    ]
    cited = [i for r in answer.requirements for i in r.facts]
    assert cited and set(cited) <= set(FACTS)  # the offline evidence as fact ids
    rebuilt = to_report(answer, PROFILE, provider="openai", model="m")
    assert [bool(r.evidence) for r in rebuilt.requirements] == [
        bool(r.evidence) for r in report.requirements
    ]


HR_POSTING = """Requirements

- Experience with affirmative action plans and EEO-1 reports
- Knowledge of E-Verify and I-9 processes
- Familiarity with privacy policy work and GDPR
- Handling reasonable accommodation requests

Benefits

- Unlimited PTO

Acme is an equal opportunity employer regardless of race or gender.
"""


def test_an_hr_posting_keeps_its_requirements_that_sound_like_boilerplate() -> None:
    trimmed = trim_boilerplate(HR_POSTING)
    assert extract_requirements(trimmed) == extract_requirements(HR_POSTING)
    assert len(extract_requirements(trimmed)) == 4
    assert "EEO-1 reports" in trimmed and "Unlimited PTO" not in trimmed
    assert "equal opportunity employer" not in trimmed


def _settled(*requirements: dict[str, object]) -> ScoreReport:
    answer = ScoreAnswer(requirements=list(requirements), score=95)  # type: ignore[arg-type]
    report = to_report(answer, PROFILE, provider="openai", model="gpt-test")
    return settle_model_report(
        report, FitRules(), title="Backend Engineer", description=POSTING, profile=PROFILE,
        today=TODAY,
    )  # fmt: skip


def _fact(kind: str, starts: str) -> str:
    return next(f.id for f in FACTS.values() if f.kind == kind and f.text.startswith(starts))


@pytest.mark.parametrize(
    ("requirement", "kind", "starts"),
    [
        ("5+ years of Go", "experience", "Software Engineer"),  # a role is not Go
        ("5+ years as an engineering manager", "experience", "Senior Backend"),
        ("Managing engineers, including hiring", "highlight", "Mentored"),  # not managing
        ("Experience with a Snowflake data warehouse", "highlight", "Wrote Airflow"),
        ("Experience with Kubernetes", "skill", "Python"),  # a fact about something else
    ],
)
def test_a_cited_fact_must_show_the_requirement(requirement: str, kind: str, starts: str) -> None:
    cited = {"requirement": requirement, "matched": True, "facts": [_fact(kind, starts)]}
    settled = _settled(cited)
    assert not settled.requirements[0].matched, requirement


def test_a_cited_fact_that_shows_the_requirement_keeps_it_met() -> None:
    settled = _settled(
        {"requirement": "Strong SQL", "matched": True, "facts": [_fact("skill", "PostgreSQL")]},
        {"requirement": "3+ years of experience", "matched": True,
         "facts": [_fact("experience", "Senior Backend")]},
        {"requirement": "A degree in computer science", "matched": True,
         "facts": [_fact("education", "BSc")]},
    )  # fmt: skip
    assert [r.matched for r in settled.requirements] == [True, True, True]


def test_a_model_cannot_call_a_skill_soft_or_give_no_requirements() -> None:
    relabelled = {"requirement": "Experience with Rust", "matched": True, "soft": True}
    settled = _settled(relabelled)
    assert not settled.requirements[0].soft and not settled.requirements[0].matched
    assert settled.score < 50 and "missing must-have" in settled.verdict
    assert _settled().score == 0  # a number with no requirement behind it


def test_a_letter_that_must_not_name_gaps_is_not_told_them() -> None:
    gap_posting = POSTING.replace("- PostgreSQL", "- PostgreSQL\n- Experience with Rust")
    report = score_offline("Backend Engineer", gap_posting, PROFILE, today=TODAY)
    assert any(not r.matched for r in report.requirements)

    def cover(gaps: bool) -> str:
        return prompts.lane_request(
            "cover", title="Backend Engineer", company="Acme", description=gap_posting,
            profile=PROFILE, report=report, mention_gaps=gaps,
        ).prompt  # fmt: skip

    assert "Rust" not in cover(False) and "not shown" not in cover(False)
    assert "Experience with Rust: not shown" in cover(True)
    tailor = _request("tailor").prompt
    assert "met (" in tailor


def test_offline_evidence_is_cited_by_the_facts_it_is() -> None:
    report = score_offline("Backend Engineer", POSTING, PROFILE, today=TODAY)
    listing = prompts.report_listing(report, PROFILE)
    assert "experience[" not in listing and "skills[" not in listing
    cited = {i for line in listing.splitlines() for i in re.findall(r"[a-z]+-[0-9a-f]{10}", line)}
    assert cited and cited <= set(FACTS)  # ids the fact listing holds


def test_the_score_summary_is_written_by_code_not_asked_of_the_model() -> None:
    assert "summary" not in ScoreAnswer.model_json_schema()["properties"]
    profile = Profile.model_validate(DEMO_PROFILE)
    python = next(f.id for f in profile_facts(profile) if f.kind == "skill")
    answer = ScoreAnswer.model_validate(
        {
            "score": 70,
            "requirements": [
                {"requirement": "Python", "kind": "must", "matched": True, "facts": [python]},
                {"requirement": "Go", "kind": "must", "matched": False},
                {"requirement": "Terraform", "kind": "nice", "matched": False},
            ],
        }
    )

    def settled(answer: ScoreAnswer) -> ScoreReport:
        report = to_report(answer, profile, provider="openai", model="m")
        return settle_model_report(
            report, FitRules(), title="Engineer", description="", profile=profile,
            today=date(2026, 12, 1),
        )  # fmt: skip

    assert settled(answer).summary == (
        "Meets 1 of 3 requirements (1 of 2 must-haves); missing: Go; Terraform."
    )
    # Written from what stands once the evidence is checked: a "met" the cited fact does
    # not show is unmet in the summary too, never "Meets 2".
    claimed = answer.model_copy(deep=True)
    claimed.requirements[1].matched, claimed.requirements[1].facts = True, [python]
    assert settled(claimed).summary.startswith("Meets 1 of 3 requirements")
    # An answer stored with the model's own sentence (before this change) keeps it.
    old = answer.model_copy(update={"summary": "A good match."})
    assert settled(old).summary == "A good match."

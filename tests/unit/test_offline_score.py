"""The offline scorer: requirement extraction, evidence, years, degrees, determinism."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from jobctrl.demo.profile import DEMO_PROFILE
from jobctrl.demo.site import demo_pages
from jobctrl.domain.profile import Education, Experience, Profile
from jobctrl.domain.scoring import ScoreReport
from jobctrl.fetch.extract import extract_posting
from jobctrl.llm.offline import extract_requirements, score_offline, verdict_for

TODAY = date(2025, 6, 1)

POSTING = """Acme builds logistics software.

What you'll do

- Build APIs for our customers.
- Own services in production.

Requirements

- 4+ years of experience building backend services.
- Strong Python and SQL.
- Experience with Kubernetes (k8s) and Docker.
- Experience with AWS; Terraform preferred.
- BSc in Computer Science or a related field.

Nice to have

- Golang experience.
- Experience with Kafka.

Benefits

- 30 days of holiday.
"""


def _profile(**overrides: Any) -> Profile:
    base: dict[str, Any] = {
        "name": "Sam Example",
        "summary": "Backend engineer who likes reliable systems.",
        "skills": ["Python", "PostgreSQL", "Docker", "Kubernetes", "AWS", "Go"],
        "experience": [
            Experience(
                title="Backend Engineer",
                company="Cargo Co",
                start="2019-01",
                end="present",
                bullets=[
                    "Built Python services on AWS Lambda and EC2.",
                    "Ran 30 services on Kubernetes with Docker images built in CI.",
                    "Wrote PostgreSQL migrations and tuned slow queries.",
                ],
            )
        ],
        "education": [Education(institution="Uni Leeds", degree="BSc", field="Computer Science")],
    }
    base.update(overrides)
    return Profile(**base)


def _resolve(profile: Profile, ref: str) -> str:
    """Follow an evidence ref like "experience[0].bullets[2]" into the profile."""
    value: Any = profile
    for name, index in re.findall(r"(\w+)(?:\[(\d+)\])?", ref):
        value = getattr(value, name)
        if index:
            value = value[int(index)]
    if isinstance(value, Education):
        return ", ".join(p for p in (value.degree, value.field, value.institution) if p)
    if isinstance(value, Experience):
        return f"{value.title}, {value.start} – {value.end or 'present'}"
    return str(value)


def _fit(report: ScoreReport, needle: str) -> Any:
    return next(r for r in report.requirements if needle in r.requirement)


def test_requirements_come_from_sections_with_kinds_and_skip_other_sections() -> None:
    items = extract_requirements(POSTING)
    assert items == [
        ("4+ years of experience building backend services.", "must"),
        ("Strong Python and SQL.", "must"),
        ("Experience with Kubernetes (k8s) and Docker.", "must"),
        ("Experience with AWS; Terraform preferred.", "nice"),
        ("BSc in Computer Science or a related field.", "must"),
        ("Golang experience.", "nice"),
        ("Experience with Kafka.", "nice"),
    ]


def test_requirement_headings_are_recognised_in_many_wordings() -> None:
    text = (
        "About you:\n- Curious.\n\nWhat you'll bring\n- SQL\n\nBonus points\n- Rust\n\n"
        "Preferred qualifications\n- Go\n\nPerks\n- Free lunch"
    )
    assert extract_requirements(text) == [
        ("Curious.", "must"),
        ("SQL", "must"),
        ("Rust", "nice"),
        ("Go", "nice"),
    ]


def test_without_sections_bullets_anywhere_then_cue_sentences() -> None:
    bullets = "We are hiring.\n- Python experience.\n- Docker, a plus."
    assert extract_requirements(bullets) == [
        ("Python experience.", "must"),
        ("Docker, a plus.", "nice"),
    ]
    prose = (
        "We sell shoes. You have 3 years of experience with React. "
        "Knowledge of GraphQL is nice to have. We have a dog."
    )
    assert extract_requirements(prose) == [
        ("You have 3 years of experience with React.", "must"),
        ("Knowledge of GraphQL is nice to have.", "nice"),
    ]


def test_requirements_are_deduped_and_capped() -> None:
    lines = "\n".join(f"- Skill number {i}." for i in range(40))
    items = extract_requirements(f"Requirements\n{lines}\n- Skill number 1")
    assert len(items) == 25
    assert items[0] == ("Skill number 0.", "must")
    assert len({text for text, _ in items}) == 25


def test_matching_profile_scores_higher_than_non_matching_one() -> None:
    good = score_offline("Backend Engineer", POSTING, _profile(), today=TODAY)
    designer = _profile(
        skills=["Figma", "User research"],
        experience=[
            Experience(
                title="Product Designer",
                company="Studio",
                start="2023-01",
                bullets=["Ran design sprints."],
            )
        ],
        education=[Education(institution="Art School", degree="BA", field="Illustration")],
    )
    bad = score_offline("Backend Engineer", POSTING, designer, today=TODAY)
    assert good.score > bad.score
    assert good.score >= 75 and good.verdict == "Strong fit"
    assert bad.verdict.startswith("Weak fit: missing 3 must-haves, including 4+ years")
    assert (good.provider, good.model) == ("offline", "offline-extractive-v1")
    assert bad.summary.startswith("Meets ") and "missing:" in bad.summary


def test_evidence_quotes_real_profile_text_by_ref() -> None:
    profile = _profile()
    report = score_offline(None, POSTING, profile, today=TODAY)
    evidence = [e for r in report.requirements for e in r.evidence]
    assert evidence
    for item in evidence:
        assert item.text and item.text in _resolve(profile, item.ref)
    k8s = _fit(report, "Kubernetes")
    assert k8s.matched and k8s.matched_terms == ["Kubernetes", "Docker"]
    assert k8s.evidence[0].ref == "experience[0].bullets[1]"
    sql = _fit(report, "Python and SQL")  # SQL is shown by PostgreSQL
    assert "SQL" in sql.matched_terms
    assert any("PostgreSQL" in e.text for e in sql.evidence)


def test_aliases_golang_and_case_sensitive_go() -> None:
    report = score_offline(None, POSTING, _profile(), today=TODAY)
    assert _fit(report, "Golang").matched_terms == ["Go"]
    no_go = "Requirements\n- A go-to-market mindset and curiosity about buyers."
    fit = score_offline(None, no_go, _profile(), today=TODAY).requirements[0]
    assert "Go" not in fit.matched_terms


def test_years_requirement_uses_experience_span() -> None:
    text = "Requirements\n- 5+ years of professional experience.\n- 10+ years in industry."
    profile = _profile()  # 2019-01 up to and including 2025-06: 78 months
    report = score_offline(None, text, profile, today=TODAY)
    five, ten = report.requirements
    assert five.matched and five.matched_terms == ["5+ years"]
    assert five.evidence[0].ref == "experience[0]"
    assert not ten.matched
    assert "10+ years (profile shows 6.5)" in report.summary
    earlier = score_offline(None, text, profile, today=date(2021, 1, 1)).requirements[0]
    assert not earlier.matched


def test_overlapping_jobs_are_not_double_counted() -> None:
    jobs = [
        Experience(title="A", company="X", start="2020", end="2022-12"),
        Experience(title="B", company="Y", start="2021-06", end="2022-06"),
    ]
    text = "Requirements\n- 3+ years of experience.\n- 4+ years of experience in total."
    report = score_offline(None, text, _profile(experience=jobs), today=TODAY)
    assert [r.matched for r in report.requirements] == [True, False]


def test_degree_requirements_compare_levels_and_accept_equivalent_experience() -> None:
    text = (
        "Requirements\n- BSc in Computer Science.\n- Master's degree in statistics.\n"
        "- A degree or equivalent practical experience."
    )
    report = score_offline(None, text, _profile(), today=TODAY)
    bsc, msc, either = report.requirements
    assert bsc.matched and bsc.evidence[0].ref == "education[0]"
    assert not msc.matched and "master's degree" in report.summary
    assert either.matched
    no_degree = score_offline(None, text, _profile(education=[]), today=TODAY)
    assert [r.matched for r in no_degree.requirements] == [False, False, True]
    assert no_degree.requirements[2].matched_terms == ["equivalent experience"]


def test_requirement_without_known_terms_matches_by_word_overlap() -> None:
    text = "Requirements\n- Comfortable tuning slow queries and writing migrations."
    fit = score_offline(None, text, _profile(), today=TODAY).requirements[0]
    assert fit.matched
    assert fit.evidence[0].ref == "experience[0].bullets[2]"
    unrelated = "Requirements\n- Fluent in maritime navigation charts."
    assert not score_offline(None, unrelated, _profile(), today=TODAY).requirements[0].matched


def test_profile_skills_outside_the_vocabulary_are_terms() -> None:
    text = "Requirements\n- Experience with Temporal workflows."
    profile = _profile(skills=["Temporal"])
    fit = score_offline(None, text, profile, today=TODAY).requirements[0]
    assert fit.matched and fit.matched_terms == ["Temporal"]
    assert fit.evidence[0].ref == "skills[0]"


def test_alternatives_need_one_specific_term() -> None:
    text = "Requirements\n- Hands-on with Java or Kotlin backend services.\n- Python or Go."
    report = score_offline(None, text, _profile(), today=TODAY)
    java, python = report.requirements
    assert not java.matched  # "backend" alone is too broad to meet it
    assert python.matched


def test_same_input_gives_same_report() -> None:
    profile = Profile.model_validate(DEMO_PROFILE)
    first = score_offline("Data Engineer", POSTING, profile, today=TODAY)
    second = score_offline("Data Engineer", POSTING, profile, today=TODAY)
    assert first.model_dump() == second.model_dump()


def test_empty_description_scores_low_with_honest_summary() -> None:
    report = score_offline("Anything", "", _profile(), today=TODAY)
    assert (report.score, report.verdict, report.requirements) == (0, "Weak fit", [])
    assert "no description" in report.summary


def test_no_requirement_list_scores_by_vocabulary_overlap() -> None:
    text = "We run Python and Kubernetes on AWS, plus a little Elixir and Rust. Come say hi!"
    report = score_offline(None, text, _profile(), today=TODAY)
    assert report.requirements == []
    assert "vocabulary overlap" in report.summary and "missing: Rust" in report.summary
    assert report.score == round(80 * 3 / 4)


def test_verdict_thresholds() -> None:
    assert [verdict_for(s) for s in (100, 75, 74, 55, 54, 35, 34, 0)] == [
        "Strong fit", "Strong fit", "Good fit", "Good fit",
        "Partial fit", "Partial fit", "Weak fit", "Weak fit",
    ]  # fmt: skip


def test_demo_profile_gives_a_spread_over_demo_postings() -> None:
    profile = Profile.model_validate(DEMO_PROFILE)
    scores = {}
    for path, body in demo_pages().items():
        posting = extract_posting(body, "http://127.0.0.1" + path)
        scores[path] = score_offline(posting.title, posting.description, profile, today=TODAY)
    by_name = {p.split("/")[-1].split("-")[0]: r.score for p, r in scores.items()}
    verdicts = {p.split("/")[-1].split("-")[0]: r.verdict for p, r in scores.items()}
    assert by_name["harborline"] >= 75
    # Fernbank's must-haves ask for 3+ years as a data engineer, Spark and dbt, which the
    # demo backend engineer lacks: it stays below min_fit_score (issue 29) and the verdict
    # names what is missing.
    assert 35 <= by_name["fernbank"] < 50
    assert "3+ years of experience as a data engineer" in verdicts["fernbank"]
    assert by_name["tallow"] < 35 and by_name["meridian"] < 35
    assert all(0 <= s <= 100 for s in by_name.values())


def test_plain_text_lines_under_a_heading_are_items() -> None:
    text = "Intro.\n\nRequirements:\nPython experience\nSQL knowledge\n\nBenefits:\nFree lunch\n"
    assert extract_requirements(text) == [("Python experience", "must"), ("SQL knowledge", "must")]

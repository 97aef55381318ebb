"""Level and job family weigh in beside the requirement list (issue 29)."""

from __future__ import annotations

from datetime import date

import pytest

from jobctrl.demo.profile import DEMO_PROFILE
from jobctrl.domain.fit_factors import fit_factors, level_of_title, profile_years
from jobctrl.domain.job_family import family_of
from jobctrl.domain.profile import Experience, Profile
from jobctrl.llm.offline import score_offline

TODAY = date(2025, 6, 1)
DEMO = Profile.model_validate(DEMO_PROFILE)  # a backend engineer, nine years

BACKEND = """Harbor Freight Tech builds shipment tracking for European carriers.

What you'll do
- Design and build Python services and REST APIs used by 300 carriers.
- Own your services in production, including on-call.

Requirements
- Strong Python and SQL.
- Experience with PostgreSQL.
- Experience running services on AWS with Docker.
- Experience with Kafka or another event streaming platform.
"""

JUNIOR_PM = """Fernway is hiring a Junior Product Manager for its carrier app.

What you'll do
- Work with engineers and designers to ship features every two weeks.
- Talk to carriers every week and turn what you learn into a roadmap.

Requirements
- Experience working with engineers and product managers.
- Comfortable with SQL to answer your own questions.
- Clear written communication.
"""


def _score(title: str, description: str = BACKEND, profile: Profile = DEMO) -> int:
    return score_offline(title, description, profile, today=TODAY).score


@pytest.mark.parametrize(
    ("title", "level"),
    [
        ("Software Engineering Intern", 0),
        ("Junior Backend Engineer", 1),
        ("Software Engineer I – Ruby on Rails", 1),
        ("Backend Engineer", None),
        ("Software Engineer II", 2),
        ("Senior Backend Engineer (Python)", 3),
        ("Staff Software Engineer, Compute", 4),
        ("Principal Software Engineer", 5),
        ("Engineering Manager, Payouts", 4),
        ("Senior Engineering Manager", 5),
        ("Director of Engineering", 6),
        ("Vice President, Software Engineering", 7),
        ("Chief Technology Officer", 8),
        ("Chief of Staff, Security", 4),  # a role, not the C-suite
        ("Junior Product Manager", 1),  # a product manager is no people-manager level
    ],
)
def test_levels_are_read_from_titles(title: str, level: int | None) -> None:
    assert level_of_title(title) == level


@pytest.mark.parametrize(
    ("title", "family"),
    [
        ("Senior Backend Engineer", "engineering"),
        ("Data Engineer", "data"),
        ("Machine Learning Engineer - NLP", "ml"),
        ("Junior Product Manager", "product"),
        ("Senior Technical Program Manager", "program"),
        ("Senior Product Designer", "design"),
        ("Software Engineering Manager", "management"),
        ("Vice President, Software Engineering", "management"),
        ("Account Development Representative - DACH", "sales"),
        ("Developer Marketing Manager", "marketing"),
        ("Tech Support Engineer", "support"),
        ("Registered Nurse – Critical Care (ICU)", "healthcare"),
        ("Senior Software Engineer (Full-Stack), Growth Product", "engineering"),
    ],
)
def test_families_are_read_from_titles(title: str, family: str) -> None:
    assert family_of(title) == family


def test_overlapping_roles_are_not_counted_twice() -> None:
    profile = DEMO.model_copy(
        update={
            "experience": [
                Experience(title="Engineer", company="A", start="2015-01", end="2020-12"),
                Experience(title="Advisor", company="B", start="2018-01", end="2019-12"),
            ]
        }
    )
    assert profile_years(profile, TODAY) == 6.0
    assert round(profile_years(DEMO, TODAY)) == 9


def test_junior_and_staff_roles_score_below_the_senior_one_with_the_reason() -> None:
    junior, senior, staff = (
        _score(f"{level} Backend Engineer") for level in ("Junior", "Senior", "Staff")
    )
    assert junior < senior and staff < senior
    assert junior < staff  # two levels away costs more than one
    report = score_offline("Junior Backend Engineer", BACKEND, DEMO, today=TODAY)
    assert "posting is junior; you have 9 years" in report.fit_summary
    assert report.verdict != "Strong fit"
    senior_report = score_offline("Senior Backend Engineer", BACKEND, DEMO, today=TODAY)
    assert senior_report.fit_summary == "meets 4/4 must-haves; level matches"


def test_a_level_from_years_when_the_title_names_none() -> None:
    asks_one_year = BACKEND.replace("- Strong Python", "- 1+ years of experience with Python")
    report = score_offline("Backend Engineer", asks_one_year, DEMO, today=TODAY)
    assert "posting is junior; you have 9 years" in report.fit_summary


def test_a_junior_engineer_is_told_the_posting_is_above_them() -> None:
    junior = DEMO.model_copy(
        update={
            "experience": [
                Experience(
                    title="Junior Developer",
                    company="Northgate",
                    start="2024-06",
                    end="present",
                    bullets=["Built Python services on AWS with Docker and PostgreSQL."],
                )
            ]
        }
    )
    report = score_offline("Principal Software Engineer", BACKEND, junior, today=TODAY)
    assert "posting is principal, 4 levels above you; you have 1 year" in report.fit_summary
    assert report.score < 50


def test_a_product_manager_role_is_not_a_good_fit_for_an_engineer() -> None:
    report = score_offline("Junior Product Manager", JUNIOR_PM, DEMO, today=TODAY)
    assert report.score < 35 and report.verdict.startswith("Weak fit")
    assert "a different field: posting is product management" in report.fit_summary
    assert "your roles are engineering" in report.fit_summary


def test_a_neighbouring_family_costs_a_little_and_is_said() -> None:
    data = _score("Data Engineer")
    backend = _score("Backend Engineer")
    # The factor's 10 points, and the role's share of the score counts a neighbour half.
    assert backend - 30 <= data < backend
    factors = fit_factors("Data Engineer", BACKEND, DEMO, TODAY, 90)
    assert [(f.kind, f.points) for f in factors] == [("family", 10)]
    assert factors[0].note == "a neighbouring field: posting is data, your roles are engineering"


def test_a_family_the_person_has_worked_in_matches() -> None:
    switched = DEMO.model_copy(
        update={
            "experience": [
                Experience(title="Engineering Manager", company="A", start="2022-01"),
                *DEMO.experience,
            ]
        }
    )
    notes = [f.note for f in fit_factors("Senior Backend Engineer", BACKEND, switched, TODAY, 90)]
    assert not any("field" in note for note in notes)


def test_the_highest_level_held_in_the_last_five_years_counts() -> None:
    staff_then_senior = DEMO.model_copy(
        update={
            "experience": [
                Experience(title="Senior Software Engineer", company="B", start="2024-01"),
                Experience(
                    title="Staff Software Engineer", company="A", start="2015-01", end="2023-12"
                ),
            ]
        }
    )
    notes = [f.note for f in fit_factors("Staff Backend Engineer", BACKEND, staff_then_senior,
                                         TODAY, 90)]  # fmt: skip
    assert notes == ["level matches"]
    junior = fit_factors("Junior Backend Engineer", BACKEND, staff_then_senior, TODAY, 90)
    assert junior[0].note == "posting is junior; you have 10 years"
    assert junior[0].points == 50  # three levels below


def test_a_management_role_is_another_field_for_someone_who_never_managed() -> None:
    manager_posting = "Engineering Manager, Payouts"
    never = fit_factors(manager_posting, BACKEND, DEMO, TODAY, 90)  # mentored, never managed
    family = next(f for f in never if f.kind == "family")
    assert family.note.startswith("a different field: posting is engineering management")
    assert family.points == 50
    lead = DEMO.model_copy(
        update={
            "experience": [
                Experience(
                    title="Senior Backend Engineer",
                    company="A",
                    start="2019-01",
                    bullets=["Hired and managed a team of 6 backend engineers."],
                )
            ]
        }
    )
    family = next(f for f in fit_factors(manager_posting, BACKEND, lead, TODAY, 90)
                  if f.kind == "family")  # fmt: skip
    assert family.note.startswith("a neighbouring field") and family.points == 10

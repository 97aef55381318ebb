"""The fabrication check: each invented fact is caught with its kind; rephrasing is allowed."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from jobctrl.demo.profile import DEMO_PROFILE
from jobctrl.domain.errors import TAILOR_FABRICATION
from jobctrl.domain.materials import Cited, TailoredEducation, TailoredExperience, TailoredResume
from jobctrl.domain.profile import Profile
from jobctrl.domain.truth import FabricationError, assert_truthful, check_resume, numbers_in

PROFILE = Profile(**DEMO_PROFILE)


def _resume() -> TailoredResume:
    """A resume that restates the profile exactly."""
    return TailoredResume(
        name=PROFILE.name,
        contact=PROFILE.contact,
        headline=PROFILE.experience[0].title,
        summary=PROFILE.summary,
        skills=list(PROFILE.skills),
        experience=[TailoredExperience(**e.model_dump()) for e in PROFILE.experience],
        education=[TailoredEducation(**e.model_dump()) for e in PROFILE.education],
    )


def _kinds(resume: TailoredResume) -> set[str]:
    return {v.kind for v in check_resume(resume, PROFILE)}


def test_a_resume_that_restates_the_profile_is_truthful() -> None:
    assert check_resume(_resume(), PROFILE) == []
    assert_truthful(_resume(), PROFILE)


def test_selecting_and_reordering_facts_is_truthful() -> None:
    resume = _resume()
    resume.experience = resume.experience[:2]
    resume.experience[0].bullets = resume.experience[0].bullets[::-1][:3]
    resume.skills = ["Kafka", "Python"]
    resume.education = []
    assert check_resume(resume, PROFILE) == []


def _bullet(text: str) -> Cited:
    return Cited(text=text, facts=[])


def _add_employer(r: TailoredResume) -> None:
    r.experience.append(
        TailoredExperience(fact="", title="Staff Engineer", company="Globex", start="2015")
    )


def _change_title(r: TailoredResume) -> None:
    r.experience[1].title = "Lead Software Engineer"


def _change_dates(r: TailoredResume) -> None:
    r.experience[1].start = "2016-09"


def _end_a_past_job_at_present(r: TailoredResume) -> None:
    r.experience[1].end = "present"


def _add_degree(r: TailoredResume) -> None:
    r.education.append(
        TailoredEducation(fact="", institution="University of Leeds", degree="MSc", field="AI")
    )


def _change_degree_dates(r: TailoredResume) -> None:
    r.education[0].end = "2015"


def _add_skill(r: TailoredResume) -> None:
    r.skills.append("Snowflake")


def _add_unknown_word_skill(r: TailoredResume) -> None:
    r.skills.append("Temporal")


def _change_a_number(r: TailoredResume) -> None:
    r.experience[0].bullets[1] = _bullet(
        r.experience[0].bullets[1].text.replace("40 services", "45 services")
    )


def _inflate_a_number_word(r: TailoredResume) -> None:
    r.experience[0].bullets[3] = _bullet(
        "Mentored ten engineers and ran the backend guild's design reviews."
    )


def _add_a_tool(r: TailoredResume) -> None:
    r.experience[0].bullets[2] = _bullet(
        "Built an event pipeline on Kafka and Snowflake that processes 12 million carrier "
        "updates a day."
    )


def _borrow_a_tool_from_another_employer(r: TailoredResume) -> None:
    # PHP is only in the Northgate bullets and not in the skills list.
    r.experience[0].bullets[0] = _bullet(
        r.experience[0].bullets[0].text + " Also maintained the PHP admin site."
    )


def _invent_a_bullet(r: TailoredResume) -> None:
    r.experience[1].bullets.append(
        _bullet("Negotiated vendor contracts and budgets for procurement.")
    )


def _rename(r: TailoredResume) -> None:
    r.name = "Priya R. Raman"


def _inflate_the_summary(r: TailoredResume) -> None:
    r.summary = [_bullet(r.summary_text().replace("nine years", "15 years"))]


def _claim_a_tool_in_the_summary(r: TailoredResume) -> None:
    r.summary.append(_bullet("Expert in Rust."))


FABRICATIONS: list[tuple[Callable[[TailoredResume], None], str]] = [
    (_add_employer, "unknown_employer"),
    (_change_title, "unknown_title"),
    (_change_dates, "changed_dates"),
    (_end_a_past_job_at_present, "changed_dates"),
    (_add_degree, "unknown_degree"),
    (_change_degree_dates, "changed_dates"),
    (_add_skill, "unknown_skill"),
    (_add_unknown_word_skill, "unknown_skill"),
    (_change_a_number, "invented_fact"),
    (_inflate_a_number_word, "invented_fact"),
    (_add_a_tool, "invented_fact"),
    (_borrow_a_tool_from_another_employer, "invented_fact"),
    (_invent_a_bullet, "invented_fact"),
    (_rename, "wrong_name"),
    (_inflate_the_summary, "invented_fact"),
    (_claim_a_tool_in_the_summary, "invented_fact"),
]


@pytest.mark.parametrize(
    ("fabricate", "kind"), FABRICATIONS, ids=[f.__name__.lstrip("_") for f, _ in FABRICATIONS]
)
def test_each_fabrication_is_reported_with_its_kind(
    fabricate: Callable[[TailoredResume], None], kind: str
) -> None:
    resume = _resume()
    fabricate(resume)
    assert _kinds(resume) == {kind}


def test_violation_details_name_the_offending_term() -> None:
    resume = _resume()
    _change_a_number(resume)
    _add_a_tool(resume)
    details = [v.detail for v in check_resume(resume, PROFILE)]
    assert details == [
        "experience[0].bullets[1]: number 45",
        "experience[0].bullets[2]: term Snowflake",
    ]


def test_case_and_whitespace_differences_are_not_fabrication() -> None:
    resume = _resume()
    resume.name = "  priya   raman "
    resume.experience[0].title = "senior  backend engineer"
    resume.experience[0].company = "LUMEN FREIGHT"
    resume.experience[0].end = ""  # "" and "present" both mean a current job
    resume.skills = ["python", "k8s", "GitHub Actions", "Docker"]
    assert check_resume(resume, PROFILE) == []


def test_skills_in_the_profile_text_or_by_alias_are_allowed() -> None:
    resume = _resume()
    resume.skills = ["EKS", "GitHub Actions", "contract tests", "JavaScript", "Postgres"]
    assert check_resume(resume, PROFILE) == []
    resume.skills = ["Java"]  # "JavaScript" does not support "Java": word boundaries
    assert _kinds(resume) == {"unknown_skill"}


def test_a_rephrased_bullet_with_the_same_facts_is_accepted() -> None:
    resume = _resume()
    resume.experience[0].bullets[0] = _bullet(
        "Cut p95 latency from 900 ms to 180 ms by leading the FastAPI redesign of the "
        "shipment-tracking API."
    )
    resume.experience[0].bullets[3] = _bullet(
        "Ran design reviews for the backend guild and mentored 4 engineers."
    )
    resume.experience[1].bullets[2] = _bullet(
        "Added Redis caching and tuned slow SQL queries, reducing dashboard load times by 70%."
    )
    assert check_resume(resume, PROFILE) == []


def test_a_bullet_merging_two_facts_of_one_role_is_accepted() -> None:
    resume = _resume()
    resume.experience[0].bullets = [
        _bullet(
            "Moved 40 services to Kubernetes on AWS and built a Kafka event pipeline that "
            "processes 12 million carrier updates a day."
        )
    ]
    assert check_resume(resume, PROFILE) == []


def test_assert_truthful_raises_a_non_retryable_coded_error_without_raw_text() -> None:
    resume = _resume()
    _add_employer(resume)
    _invent_a_bullet(resume)
    with pytest.raises(FabricationError) as caught:
        assert_truthful(resume, PROFILE)
    error = caught.value
    assert error.code == TAILOR_FABRICATION
    assert error.retryable is False
    assert "unknown_employer" in error.message and "invented_fact" in error.message
    assert "Negotiated" not in error.message and "Globex" not in error.message
    assert {v.kind for v in error.violations} == {"unknown_employer", "invented_fact"}


def test_numbers_are_normalised() -> None:
    assert numbers_in("1,000 users, 04 teams, four engineers, 1.5x, p95") == {
        "1000", "4", "1.5", "95",
    }  # fmt: skip
    assert numbers_in("one of the first engineers") == set()

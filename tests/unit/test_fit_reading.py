"""How the offline scorer reads a posting and weighs what it reads (issue 29): headings in
Markdown, nested lists, duties, traits and places, languages, years of a kind of work, and
a model's evidence checked against the profile."""

from __future__ import annotations

from datetime import date

from jobctrl.demo.profile import DEMO_PROFILE
from jobctrl.domain.fit_factors import fit_factors
from jobctrl.domain.fit_verdict import FitRules, fit_summary, settle, supported_by_profile
from jobctrl.domain.job_family import family_of
from jobctrl.domain.profile import Experience, Language, Profile
from jobctrl.domain.scoring import Evidence, RequirementFit, ScoreReport
from jobctrl.llm.offline import extract_requirements, score_offline

TODAY = date(2025, 6, 1)
DEMO = Profile.model_validate(DEMO_PROFILE)  # a backend engineer, nine years


def _engineer(bullets: list[str], **more: object) -> Profile:
    role = Experience(
        title="Backend Engineer",
        company="Cargo Co",
        start="2016-01",
        end="present",
        bullets=bullets,
    )
    return Profile.model_validate(
        {"name": "Sam Example", "experience": [role.model_dump()], **more}
    )


def _fit(requirement: str, profile: Profile) -> RequirementFit:
    report = score_offline(None, f"Requirements\n- {requirement}", profile, today=TODAY)
    return report.requirements[0]


def test_a_markdown_heading_with_an_aside_still_names_its_section() -> None:
    posting = (
        "### **What you bring:**\n\n* 5+ years of Python\n\n"
        "### **Our Benefits (there are more but here are some highlights):**\n\n"
        "* Unlimited PTO\n* 401k matching\n"
    )
    assert extract_requirements(posting) == [("5+ years of Python", "must")]


def test_a_nested_list_is_one_requirement_with_its_alternatives() -> None:
    posting = (
        "What we're looking for\n\n"
        "  * At least one major public cloud provider, e.g.\n\n"
        "    * AWS\n\n    * GCP\n\n    * Azure\n\n"
        "  * Linux\n"
    )
    found = extract_requirements(posting)
    assert [text for text, _ in found] == [
        "At least one major public cloud provider, e.g. AWS, GCP, Azure",
        "Linux",
    ]
    assert _fit(found[0][0], _engineer(["Ran services on GCP."])).matched


def test_duties_are_not_requirements_when_no_heading_names_them() -> None:
    posting = (
        "**What your impact will be**\n\n* Contribute to the Nexus architecture roadmap\n\n"
        "**What we look for in this role**\n\n* 8+ years as a software engineer\n"
    )
    assert extract_requirements(posting) == [("8+ years as a software engineer", "must")]
    only_duties = "**Your day-to-day**\n\n* Meet regularly with Product and Design\n"
    assert extract_requirements(only_duties) == []


def test_a_place_or_a_trait_is_soft_and_never_caps_the_score() -> None:
    profile = _engineer(["Built Python services."])
    for ask in ("Currently based in Poland", "Strong work ethic and EQ", "A self-starter"):
        fit = _fit(ask, profile)
        assert fit.soft, ask
    posting = "Requirements\n- Python\n- Currently based in Poland\n- Meticulous\n"
    report = score_offline("Backend Engineer", posting, profile, today=TODAY)
    assert report.score >= 50 and "missing" not in report.verdict


def test_english_is_shown_by_a_profile_written_in_it_other_languages_are_not() -> None:
    profile = _engineer(
        [
            "Built the billing service in Python and moved it to AWS for the whole team.",
            "Led the migration of the data platform to PostgreSQL with no downtime at all.",
        ]
    )
    assert _fit("Excellent proficiency in English", profile).matched
    assert not _fit("Fluent German", profile).matched
    german = profile.model_copy(update={"languages": [Language(language="German")]})
    assert _fit("Fluent German", german).matched


def test_excel_the_verb_is_not_the_spreadsheet() -> None:
    posting = "Requirements\n- Excel in the art of designing and testing applications\n"
    report = score_offline(None, posting, _engineer([]), today=TODAY)
    assert "Excel" not in report.summary  # not named missing
    with_excel = score_offline(None, posting, _engineer([], skills=["Excel"]), today=TODAY)
    assert "Excel" not in with_excel.requirements[0].matched_terms  # nor met by it


def test_years_of_a_kind_of_work_count_only_roles_of_that_kind() -> None:
    profile = _engineer(["Built trading APIs in Python."])
    fit = _fit("3+ years of experience in fintech", profile)
    assert not fit.matched  # nine years of career, none of them in fintech
    fintech = profile.model_copy(
        update={
            "experience": [
                Experience(
                    title="Backend Engineer",
                    company="Ledgerly",
                    start="2019-01",
                    end="present",
                    bullets=["Built payment rails for a fintech lender."],
                )
            ]
        }
    )
    assert _fit("3+ years of experience in fintech", fintech).matched
    # A career of nine years with one year of payments work is not three years of fintech.
    one_year = profile.model_copy(
        update={
            "experience": [
                *profile.experience,
                Experience(title="Engineer", company="Paid", start="2015-01", end="2015-12",
                           bullets=["Built the payments ledger."]),
            ]
        }
    )  # fmt: skip
    short = _fit("3+ years of experience in fintech", one_year)
    assert not short.matched
    nice = "Requirements\n- Python\n\nNice to have\n- 2+ years in fintech\n"
    report = score_offline(None, nice, profile, today=TODAY)
    assert [r.kind for r in report.requirements] == ["must", "nice"]
    # Years with a skill are the skill's check and the career's years.
    assert _fit("5+ years of experience with Python", profile).matched


def test_a_soft_word_never_fails_a_hard_requirement() -> None:
    profile = _engineer(["Built web applications in Django since 2016."])
    ask = "3+ years of crafting web applications within an agile framework such as Scrum."
    assert _fit(ask, profile).matched  # no "agile" on the profile: not what decides it


def test_relational_databases_and_distributed_systems_are_met_by_their_instances() -> None:
    assert _fit("Proficiency with relational databases.", _engineer(["Ran PostgreSQL."])).matched
    built = _engineer(["Split the monolith into 12 microservices."])
    assert _fit("Experience with large-scale distributed systems.", built).matched


def test_program_management_is_its_own_family_and_a_neighbour_of_engineering() -> None:
    assert family_of("Senior Technical Program Manager") == "program"
    assert family_of("Senior Product Manager") == "product"
    factors = fit_factors("Technical Program Manager", "", DEMO, TODAY, 80)
    assert [f.note for f in factors if f.kind == "family"] == [
        "a neighbouring field: posting is program/project management, your roles are engineering"
    ]


def test_far_fewer_years_than_asked_is_said_and_costs_two_levels() -> None:
    junior = _engineer([]).model_copy(
        update={
            "experience": [
                Experience(title="Software Engineer", company="A", start="2021-06", end="present")
            ]
        }
    )
    posting = "Requirements\n- 8+ years of experience building backend systems\n"
    factors = fit_factors("Senior Backend Engineer", posting, junior, TODAY, 80)
    level = next(f for f in factors if f.kind == "level")
    assert level.note == "posting asks 8+ years; you have 4 years" and level.points >= 30


def test_the_summary_counts_hard_must_haves_only() -> None:
    report = ScoreReport(
        score=90,
        verdict="Strong fit",
        provider="openai",
        model="m",
        requirements=[
            RequirementFit(requirement="Python.", matched=True),
            RequirementFit(requirement="Strong communication.", matched=False, soft=True),
        ],
    )
    assert fit_summary(report) == "meets 1/1 must-haves"


def _claim(evidence: str) -> ScoreReport:
    return ScoreReport(
        score=95,
        verdict="Strong fit",
        provider="openai",
        model="m",
        requirements=[
            RequirementFit(
                requirement="Experience with Kafka.",
                matched=True,
                matched_terms=["Kafka"],
                evidence=[Evidence(source="experience", text=evidence)],
            )
        ],
    )


def test_a_model_claim_on_evidence_the_profile_lacks_is_corrected_to_unmet() -> None:
    profile = _engineer(["Ran Kafka clusters for the order pipeline at 40k events/s."])
    invented = supported_by_profile(_claim("Experience with Kafka."), profile)
    assert not invented.requirements[0].matched and invented.requirements[0].evidence == []
    quoted = supported_by_profile(_claim("Ran Kafka clusters for the order pipeline"), profile)
    assert quoted.requirements[0].matched
    settled = settle(invented, FitRules(), from_model=True)
    assert settled.score < 50 and "missing must-have" in settled.verdict


def test_each_list_of_alternatives_needs_one_of_it_and_the_rest_still_counts() -> None:
    java = _engineer(["Built Java services on Spring."])
    # "for Android in Java / Kotlin": Java is one of the languages, Android is still asked.
    assert not _fit("Experience building apps for Android in Java / Kotlin", java).matched
    vue = _engineer(["Built the dashboard in Vue."])
    assert _fit("Skill in a front-end framework such as React, Vue, or Angular", vue).matched
    elixir = _engineer(["Wrote Elixir services."], skills=["Elixir"])
    assert _fit("Knowledge of Elixir and Postgres (or similar technologies)", elixir).matched


def test_experience_as_a_role_is_met_by_having_held_one() -> None:
    ruby = _engineer(["Kept the Rails 5 monolith running."])
    fit = _fit("Previous experience as a backend developer (Java, Kotlin)", ruby)
    assert fit.matched and "experience as a backend developer" in fit.matched_terms


def test_years_of_either_kind_of_work_are_met_by_either() -> None:
    ask = (
        "2 - 3 years of relevant work experience - either in tech support, or software development."
    )
    assert _fit(ask, _engineer(["Built Python services."])).matched


def test_a_long_career_is_read_as_staff_level_work() -> None:
    veteran = _engineer([]).model_copy(
        update={
            "experience": [
                Experience(title="Software Engineer", company="A", start="2008-01", end="present")
            ]
        }
    )
    notes = [f.note for f in fit_factors("Staff Software Engineer", "", veteran, TODAY, 90)]
    assert notes == ["level matches"]


def test_a_posting_with_only_nice_to_haves_is_not_judged_on_them_alone() -> None:
    posting = "Nice to have\n- Experience with Rust\n- Experience with Elixir\n"
    report = score_offline("Backend Engineer", posting, DEMO, today=TODAY)
    assert report.score >= 30  # the role and the posting's skills, not two missing extras

"""The verdict is settled by code from the requirement report, for every scorer (issue 29)."""

from __future__ import annotations

from datetime import date

from jobctrl.demo.profile import DEMO_PROFILE
from jobctrl.domain.fit_verdict import FitRules, requirement_label, settle, settle_model_report
from jobctrl.domain.profile import Profile
from jobctrl.domain.scoring import Evidence, RequirementFit, ScoreReport
from jobctrl.llm.offline import score_offline

TODAY = date(2025, 6, 1)
DEMO = Profile.model_validate(DEMO_PROFILE)

MANAGER_POSTING = """Kestrel Pay is hiring a Senior Engineering Manager for its Payouts team.

What you'll do
- Lead a team of eight backend engineers building our payouts platform.
- Run planning with product and design.

Requirements
- 6+ years of professional software engineering experience.
- Strong Python and SQL skills.
- Experience running services on AWS with Docker and Kubernetes.
- Experience managing engineers, including hiring.
- Experience with Kafka or another event streaming platform.

Benefits
- Private health insurance.
"""


def _model_report(**overrides: object) -> ScoreReport:
    """A careless model's answer: a confident overall verdict over an unmet must-have."""
    base: dict[str, object] = {
        "score": 92,
        "verdict": "Strong fit",
        "requirements": [
            RequirementFit(
                requirement="5+ years building Python services.",
                matched=True,
                evidence=[Evidence(source="summary", text="nine years", ref="summary")],
            ),
            RequirementFit(
                requirement="Experience managing engineers, including hiring.", matched=False
            ),
            RequirementFit(requirement="Experience with Go.", kind="nice", matched=False),
        ],
        "provider": "openai",
        "model": "gpt-test",
        "summary": "Great candidate.",
    }
    base.update(overrides)
    return ScoreReport.model_validate(base)


def test_unmet_must_have_keeps_offline_score_below_threshold_and_is_named() -> None:
    report = score_offline("Senior Engineering Manager", MANAGER_POSTING, DEMO, today=TODAY)
    unmet = [r for r in report.requirements if r.kind == "must" and not r.matched]
    assert [r.requirement for r in unmet] == ["Experience managing engineers, including hiring."]
    assert report.score < 50
    assert not report.verdict.startswith("Strong fit")
    assert report.verdict.endswith(
        "missing must-have: experience managing engineers, including hiring"
    )
    assert report.fit_summary.startswith(
        "missing must-have: experience managing engineers, including hiring; "
    )


def test_the_person_can_turn_the_cap_off() -> None:
    posting = MANAGER_POSTING.replace("managing engineers, including hiring", "with Rust")
    capped = score_offline("Senior Backend Engineer", posting, DEMO, today=TODAY)
    assert capped.score == 49 and capped.verdict.endswith("missing must-have: experience with Rust")
    rules = FitRules(unmet_must_have_caps_score=False)
    report = score_offline("Senior Backend Engineer", posting, DEMO, today=TODAY, rules=rules)
    assert report.score >= 75  # 4 of 5 must-haves met, plus the title's words
    assert report.verdict == "Strong fit: missing must-have: experience with Rust"


def test_a_high_min_fit_score_still_never_makes_an_unmet_must_have_strong() -> None:
    settled = settle(_model_report(), FitRules(min_fit_score=95), from_model=True)
    assert settled.score < 95
    assert settled.verdict.startswith("Partial fit")


def test_a_model_score_is_at_most_what_its_report_supports() -> None:
    settled = settle(_model_report(), FitRules(), from_model=True)
    # 3 of 7 weighted points met (must x3 met, must x3 unmet, nice x1 unmet) = 43, capped 49.
    assert settled.score == 43
    assert settled.verdict == (
        "Partial fit: missing must-have: experience managing engineers, including hiring"
    )
    assert settled.fit_summary.startswith("missing must-have: experience managing engineers")
    assert (settled.provider, settled.summary) == ("openai", "Great candidate.")
    lower = settle(_model_report(score=30), FitRules(), from_model=True)
    assert (lower.score, lower.verdict[:8]) == (30, "Weak fit")  # it may lower, not raise


def test_a_model_score_above_the_threshold_with_an_unmet_must_have_is_capped() -> None:
    fits = [
        RequirementFit(requirement=f"Experience with tool {i}.", matched=True) for i in range(9)
    ]
    fits.append(RequirementFit(requirement="Fluent German.", matched=False))
    settled = settle(_model_report(requirements=fits), FitRules(), from_model=True)
    assert settled.score == 49  # 90 from the report, held below min_fit_score 50
    assert settled.verdict == "Partial fit: missing must-have: fluent German"


def test_all_must_haves_met_keeps_a_strong_verdict_and_counts_them() -> None:
    fits = [
        RequirementFit(requirement="Python.", matched=True),
        RequirementFit(requirement="SQL.", matched=True),
        RequirementFit(requirement="Rust.", kind="nice", matched=False),
    ]
    settled = settle(
        _model_report(requirements=fits, verdict="Weak fit"), FitRules(), from_model=True
    )
    assert (settled.score, settled.verdict) == (86, "Strong fit")  # 6 of 7 points
    assert settled.fit_summary == "meets 2/2 must-haves"


def test_a_soft_must_have_never_caps_the_score() -> None:
    fits = [
        RequirementFit(requirement="Python.", matched=True),
        RequirementFit(requirement="SQL.", matched=True),
        RequirementFit(requirement="Strong communication skills.", matched=False, soft=True),
    ]
    settled = settle(_model_report(requirements=fits), FitRules(), from_model=True)
    # It weighs like a nice-to-have (once, a hard must-have three times): 6 of 7 points.
    assert settled.score == 86 and settled.verdict == "Strong fit"


def test_settling_twice_with_the_same_rules_changes_nothing() -> None:
    once = score_offline("Senior Engineering Manager", MANAGER_POSTING, DEMO, today=TODAY)
    assert settle(once, FitRules()) == once
    model = settle(_model_report(), FitRules(), from_model=True)
    assert settle(model, FitRules()) == model


def test_requirement_labels_drop_lead_ins_and_keep_acronyms() -> None:
    assert requirement_label("Strong programming skills in Go.") == "programming skills in Go"
    assert requirement_label("PhD in statistics.") == "PhD in statistics"
    assert requirement_label("A track record of publications at venues such as NeurIPS") == (
        "a track record of publications at venues such…"
    )


def test_requirement_labels_keep_the_capital_of_names() -> None:
    # a name the posting capitalised mid-sentence, after a dropped lead-in
    assert requirement_label("Strong Go skills.") == "Go skills"
    # a sentence-initial technology or language keeps it too; an ordinary word does not
    assert requirement_label("Go.") == "Go"
    assert requirement_label("Python or Kotlin for services") == "Python or Kotlin for services"
    assert requirement_label("English at C1 level") == "English at C1 level"
    assert requirement_label("Leadership experience") == "leadership experience"
    fits = [
        RequirementFit(requirement="Python.", matched=True),
        RequirementFit(requirement="Go.", matched=False),
    ]
    settled = settle(_model_report(requirements=fits), FitRules(), from_model=True)
    assert settled.verdict.endswith("missing must-have: Go")
    assert settled.fit_summary is not None
    assert settled.fit_summary.startswith("missing must-have: Go")


def test_a_model_report_gets_the_level_and_family_weighed_by_code() -> None:
    quoted = Evidence(source="experience", text=DEMO.experience[0].bullets[0])
    fits = [
        # each shown by the quoted bullet (it names FastAPI)
        RequirementFit(
            requirement=f"Experience with FastAPI ({i}).", matched=True, evidence=[quoted]
        )
        for i in range(4)
    ]
    careless = _model_report(requirements=fits, score=95)  # "Strong fit" whatever the level
    settled = settle_model_report(
        careless, FitRules(), title="Junior Product Manager", description="", profile=DEMO,
        today=TODAY,
    )  # fmt: skip
    assert settled.score < 35 and settled.verdict == "Weak fit"
    notes = [f.note for f in settled.factors]
    assert "posting is junior; you have 9 years" in notes
    assert any(n.startswith("a different field: posting is product") for n in notes)


def test_a_posting_with_no_requirement_list_is_a_rough_estimate_never_a_strong_fit() -> None:
    # Every skill the profile has, in prose: the words overlap fully, yet nothing was
    # checked requirement by requirement.
    skills = ", ".join(DEMO.skills)
    narrative = (
        f"We are a small team that loves {skills}. You would join us to build things we "
        "care about, with people who like their work."
    )
    report = score_offline(DEMO.experience[0].title, narrative, DEMO, today=TODAY)
    assert not report.requirements
    assert report.score <= 70 and not report.verdict.startswith("Strong")
    assert "no requirement list" in report.fit_summary

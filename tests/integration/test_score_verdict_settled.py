"""The Score stage settles a model's report by code (issue 29): a careless model's
"Strong fit" over an unmet must-have is stored below min_fit_score with the must-have
named, and the later stages are skipped; with the rule turned off the report's share
stands. The stage runs in process against the loopback OpenAI-compatible fake."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from jobctrl.app.lanes import set_lane
from jobctrl.app.rescore import plan_rescore
from jobctrl.domain.facts import profile_facts
from jobctrl.domain.profile import Profile
from jobctrl.stages.context import StageContext
from jobctrl.stages.enrich import enrich
from jobctrl.stages.score import UNPAID_NOTE, score
from jobctrl.store import jobs, stage_states
from tests.support.cited import POSTING
from tests.support.fake_openai import FakeOpenAI
from tests.support.http import Route, posting_html
from tests.support.profile import TEST_PROFILE

FACTS = profile_facts(Profile.model_validate(TEST_PROFILE))


def _must(requirement: str, matched: bool) -> dict[str, Any]:
    # Cited by id (llm.answers.ScoreAnswer): the profile's fact that names the tool.
    tool = requirement.removeprefix("Experience with ").rstrip(".")
    facts = [next(f.id for f in FACTS if tool in f.text)] if matched else []
    return {"requirement": requirement, "kind": "must", "matched": matched, "facts": facts}


CARELESS = {
    "score": 93,
    "summary": "An excellent match for the role.",
    "requirements": [
        *(_must(f"Experience with {tool}.", True) for tool in ("Python", "PostgreSQL", "Docker")),
        *(_must(f"Experience with {tool}.", True) for tool in ("Kubernetes", "FastAPI", "CI/CD")),
        _must("Experience managing engineers, including hiring.", False),
    ],
}


@pytest.fixture
def ctx(home, store) -> Iterator[StageContext]:
    context = StageContext(home=home, store=store)
    yield context
    context.close()


@pytest.fixture
def job_id(ctx, store, site, fast_settings) -> str:
    job = jobs.create_job(store, site.add("/jobs/manager", Route(body=POSTING)))
    enrich(ctx, job.job_id, "run-0")
    return job.job_id


def _score_with_model(ctx, home, job_id: str, monkeypatch) -> Any:
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    with FakeOpenAI("ok", CARELESS) as provider:
        set_lane(home, "score", "openai", "gpt-4o-mini", provider.base_url, "FAKE_KEY")
        return score(ctx, job_id, "run-1")


def test_a_model_strong_fit_over_an_unmet_must_have_is_stored_below_the_threshold(
    ctx, home, store, job_id, fast_settings, monkeypatch
):
    outcome = _score_with_model(ctx, home, job_id, monkeypatch)
    assert outcome.below_threshold and outcome.score == 49
    row = jobs.score_row(store, job_id)
    assert row["score"] == 49
    assert row["verdict"] == (
        "Partial fit: missing must-have: experience managing engineers, including hiring"
    )
    assert row["report"]["fit_summary"].startswith("missing must-have: experience managing")
    later = {r["stage"]: r for r in stage_states.stage_rows(store, job_id)}
    assert later["tailor"]["state"] == "skipped" and later["tailor"]["error_code"] == "MIN_SCORE"


def test_with_the_rule_off_the_report_share_stands_and_still_names_the_gap(
    ctx, home, store, job_id, fast_settings, monkeypatch
):
    fast_settings.set_value("fit.unmet_must_have_caps_score", False)
    outcome = _score_with_model(ctx, home, job_id, monkeypatch)
    assert outcome.score == 86 and not outcome.below_threshold  # 6 of 7 must-haves
    row = jobs.score_row(store, job_id)
    assert row["verdict"].startswith("Strong fit: missing must-have: experience managing")


POOR = posting_html(
    "Registered Nurse",
    "Riverside Hospital",
    ["An active RN licence", "BLS certification", "2+ years of acute care nursing"],
)


@pytest.fixture
def poor_job(ctx, store, site, fast_settings) -> str:
    job = jobs.create_job(store, site.add("/jobs/nurse", Route(body=POOR)))
    enrich(ctx, job.job_id, "run-0")
    return job.job_id


def test_a_job_far_below_the_threshold_offline_is_not_sent_to_a_paid_model(
    ctx, home, store, poor_job, fast_settings, monkeypatch
):
    # Issue 31: the free offline scorer goes first; a paid lane only where it counts.
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    with FakeOpenAI("ok", CARELESS) as provider:
        set_lane(home, "score", "openai", "gpt-4o-mini", provider.base_url, "FAKE_KEY")
        outcome = score(ctx, poor_job, "run-1")
        assert provider.requests == []  # nothing paid
        row = jobs.score_row(store, poor_job)
        assert outcome.below_threshold and row["report"]["provider"] == "offline"
        assert row["report"]["summary"].startswith(UNPAID_NOTE)  # the page says why
        # The dry run prices it as the stage would run it: free, unless asked to pay.
        (free,) = plan_rescore(home, [poor_job], "jobs").jobs
        (asked_for,) = plan_rescore(home, [poor_job], "jobs", paid_score=True).jobs
        assert free.estimated_cost_usd == 0.0 and (asked_for.estimated_cost_usd or 0) > 0
        stage_states.reset_stages(store, poor_job, ("score",), "rescore")  # as rescore does
        asked = score(ctx, poor_job, "run-2", paid=True)  # `jobctrl rescore --paid`
        assert len(provider.requests) == 1 and not asked.reused
        assert jobs.score_row(store, poor_job)["report"]["provider"] == "openai"
        # The model's answer to this very request is paid for: a later plain rescore uses
        # it (for nothing) instead of falling back to the free report.
        stage_states.reset_stages(store, poor_job, ("score",), "rescore")
        score(ctx, poor_job, "run-3")
        assert len(provider.requests) == 1
        assert jobs.score_row(store, poor_job)["report"]["provider"] == "openai"


def test_the_margin_is_a_setting(ctx, home, store, poor_job, fast_settings, monkeypatch):
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    fast_settings.set_value("score.offline_margin", 100)  # never far enough below
    with FakeOpenAI("ok", CARELESS) as provider:
        set_lane(home, "score", "openai", "gpt-4o-mini", provider.base_url, "FAKE_KEY")
        score(ctx, poor_job, "run-1")
        assert len(provider.requests) == 1

"""`profile import` with a model on the profile lane: the model reads a real resume PDF
into fields (a loopback OpenAI-compatible server, counting requests); what it returns that
the resume does not say — an invented employer, an invented bullet — is dropped and
listed, the rest kept; the call is admitted and recorded by the spend authority and paid
once for the same file; a provider failure falls back to the section parser, saying so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from jobctrl.app.lanes import set_lane
from jobctrl.app.profile import DroppedValue, import_profile
from jobctrl.config import load_config
from jobctrl.profile_import import read_profile_file
from jobctrl.store import schema, tenancy
from tests.support.fake_openai import COMPLETION_TOKENS, PROMPT_TOKENS, FakeOpenAI
from tests.support.processes import run_cli

RESUME = Path(__file__).resolve().parents[1] / "fixtures" / "resumes" / "rendercv_classic.pdf"
INVENTED_BULLET = "Mentored twelve engineers across three continents"


def model_reading() -> dict[str, Any]:
    """What a model answers: the resume read faithfully, plus a role at an employer the
    resume never names and a bullet it never says."""
    faithful = read_profile_file(RESUME).profile.model_dump(mode="json", exclude={"answers"})
    faithful["experience"][0]["bullets"].append(INVENTED_BULLET)
    faithful["experience"].append(
        {"title": "Staff Engineer", "company": "Globex", "start": "2012", "end": "2014"}
    )
    return faithful


@pytest.fixture
def provider(home, fast_settings, monkeypatch):
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    with FakeOpenAI("ok", model_reading()) as fake:
        set_lane(home, "profile", "openai", "gpt-4o-mini", fake.base_url, "FAKE_KEY")
        yield fake


def profile_spend(store) -> list[tuple[int, int, int]]:
    spend = schema.llm_spend
    with store.read() as conn:
        rows = conn.execute(
            select(spend.c.calls, spend.c.input_tokens, spend.c.output_tokens).where(
                tenancy.scoped(spend, conn), spend.c.lane == "profile"
            )
        ).all()
    return [tuple(r) for r in rows]


def test_the_models_inventions_are_dropped_and_listed_and_the_rest_kept(home, store, provider):
    result = import_profile(home, RESUME)

    assert (result.structured_by, result.model, result.note) == (
        "model",
        "openai gpt-4o-mini",
        None,
    )
    assert result.dropped == [
        DroppedValue(field="experience[0].bullets[4]", value=INVENTED_BULLET),
        DroppedValue(field="experience[5]", value="Staff Engineer at Globex (2012 – 2014)"),
    ]
    saved = load_config(home).profile
    offline = read_profile_file(RESUME).profile
    assert [r.company for r in saved.experience] == [r.company for r in offline.experience]
    assert saved.experience[0].bullets == offline.experience[0].bullets
    assert saved.education == offline.education and saved.skills == offline.skills
    assert "Each section title is arbitrary." in result.unplaced
    assert len(provider.requests) == 1
    assert "Nexus AI" in json.dumps(provider.requests[0])  # the resume's text was sent
    assert profile_spend(store) == [(1, PROMPT_TOKENS, COMPLETION_TOKENS)]


def test_the_same_file_imported_twice_is_paid_once(home, store, provider):
    dry = import_profile(home, RESUME, dry_run=True)
    done = import_profile(home, RESUME)

    assert len(provider.requests) == 1
    assert dry.profile == done.profile and dry.dropped == done.dropped
    assert (dry.version, done.version is not None) == (None, True)
    assert profile_spend(store) == [(1, PROMPT_TOKENS, COMPLETION_TOKENS)]


def test_a_provider_failure_falls_back_to_the_section_parser_with_a_note(
    home, store, provider, fast_settings
):
    provider.mode = "server_error"

    result = import_profile(home, RESUME, dry_run=True)

    assert (result.structured_by, result.model, result.dropped) == ("parser", None, [])
    assert result.note is not None
    assert "could not structure the resume (provider_unavailable" in result.note
    assert "section parser's reading" in result.note
    assert result.profile.experience == read_profile_file(RESUME).profile.experience
    attempts = int(fast_settings.get("retry.max_attempts"))
    assert len(provider.requests) == attempts  # a 5xx is asked again, as any lane's

    provider.mode = "ok"  # answered now: a later import asks (nothing was kept to reuse)
    assert import_profile(home, RESUME, dry_run=True).structured_by == "model"
    assert len(provider.requests) == attempts + 1


def test_profile_import_on_the_command_line_lists_what_the_model_invented(home, provider):
    shown = run_cli("profile", "import", str(RESUME), "--dry-run", "--json")

    assert shown.returncode == 0, shown.stderr
    result = json.loads(shown.stdout)
    assert (result["structuredBy"], result["model"]) == ("model", "openai gpt-4o-mini")
    assert {"field": "experience[0].bullets[4]", "value": INVENTED_BULLET} in result["dropped"]

    done = run_cli("profile", "import", str(RESUME))

    assert done.returncode == 0, done.stderr
    assert "read by the profile lane's model (openai gpt-4o-mini)" in done.stdout
    assert "2 values the model returned are not in the resume and were left out:" in done.stdout
    assert "  - experience[5]: Staff Engineer at Globex (2012 – 2014)" in done.stdout
    assert len(provider.requests) == 1


def test_two_tenants_importing_the_same_resume_each_pay_and_keep_their_own(
    home, two_tenants, provider
):
    set_lane(
        two_tenants.acme_home, "profile", "openai", "gpt-4o-mini", provider.base_url, "FAKE_KEY"
    )

    for tenant_home in (two_tenants.local_home, two_tenants.acme_home, two_tenants.acme_home):
        assert import_profile(tenant_home, RESUME, dry_run=True).structured_by == "model"

    assert len(provider.requests) == 2  # one for each tenant: acme's second import reuses
    assert profile_spend(two_tenants.local) == [(1, PROMPT_TOKENS, COMPLETION_TOKENS)]
    assert profile_spend(two_tenants.acme) == [(1, PROMPT_TOKENS, COMPLETION_TOKENS)]

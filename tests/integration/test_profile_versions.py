"""A profile edit is versioned; admitted work keeps the version it started with."""

from __future__ import annotations

import asyncio
from pathlib import Path

from jobctrl.app.configuration import show_profile
from jobctrl.app.jobs import add_job
from jobctrl.app.profile import import_profile
from jobctrl.app.queries import show_job
from jobctrl.config import load_config
from jobctrl.store import stage_states
from tests.support.http import Route, posting_html

FIXTURES = Path(__file__).parents[1] / "fixtures" / "profiles"


def test_profile_import_replaces_the_profile_and_records_a_version(home):
    before = show_profile(home)
    result = import_profile(home, FIXTURES / "resume_full.json")
    assert result.version == before.version + 1
    assert load_config(home).profile.name == result.name
    assert "# Where to discover postings" in home.config_path.read_text(), "comments kept"
    assert show_profile(home).version == result.version
    again = import_profile(home, FIXTURES / "resume_full.json")
    assert again.version == result.version, "the same profile is the same version"


async def test_work_in_flight_keeps_its_profile_version(home, store, worker, site, fast_settings):
    fast_settings.set_value("providers.offline.latency_ms", 1500)
    fast_settings.set_value("min_fit_score", 0)
    body = posting_html("Backend Engineer", "Acme", ["Python", "PostgreSQL", "Kubernetes"])
    view = await add_job(home, site.add("/jobs/v", Route(body=body)))
    for _ in range(100):  # Score has started with the profile as it was at admission
        if any(r["stage"] == "score" and r["state"] == "running"
               for r in stage_states.stage_rows(store, view.job_id)):  # fmt: skip
            break
        await asyncio.sleep(0.05)
    import_profile(home, FIXTURES / "resume_minimal.json")  # a very different profile
    from tests.support.profile import TEST_PROFILE

    await add_job(home, site.base_url + "/jobs/v", wait=True)
    report = show_job(home, view.job_id).score_report
    evidence = [e["text"] for r in report["requirements"] for e in r["evidence"]]
    assert any("PostgreSQL" in t for t in evidence), "scored against the admitted profile"
    assert TEST_PROFILE["skills"][0] in " ".join(evidence) or evidence

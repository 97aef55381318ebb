"""Rescore (issue 28): after a profile change the jobs made with the old profile are stale
(derived, never a flag); a rescore scores them again through real Temporal workflows on
the new profile, writes materials again only where allowed (approved ones untouched, a
job newly fit gets its first), and a (profile version, posting) pair already scored is
never paid for twice (a loopback OpenAI-compatible provider counts the requests)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from jobctrl.api.app import create_app
from jobctrl.api.security import api_token
from jobctrl.app import queries
from jobctrl.app.activity import event_log
from jobctrl.app.lanes import set_lane
from jobctrl.app.profile import import_profile
from jobctrl.app.rescore import plan_rescore, rescore, wait_for_rescore
from jobctrl.stages.context import StageContext
from jobctrl.stages.enrich import enrich
from jobctrl.stages.score import score
from jobctrl.store import jobs, materials
from tests.support.apply import approved_job, posting
from tests.support.fake_openai import SCORE_REPORT, FakeOpenAI
from tests.support.http import Route
from tests.support.processes import run_cli

FULL_PROFILE = Path(__file__).parents[1] / "fixtures" / "profiles" / "resume_full.json"


def _scored_only(home, store, site, path: str) -> str:
    """A job scored (below min_fit_score: nothing written for it), its id."""
    page = posting("Mainframe Operator", "Legacy Co", requirements=["COBOL", "JCL", "z/OS"])
    job = jobs.create_job(store, site.add(path, Route(body=page)))
    ctx = StageContext(home=home, store=store)
    try:
        enrich(ctx, job.job_id, "run-setup")
        score(ctx, job.job_id, "run-setup")
    finally:
        ctx.close()
    return job.job_id


def _generations(store, job_id: str) -> list[tuple[str, int, str, int | None]]:
    return [
        (m["kind"], m["generation"], m["state"], m["profile_version"])
        for m in materials.list_materials(store, job_id)
    ]


async def test_stale_jobs_are_rescored_on_the_new_profile_paying_once_per_pair(
    home, store, client, worker, fast_settings, site, monkeypatch
):
    # Every stale job goes to the paid lane here, the far-below ones too (the offline
    # pre-score's margin is tested below and in test_score_verdict_settled).
    fast_settings.set_value("score.offline_margin", 100)
    fast_settings.set_value("min_fit_score", 100)  # the third job's offline score is below
    unfit = _scored_only(home, store, site, "/jobs/unfit")
    fast_settings.set_value("min_fit_score", 0)
    approved = approved_job(home, store, site, "/jobs/approved")
    drafted = approved_job(home, store, site, "/jobs/drafted", approve=False, company="Beta")
    fast_settings.set_value("min_fit_score", 50)
    before = {j: _generations(store, j) for j in (approved, drafted)}
    assert jobs.score_row(store, unfit)["score"] < 100
    assert [s.state for s in queries.show_job(home, unfit).stages][-3:] == ["skipped"] * 3

    listed = {r.job_id: r for r in queries.list_jobs(home)}
    assert not any(r.stale for r in listed.values()), "nothing is stale on one profile"
    assert listed[drafted].scored_profile_version == 1
    assert listed[drafted].materials_profile_version == 1

    new = import_profile(home, FULL_PROFILE)  # another person's profile: version 2
    assert new.version == 2
    listed = {r.job_id: r for r in queries.list_jobs(home)}
    assert all(listed[j].stale for j in (approved, drafted, unfit))
    shown = queries.show_job(home, drafted)
    assert (shown.stale, shown.scored_profile_version, shown.materials_profile_version) == (
        True,
        1,
        1,
    )
    logged = {e.type: e.payload for e in event_log(home, 0)}
    assert logged["ProfileVersionCreated"]["version"] == 2
    assert logged["JobsMarkedStale"] == {"version": 2, "jobs": 3, "scores": 3, "materials": 1}

    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    with FakeOpenAI("ok", SCORE_REPORT) as provider:
        set_lane(home, "score", "openai", "gpt-4o-mini", provider.base_url, "FAKE_KEY")
        dry = plan_rescore(home, [], "stale")  # free: the offline scorer, nothing asked
        assert dry.dry_run and dry.paid and dry.rescoring == 3 and not provider.requests
        assert all(j.estimated_cost_usd and j.estimated_cost_usd > 0 for j in dry.jobs)
        assert dry.estimated_cost_usd == round(sum(j.estimated_cost_usd for j in dry.jobs), 6)
        assert {j.job_id: j.regenerate_materials for j in dry.jobs} == {
            approved: False,
            drafted: True,
            unfit: False,
        }

        started = await rescore(home, [], "stale")
        assert started.rescoring == 3 and all(j.workflow_id for j in started.jobs)
        done = await wait_for_rescore(home, started, 120)
        assert {j.job_id: j.new_score for j in done.jobs} == dict.fromkeys(
            (approved, drafted, unfit), 81
        )
        assert len(provider.requests) == 3, "one paid score per stale job"

        listed = {r.job_id: r for r in queries.list_jobs(home)}
        assert not any(listed[j].stale for j in (approved, drafted, unfit))
        assert listed[unfit].scored_profile_version == 2
        # Approved materials are the person's: untouched.
        assert _generations(store, approved) == before[approved]
        # Unapproved drafts for the old profile: a new generation for the new one.
        assert sorted(g for g in _generations(store, drafted) if g[1] == 2) == [
            ("cover", 2, "draft", 2),
            ("resume", 2, "draft", 2),
        ]
        assert [g for g in _generations(store, drafted) if g[1] == 1] == [
            g for g in before[drafted] if g[1] == 1
        ]
        # Newly at min_fit_score: its first materials, for the new profile.
        assert sorted(_generations(store, unfit)) == [
            ("cover", 1, "draft", 2),
            ("resume", 1, "draft", 2),
        ]
        assert queries.show_job(home, unfit).status == "prepared"

        # Every job again, on the same profile: each pair was answered already.
        again = await wait_for_rescore(home, await rescore(home, [], "all"), 120)
        assert again.rescoring == 3 and {j.new_score for j in again.jobs} == {81}
        assert len(provider.requests) == 3, "no (profile version, posting) pair paid twice"
        assert _generations(store, approved) == before[approved]
        assert len(_generations(store, drafted)) == 4, "current drafts are not written again"

    stale_now = await rescore(home, [], "stale")
    assert stale_now.jobs == [] and stale_now.rescoring == 0


def test_rescore_from_the_command_line_dry_run_and_json(home, store, site, fast_settings):
    fast_settings.set_value("min_fit_score", 0)
    job_id = approved_job(home, store, site, "/jobs/cli", approve=False)
    quiet = run_cli("rescore", "--dry-run")
    assert quiet.returncode == 0, quiet.stderr
    assert "nothing to rescore" in quiet.stdout
    import_profile(home, FULL_PROFILE)
    shown = json.loads(run_cli("show", job_id, "--json").stdout)
    assert shown["stale"] is True and shown["scoredProfileVersion"] == 1
    dry = run_cli("rescore", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "would rescore 1 job(s) on profile version 2" in dry.stdout
    assert "materials would be rewritten" in dry.stdout
    answer = json.loads(run_cli("rescore", job_id, "--dry-run", "--json").stdout)
    assert answer["dryRun"] is True and answer["jobs"][0]["jobId"] == job_id
    assert answer["jobs"][0]["oldScore"] == jobs.score_row(store, job_id)["score"]
    both = run_cli("rescore", job_id, "--all")
    assert both.returncode == 1 and "not both" in both.stderr
    assert queries.show_job(home, job_id).stale, "a dry run changes nothing"


async def test_the_pages_mark_stale_jobs_offer_a_rescore_and_warn_before_applying(
    home, store, site, fast_settings
):
    fast_settings.set_value("min_fit_score", 0)
    drafted = approved_job(home, store, site, "/jobs/page-draft", approve=False)
    approved = approved_job(home, store, site, "/jobs/page-approved", company="Beta")
    transport = httpx.ASGITransport(app=create_app(home, port=8765))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as web:
        listed = (await web.get("/jobs")).text
        assert "badge-stale" not in listed and "Rescore stale jobs" not in listed
        assert "written for version" not in (await web.get("/apply")).text
        import_profile(home, FULL_PROFILE)
        listed = (await web.get("/jobs")).text
        assert listed.count('class="badge badge-stale"') >= 3  # two rows and the notice
        assert "2 jobs were scored or written for an earlier" in listed
        assert 'data-post="/v1/rescore"' in listed
        page = (await web.get(f"/jobs/{drafted}")).text
        assert "scored\n  against version 1 of your profile" in page
        assert "your profile is now version 2" in page
        applying = (await web.get("/apply")).text
        assert f'href="/jobs/{approved}"' in applying
        assert "These materials were written for version 1" in applying
        status = (await web.get("/v1/rescore")).json()
        assert status == {"stale": 2, "running": 0}
        token = {"Authorization": f"Bearer {api_token(home.token_path)}"}
        dry = await web.post("/v1/rescore", json={"dryRun": True}, headers=token)
        assert dry.status_code == 202 and dry.json()["rescoring"] == 2
        assert {j["jobId"] for j in dry.json()["jobs"]} == {drafted, approved}


async def test_a_far_below_job_is_rescored_offline_unless_paid_is_asked(
    home, store, client, worker, fast_settings, site, monkeypatch
):
    # Issue 31: with a paid Score lane the free offline scorer goes first.
    fast_settings.set_value("min_fit_score", 100)
    unfit = _scored_only(home, store, site, "/jobs/far-below")
    fast_settings.set_value("min_fit_score", 50)  # its offline score is far below this
    assert jobs.score_row(store, unfit)["score"] < 30
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    with FakeOpenAI("ok", SCORE_REPORT) as provider:
        set_lane(home, "score", "openai", "gpt-4o-mini", provider.base_url, "FAKE_KEY")
        done = await wait_for_rescore(home, await rescore(home, [unfit], "jobs"), 120)
        assert not provider.requests and done.jobs[0].new_score < 30
        paid = await wait_for_rescore(home, await rescore(home, [unfit], "jobs", paid=True), 120)
        assert len(provider.requests) == 1 and paid.jobs[0].new_score == 81


def test_show_says_what_a_stale_job_was_made_with_and_when_it_is_checked_next(
    home, store, site, fast_settings
):
    # A job scored but below min_fit_score has no materials: show names no version for them
    # (not "materials on None"), and the posting line reads as sentences (not "ago).; next").
    fast_settings.set_value("min_fit_score", 100)
    job_id = _scored_only(home, store, site, "/jobs/stale-no-materials")
    import_profile(home, FULL_PROFILE)
    checked = run_cli("check", job_id)
    assert checked.returncode == 0, checked.stderr
    shown = run_cli("show", job_id)
    assert shown.returncode == 0, shown.stderr
    assert "scored on profile version 1: `jobctrl rescore" in shown.stdout
    assert "None" not in shown.stdout
    for out in (checked.stdout, shown.stdout):
        assert ". Next check " in out and ".;" not in out

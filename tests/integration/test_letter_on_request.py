"""Cover letters only where they count (issue 31): a job scoring below
``materials.cover_min_score`` is prepared with its resume alone (Cover skipped as
``COVER_ON_REQUEST``, nothing paid), a regeneration keeps it so, and "write the letter"
(`jobctrl materials letter JOB`, ``POST /v1/jobs/{id}/materials/letter``, the Job page's
button) writes and renders the letter, leaving the resume and its approved PDF as they
were — through a real worker."""

from __future__ import annotations

import asyncio
import json

import pytest
from click.testing import CliRunner

from jobctrl.app.apply_views import apply_queue
from jobctrl.app.inbox import jobs_inbox
from jobctrl.app.jobs import add_job
from jobctrl.app.lanes import set_lane
from jobctrl.app.materials import (
    decide_materials,
    material_files,
    regenerate_materials,
    write_letter,
)
from jobctrl.app.queries import job_materials, show_job
from jobctrl.cli import main
from jobctrl.domain.errors import (
    CONFIGURATION,
    COVER_ON_REQUEST,
    EXISTS,
    INVALID_INPUT,
    MISSING_INPUT,
    STAGE_BUSY,
    JobctrlError,
)
from jobctrl.domain.plain_words import sentence
from jobctrl.render.pdf import pdf_text
from jobctrl.stages.context import StageContext
from jobctrl.stages.enrich import enrich
from jobctrl.stages.materials import cover, render, tailor
from jobctrl.stages.score import score
from jobctrl.store import jobs
from jobctrl.store.stage_control import reset_job_stage
from jobctrl.store.stage_states import reset_stages, stage_rows
from tests.support.app import app_client
from tests.support.http import Route, posting_html
from tests.support.processes import run_cli

GOOD = posting_html(
    "Staff Backend Engineer",  # a level above the profile's: a good fit, not 100
    "Acme Robotics",
    ["5+ years of Python", "Experience with PostgreSQL", "Kubernetes and Docker", "FastAPI"],
)


def _kinds(home, job_id: str) -> dict[tuple[str, int], str]:
    return {(m.kind, m.generation): m.approval for m in job_materials(home, job_id)}


async def test_a_letter_below_its_score_waits_to_be_asked_for(home, worker, site, fast_settings):
    fast_settings.set_value("min_fit_score", 50)
    fast_settings.set_value("materials.cover_min_score", 95)  # no letter on its own
    view = await add_job(home, site.add("/jobs/lo", Route(body=GOOD)), wait=True)
    stages = {s.stage: (s.state, s.error_code) for s in view.stages}
    assert stages["tailor"] == ("succeeded", None) and stages["pdf"] == ("succeeded", None)
    assert view.score is not None and 50 <= view.score < 95, view.score
    assert stages["cover"] == ("skipped", COVER_ON_REQUEST)
    assert view.status == "prepared"  # a letter not asked for is not missing
    assert _kinds(home, view.job_id) == {("resume", 1): "draft"}
    rows = [r for g in jobs_inbox(home).groups for r in g.rows if r.job_id == view.job_id]
    assert "cover letter written" in (rows[0].next_action_reason or "")

    # A regeneration writes a new resume and still no letter.
    again = await regenerate_materials(home, view.job_id, wait=True)
    assert again.generation == 2 and set(_kinds(home, view.job_id)) == {
        ("resume", 1),
        ("resume", 2),
    }
    decide_materials(home, view.job_id, "approve")
    (approved,) = material_files(home, view.job_id, approved_only=True)
    # The resume alone is enough to apply: the queue asks for nothing more.
    (queued,) = [q for q in apply_queue(home) if q.job_id == view.job_id]
    assert queued.missing == [] and [p.kind for p in queued.pdfs] == ["resume"]

    # One command writes the letter; the approved resume's file stays the approved one.
    done = await asyncio.to_thread(run_cli, "materials", "letter", view.job_id, "--json")
    assert done.returncode == 0, done.stderr
    written = json.loads(done.stdout)
    assert written["generation"] == 1 and written["truthCheck"]["passed"]
    kinds = _kinds(home, view.job_id)
    assert (kinds[("resume", 2)], kinds[("cover", 1)]) == ("approved", "draft")
    assert ("cover", 2) not in kinds
    files = {f.kind: f for f in material_files(home, view.job_id)}
    assert files["resume"].sha256 == approved.sha256
    assert "Acme Robotics" in pdf_text(files["cover"].source.read_bytes())
    shown = show_job(home, view.job_id)
    assert {s.stage: s.state for s in shown.stages}["cover"] == "succeeded"
    with pytest.raises(JobctrlError) as refused:  # a second letter is a regeneration
        await write_letter(home, view.job_id)
    assert refused.value.code == EXISTS


async def test_the_job_page_offers_the_letter_and_the_api_writes_it(
    home, worker, site, fast_settings
):
    fast_settings.set_value("materials.cover_min_score", 95)
    view = await add_job(home, site.add("/jobs/lo-api", Route(body=GOOD)), wait=True)
    async with app_client(home) as api:
        page = (await api.get(f"/jobs/{view.job_id}")).text
        assert 'id="write-letter"' in page and "Write the cover letter" in page
        # A typed flag, not the skip's code: the page and a JSON reader ask the same thing.
        assert (await api.get(f"/v1/jobs/{view.job_id}")).json()["letterOnRequest"] is True
        started = await api.post(f"/v1/jobs/{view.job_id}/materials/letter")
        assert started.status_code == 202, started.text
        assert started.json()["workflowId"].startswith("prepare-letter-")
        for _ in range(300):  # the worker writes it
            if ("cover", 1) in _kinds(home, view.job_id):
                break
            await asyncio.sleep(0.1)
        assert ("cover", 1) in _kinds(home, view.job_id)
        for _ in range(300):
            page = (await api.get(f"/jobs/{view.job_id}")).text
            if 'id="write-letter"' not in page:
                break
            await asyncio.sleep(0.1)
        assert 'id="write-letter"' not in page
        assert (await api.get(f"/v1/jobs/{view.job_id}")).json()["letterOnRequest"] is False


async def test_a_job_at_the_letter_score_gets_its_letter_at_once(home, worker, site, fast_settings):
    fast_settings.set_value("min_fit_score", 50)
    fast_settings.set_value("materials.cover_min_score", 10)  # below min_fit: min_fit counts
    view = await add_job(home, site.add("/jobs/hi", Route(body=GOOD)), wait=True)
    assert _kinds(home, view.job_id) == {("resume", 1): "draft", ("cover", 1): "draft"}


def _stages(store, job_id: str) -> dict[str, tuple[str, str | None]]:
    return {r["stage"]: (r["state"], r["error_code"]) for r in stage_rows(store, job_id)}


async def test_a_letter_once_written_is_written_again_after_a_rescore(
    home, store, site, fast_settings
):
    # In process (the stages as the workflow runs them): a letter the person asked for
    # is not dropped by the next Score, which would leave the old letter in its place.
    fast_settings.set_value("materials.cover_min_score", 95)
    job = jobs.create_job(store, site.add("/jobs/lo-rescore", Route(body=GOOD)))
    ctx = StageContext(home=home, store=store)
    try:
        enrich(ctx, job.job_id, "run-1")
        score(ctx, job.job_id, "run-1")
        assert _stages(store, job.job_id)["cover"] == ("skipped", COVER_ON_REQUEST)
        tailor(ctx, job.job_id, "run-1", None)
        render(ctx, job.job_id, "run-1")
        # a reset of the resume writes it again, and still no letter nobody asked for
        assert reset_job_stage(store, job.job_id, "tailor") == ["tailor", "pdf"]
        assert _stages(store, job.job_id)["cover"] == ("skipped", COVER_ON_REQUEST)
        tailor(ctx, job.job_id, "run-1b", None)
        render(ctx, job.job_id, "run-1b")
        # the person asks for the letter: what write_letter resets (the PDF stands until
        # the letter is written), then runs
        reset_stages(store, job.job_id, ("cover",), "regenerate")
        cover(ctx, job.job_id, "run-2", None)
        render(ctx, job.job_id, "run-2")
        assert ("cover", 1) in _kinds(home, job.job_id)
        # a rescore (a new profile version): Score again, then the later stages
        reset_stages(store, job.job_id, ("score", "tailor", "cover", "pdf"), "rescore")
        score(ctx, job.job_id, "run-3")
        assert _stages(store, job.job_id)["cover"] == ("pending", None)
    finally:
        ctx.close()


async def test_a_letter_is_refused_with_the_reason_when_it_cannot_be_written_now(
    home, store, site, fast_settings
):
    fast_settings.set_value("materials.cover_min_score", 95)
    job = jobs.create_job(store, site.add("/jobs/lo-refused", Route(body=GOOD)))
    ctx = StageContext(home=home, store=store)
    try:
        enrich(ctx, job.job_id, "run-1")
        score(ctx, job.job_id, "run-1")

        async def refused() -> str:
            with pytest.raises(JobctrlError) as caught:
                await write_letter(home, job.job_id)
            return caught.value.code

        assert await refused() == MISSING_INPUT  # no tailored resume yet
        tailor(ctx, job.job_id, "run-1", None)
        render(ctx, job.job_id, "run-1")
        reset_stages(store, job.job_id, ("cover",), "regenerate")
        assert await refused() == STAGE_BUSY  # asked for once already: on its way
        cover(ctx, job.job_id, "run-2", None)
        render(ctx, job.job_id, "run-2")
        assert await refused() == EXISTS
        fast_settings.set_value("min_fit_score", 99)
        assert await refused() == INVALID_INPUT  # below the minimum now
    finally:
        ctx.close()


async def test_a_rejected_letter_leaves_the_resume_ready_and_a_new_one_can_be_asked_for(
    home, worker, site, fast_settings
):
    fast_settings.set_value("materials.cover_min_score", 95)
    view = await add_job(home, site.add("/jobs/lo-reject", Route(body=GOOD)), wait=True)
    decide_materials(home, view.job_id, "approve")  # the resume
    first = await write_letter(home, view.job_id, wait=True)
    assert first.generation == 1
    decide_materials(home, view.job_id, "reject")  # the only draft: the letter
    kinds = _kinds(home, view.job_id)
    assert (kinds[("resume", 1)], kinds[("cover", 1)]) == ("approved", "rejected")
    (queued,) = [q for q in apply_queue(home) if q.job_id == view.job_id]
    assert queued.missing == []  # the application goes with the resume alone
    again = await write_letter(home, view.job_id, wait=True)
    assert again.generation == 2 and again.workflow_id != first.workflow_id
    assert _kinds(home, view.job_id)[("cover", 2)] == "draft"


async def test_a_letter_asked_for_that_fails_leaves_the_job_ready_with_its_resume(
    home, worker, site, fast_settings, monkeypatch
):
    # A letter below cover_min_score is optional: its failure must not take the job out
    # of the Apply queue, whose approved resume goes out alone; the page says why and
    # offers the letter again.
    fast_settings.set_value("materials.cover_min_score", 95)
    view = await add_job(home, site.add("/jobs/lo-fails", Route(body=GOOD)), wait=True)
    decide_materials(home, view.job_id, "approve")  # the resume
    (approved,) = material_files(home, view.job_id, approved_only=True)
    # The letter's lane names a key that is not set: Cover fails (before any SDK loads).
    monkeypatch.delenv("JOBCTRL_TEST_UNSET_KEY", raising=False)
    set_lane(home, "cover", "anthropic", "claude-test", None, "JOBCTRL_TEST_UNSET_KEY")
    failed = await write_letter(home, view.job_id, wait=True)
    assert failed.workflow_id.startswith("prepare-letter-")
    shown = show_job(home, view.job_id)
    stages = {s.stage: (s.state, s.error_code) for s in shown.stages}
    assert stages["cover"] == ("failed", CONFIGURATION) and stages["pdf"][0] == "succeeded"
    assert shown.status == "prepared" and shown.letter_on_request
    assert sentence(CONFIGURATION) in (shown.letter_failure or "")
    assert f"jobctrl materials letter {view.job_id}" in (shown.letter_failure or "")
    (queued,) = [q for q in apply_queue(home) if q.job_id == view.job_id]
    assert queued.missing == [] and [p.kind for p in queued.pdfs] == ["resume"]
    shown_cli = CliRunner().invoke(main, ["show", view.job_id])  # in process
    assert shown_cli.exit_code == 0 and f"no letter     {shown.letter_failure}" in shown_cli.stdout
    async with app_client(home) as api:
        page = (await api.get(f"/jobs/{view.job_id}")).text
        assert 'id="letter-failed"' in page and 'id="write-letter"' in page
        assert (await api.get(f"/v1/jobs/{view.job_id}")).json()["letterOnRequest"] is True

    # Asked again (now the offline writer): written and rendered, the resume's PDF kept.
    set_lane(home, "cover", "offline", "offline-extractive-v1", None, None)
    again = await write_letter(home, view.job_id, wait=True)
    assert again.workflow_id != failed.workflow_id
    shown = show_job(home, view.job_id)
    states = {s.stage: s.state for s in shown.stages}
    assert (states["cover"], states["pdf"], shown.status) == ("succeeded", "succeeded", "prepared")
    assert not shown.letter_on_request and shown.letter_failure is None
    files = {f.kind: f for f in material_files(home, view.job_id)}
    assert files["resume"].sha256 == approved.sha256 and "cover" in files

"""The missing-PDF receipt: a job whose resume and letter were written but whose PDF step
never ran, or failed, says so in `jobctrl show` (and its --json, which ``GET
/v1/jobs/{id}`` shares) with what to run, and on the Job page in plain words with the
button that makes the PDF; once the PDFs are made it says nothing."""

from __future__ import annotations

import asyncio
import json

from jobctrl.domain.errors import RENDER_FAILED, StageError
from jobctrl.stages.context import StageContext
from jobctrl.stages.enrich import enrich
from jobctrl.stages.materials import cover, render, tailor
from jobctrl.stages.score import score
from jobctrl.store import jobs, stage_control, stage_states
from tests.support.app import app_client
from tests.support.http import Route, posting_html
from tests.support.materials import REQUIREMENTS
from tests.support.processes import run_cli


def _shown(job_id: str) -> dict:
    done = run_cli("show", job_id, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _job_page(home, job_id: str) -> str:
    """The Job page as the web app serves it (in process)."""

    async def get() -> str:
        async with app_client(home) as api:
            page = await api.get(f"/jobs/{job_id}")
        assert page.status_code == 200, page.text
        return page.text

    return asyncio.run(get())


def _receipt(page: str) -> str:
    """The page's missing-PDF notice ("" when it has none)."""
    start = page.find('id="missing-pdf"')
    return "" if start < 0 else page[start : page.index("</section>", start)]


def test_written_materials_without_their_pdf_are_listed_as_such(home, store, site, fast_settings):
    url = site.add(
        "/jobs/nopdf", Route(body=posting_html("Backend Engineer", "Acme", REQUIREMENTS))
    )
    job_id = jobs.create_job(store, url).job_id
    ctx = StageContext(home=home, store=store)
    try:
        enrich(ctx, job_id, "run-1")
        score(ctx, job_id, "run-1")
        tailor(ctx, job_id, "run-1", None)
        cover(ctx, job_id, "run-1", None)

        shown = _shown(job_id)
        # The inbox no longer says it is reading and scoring the posting.
        assert shown["nextActionReason"] == (
            "Your resume and letter are written; the PDF is still to be made."
        )
        missing = shown["missingPdf"]
        assert (missing["reason"], missing["code"]) == ("not_run", None)
        assert missing["kinds"] == ["cover", "resume"]
        assert f"jobctrl reset {job_id} --stage pdf" in missing["sentence"]
        text = run_cli("show", job_id).stdout
        assert "no PDF" in text and "its PDF was never made" in text
        # The Job page says it to a job seeker, with the one button that makes the PDF.
        notice = " ".join(_receipt(_job_page(home, job_id)).split())
        assert "Your resume and letter are written, but their PDF was never made." in notice
        assert "You need the PDF to apply." in notice
        assert f'data-post="/v1/jobs/{job_id}/retry" data-stage="pdf">Make the PDF<' in notice

        claim = stage_states.claim_stage(store, job_id, "pdf", "run-2")
        error = StageError(RENDER_FAILED, "failed in a test", retryable=False)
        stage_states.fail_stage(store, job_id, "pdf", "run-2", claim.attempt, error)
        missing = _shown(job_id)["missingPdf"]
        assert (missing["reason"], missing["code"]) == ("failed", RENDER_FAILED)
        assert f"jobctrl retry {job_id} --stage pdf" in missing["sentence"]
        notice = " ".join(_receipt(_job_page(home, job_id)).split())
        assert "making their PDF failed: Making the PDF failed; try again." in notice
        assert f'data-post="/v1/jobs/{job_id}/retry" data-stage="pdf">Try the PDF again<' in notice
        assert "render_failed" in notice  # the code, in its details

        stage_control.reset_job_stage(store, job_id, "pdf")  # what the sentence says to run
        render(ctx, job_id, "run-3")
    finally:
        ctx.close()
    assert _shown(job_id)["missingPdf"] is None
    assert "no PDF" not in run_cli("show", job_id).stdout
    assert _receipt(_job_page(home, job_id)) == ""

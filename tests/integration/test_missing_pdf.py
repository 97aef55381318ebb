"""The missing-PDF receipt: a job whose resume and letter were written but whose PDF step
never ran, or failed, says so in `jobctrl show` (and its --json, which ``GET
/v1/jobs/{id}`` shares) with what to run; once the PDFs are made it says nothing."""

from __future__ import annotations

import json

from jobctrl.domain.errors import RENDER_FAILED, StageError
from jobctrl.stages.context import StageContext
from jobctrl.stages.enrich import enrich
from jobctrl.stages.materials import cover, render, tailor
from jobctrl.stages.score import score
from jobctrl.store import jobs, stage_control, stage_states
from tests.support.http import Route, posting_html
from tests.support.materials import REQUIREMENTS
from tests.support.processes import run_cli


def _shown(job_id: str) -> dict:
    done = run_cli("show", job_id, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


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

        claim = stage_states.claim_stage(store, job_id, "pdf", "run-2")
        error = StageError(RENDER_FAILED, "failed in a test", retryable=False)
        stage_states.fail_stage(store, job_id, "pdf", "run-2", claim.attempt, error)
        missing = _shown(job_id)["missingPdf"]
        assert (missing["reason"], missing["code"]) == ("failed", RENDER_FAILED)
        assert f"jobctrl retry {job_id} --stage pdf" in missing["sentence"]

        stage_control.reset_job_stage(store, job_id, "pdf")  # what the sentence says to run
        render(ctx, job_id, "run-3")
    finally:
        ctx.close()
    assert _shown(job_id)["missingPdf"] is None
    assert "no PDF" not in run_cli("show", job_id).stdout

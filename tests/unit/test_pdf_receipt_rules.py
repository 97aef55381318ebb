"""The missing-PDF receipt's rule (domain/pdf_receipt.py) and what the inbox says of a job
whose materials are written but not yet a PDF (domain/inbox.py)."""

from __future__ import annotations

from datetime import UTC, datetime

from jobctrl.domain.inbox import JobFacts, NextAction, next_action
from jobctrl.domain.pdf_receipt import FAILED, NOT_RUN, MissingPdf, missing_pdf


def _m(kind: str, generation: int, state: str, pdf: str | None = None) -> dict[str, object]:
    return {"kind": kind, "generation": generation, "state": state, "pdf_artifact": pdf}


def test_the_materials_in_use_without_a_pdf_are_missing_it_failed_or_not_run() -> None:
    both = [_m("resume", 1, "draft"), _m("cover", 1, "draft")]
    assert missing_pdf(both, "pending", None, job_busy=False) == MissingPdf(
        NOT_RUN, None, ("cover", "resume")
    )
    failed = missing_pdf(both, "failed", "render_failed", job_busy=True)
    assert failed is not None and (failed.reason, failed.code) == (FAILED, "render_failed")
    assert missing_pdf(both, "running", None, job_busy=True) is None  # being made now
    assert missing_pdf(both, "pending", None, job_busy=True) is None  # its turn to come


def test_the_generation_in_use_decides_an_approved_one_over_a_newer_draft() -> None:
    approved_with_pdf = [_m("resume", 1, "approved", "ab" * 32), _m("resume", 2, "draft")]
    assert missing_pdf(approved_with_pdf, "succeeded", None, job_busy=False) is None
    newest_draft = [_m("resume", 1, "rejected", "ab" * 32), _m("resume", 2, "draft")]
    found = missing_pdf(newest_draft, "succeeded", None, job_busy=False)
    assert found is not None and found.kinds == ("resume",)
    assert missing_pdf([], None, None, job_busy=False) is None


def test_the_inbox_says_the_pdf_is_still_to_be_made_not_that_it_reads_the_posting() -> None:
    now = datetime(2026, 12, 7, tzinfo=UTC)
    written = JobFacts(status="pending", current_stage="pdf", materials=("draft", "draft"))
    step = next_action(written, now)
    assert step.action == NextAction.IN_PROGRESS
    assert step.reason == "Your resume and letter are written; the PDF is still to be made."
    reading = next_action(JobFacts(status="pending", current_stage="score"), now)
    assert reading.reason == "jobctrl is reading and scoring this posting."

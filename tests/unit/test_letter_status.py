"""A job's status when its letter is optional (issue 31's review): a letter asked for on
top of a prepared job that fails leaves the job prepared, its resume's PDF standing; a
letter that fails in the preparation itself (no PDF made yet) still makes it failed."""

from __future__ import annotations

from jobctrl.domain.errors import COVER_ON_REQUEST, PROVIDER_AUTH
from jobctrl.domain.stages import (
    JobStatus,
    job_status,
    letter_failed_alone,
    letter_not_asked_for,
    letter_on_request,
)

DONE = ("succeeded", None)


def _stages(cover: tuple[str, str | None], pdf: tuple[str, str | None]) -> dict:
    return {"enrich": DONE, "score": DONE, "tailor": DONE, "cover": cover, "pdf": pdf}


def test_a_letter_asked_for_that_failed_leaves_the_job_prepared() -> None:
    stages = _stages(("failed", PROVIDER_AUTH), DONE)
    assert job_status(stages) == (JobStatus.PREPARED, "pdf", None)
    assert letter_failed_alone(stages) and letter_on_request(stages)
    assert not letter_not_asked_for(stages)


def test_a_letter_that_failed_before_any_pdf_fails_the_job() -> None:
    stages = _stages(("failed", PROVIDER_AUTH), ("pending", None))
    assert job_status(stages) == (JobStatus.FAILED, "cover", PROVIDER_AUTH)
    assert not letter_failed_alone(stages) and not letter_on_request(stages)


def test_a_letter_being_written_is_under_way_and_one_never_asked_for_waits() -> None:
    assert job_status(_stages(("running", None), DONE))[0] == JobStatus.RUNNING
    waiting = _stages(("skipped", COVER_ON_REQUEST), DONE)
    assert job_status(waiting)[0] == JobStatus.PREPARED
    assert letter_not_asked_for(waiting) and letter_on_request(waiting)
    assert not letter_on_request(_stages(DONE, DONE))

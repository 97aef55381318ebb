"""A job's evaluation report as a person opens it from the Job page (``GET
/v1/jobs/{id}/report``): the Markdown file `jobctrl` wrote when the job was scored."""

from __future__ import annotations

from pathlib import Path

from jobctrl.app.models import View
from jobctrl.app.queries import show_job
from jobctrl.domain.errors import ARTIFACT_MISSING, JOB_NOT_SCORED, JobctrlError
from jobctrl.home import Home

__all__ = ["MAX_REPORT_BYTES", "EvaluationReportText", "evaluation_report_text"]

MAX_REPORT_BYTES = 2_000_000  # a report is a few kilobytes


class EvaluationReportText(View):
    """The report's number, file name and text."""

    job_id: str
    number: int
    name: str
    text: str


def evaluation_report_text(home: Home, ref: str) -> EvaluationReportText:
    """The job's evaluation report (``job_not_scored`` before it has one,
    ``artifact_missing`` when its file is gone)."""
    job = show_job(home, ref)
    report = job.evaluation_report
    if report is None:
        raise JobctrlError(f"job {job.job_id} has no evaluation report yet", code=JOB_NOT_SCORED)
    path = Path(report.path)
    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_REPORT_BYTES + 1)
    except OSError:
        raise JobctrlError(
            f"the evaluation report of job {job.job_id} is missing ({path.name})",
            code=ARTIFACT_MISSING,
        ) from None
    text = data[:MAX_REPORT_BYTES].decode("utf-8", errors="replace")
    return EvaluationReportText(job_id=job.job_id, number=report.number, name=path.name, text=text)

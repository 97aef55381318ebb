"""The missing-PDF receipt (issue 34): a job whose resume or letter was written but has no
PDF, because its PDF step failed or never ran, says so — in `jobctrl show`, ``GET
/v1/jobs/{id}``, the Job page — instead of looking prepared. Pure: the materials and the
PDF stage row come from the store."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from jobctrl.domain.materials import MaterialState
from jobctrl.domain.stages import StageState

__all__ = ["FAILED", "NOT_RUN", "MissingPdf", "missing_pdf"]

FAILED = "failed"  # the PDF step failed (its code says why)
NOT_RUN = "not_run"  # the PDF step never ran for these materials (pending, skipped, absent)


@dataclass(frozen=True)
class MissingPdf:
    reason: str
    code: str | None
    kinds: tuple[str, ...]  # the materials without their PDF: resume, cover


def _in_use(materials: Iterable[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """Per kind, the generation the job would use: the approved one, else the newest
    draft (rejected and superseded ones are not used)."""
    chosen: dict[str, Mapping[str, Any]] = {}
    for m in sorted(materials, key=lambda m: int(m["generation"])):
        state = m["state"]
        if state == MaterialState.APPROVED.value:
            chosen[m["kind"]] = m
        elif state == MaterialState.DRAFT.value:
            kept = chosen.get(m["kind"])
            if kept is None or kept["state"] != MaterialState.APPROVED.value:
                chosen[m["kind"]] = m
    return chosen


def missing_pdf(
    materials: Iterable[Mapping[str, Any]],
    pdf_state: str | None,
    pdf_code: str | None,
    *,
    job_busy: bool,
) -> MissingPdf | None:
    """The receipt when a material the job would use has no PDF and nothing is under way
    to make it; None otherwise (every PDF there, or a stage of the job running now:
    ``job_busy``, the PDF step then still to come)."""
    kinds = tuple(sorted(k for k, m in _in_use(materials).items() if not m["pdf_artifact"]))
    if not kinds or pdf_state == StageState.RUNNING.value:
        return None
    if job_busy and pdf_state != StageState.FAILED.value:
        return None
    if pdf_state == StageState.FAILED.value:
        return MissingPdf(FAILED, pdf_code, kinds)
    return MissingPdf(NOT_RUN, None, kinds)

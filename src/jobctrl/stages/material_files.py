"""A job's resume and letter PDFs as they leave jobctrl: the approved generation of each
(else the newest rendered one), under its readable file name (``domain.naming``), with
its sha256 and size. The same names and hashes serve a download, an export, an email
attachment and a form upload. Here (not in ``app/``) so that the apply workflow's
activities use exactly what the commands use.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jobctrl.domain.errors import ARTIFACT_MISSING, JobctrlError
from jobctrl.domain.materials import MaterialKind, MaterialState
from jobctrl.domain.naming import material_file_name
from jobctrl.store import jobs
from jobctrl.store import materials as stored
from jobctrl.store.store import Store

__all__ = ["MaterialFile", "material_files", "pdf_file_name"]


@dataclass(frozen=True)
class MaterialFile:
    """A material's PDF as it leaves jobctrl: its readable ``name``, where the artifact
    store keeps it (``source``), its sha256 (the artifact id) and size."""

    kind: str
    generation: int
    approval: str
    name: str
    sha256: str
    size: int
    source: Path


def pdf_file_name(material: dict[str, Any], company: str | None, role: str | None = None) -> str:
    """The readable file name of a stored material row's PDF: the candidate's name as the
    document gives it (the resume's name, the letter's signature), its kind, the company
    (the job's, else the one the letter names) and the job's role."""
    content = material.get("content") or {}
    candidate = content.get("name") or content.get("signature") or ""
    return material_file_name(
        str(candidate),
        material["kind"],
        company or content.get("company") or "",
        role or "",
    )


def _chosen(rows: list[dict[str, Any]], kind: str, approved_only: bool) -> dict[str, Any] | None:
    """The approved generation of ``kind`` with a PDF, else (unless ``approved_only``) the
    newest generation with one."""
    rendered = [r for r in rows if r["kind"] == kind and r["pdf_artifact"]]
    approved = [r for r in rendered if r["state"] == MaterialState.APPROVED.value]
    pool = approved if approved or approved_only else rendered
    return max(pool, key=lambda r: r["generation"]) if pool else None


def material_files(store: Store, job_id: str, *, approved_only: bool = False) -> list[MaterialFile]:
    """Job ``job_id``'s resume and letter PDFs (resume first): the approved generation of
    each, else (unless ``approved_only``) the newest rendered one; a kind with none is
    left out. A PDF missing from the artifact store is ``ARTIFACT_MISSING``, with the
    command that renders it again."""
    job = jobs.job_row(store, job_id)
    company, role = job.get("company"), job.get("title")
    rows = stored.list_materials(store, job_id)
    files = []
    for kind in MaterialKind:
        row = _chosen(rows, kind.value, approved_only)
        if row is None:
            continue
        source = store.artifacts.path_for(row["pdf_artifact"])
        if not source.is_file():
            raise JobctrlError(  # the command doctor gives for a missing PDF file, too
                f"the {kind.value} PDF of job {job_id} is missing from the artifact store "
                f"(its file was deleted or moved): make it again with `jobctrl reset {job_id} "
                f"--stage pdf && jobctrl retry {job_id}` (a worker must be running)",
                code=ARTIFACT_MISSING,
            )
        files.append(
            MaterialFile(
                kind=kind.value,
                generation=row["generation"],
                approval=row["state"],
                name=pdf_file_name(row, company, role),
                sha256=row["pdf_artifact"],
                size=source.stat().st_size,
                source=source,
            )
        )
    return files

"""What the Job page shows about editing and approving a job's resume and letter: the text
of each to edit, the edited sentences approval waits for, and the decision taken (the
page's own context: ``pages.job_page`` merges it in)."""

from __future__ import annotations

from typing import Any

from jobctrl.app import material_edits as app_edits
from jobctrl.app.models import dump
from jobctrl.app.queries import MaterialView
from jobctrl.domain.errors import JobctrlError
from jobctrl.domain.materials import MaterialKind, MaterialState
from jobctrl.home import Home

__all__ = ["job_page_context"]

_NAMES = {MaterialKind.RESUME.value: "resume", MaterialKind.COVER.value: "letter"}


def _decided(materials: list[MaterialView]) -> list[dict[str, Any]]:
    """The approved generation of each kind while no draft waits: the decision shown."""
    if any(m.approval == MaterialState.DRAFT for m in materials):
        return []
    approved = [m for m in materials if m.approval == MaterialState.APPROVED]
    return [
        {"kind": _NAMES.get(m.kind, m.kind), "generation": m.generation, "at": m.decided_at}
        for m in sorted(approved, key=lambda m: m.kind != MaterialKind.RESUME)
    ]


def job_page_context(home: Home, job_id: str, materials: list[MaterialView]) -> dict[str, Any]:
    """``texts``: each kind's newest generation as text (resume first); ``blockers``: the
    edited drafts approval waits for; ``decided``: what was approved; ``posting_warning``:
    what to know about the posting before approving (None: it was found online)."""
    texts = []
    kinds = {m.kind for m in materials}
    for kind in (MaterialKind.RESUME.value, MaterialKind.COVER.value):
        if kind in kinds:
            try:
                texts.append(dump(app_edits.material_text(home, job_id, _NAMES[kind])))
            except JobctrlError:  # a stored document the form cannot show: no text area
                continue
    drafts = any(m.approval == MaterialState.DRAFT for m in materials)
    return {
        "posting_warning": app_edits.posting_warning(home, job_id).warning if drafts else None,
        "texts": texts,
        "blockers": dump(app_edits.approval_blockers(home, job_id)),
        "decided": _decided(materials),
    }

"""Editing a job's resume and letter before approving them: the text a person edits
(``material_text``), the edit saved as a new draft — truth-checked claim by claim against
the profile, kept as written, rendered (``edit_material``; the work is
``stages.material_edits``) — the edited sentences approval waits for
(``approval_blockers``) and what to know about the posting first (``posting_warning``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from jobctrl.app.models import View
from jobctrl.app.truth import TruthFinding
from jobctrl.domain.availability import Availability
from jobctrl.domain.clock import as_utc
from jobctrl.domain.materials import EDIT_PROVIDER, MaterialKind, MaterialState
from jobctrl.domain.truth.reasons import reason
from jobctrl.home import Home
from jobctrl.store import jobs
from jobctrl.store import materials as stored
from jobctrl.store.store import Store

if TYPE_CHECKING:  # a type only: reads import this module without the checker
    from jobctrl.domain.truth.document import Finding

__all__ = [
    "ApprovalBlocker",
    "MaterialEdited",
    "MaterialText",
    "PostingWarning",
    "approval_blockers",
    "edit_material",
    "material_text",
    "posting_warning",
    "posting_warning_in",
]


class PostingWarning(View):
    """What approving a job's materials should know first about its posting."""

    job_id: str
    availability: str | None  # active | unavailable | unknown | None (never checked)
    warning: str | None  # None: the last check found it online


def posting_warning_in(store: Store, job_id: str) -> PostingWarning:
    """``posting_warning`` for a resolved job id on an open store."""
    row = jobs.job_row(store, job_id)
    state = row.get("availability")
    checked = row.get("availability_checked_at")
    when = f" (checked {as_utc(checked):%Y-%m-%d %H:%M} UTC)" if checked else ""
    warning = None
    if state == Availability.UNAVAILABLE:
        warning = f"the posting is no longer online{when}: an application to it will not be sent"
    elif state != Availability.ACTIVE:
        what = "has not been checked yet" if state is None else f"could not be checked{when}"
        warning = (
            f"whether the posting is still online {what}: make sure before you apply "
            f"(`jobctrl check {job_id}`)"
        )
    return PostingWarning(job_id=job_id, availability=state, warning=warning)


def posting_warning(home: Home, ref: str) -> PostingWarning:
    """Whether the job's posting is known to be online, and a warning when it is not
    (closed, never checked, or its last check could not tell)."""
    store = Store.open(home)
    return posting_warning_in(store, jobs.resolve_job_id(store, ref))


class MaterialText(View):
    """The newest generation of a job's resume or letter as a person edits it."""

    job_id: str
    kind: str  # resume | letter
    generation: int
    approval: str
    text: str


class MaterialEdited(View):
    """A person's edit saved as a new draft generation, checked claim by claim and
    rendered. ``passed``: the profile supports every line (it may be approved);
    otherwise ``findings`` name each unsupported sentence and why, and approval waits
    until it is removed or the fact is added to the profile."""

    job_id: str
    kind: str  # resume | letter
    generation: int
    passed: bool
    checked: int
    findings: list[TruthFinding]
    pdf_url: str
    profile_version: int


class ApprovalBlocker(View):
    """An edited draft approval waits for: its kind and each unsupported sentence."""

    kind: str  # resume | letter
    generation: int
    findings: list[TruthFinding]


_KIND_NAME = {MaterialKind.RESUME.value: "resume", MaterialKind.COVER.value: "letter"}


def material_text(home: Home, ref: str, kind: str) -> MaterialText:
    """The newest ``kind`` (``resume`` or ``letter``) generation of the job as text."""
    # The checker and the PDF renderer load only for an edit (reads import this module).
    from jobctrl.stages import material_edits

    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    found = material_edits.editable_text(store, job_id, kind)
    return MaterialText(
        job_id=job_id,
        kind=_KIND_NAME[found.kind],
        generation=found.generation,
        approval=found.approval,
        text=found.text,
    )


def _finding_views(findings: Sequence[Finding]) -> list[TruthFinding]:
    return [
        TruthFinding(
            where=f.where, sentence=f.sentence, kind=f.kind, claim=f.claim, reason=reason(f.kind)
        )
        for f in findings
    ]


def edit_material(home: Home, ref: str, kind: str, text: str) -> MaterialEdited:
    """Save ``text`` as the job's new ``kind`` draft: read, cited and truth-checked like
    generated text (against the current profile), kept as written, rendered to a PDF.
    Text that cannot be read is ``invalid_input`` (nothing saved)."""
    from jobctrl.stages import material_edits  # see material_text

    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    saved = material_edits.save_edit(home, store, job_id, kind, text)
    return MaterialEdited(
        job_id=job_id,
        kind=_KIND_NAME[saved.kind],
        generation=saved.generation,
        passed=not saved.findings,
        checked=saved.checked,
        findings=_finding_views(saved.findings),
        pdf_url=f"/v1/artifacts/{saved.pdf_artifact}",
        profile_version=saved.profile_version,
    )


def approval_blockers(home: Home, ref: str) -> list[ApprovalBlocker]:
    """The job's edited drafts whose sentences the current profile does not support
    (none: nothing holds approval back)."""
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    drafts = {
        r["kind"]: r
        for r in stored.list_materials(store, job_id)
        if r["state"] == MaterialState.DRAFT.value
    }
    if not any(r["provider"] == EDIT_PROVIDER for r in drafts.values()):
        return []  # no edit waiting: the checker need not load
    from jobctrl.stages import material_edits  # see material_text

    return [
        ApprovalBlocker(
            kind=_KIND_NAME[kind],
            generation=drafts[kind]["generation"],
            findings=_finding_views(found),
        )
        for kind, found in material_edits.unsupported_edits(home, store, job_id).items()
    ]

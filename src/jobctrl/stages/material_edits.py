"""A person's edit of a job's tailored resume or cover letter, before they approve it.

The edit arrives as text (``domain.material_text``: the form `jobctrl materials edit` and
the Job page's text areas show), is read back into a document, cited
(``domain.truth.citing``: unchanged lines keep their citations) and checked claim by claim
with the same check Tailor and Cover run (``domain.truth.document``, with the job's
``claim_context``, against the current profile). It is saved as the person wrote it — never
repaired: an unsupported sentence is shown with its reason and stays until the person
removes it or adds the fact to their profile — as a new draft generation (provider
``person``), with its check recorded (``store.truth_checks``, run id ``edit-…``) and its
PDF rendered, in one transaction. Approval re-checks an edited draft
(``unsupported_edits``): it waits while a sentence is unsupported.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from jobctrl.config import load_config
from jobctrl.domain.clock import Clock, utcnow
from jobctrl.domain.errors import INVALID_INPUT, MISSING_INPUT, RENDER_FAILED, JobctrlError
from jobctrl.domain.material_text import (
    letter_from_text,
    letter_text,
    resume_from_text,
    resume_text,
)
from jobctrl.domain.materials import (
    EDIT_PROVIDER,
    EDIT_RUN_PREFIX,
    CoverLetter,
    MaterialKind,
    MaterialState,
    TailoredResume,
)
from jobctrl.domain.profile import Profile
from jobctrl.domain.stages import Stage
from jobctrl.domain.truth.changes import letter_lines, resume_lines
from jobctrl.domain.truth.citing import cite_letter, cite_resume
from jobctrl.domain.truth.document import Finding, check_letter, check_resume
from jobctrl.home import Home
from jobctrl.render.pdf import render_cover_letter, render_resume
from jobctrl.stages.materials import job_claim_context
from jobctrl.store import artifacts, jobs, profiles, truth_checks
from jobctrl.store import materials as stored
from jobctrl.store.store import Store

__all__ = [
    "EditOutcome",
    "EditableText",
    "editable_text",
    "save_edit",
    "unsupported_edits",
]

EDIT_MODEL = "edit"
_STAGE = {MaterialKind.RESUME: Stage.TAILOR, MaterialKind.COVER: Stage.COVER}


@dataclass(frozen=True)
class EditableText:
    """The generation a person edits (the newest of its kind) and its text form."""

    kind: str
    generation: int
    approval: str
    text: str


@dataclass(frozen=True)
class EditOutcome:
    """A saved edit: its new generation, the lines its check read, what the profile does
    not support (empty: it may be approved), its PDF and the profile version it was
    checked against."""

    kind: str
    generation: int
    checked: int
    findings: tuple[Finding, ...]
    pdf_artifact: str
    profile_version: int


def _kind(kind: str) -> MaterialKind:
    """``resume``, or ``letter`` (``cover``, as the materials rows name it)."""
    which = {"resume": MaterialKind.RESUME, "letter": MaterialKind.COVER}.get(kind)
    if which is None and kind == MaterialKind.COVER:
        which = MaterialKind.COVER
    if which is None:
        raise JobctrlError("kind must be resume or letter", code=INVALID_INPUT)
    return which


def _newest(store: Store, job_id: str, kind: MaterialKind) -> dict[str, Any]:
    row = stored.latest(store, job_id, kind)
    if row is None:
        what = "resume" if kind == MaterialKind.RESUME else "cover letter"
        raise JobctrlError(
            f"job {job_id} has no {what} to edit yet (materials are written after Score for "
            "jobs at or above min_fit_score)",
            code=MISSING_INPUT,
        )
    return row


def editable_text(store: Store, job_id: str, kind: str) -> EditableText:
    """The newest ``kind`` generation of the job in the form a person edits."""
    which = _kind(kind)
    row = _newest(store, job_id, which)
    text = (
        resume_text(TailoredResume.model_validate(row["content"]))
        if which == MaterialKind.RESUME
        else letter_text(CoverLetter.model_validate(row["content"]))
    )
    return EditableText(which.value, row["generation"], row["state"], text)


def _checked(
    home: Home,
    store: Store,
    job_id: str,
    kind: MaterialKind,
    document: Any,
    edited: Any,
    clock: Clock | None = None,
) -> tuple[Any, list[Finding], Profile]:
    """``document`` cited (unless ``edited`` is ``document`` itself: as stored) and checked
    against the current profile, as Tailor and Cover check theirs."""
    job = jobs.job_row(store, job_id)
    profile = load_config(home).profile
    context = job_claim_context(home, job, (clock or utcnow)().date())
    if kind == MaterialKind.RESUME:
        resume = document if edited is document else cite_resume(document, edited, profile, context)
        return resume, check_resume(resume, profile, context), profile
    letter = document if edited is document else cite_letter(document, edited, profile, context)
    return letter, check_letter(letter, profile, context), profile


def _render(kind: MaterialKind, document: Any, store: Store, job_id: str) -> bytes:
    try:
        if kind == MaterialKind.RESUME:
            return render_resume(document)
        sender = stored.latest(store, job_id, MaterialKind.RESUME)
        resume = TailoredResume.model_validate(sender["content"]) if sender else None
        return render_cover_letter(document, sender=resume)
    except ValueError as exc:  # a RenderError's code says why; its message, not markup
        code = exc.code if isinstance(exc, JobctrlError) else RENDER_FAILED
        raise JobctrlError("the edited text could not be rendered to a PDF", code=code) from None


def save_edit(
    home: Home, store: Store, job_id: str, kind: str, text: str, *, clock: Clock | None = None
) -> EditOutcome:
    """Save ``text`` as a new draft generation of the job's ``kind``, checked and rendered.
    Text that cannot be read is refused (``invalid_input``) and nothing is saved."""
    which = _kind(kind)
    base = _newest(store, job_id, which)
    job = jobs.job_row(store, job_id)
    if which == MaterialKind.RESUME:
        edited: Any = TailoredResume.model_validate(base["content"])
        document: Any = resume_from_text(text)
    else:
        edited = CoverLetter.model_validate(base["content"])
        company = str(job.get("company") or edited.company)
        document = letter_from_text(
            text, company=company, role=str(job.get("title") or edited.role)
        )
    document, findings, profile = _checked(home, store, job_id, which, document, edited, clock)
    checked = resume_lines(document) if which == MaterialKind.RESUME else letter_lines(document)
    pdf = _render(which, document, store, job_id)
    version = profiles.version_of(store, profile)
    sha = store.artifacts.put(pdf)
    edit_id = f"{EDIT_RUN_PREFIX}{uuid.uuid4().hex[:16]}"
    with store.write(clock=clock) as tx:
        generation = stored.add_generation(
            tx,
            job_id,
            which.value,
            content=document.model_dump(mode="json"),
            provider=EDIT_PROVIDER,
            model=EDIT_MODEL,
            profile_version=version,
            run_id=edit_id,
        )
        truth_checks.record(
            tx,
            job_id=job_id,
            stage=_STAGE[which].value,
            run_id=edit_id,
            attempt=1,
            generation=generation,
            checked=checked,
            findings=findings,
            profile_version=version,
        )
        kind_name = "resume_pdf" if which == MaterialKind.RESUME else "cover_pdf"
        artifacts.record(tx, sha, kind_name, "application/pdf", len(pdf))
        stored.attach_pdf(tx, job_id, which.value, generation, sha, key=f"rendered:{edit_id}")
        stored.supersede_drafts(tx, job_id, which.value, generation)
    return EditOutcome(which.value, generation, checked, tuple(findings), sha, version)


def unsupported_edits(
    home: Home, store: Store, job_id: str, *, clock: Clock | None = None
) -> dict[str, list[Finding]]:
    """The job's newest drafts that are a person's edit, each with what the current
    profile does not support (a kind left out has nothing unsupported): approval waits
    for these. A fact added to the profile since the edit counts."""
    found: dict[str, list[Finding]] = {}
    for kind in MaterialKind:
        row = stored.latest(store, job_id, kind)
        if row is None or row["provider"] != EDIT_PROVIDER:
            continue
        if row["state"] != MaterialState.DRAFT.value:
            continue
        model = TailoredResume if kind == MaterialKind.RESUME else CoverLetter
        document = model.model_validate(row["content"])
        _, findings, _ = _checked(home, store, job_id, kind, document, document, clock)
        if findings:  # cited afresh: a fact added to the profile since may support it now
            _, findings, _ = _checked(home, store, job_id, kind, _uncited(document), None, clock)
        if findings:
            found[kind.value] = findings
    return found


def _uncited(document: Any) -> Any:
    """``document`` read back from its own text: every line to be cited again."""
    if isinstance(document, TailoredResume):
        return resume_from_text(resume_text(document))
    return letter_from_text(letter_text(document), company=document.company, role=document.role)

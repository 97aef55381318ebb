"""Commands on a job's materials: decide on the newest drafts, write a new generation, or
export the PDFs under readable names (``domain.naming``: the names a download, an email
attachment and a form upload use too)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, overload

from jobctrl.app.material_edits import approval_blockers, posting_warning_in
from jobctrl.app.models import View
from jobctrl.app.truth import TruthCheckView, latest_truth_check
from jobctrl.domain import ids
from jobctrl.domain import stages as stages_rule
from jobctrl.domain.applications import DONE_STATUSES
from jobctrl.domain.errors import (
    EXISTS,
    INVALID_INPUT,
    MATERIALS_UNSUPPORTED,
    MISSING_INPUT,
    STAGE_BUSY,
    JobctrlError,
)
from jobctrl.domain.materials import MaterialKind, MaterialState
from jobctrl.domain.plain_words import sentence
from jobctrl.domain.stages import LATER_STAGES, Stage, StageState
from jobctrl.home import Home
from jobctrl.stages import material_files as stage_files
from jobctrl.stages.material_files import MaterialFile, pdf_file_name
from jobctrl.store import applications, jobs, stage_states, truth_checks
from jobctrl.store import materials as stored
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store

__all__ = [
    "DECISIONS",
    "ExportedFile",
    "MaterialDecision",
    "MaterialFile",
    "MaterialsExport",
    "MaterialsRegenerated",
    "RegenerationStarted",
    "decide_materials",
    "export_materials",
    "export_materials_report",
    "letter_failure",
    "material_files",
    "pdf_file_name",
    "regenerate_materials",
    "write_letter",
]

DECISIONS = {"approve": MaterialState.APPROVED, "reject": MaterialState.REJECTED}


class MaterialDecision(View):
    """A generation decided on: its kind, number and new state; ``posting_availability``
    (``active``, ``unavailable``, ``unknown``, None: never checked) and, when the posting
    is not known to be open, ``warning`` saying so."""

    kind: str
    generation: int
    state: str
    posting_availability: str | None = None
    warning: str | None = None


class RegenerationStarted(View):
    """The execution writing a new generation of the job's resume and letter."""

    job_id: str
    workflow_id: str
    run_id: str
    generation: int


class MaterialsRegenerated(RegenerationStarted):
    """A finished regeneration and this run's last truth check (None: none ran)."""

    truth_check: TruthCheckView | None


class ExportedFile(View):
    """A PDF written by an export: its kind, where and how many bytes."""

    kind: str
    path: str
    size: int


class MaterialsExport(View):
    """The PDFs an export wrote, resume first."""

    job_id: str
    files: list[ExportedFile]


def decide_materials(home: Home, ref: str, decision: str) -> list[MaterialDecision]:
    """``approve`` or ``reject`` the newest draft of each kind (``no_draft`` if none).
    Approving supersedes the approved generation; rejecting leaves it accepted. An edited
    draft the profile does not support is not approved (``materials_unsupported``)."""
    if decision not in DECISIONS:
        raise JobctrlError(
            "decision must be approve, reject, regenerate or letter", code=INVALID_INPUT
        )
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    if decision == "approve":
        blocked = approval_blockers(home, job_id)
        if blocked:
            first = blocked[0].findings[0]
            count = sum(len(b.findings) for b in blocked)
            raise JobctrlError(
                f"not approved: your edited {blocked[0].kind} says what your profile does not "
                f"support ({count} sentence{'s' if count != 1 else ''}), e.g. "
                f"“{first.sentence}”: it {first.reason}. Remove it or add the fact to your "
                "profile, then approve again",
                code=MATERIALS_UNSUPPORTED,
            )
    decided = stored.decide(store, job_id, DECISIONS[decision])
    posting = posting_warning_in(store, job_id)
    return [
        MaterialDecision(
            kind=d["kind"],
            generation=d["generation"],
            state=d["state"],
            posting_availability=posting.availability,
            warning=posting.warning if decision == "approve" else None,
        )
        for d in decided
    ]


@overload
async def regenerate_materials(
    home: Home, ref: str, *, wait: Literal[False] = False
) -> RegenerationStarted: ...
@overload
async def regenerate_materials(
    home: Home, ref: str, *, wait: Literal[True]
) -> MaterialsRegenerated: ...
async def regenerate_materials(
    home: Home, ref: str, *, wait: bool = False
) -> RegenerationStarted | MaterialsRegenerated:
    """Write a new generation of the resume and letter; the approved one stays accepted
    until the new one is approved. After the truth check refused a document, this is a
    new attempt at it. A letter left for the person to ask for (``COVER_ON_REQUEST``)
    stays so. With ``wait``, the result carries this run's last ``truthCheck``."""
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    if jobs.score_row(store, job_id) is None:
        raise JobctrlError(f"job {job_id} has no score yet", code=MISSING_INPUT)
    latest = stored.latest(store, job_id, MaterialKind.RESUME)
    generation = 1 + (latest["generation"] if latest else 0)
    # A refused document leaves the generation number where it was: the refusals seen so
    # far make the next request a new attempt (while one runs, a second request joins it).
    refused = truth_checks.refusals(store, job_id)
    workflow_id = ids.regenerate_workflow_id(job_id, generation, refused, store.tenant)
    # A letter asked for that failed is written again with the resume: the person wanted
    # one; a letter never asked for stays so.
    later = tuple(
        s for s in LATER_STAGES if s != Stage.COVER or not letter_not_asked_for(store, job_id)
    )
    return await _write(home, store, job_id, workflow_id, later, generation, wait=wait)


@overload
async def write_letter(
    home: Home, ref: str, *, wait: Literal[False] = False
) -> RegenerationStarted: ...
@overload
async def write_letter(home: Home, ref: str, *, wait: Literal[True]) -> MaterialsRegenerated: ...
async def write_letter(
    home: Home, ref: str, *, wait: bool = False
) -> RegenerationStarted | MaterialsRegenerated:
    """Write the cover letter of a prepared job whose letter was left for the person to
    ask for (it scored below ``materials.cover_min_score``), whose last letter failed or
    was refused by the truth check, or whose newest letter the person rejected; the
    resume stays as it is. ``generation`` is the letter's. A PDF made already stands while
    the letter is written (the letter's success sends it to be made again), so a letter
    that fails leaves the job prepared, its resume ready to go out alone."""
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    cover = _letter_wanted(store, job_id)
    latest = stored.latest(store, job_id, MaterialKind.COVER)
    generation = 1 + (latest["generation"] if latest else 0)
    # A new id after every attempt that ended (failed, refused, cancelled): asking again
    # starts a new run; asking twice while one is on its way is refused above.
    ended = int(cover["attempts"] or 0) if cover else 0
    workflow_id = ids.letter_workflow_id(job_id, generation, ended, store.tenant)
    pdf = _stage_row(store, job_id, Stage.PDF)
    made = pdf is not None and pdf["state"] == StageState.SUCCEEDED
    stages = (Stage.COVER,) if made else (Stage.COVER, Stage.PDF)
    return await _write(home, store, job_id, workflow_id, stages, generation, wait=wait)


def _letter_wanted(store: Store, job_id: str) -> dict[str, Any] | None:
    """The job's Cover row, when a letter may be written for it now; else why not."""
    score = jobs.score_row(store, job_id)
    minimum = int(Settings(store).get("min_fit_score"))
    if score is not None and score["score"] < minimum:
        raise JobctrlError(
            f"job {job_id} scored {score['score']}, below your minimum fit score ({minimum}): "
            "jobctrl writes no letter for it",
            code=INVALID_INPUT,
        )
    application = applications.get(store, job_id)
    if application is not None and application["status"] in DONE_STATUSES:
        raise JobctrlError(
            f"the application for job {job_id} has gone out already: a letter written now "
            "would not reach them",
            code=INVALID_INPUT,
        )
    states = {r["stage"]: r for r in stage_states.stage_rows(store, job_id)}
    tailor, cover = states.get(Stage.TAILOR.value), states.get(Stage.COVER.value)
    if tailor is None or tailor["state"] != StageState.SUCCEEDED:
        raise JobctrlError(
            f"job {job_id} has no tailored resume yet: its letter is written with it "
            "(`jobctrl show JOB` says where its preparation is)",
            code=MISSING_INPUT,
        )
    if cover is None or cover["state"] in (StageState.FAILED, StageState.SKIPPED):
        return cover  # left to be asked for, turned off, failed or refused: write it now
    if cover["state"] != StageState.SUCCEEDED:
        raise JobctrlError(
            f"the cover letter of job {job_id} is being written now", code=STAGE_BUSY
        )
    latest = stored.latest(store, job_id, MaterialKind.COVER)
    if latest is not None and latest["state"] == MaterialState.REJECTED:
        return cover  # the person turned the newest letter down: a new one
    raise JobctrlError(
        f"job {job_id} has its cover letter already: `jobctrl materials regenerate "
        "JOB` writes a new resume and letter",
        code=EXISTS,
    )


def letter_not_asked_for(store: Store, job_id: str) -> bool:
    """Whether the job's letter was left for the person to ask for (``COVER_ON_REQUEST``)
    and not asked for since."""
    rows = stage_states.stage_rows(store, job_id)
    return stages_rule.letter_not_asked_for(
        {r["stage"]: (r["state"], r["error_code"]) for r in rows}
    )


def letter_failure(job_id: str, stages: Mapping[str, tuple[str, str | None]]) -> str | None:
    """What the person reads when the letter they asked for failed or was refused
    (``letter_failed_alone``): why, in plain words, that the resume goes out alone, and how
    to ask again; else None. ``stages``: the job's ``stage -> (state, error code)``."""
    if not stages_rule.letter_failed_alone(stages):
        return None
    why = sentence(stages[Stage.COVER.value][1])
    return (
        f"The cover letter you asked for was not written: {why} Your resume can go out on "
        f"its own. To ask for the letter again: jobctrl materials letter {job_id}"
    )


def _stage_row(store: Store, job_id: str, stage: Stage) -> dict[str, Any] | None:
    return next((r for r in stage_states.stage_rows(store, job_id) if r["stage"] == stage), None)


async def _write(
    home: Home,
    store: Store,
    job_id: str,
    workflow_id: str,
    stages: tuple[Stage, ...],
    generation: int,
    *,
    wait: bool,
) -> RegenerationStarted | MaterialsRegenerated:
    """Put ``stages`` back to pending and run the job's preparation under
    ``workflow_id`` (the stages that stand are reused); with ``wait``, until it ends."""
    # Temporal only here: reads (`jobctrl show`, via queries) import this module and must
    # not load the Temporal client (issue 26)
    from jobctrl.app import runtime
    from jobctrl.workflows import starts

    client = await runtime.client_for(home)
    stage_states.reset_stages(store, job_id, tuple(s.value for s in stages), "regenerate")
    key = jobs.job_row(store, job_id)["idempotency_key"]
    started = await starts.start_preparation(
        client,
        home,
        store,
        job_id,
        key,
        workflow_id=workflow_id,
        materials=True,
    )
    result = RegenerationStarted(
        job_id=job_id,
        workflow_id=started.workflow_id,
        run_id=started.run_id,
        generation=generation,
    )
    if not wait:
        return result
    await starts.wait_for_result(
        client,
        started,
        600,
        still_running=f"job {job_id}'s materials are still being written after 600 s",
    )
    # This run's last check: a refusal says which document and how many claims.
    check = latest_truth_check(store, job_id)
    return MaterialsRegenerated(
        **dict(result), truth_check=check if check and check.run_id == started.run_id else None
    )


# -- readable PDFs -----------------------------------------------------------------------


def material_files(home: Home, ref: str, *, approved_only: bool = False) -> list[MaterialFile]:
    """The job's resume and letter PDFs (resume first) as they leave jobctrl: the approved
    generation of each, else the newest rendered one (none of a kind: left out). The rule
    is ``stages.material_files``, which the apply workflow uses too."""
    store = Store.open(home)
    return stage_files.material_files(
        store, jobs.resolve_job_id(store, ref), approved_only=approved_only
    )


def _place(tmp: str, path: Path, data: bytes) -> None:
    """Create ``path`` holding ``data`` unless it exists (``FileExistsError``)."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise
    except OSError:  # a file system without hard links (FAT): exclusive create instead
        with path.open("xb") as fh:
            fh.write(data)


def _write_new(directory: Path, name: str, data: bytes) -> Path:
    """Write ``data`` as ``name`` in ``directory``; a different file already there is kept
    and this one gets a suffix (``-2``, ``-3`` …); the same bytes already there are reused.
    The file appears whole or not at all (a hard link of a finished temporary file)."""
    stem = name.removesuffix(".pdf")
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".jobctrl-", suffix=".pdf.part")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        for n in range(1, 1000):
            path = directory / (name if n == 1 else f"{stem}-{n}.pdf")
            try:
                _place(tmp, path, data)
                return path
            except FileExistsError:
                with contextlib.suppress(OSError):
                    if path.is_file() and path.read_bytes() == data:
                        return path
    finally:
        Path(tmp).unlink(missing_ok=True)
    raise JobctrlError(f"too many files named like {name} in {directory}", code=EXISTS)


def export_materials_report(home: Home, ref: str, directory: Path | None = None) -> MaterialsExport:
    """Write the job's resume and letter PDFs (approved, else newest) into ``directory``
    (default: the current one) under readable names. A job without PDFs is refused
    (``missing_input``)."""
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    files = material_files(home, job_id)
    if not files:
        raise JobctrlError(
            f"job {job_id} has no PDFs yet (they are written after Score for jobs at or "
            "above min_fit_score; see `jobctrl show`)",
            code=MISSING_INPUT,
        )
    target = (directory or Path.cwd()).expanduser().absolute()
    try:
        target.mkdir(parents=True, exist_ok=True)
        written = [_write_new(target, f.name, f.source.read_bytes()) for f in files]
    except (FileExistsError, NotADirectoryError) as exc:
        raise JobctrlError(f"{target} is not a directory", code=INVALID_INPUT) from exc
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise JobctrlError(f"cannot write into {target}: {reason}", code=INVALID_INPUT) from exc
    return MaterialsExport(
        job_id=job_id,
        files=[
            ExportedFile(kind=f.kind, path=str(path), size=f.size)
            for f, path in zip(files, written, strict=True)
        ],
    )


def export_materials(home: Home, ref: str, directory: Path | None = None) -> list[Path]:
    """``export_materials_report``'s written paths, resume first."""
    return [Path(f.path) for f in export_materials_report(home, ref, directory).files]

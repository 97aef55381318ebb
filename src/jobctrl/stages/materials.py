"""Tailor, Cover and PDF: a truthful tailored resume and a cover letter for one job,
rendered to PDFs. Each generation is a draft until the user approves it; an approved
generation stays the accepted one until a newer one is approved.

Tailor and Cover run the lane's provider (offline: extractive, from the profile and the
requirement-fit report) behind the spend authority. Every resume and every letter passes
the truth check (``domain.truth``: each cited line against the profile facts it cites,
the job's company and title free to name, config.yaml's ``aliases:`` added to the shipped
list) before it is saved, and only what passes is saved: a line the check cannot support
is removed (a headline or summary sentence replaced by the closest supported one, a
changed field restored from the profile: ``domain.truth.repair``). When more than
``truth.max_dropped_share`` of the document would go, one repair request goes to the
model with the exact findings (``call_lane``'s ``repair`` step: paid once, under the spend
authority, reused after a crash), and its answer is checked and repaired the same way;
only if that is still too broken does the stage fail (``TAILOR_FABRICATION`` /
``COVER_FABRICATION``, never retried: nothing of it is saved, so no PDF can be rendered
from it, and a regenerate makes a new attempt). The offline writer is never asked again:
its document is kept or refused as it is. The check is recorded either way
(``store.truth_checks``): its findings, what the repair changed and whether the model was
asked to repair, with the new generation or with the stage's failure.

PDF renders the generation this preparation wrote: it refuses (``MATERIALS_MISSING``)
unless Tailor and Cover both succeeded, rather than render an older generation in its
place; a Cover left for the person to ask for (``COVER_ON_REQUEST``) renders the resume alone.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

from pydantic import BaseModel

from jobctrl.config import load_config
from jobctrl.domain.errors import (
    COVER_FABRICATION,
    COVER_ON_REQUEST,
    MATERIALS_MISSING,
    RENDER_FAILED,
    REQUIREMENT_FIT_MISSING,
    TAILOR_FABRICATION,
    JobctrlError,
    StageError,
)
from jobctrl.domain.materials import CoverLetter, MaterialKind, TailoredResume
from jobctrl.domain.profile import Profile, require_material_facts
from jobctrl.domain.scoring import ScoreReport
from jobctrl.domain.stages import Stage, StageState
from jobctrl.domain.truth.claims import ClaimContext
from jobctrl.domain.truth.document import FabricationError, Finding, refusal
from jobctrl.domain.truth.repair import (
    Repaired,
    has_substance,
    letter_lines,
    repair_letter,
    repair_resume,
    resume_lines,
)
from jobctrl.home import Home
from jobctrl.llm import lanes, prompts
from jobctrl.llm.answers import (
    LetterAnswer,
    ResumeAnswer,
    answer_from_letter,
    answer_from_resume,
    to_letter,
    to_resume,
)
from jobctrl.llm.offline_materials import cover_offline, tailor_offline
from jobctrl.render.pdf import render_cover_letter, render_resume
from jobctrl.stages.context import StageContext
from jobctrl.stages.owned import run_owned
from jobctrl.store import artifacts, jobs, profiles, stage_states, truth_checks
from jobctrl.store import materials as stored
from jobctrl.store.store import WriteTx


@dataclass(frozen=True)
class MaterialOutcome:
    generation: int
    reused: bool = False


def _inputs(
    ctx: StageContext, job_id: str, version: int | None
) -> tuple[Profile, ScoreReport, dict[str, Any]]:
    job = jobs.job_row(ctx.store, job_id)
    score = jobs.score_row(ctx.store, job_id)
    if score is None:
        raise StageError(
            REQUIREMENT_FIT_MISSING, "the job has no requirement-fit report yet", retryable=True
        )
    profile = (
        profiles.load_version(ctx.store, version)
        if version is not None
        else load_config(ctx.home).profile
    )
    require_material_facts(profile, job_id)  # PROFILE_EMPTY: nothing to write from
    return profile, ScoreReport.model_validate(score["report"]), job


def _reuse(ctx: StageContext, job_id: str, kind: str) -> MaterialOutcome:
    latest = stored.latest(ctx.store, job_id, kind)
    return MaterialOutcome(latest["generation"] if latest else 0, reused=True)


def claim_context(ctx: StageContext, job: dict[str, Any]) -> ClaimContext:
    """What the truth check needs besides the document and the profile: the employer and
    role applied to (a line may name them citing nothing), config.yaml's ``aliases:``,
    and today (what "present" means for a duration)."""
    return job_claim_context(ctx.home, job, ctx.now().date())


def job_claim_context(home: Home, job: dict[str, Any], today: date) -> ClaimContext:
    """``claim_context`` outside a stage run (a person's edit is checked with it too)."""
    free = tuple(str(name) for name in (job["company"], job["title"]) if name)
    aliases = load_config(home).alias_map()
    return ClaimContext(extra_aliases=aliases, free_names=free, today=today)


@dataclass(frozen=True)
class _Kind:
    """What differs between writing a resume and writing a letter."""

    stage: str
    kind: str  # the materials row kind
    code: str  # the stage's refusal: TAILOR_FABRICATION / COVER_FABRICATION
    lane: str
    output_type: type[ResumeAnswer] | type[LetterAnswer]  # what a model answers
    system: str
    # A model's answer as the finished document (profile, company, role)
    document: Callable[[Any, Profile, str | None, str | None], TailoredResume | CoverLetter]
    # ... and the document as the lane's answer (what a repair request shows the model)
    answer: Callable[[Any], BaseModel]
    offline: Callable[[Profile, ScoreReport, str | None, str | None], TailoredResume | CoverLetter]
    # The document with what its check flags repaired (the job's company and role given)
    repair: Callable[[Any, Profile, ClaimContext, str, str], Repaired[Any]]
    lines: Callable[[Any], int]


RESUME = _Kind(
    Stage.TAILOR,
    MaterialKind.RESUME,
    TAILOR_FABRICATION,
    "tailor",
    ResumeAnswer,
    prompts.TAILOR_SYSTEM,
    lambda answer, profile, _company, _role: to_resume(answer, profile),
    answer_from_resume,
    tailor_offline,
    lambda doc, profile, context, _company, _role: repair_resume(doc, profile, context),
    resume_lines,
)
LETTER = _Kind(
    Stage.COVER,
    MaterialKind.COVER,
    COVER_FABRICATION,
    "cover",
    LetterAnswer,
    prompts.COVER_SYSTEM,
    lambda answer, profile, company, role: to_letter(answer, profile, company=company, role=role),
    answer_from_letter,
    cover_offline,
    lambda doc, profile, context, company, role: repair_letter(
        doc, profile, context, company=company, role=role
    ),
    letter_lines,
)


def _kept(repaired: Repaired[Any], max_share: float) -> bool:
    """A repaired document is kept when what the repair removed is within the setting's
    share and what is left says something of the person (a repair answer that left
    everything out is no document)."""
    return repaired.clean and repaired.share <= max_share and has_substance(repaired.document)


def _generate(
    ctx: StageContext, spec: _Kind, job_id: str, run_id: str, version: int | None
) -> MaterialOutcome:
    checked: dict[int, int] = {}  # attempt -> lines its check read (for a refusal's record)
    claims: list[stage_states.Claim] = []  # the claim (which interrupted run it follows)

    def work(attempt: int) -> MaterialOutcome:
        nonlocal version
        profile, report, job = _inputs(ctx, job_id, version)
        if version is None:  # an input from before versions were frozen: config.yaml's
            version = profiles.version_of(ctx.store, profile)  # recorded as the one used
        title, company = job["title"], job["company"]
        context = claim_context(ctx, job)
        lane = lanes.lane_provider(ctx.home, spec.lane)
        max_share = float(ctx.settings.get("truth.max_dropped_share"))
        system, write, gaps = spec.system, spec.offline, True
        if spec.kind == MaterialKind.COVER:  # gaps only when the person asked for them
            gaps = bool(ctx.settings.get("materials.mention_gaps"))
            system = prompts.cover_system(mention_gaps=gaps)
            write = functools.partial(cover_offline, mention_gaps=gaps)
        request = functools.cache(
            lambda: prompts.materials_prompt(title, company, report, profile, unmet=gaps)
        )

        def ask(prompt: Callable[[], str], step: str = "") -> Any:
            return lanes.call_lane(
                ctx.spend,
                spec.lane,
                lane,
                job_id=job_id,
                run_id=run_id,
                attempt=attempt,
                output_type=spec.output_type,
                system=system,
                prompt=prompt,
                keep_alive=ctx.keep_alive,
                heartbeat=ctx.heartbeat,  # while it waits for its turn at the provider
                offline=lambda: write(profile, report, title, company),
                interrupted_run=claims[-1].interrupted_run,  # its answer is reused if it fits
                step=step,
            )

        def repaired(answer: Any) -> Repaired[Any]:
            # whichever provider wrote it: checked, and repaired where it is unsupported
            return spec.repair(answer, profile, context, company or "", title or "")

        def document(answer: Any) -> Any:  # a model's answer, or the offline writer's document
            if isinstance(answer, spec.output_type):
                return spec.document(answer, profile, company, title)
            return answer

        output = document(ask(request))
        checked[attempt] = spec.lines(output)
        kept = repaired(output)
        asked_again, found_first = False, tuple[Finding, ...]()
        if not _kept(kept, max_share) and lane.provider != "offline":
            # Too much to cut: one repair request with the exact findings (paid once, under
            # the spend authority, reused after a crash like the first answer).
            first, found_first = output, _findings(kept)
            output = document(
                ask(
                    lambda: prompts.repair_prompt(request(), spec.answer(first), found_first),
                    "repair",
                )
            )
            checked[attempt] = spec.lines(output)
            kept = repaired(output)
            asked_again = True
        # What the check found: in the answer kept, and in the first one a repair replaced.
        found = tuple(dict.fromkeys([*found_first, *_findings(kept)]))
        if not _kept(kept, max_share):
            raise refusal(spec.code, found, repair_requested=asked_again)
        with ctx.store.write(clock=ctx.clock) as tx:
            stage_states.succeed_stage(tx, job_id, spec.stage, run_id, attempt)
            if spec.kind == MaterialKind.COVER:
                _outdate_pdf(tx, job_id)
            generation = stored.add_generation(
                tx,
                job_id,
                spec.kind,
                content=kept.document.model_dump(mode="json"),
                provider=lane.provider,
                model=lane.model,
                profile_version=version,
                run_id=run_id,
            )
            truth_checks.record(
                tx,
                job_id=job_id,
                stage=spec.stage,
                run_id=run_id,
                attempt=attempt,
                generation=generation,
                checked=checked[attempt],
                findings=found,
                profile_version=version,
                passed=True,
                changes=kept.changes,
                repair_requested=asked_again,
            )
        return MaterialOutcome(generation)

    def refused(tx: WriteTx, attempt: int, error: FabricationError) -> None:
        truth_checks.record(
            tx,
            job_id=job_id,
            stage=spec.stage,
            run_id=run_id,
            attempt=attempt,
            generation=stored.next_generation(tx.conn, job_id, spec.kind),
            checked=checked.get(attempt, 0),
            findings=error.findings,
            profile_version=version,
            repair_requested=error.repair_requested,
        )

    return run_owned(
        ctx,
        job_id,
        spec.stage,
        run_id,
        work=work,
        reuse=lambda: _reuse(ctx, job_id, spec.kind),
        refused=refused,
        claimed=claims.append,
    )


def _outdate_pdf(tx: WriteTx, job_id: str) -> None:
    """A new letter puts a PDF step that ran back to pending, in the letter's own
    transaction: the PDFs made before it lack it. A letter asked for later (on request, or
    after the person rejected one) starts with the PDF step standing, so if it fails, the
    resume's PDF stands and the job is prepared again (``domain.stages.letter_failed_alone``);
    only a letter written sends the PDF step back to be made."""
    pdf = next(
        (r for r in stage_states.read_rows(tx.conn, job_id) if r["stage"] == Stage.PDF), None
    )
    if pdf is not None and pdf["state"] in (StageState.SUCCEEDED, StageState.FAILED):
        stage_states.reset_in(tx, job_id, (Stage.PDF.value,), "letter")


def _findings(repaired: Repaired[Any]) -> tuple[Finding, ...]:
    """Every finding the repair acted on (or could not repair), each once."""
    found = [f for change in repaired.changes for f in change.findings]
    return tuple(dict.fromkeys([*found, *repaired.unrepaired]))


def tailor(ctx: StageContext, job_id: str, run_id: str, version: int | None) -> MaterialOutcome:
    return _generate(ctx, RESUME, job_id, run_id, version)


def cover(ctx: StageContext, job_id: str, run_id: str, version: int | None) -> MaterialOutcome:
    return _generate(ctx, LETTER, job_id, run_id, version)


def _written(ctx: StageContext, job_id: str) -> bool:
    """Refuse to render unless Tailor and Cover both wrote this generation: after a
    refused (or failed) one, the newest stored document is an older generation's. A
    Cover left for the person to ask for (``COVER_ON_REQUEST``) renders the resume
    alone: whether the letter is rendered."""
    states = {r["stage"]: r for r in stage_states.stage_rows(ctx.store, job_id)}
    cover = states.get(Stage.COVER.value)
    on_request = bool(
        cover and cover["state"] == StageState.SKIPPED and cover["error_code"] == COVER_ON_REQUEST
    )
    for stage in (Stage.TAILOR,) if on_request else (Stage.TAILOR, Stage.COVER):
        row = states.get(stage.value)
        if row is None or row["state"] != StageState.SUCCEEDED:
            state = row["state"] if row else "missing"
            why = f" ({row['error_code']})" if row and row["error_code"] else ""
            raise StageError(
                MATERIALS_MISSING,
                f"{stage.value} did not write this generation ({state}{why}); nothing rendered",
            )
    return not on_request


def render(ctx: StageContext, job_id: str, run_id: str) -> MaterialOutcome:
    """Render the newest resume and letter to PDFs (stored as artifacts). A resume
    generation rendered already keeps its PDF (a letter written later, when the person
    asked for it, leaves an approved resume's file as it was approved)."""

    def work(attempt: int) -> MaterialOutcome:
        with_letter = _written(ctx, job_id)
        resume_row = stored.latest(ctx.store, job_id, MaterialKind.RESUME)
        letter_row = stored.latest(ctx.store, job_id, MaterialKind.COVER) if with_letter else None
        if resume_row is None:
            raise StageError(MATERIALS_MISSING, "there is no tailored resume to render")
        resume = TailoredResume.model_validate(resume_row["content"])
        rendered = resume_row.get("pdf_artifact")
        # A rendered resume whose file went missing from the artifact store is rendered
        # again, on purpose: an approval is of the exact text, and the renderer is
        # deterministic (tests/unit/test_render_pdf.py), so the same approved text gives
        # the same bytes under the same content address. Were the packaged template changed
        # since, the bytes differ and so does the sha256: an application names each
        # attachment by its sha256 (its approval binds them) and sends exactly those bytes,
        # checked (stages.apply_email), so a changed PDF never goes out under an old
        # approval. Refusing here instead would leave a new letter without its PDF.
        try:
            resume_pdf = (
                ctx.store.artifacts.get(rendered)
                if rendered and ctx.store.artifacts.path_for(rendered).exists()
                else render_resume(resume)
            )
            letter_pdf = (
                render_cover_letter(
                    CoverLetter.model_validate(letter_row["content"]), sender=resume
                )
                if letter_row
                else None
            )
        except ValueError as exc:  # a RenderError's code says why; its message, not markup
            code = exc.code if isinstance(exc, JobctrlError) else RENDER_FAILED
            raise StageError(code, "the PDF could not be rendered") from None
        resume_sha = ctx.store.artifacts.put(resume_pdf)
        letter_sha = ctx.store.artifacts.put(letter_pdf) if letter_pdf else None
        with ctx.store.write(clock=ctx.clock) as tx:
            stage_states.succeed_stage(tx, job_id, Stage.PDF, run_id, attempt)
            artifacts.record(tx, resume_sha, "resume_pdf", "application/pdf", len(resume_pdf))
            if letter_pdf and letter_sha:
                artifacts.record(tx, letter_sha, "cover_pdf", "application/pdf", len(letter_pdf))
            stored.attach_pdfs(
                tx,
                job_id,
                resume_id=resume_row["id"],
                resume_pdf=resume_sha,
                letter_id=letter_row["id"] if letter_row and letter_sha else None,
                letter_pdf=letter_sha,
                key=f"rendered:{job_id}:{run_id}:{attempt}",
            )
        return MaterialOutcome(resume_row["generation"])

    return run_owned(
        ctx,
        job_id,
        Stage.PDF,
        run_id,
        work=work,
        reuse=lambda: _reuse(ctx, job_id, MaterialKind.RESUME),
    )

"""Tailor, Cover and PDF: a truthful tailored resume and a cover letter for one job,
rendered to PDFs. Each generation is a draft until the user approves it; an approved
generation stays the accepted one until a newer one is approved.

Tailor and Cover run the lane's provider (offline: extractive, from the profile and the
requirement-fit report) behind the spend authority. Every resume and every letter passes
the truth check (``domain.truth``: each cited line against the profile facts it cites,
the job's company and title free to name, config.yaml's ``aliases:`` added to the shipped
list) before it is saved. The check is recorded either way (``store.truth_checks``): with
the new generation when it passed; with the stage's failure when it refused the document
(``TAILOR_FABRICATION`` / ``COVER_FABRICATION``, never retried: nothing of it is saved, so
no PDF can be rendered from it, and a regenerate makes a new attempt).

PDF renders the generation this preparation wrote: it refuses (``MATERIALS_MISSING``)
unless Tailor and Cover both succeeded, rather than render an older generation in its
place.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from jobctrl.config import load_config
from jobctrl.domain.errors import (
    MATERIALS_MISSING,
    RENDER_FAILED,
    REQUIREMENT_FIT_MISSING,
    JobctrlError,
    StageError,
)
from jobctrl.domain.materials import CoverLetter, MaterialKind, TailoredResume
from jobctrl.domain.profile import Profile
from jobctrl.domain.scoring import ScoreReport
from jobctrl.domain.stages import Stage, StageState
from jobctrl.domain.truth.claims import ClaimContext
from jobctrl.domain.truth.document import (
    FabricationError,
    assert_letter_truthful,
    assert_resume_truthful,
)
from jobctrl.llm import lanes, prompts
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
    return profile, ScoreReport.model_validate(score["report"]), job


def _reuse(ctx: StageContext, job_id: str, kind: str) -> MaterialOutcome:
    latest = stored.latest(ctx.store, job_id, kind)
    return MaterialOutcome(latest["generation"] if latest else 0, reused=True)


def claim_context(ctx: StageContext, job: dict[str, Any]) -> ClaimContext:
    """What the truth check needs besides the document and the profile: the employer and
    role applied to (a line may name them citing nothing), config.yaml's ``aliases:``,
    and today (what "present" means for a duration)."""
    free = tuple(str(name) for name in (job["company"], job["title"]) if name)
    aliases = load_config(ctx.home).alias_map()
    return ClaimContext(extra_aliases=aliases, free_names=free, today=ctx.now().date())


def resume_lines(resume: TailoredResume) -> int:
    """The lines a resume's check reads: the name, headline, each summary sentence, skill,
    entry, bullet and extra."""
    entries = resume.experience
    return (
        1
        + bool(resume.headline.text.strip())
        + len(resume.summary)
        + len(resume.skills)
        + len(entries)
        + sum(len(e.bullets) for e in entries)
        + len(resume.education)
        + len(resume.extras)
    )


def letter_lines(letter: CoverLetter) -> int:
    """The lines a letter's check reads: greeting, each sentence, closing and signature."""
    return 3 + sum(len(p.sentences) for p in letter.paragraphs)


@dataclass(frozen=True)
class _Kind:
    """What differs between writing a resume and writing a letter."""

    stage: str
    kind: str  # the materials row kind
    lane: str
    output_type: type[TailoredResume] | type[CoverLetter]
    system: str
    offline: Callable[[Profile, ScoreReport, str | None, str | None], TailoredResume | CoverLetter]
    check: Callable[[Any, Profile, ClaimContext], None]  # raises FabricationError
    lines: Callable[[Any], int]


RESUME = _Kind(
    Stage.TAILOR,
    MaterialKind.RESUME,
    "tailor",
    TailoredResume,
    prompts.TAILOR_SYSTEM,
    tailor_offline,
    assert_resume_truthful,
    resume_lines,
)
LETTER = _Kind(
    Stage.COVER,
    MaterialKind.COVER,
    "cover",
    CoverLetter,
    prompts.COVER_SYSTEM,
    cover_offline,
    assert_letter_truthful,
    letter_lines,
)


def _generate(
    ctx: StageContext, spec: _Kind, job_id: str, run_id: str, version: int | None
) -> MaterialOutcome:
    checked: dict[int, int] = {}  # attempt -> lines its check read (for a refusal's record)
    claims: list[stage_states.Claim] = []  # the claim (which interrupted run it follows)

    def work(attempt: int) -> MaterialOutcome:
        profile, report, job = _inputs(ctx, job_id, version)
        title, company = job["title"], job["company"]
        context = claim_context(ctx, job)
        lane = lanes.lane_provider(ctx.home, spec.lane)
        output = lanes.call_lane(
            ctx.spend,
            spec.lane,
            lane,
            job_id=job_id,
            run_id=run_id,
            attempt=attempt,
            output_type=spec.output_type,
            system=spec.system,
            prompt=lambda: prompts.materials_prompt(title, company, report, profile),
            keep_alive=ctx.keep_alive,
            heartbeat=ctx.heartbeat,  # while it waits for its turn at the provider
            offline=lambda: spec.offline(profile, report, title, company),
            interrupted_run=claims[-1].interrupted_run,  # its answer is reused if it fits
        )
        checked[attempt] = spec.lines(output)
        spec.check(output, profile, context)  # whichever provider wrote it
        with ctx.store.write(clock=ctx.clock) as tx:
            stage_states.succeed_stage(tx, job_id, spec.stage, run_id, attempt)
            generation = stored.add_generation(
                tx,
                job_id,
                spec.kind,
                content=output.model_dump(mode="json"),
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
                findings=(),
                profile_version=version,
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


def tailor(ctx: StageContext, job_id: str, run_id: str, version: int | None) -> MaterialOutcome:
    return _generate(ctx, RESUME, job_id, run_id, version)


def cover(ctx: StageContext, job_id: str, run_id: str, version: int | None) -> MaterialOutcome:
    return _generate(ctx, LETTER, job_id, run_id, version)


def _written(ctx: StageContext, job_id: str) -> None:
    """Refuse to render unless Tailor and Cover both wrote this generation: after a
    refused (or failed) one, the newest stored document is an older generation's."""
    states = {r["stage"]: r for r in stage_states.stage_rows(ctx.store, job_id)}
    for stage in (Stage.TAILOR, Stage.COVER):
        row = states.get(stage.value)
        if row is None or row["state"] != StageState.SUCCEEDED:
            state = row["state"] if row else "missing"
            why = f" ({row['error_code']})" if row and row["error_code"] else ""
            raise StageError(
                MATERIALS_MISSING,
                f"{stage.value} did not write this generation ({state}{why}); nothing rendered",
            )


def render(ctx: StageContext, job_id: str, run_id: str) -> MaterialOutcome:
    """Render the newest resume and letter to PDFs (stored as artifacts)."""

    def work(attempt: int) -> MaterialOutcome:
        _written(ctx, job_id)
        resume_row = stored.latest(ctx.store, job_id, MaterialKind.RESUME)
        letter_row = stored.latest(ctx.store, job_id, MaterialKind.COVER)
        if resume_row is None:
            raise StageError(MATERIALS_MISSING, "there is no tailored resume to render")
        resume = TailoredResume.model_validate(resume_row["content"])
        try:
            resume_pdf = render_resume(resume)
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

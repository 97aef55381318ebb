"""Tailor, Cover and PDF: a truthful tailored resume and a cover letter for one job,
rendered to PDFs. Each generation is a draft until the user approves it; an approved
generation stays the accepted one until a newer one is approved.

Tailor and Cover run the lane's provider (offline: extractive, from the profile and the
requirement-fit report) behind the spend authority; every resume passes the truth check
before it is saved.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from sqlalchemy import func, select, update

from jobctrl.config import load_config
from jobctrl.domain.errors import NotFoundError, StageError
from jobctrl.domain.events import MaterialDecided, MaterialGenerated, MaterialsRendered
from jobctrl.domain.materials import CoverLetter, TailoredResume
from jobctrl.domain.profile import Profile
from jobctrl.domain.scoring import ScoreReport
from jobctrl.domain.stages import Stage
from jobctrl.domain.truth import assert_truthful
from jobctrl.llm import lanes, prompts
from jobctrl.llm.offline_materials import cover_offline, tailor_offline
from jobctrl.render.pdf import render_cover_letter, render_resume
from jobctrl.stages.context import StageContext
from jobctrl.stages.owned import run_owned
from jobctrl.store import jobs, profiles, schema
from jobctrl.store.store import Store, utcnow

M = schema.materials
REQUIREMENT_FIT_MISSING = "REQUIREMENT_FIT_MISSING"


@dataclass(frozen=True)
class MaterialOutcome:
    generation: int
    reused: bool = False


def _inputs(
    ctx: StageContext, job_id: str, version: int | None
) -> tuple[Profile, ScoreReport, dict]:
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


def _latest(store: Store, job_id: str, kind: str) -> dict[str, Any] | None:
    with store.read() as conn:
        row = (
            conn.execute(
                select(M)
                .where(M.c.job_id == job_id, M.c.kind == kind)
                .order_by(M.c.generation.desc())
            )
            .mappings()
            .first()
        )
    return dict(row) if row else None


def _save(
    ctx: StageContext,
    job_id: str,
    stage: str,
    kind: str,
    run_id: str,
    attempt: int,
    content: dict,
    provider: str,
    model: str,
    version: int | None,
) -> int:
    with ctx.store.write() as tx:
        jobs.succeed_stage(tx, job_id, stage, run_id, attempt)
        generation = (
            int(
                tx.conn.execute(
                    select(func.coalesce(func.max(M.c.generation), 0)).where(
                        M.c.job_id == job_id, M.c.kind == kind
                    )
                ).scalar_one()
            )
            + 1
        )
        tx.conn.execute(
            M.insert().values(
                job_id=job_id,
                kind=kind,
                generation=generation,
                state="draft",
                content=content,
                provider=provider,
                model=model,
                profile_version=version,
                owner_run_id=run_id,
                created_at=utcnow(),
            )
        )
        tx.append(
            MaterialGenerated(
                job_id=job_id, kind=kind, generation=generation, provider=provider, model=model
            ),
            key=f"material:{job_id}:{kind}:{generation}",
        )
    return generation


def _reuse(store: Store, job_id: str, kind: str) -> MaterialOutcome:
    latest = _latest(store, job_id, kind)
    return MaterialOutcome(latest["generation"] if latest else 0, reused=True)


@dataclass(frozen=True)
class _Kind:
    """What differs between writing a resume and writing a letter."""

    stage: str
    kind: str  # the materials row kind
    lane: str
    output_type: type[TailoredResume] | type[CoverLetter]
    system: str
    offline: Callable[[Profile, ScoreReport, str | None, str | None], BaseModel]
    check: Callable[[Any, Profile], None] | None = None


RESUME = _Kind(
    Stage.TAILOR,
    "resume",
    "tailor",
    TailoredResume,
    prompts.TAILOR_SYSTEM,
    tailor_offline,
    assert_truthful,
)
LETTER = _Kind(Stage.COVER, "cover", "cover", CoverLetter, prompts.COVER_SYSTEM, cover_offline)


def _generate(
    ctx: StageContext, spec: _Kind, job_id: str, run_id: str, version: int | None
) -> MaterialOutcome:
    def work(attempt: int) -> MaterialOutcome:
        profile, report, job = _inputs(ctx, job_id, version)
        title, company = job["title"], job["company"]
        lane = lanes.lane_provider(ctx, spec.lane)
        output = lanes.call_lane(
            ctx,
            spec.lane,
            lane,
            job_id=job_id,
            run_id=run_id,
            attempt=attempt,
            output_type=spec.output_type,
            system=spec.system,
            prompt=lambda: prompts.materials_prompt(title, company, report, profile),
            offline=lambda: spec.offline(profile, report, title, company),
        )
        if spec.check is not None:
            spec.check(output, profile)  # every resume is checked against the profile
        generation = _save(
            ctx,
            job_id,
            spec.stage,
            spec.kind,
            run_id,
            attempt,
            output.model_dump(mode="json"),
            lane.provider,
            lane.model,
            version,
        )
        return MaterialOutcome(generation)

    return run_owned(
        ctx,
        job_id,
        spec.stage,
        run_id,
        work=work,
        reuse=lambda: _reuse(ctx.store, job_id, spec.kind),
    )


def tailor(ctx: StageContext, job_id: str, run_id: str, version: int | None) -> MaterialOutcome:
    return _generate(ctx, RESUME, job_id, run_id, version)


def cover(ctx: StageContext, job_id: str, run_id: str, version: int | None) -> MaterialOutcome:
    return _generate(ctx, LETTER, job_id, run_id, version)


def render(ctx: StageContext, job_id: str, run_id: str) -> MaterialOutcome:
    """Render the newest resume and letter to PDFs (stored as artifacts)."""

    def work(attempt: int) -> MaterialOutcome:
        resume_row = _latest(ctx.store, job_id, "resume")
        letter_row = _latest(ctx.store, job_id, "cover")
        if resume_row is None:
            raise StageError("MATERIALS_MISSING", "there is no tailored resume to render")
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
        except ValueError as exc:
            raise StageError(
                getattr(exc, "code", "RENDER_FAILED"), "the PDF could not be rendered"
            ) from None
        resume_sha = ctx.store.artifacts.put(resume_pdf)
        letter_sha = ctx.store.artifacts.put(letter_pdf) if letter_pdf else None
        with ctx.store.write() as tx:
            jobs.succeed_stage(tx, job_id, Stage.PDF, run_id, attempt)
            ctx.store.record_artifact(
                tx, resume_sha, "resume_pdf", "application/pdf", len(resume_pdf)
            )
            tx.conn.execute(
                update(M).where(M.c.id == resume_row["id"]).values(pdf_artifact=resume_sha)
            )
            if letter_row and letter_pdf and letter_sha:
                ctx.store.record_artifact(
                    tx, letter_sha, "cover_pdf", "application/pdf", len(letter_pdf)
                )
                tx.conn.execute(
                    update(M).where(M.c.id == letter_row["id"]).values(pdf_artifact=letter_sha)
                )
            tx.append(
                MaterialsRendered(job_id=job_id, resume_pdf=resume_sha, cover_pdf=letter_sha),
                key=f"rendered:{job_id}:{run_id}:{attempt}",
            )
        return MaterialOutcome(resume_row["generation"])

    return run_owned(
        ctx, job_id, Stage.PDF, run_id, work=work, reuse=lambda: _reuse(ctx.store, job_id, "resume")
    )


# -- review --------------------------------------------------------------------------------


def list_materials(store: Store, job_id: str) -> list[dict[str, Any]]:
    with store.read() as conn:
        rows = conn.execute(
            select(M).where(M.c.job_id == job_id).order_by(M.c.kind, M.c.generation)
        ).mappings()
        return [dict(r) for r in rows]


def decide(store: Store, job_id: str, state: str) -> list[dict[str, Any]]:
    """Approve or reject the newest draft of each kind. Approving supersedes the previous
    approved generation; rejecting leaves it the accepted one."""
    decided = []
    now = utcnow()
    with store.write() as tx:
        for kind in ("resume", "cover"):
            draft = tx.conn.execute(
                select(M.c.id, M.c.generation)
                .where(M.c.job_id == job_id, M.c.kind == kind, M.c.state == "draft")
                .order_by(M.c.generation.desc())
            ).first()
            if draft is None:
                continue
            if state == "approved":
                tx.conn.execute(
                    update(M)
                    .where(M.c.job_id == job_id, M.c.kind == kind, M.c.state == "approved")
                    .values(state="superseded", decided_at=now)
                )
            tx.conn.execute(update(M).where(M.c.id == draft.id).values(state=state, decided_at=now))
            tx.append(
                MaterialDecided(job_id=job_id, kind=kind, generation=draft.generation, state=state),
                key=f"material-decided:{job_id}:{kind}:{draft.generation}:{state}",
            )
            decided.append({"kind": kind, "generation": draft.generation, "state": state})
    if not decided:
        raise NotFoundError(
            f"job {job_id} has no materials waiting for a decision", code="no_draft"
        )
    return decided

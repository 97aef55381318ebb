"""Enrich: fetch a posting safely, extract its fields, store page and text as artifacts."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import update

from jobctrl.domain.errors import ENRICH_NO_CONTENT, StageError
from jobctrl.domain.events import JobEnriched
from jobctrl.domain.stages import Stage, StageState
from jobctrl.fetch.extract import extract_posting
from jobctrl.stages.context import StageContext
from jobctrl.store import jobs, schema
from jobctrl.store.store import utcnow


@dataclass(frozen=True)
class EnrichOutcome:
    text_artifact: str | None
    reused: bool = False


def enrich(ctx: StageContext, job_id: str, run_id: str) -> EnrichOutcome:
    claim = jobs.claim_stage(ctx.store, job_id, Stage.ENRICH, run_id)
    if claim.already is not None:
        return EnrichOutcome(jobs.job_row(ctx.store, job_id)["text_artifact"], reused=True)
    try:
        return _enrich_owned(ctx, job_id, run_id, claim.attempt)
    except StageError as error:
        if error.code != "OWNERSHIP_LOST":
            jobs.fail_stage(ctx.store, job_id, Stage.ENRICH, run_id, claim.attempt, error)
        raise


def _enrich_owned(ctx: StageContext, job_id: str, run_id: str, attempt: int) -> EnrichOutcome:
    job = jobs.job_row(ctx.store, job_id)
    ctx.heartbeat("fetch")
    page = ctx.fetcher().fetch(job["url"])
    ctx.heartbeat("extract")
    posting = extract_posting(page.body, page.final_url)
    if not posting.description.strip() and not posting.title:
        raise StageError(ENRICH_NO_CONTENT, "the page has no posting text that could be read")
    raw_sha = ctx.store.artifacts.put(page.body)
    text_sha = ctx.store.artifacts.put(posting.description.encode("utf-8"))
    salary = posting.salary
    with ctx.store.write() as tx:
        ctx.store.record_artifact(tx, raw_sha, "posting_page", page.content_type, len(page.body))
        ctx.store.record_artifact(
            tx, text_sha, "posting_text", "text/plain; charset=utf-8", len(posting.description)
        )
        jobs.succeed_stage(tx, job_id, Stage.ENRICH, run_id, attempt)
        tx.conn.execute(
            update(schema.jobs)
            .where(schema.jobs.c.id == job_id)
            .values(
                title=posting.title,
                company=posting.company,
                location=posting.location,
                remote=posting.remote,
                salary_min=salary.min if salary else None,
                salary_max=salary.max if salary else None,
                salary_currency=salary.currency if salary else None,
                salary_period=salary.period if salary else None,
                apply_url=posting.apply_url,
                date_posted=posting.date_posted,
                valid_through=posting.valid_through,
                extraction_method=posting.method,
                raw_artifact=raw_sha,
                text_artifact=text_sha,
                updated_at=utcnow(),
            )
        )
        tx.append(
            JobEnriched(
                job_id=job_id,
                title=posting.title,
                company=posting.company,
                location=posting.location,
                remote=posting.remote,
                salary_min=salary.min if salary else None,
                salary_max=salary.max if salary else None,
                salary_currency=salary.currency if salary else None,
                salary_period=salary.period if salary else None,
                apply_url=posting.apply_url,
                date_posted=posting.date_posted,
                valid_through=posting.valid_through,
                method=posting.method,
                raw_artifact=raw_sha,
                text_artifact=text_sha,
            ),
            key=f"job-enriched:{job_id}:{run_id}:{attempt}",
        )
    return EnrichOutcome(text_sha)


__all__ = ["EnrichOutcome", "StageState", "enrich"]

"""Enrich: fetch a posting safely (or take the capture the person's browser sent), extract
its fields, store page and text as artifacts."""

from __future__ import annotations

from dataclasses import dataclass

from jobctrl.domain.errors import ENRICH_NO_CONTENT, StageError
from jobctrl.domain.events import JobEnriched
from jobctrl.domain.extension import CAPTURE_SOURCE
from jobctrl.domain.posting import SalaryRange
from jobctrl.domain.stages import Stage
from jobctrl.fetch.capture import capture_posting
from jobctrl.fetch.extract import extract_posting
from jobctrl.stages.context import StageContext
from jobctrl.stages.owned import run_owned
from jobctrl.store import artifacts, captures, jobs, stage_states


@dataclass(frozen=True)
class EnrichOutcome:
    text_artifact: str | None
    reused: bool = False


def enrich(ctx: StageContext, job_id: str, run_id: str) -> EnrichOutcome:
    return run_owned(
        ctx,
        job_id,
        Stage.ENRICH,
        run_id,
        work=lambda attempt: _enrich_owned(ctx, job_id, run_id, attempt),
        reuse=lambda: EnrichOutcome(jobs.job_row(ctx.store, job_id)["text_artifact"], True),
    )


def _enrich_owned(ctx: StageContext, job_id: str, run_id: str, attempt: int) -> EnrichOutcome:
    job = jobs.job_row(ctx.store, job_id)
    # A posting the person's browser sent is the snapshot: the site is not asked (issue 32).
    capture = captures.newest(ctx.store, job_id)
    if capture is not None:
        ctx.heartbeat("extract")
        body = ctx.store.artifacts.get(capture["snapshot_artifact"])
        posting = capture_posting(body, job["url"], capture["fields"])
        posting = posting.model_copy(update={"method": CAPTURE_SOURCE})
        content_type, kind = "text/html; charset=utf-8", CAPTURE_SOURCE
    else:
        ctx.heartbeat("fetch")
        with ctx.fetcher() as fetcher:
            page = fetcher.fetch(job["url"])
        ctx.heartbeat("extract")
        posting = extract_posting(page.body, page.final_url)
        body, content_type, kind = page.body, page.content_type, "posting_page"
    if not posting.description.strip() and not posting.title:
        raise StageError(ENRICH_NO_CONTENT, "the page has no posting text that could be read")
    raw_sha = ctx.store.artifacts.put(body)
    text = posting.description.encode("utf-8")
    text_sha = ctx.store.artifacts.put(text)
    salary = posting.salary or SalaryRange()
    fields = {
        "title": posting.title,
        "company": posting.company,
        "location": posting.location,
        "remote": posting.remote,
        "salary_min": salary.min,
        "salary_max": salary.max,
        "salary_currency": salary.currency,
        "salary_period": salary.period,
        "apply_url": posting.apply_url,
        "date_posted": posting.date_posted,
        "valid_through": posting.valid_through,
        "raw_artifact": raw_sha,
        "text_artifact": text_sha,
    }
    with ctx.store.write(clock=ctx.clock) as tx:
        artifacts.record(tx, raw_sha, kind, content_type, len(body))
        if capture is not None:
            captures.mark_used(tx, capture["capture_id"])
        artifacts.record(tx, text_sha, "posting_text", "text/plain; charset=utf-8", len(text))
        stage_states.succeed_stage(tx, job_id, Stage.ENRICH, run_id, attempt)
        jobs.record_enrichment(tx, job_id, fields, posting.method)
        tx.append(
            JobEnriched(job_id=job_id, method=posting.method, **fields),
            key=f"job-enriched:{job_id}:{run_id}:{attempt}",
        )
    return EnrichOutcome(text_sha)

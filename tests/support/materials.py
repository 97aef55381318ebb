"""A job with a rendered resume and letter, made by the offline pipeline's own stages
(Enrich, Score, Tailor, Cover, PDF, then the evaluation report as the preparation's
finalize step writes it) run in-process against a loopback posting: what Temporal would
run, without needing a server to read or export materials."""

from __future__ import annotations

from jobctrl.home import Home
from jobctrl.stages.context import StageContext
from jobctrl.stages.enrich import enrich
from jobctrl.stages.materials import cover, render, tailor
from jobctrl.stages.score import score
from jobctrl.store import jobs, reports
from jobctrl.store.store import Store
from tests.support.http import FixtureServer, Route, posting_html

REQUIREMENTS = ["5+ years of Python", "Experience with PostgreSQL", "Kubernetes and Docker"]


def prepared_job(
    home: Home,
    store: Store,
    site: FixtureServer,
    path: str,
    *,
    title: str = "Senior Backend Engineer",
    company: str = "Acme Robotics",
    run_id: str = "run-materials",
) -> str:
    """A new job whose materials (generation 1, drafts) are rendered to PDFs; its id.
    Needs ``fetch.allow_hosts`` to hold 127.0.0.1 and ``min_fit_score`` at most its score
    (the integration tests' ``fast_settings``)."""
    body = posting_html(title, company, REQUIREMENTS)
    job = jobs.create_job(store, site.add(path, Route(body=body)))
    ctx = StageContext(home=home, store=store)
    try:
        enrich(ctx, job.job_id, run_id)
        score(ctx, job.job_id, run_id)
        tailor(ctx, job.job_id, run_id, None)
        cover(ctx, job.job_id, run_id, None)
        render(ctx, job.job_id, run_id)
    finally:
        ctx.close()
    reports.write_report(home, store, job.job_id)
    return job.job_id

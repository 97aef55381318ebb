"""Jobs ready for the apply workflow: a loopback posting (optionally giving an application
address, ``mailto:``) prepared in-process by the offline pipeline's own stages, its
materials rendered to PDFs and, unless asked otherwise, approved."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest_asyncio
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RPCError

from jobctrl.app.materials import decide_materials
from jobctrl.domain import ids
from jobctrl.home import Home
from jobctrl.stages.context import StageContext
from jobctrl.stages.enrich import enrich
from jobctrl.stages.materials import cover, render, tailor
from jobctrl.stages.score import score
from jobctrl.store import apply_claims, jobs
from jobctrl.store.store import Store
from tests.support.http import FixtureServer, Route

REQUIREMENTS = ["5+ years of Python", "Experience with PostgreSQL", "Kubernetes and Docker"]


def posting(
    title: str, company: str, *, email: str | None = None, requirements: list[str] | None = None
) -> bytes:
    """A JobPosting page; with ``email``, its JSON-LD names ``mailto:`` as where to apply."""
    bullets = "".join(f"<li>{r}</li>" for r in requirements or REQUIREMENTS)
    ld: dict[str, object] = {
        "@context": "https://schema.org",
        "@type": "JobPosting",
        "title": title,
        "hiringOrganization": {"@type": "Organization", "name": company},
        "jobLocation": {"@type": "Place", "address": {"addressLocality": "Berlin"}},
        "datePosted": "2026-11-01",
        "description": f"<p>Join {company}.</p><h3>Requirements</h3><ul>{bullets}</ul>",
    }
    if email:
        ld["applicationUrl"] = f"mailto:{email}"
    script = f'<script type="application/ld+json">{json.dumps(ld)}</script>'
    body = f"<h1>{title}</h1><p>Join {company}.</p><h3>Requirements</h3><ul>{bullets}</ul>"
    return f"<html><head><title>{title}</title>{script}</head><body>{body}</body></html>".encode()


def approved_job(
    home: Home,
    store: Store,
    site: FixtureServer,
    path: str,
    *,
    email: str | None = None,
    company: str = "Acme Robotics",
    approve: bool = True,
    requirements: list[str] | None = None,
) -> str:
    """A new job whose resume and letter are rendered (and approved, unless ``approve`` is
    False); its id. Needs the integration tests' ``fast_settings``."""
    page = posting("Senior Backend Engineer", company, email=email, requirements=requirements)
    job = jobs.create_job(store, site.add(path, Route(body=page)))
    ctx = StageContext(home=home, store=store)
    try:
        enrich(ctx, job.job_id, "run-apply")
        score(ctx, job.job_id, "run-apply")
        tailor(ctx, job.job_id, "run-apply", None)
        cover(ctx, job.job_id, "run-apply", None)
        render(ctx, job.job_id, "run-apply")
    finally:
        ctx.close()
    if approve:
        decide_materials(home, job.job_id, "approve")
    return job.job_id


async def end_standing_loop(client: Client) -> None:
    """Terminate ``apply-auto-local`` if it runs: its id is the namespace's, shared by
    every test on the session's Temporal server."""
    handle = client.get_workflow_handle(ids.APPLY_LOOP_ID)
    try:
        if (await handle.describe()).status == WorkflowExecutionStatus.RUNNING:
            await handle.terminate("test cleanup")
    except RPCError:
        pass  # none yet


@pytest_asyncio.fixture
async def no_standing_loop(temporal_env) -> AsyncIterator[None]:
    """No standing apply loop of another test runs before or after this one."""
    await end_standing_loop(temporal_env.client)
    yield
    await end_standing_loop(temporal_env.client)


def claim_in_process(home_dir: str, job_id: str, owner: str, barrier: Any, out: Any) -> None:
    """A claim of ``job_id`` from a process of its own (``multiprocessing``), started with
    the others at ``barrier``; puts ``(owner, claim_id, code)`` on ``out``."""
    store = Store.open(Home(Path(home_dir)))
    barrier.wait()
    outcome = apply_claims.claim(
        store, job_id, workflow_id=owner, run_id=owner, min_fit_score=0, approval_required=True
    )
    out.put((owner, outcome.claim_id, outcome.code))
    store.dispose()

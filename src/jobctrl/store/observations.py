"""What the sources listed: ``source_observations`` (one row per job, source and URL), what
the deduper starts from, and a listing recorded with its run membership and event."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from jobctrl.domain.discovery import Cohort, ExecutionRef
from jobctrl.domain.events import JobDiscovered
from jobctrl.store import schema, tenancy
from jobctrl.store.db import upsert
from jobctrl.store.discovery import link_member, run_tenant
from jobctrl.store.store import Store, WriteTx

SO = schema.source_observations


def known_postings(store: Store) -> tuple[list[Any], list[Any]]:
    """Every job (id, url, title, company, location, source) and every listing a source
    gave (job_id, source_kind, external_id, url, title, company, location, source_name):
    what the deduper starts from."""
    j = schema.jobs
    with store.read() as conn:
        jobs = conn.execute(
            select(j.c.id, j.c.url, j.c.title, j.c.company, j.c.location, j.c.source).where(
                tenancy.scoped(j, conn)
            )
        ).all()
        listings = conn.execute(
            select(
                SO.c.job_id,
                SO.c.source_kind,
                SO.c.external_id,
                SO.c.url,
                SO.c.title,
                SO.c.company,
                SO.c.location,
                SO.c.source_name,
            ).where(tenancy.scoped(SO, conn))
        ).all()
    return list(jobs), list(listings)


def observe(
    tx: WriteTx,
    ref: ExecutionRef,
    job_id: str,
    *,
    source_kind: str,
    source_name: str,
    external_id: str | None,
    url: str,
    title: str | None,
    company: str | None,
    location: str | None,
) -> None:
    """A source listed the job in this run: its observation, its membership of the run
    and the ``JobDiscovered`` event, in the caller's transaction."""
    upsert(
        tx.conn,
        SO,
        {
            "job_id": job_id,
            "source_kind": source_kind,
            "source_name": source_name,
            "external_id": external_id,
            "url": url,
            "title": title,
            "company": company,
            "location": location,
            "first_seen_at": tx.now,
            "last_seen_at": tx.now,
            "last_run_id": ref.run_id,
            "tenant_id": run_tenant(tx.conn, ref),
        },
        keys=["job_id", "source_kind", "source_name", "url"],
        update=["last_seen_at", "last_run_id", "external_id", "title", "company", "location"],
    )
    link_member(tx, ref, job_id, Cohort.OBSERVED)
    tx.append(
        JobDiscovered(
            job_id=job_id,
            source_kind=source_kind,
            source_name=source_name,
            title=title,
            company=company,
            location=location,
            discover_workflow_id=ref.workflow_id,
            discover_run_id=ref.run_id,
            cohort=Cohort.OBSERVED.value,
        ),
        key=f"discovered:{ref.run_id}:{job_id}:{source_kind}:{source_name}",
    )

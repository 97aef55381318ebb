"""The profile versions a tenant's jobs were made with: each score's and the materials in
use (``domain.staleness`` says what is stale). Read a page of jobs at a time, or every
job of the tenant (a rescore choosing its jobs, the count a new profile version logs)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, select

from jobctrl.domain.stages import JobStatus
from jobctrl.domain.staleness import (
    MaterialRow,
    MaterialsInUse,
    is_stale,
    materials_in_use,
    regenerates_materials,
)
from jobctrl.store import schema, tenancy
from jobctrl.store.store import Store

JS, M, JL = schema.job_scores, schema.materials, schema.job_list_projections
CHUNK = 500  # job ids per IN (…): well under any database's bound on parameters


@dataclass(frozen=True)
class JobVersions:
    """One job's: the profile version of its score (None: not scored, or before versions
    were recorded), the materials it would use, and whether its score skipped the rest."""

    scored: int | None = None
    materials: MaterialsInUse | None = None
    skipped: bool = False

    @property
    def materials_version(self) -> int | None:
        return self.materials.version if self.materials else None

    def stale(self, current: int | None) -> bool:
        return is_stale(current, self.scored, self.materials, skipped=self.skipped)

    def regenerates_materials(self, current: int | None) -> bool:
        return regenerates_materials(current, self.materials, skipped=self.skipped)


def _chunks(job_ids: Sequence[str]) -> Iterable[Sequence[str]]:
    for start in range(0, len(job_ids), CHUNK):
        yield job_ids[start : start + CHUNK]


def read_versions(conn: Connection, job_ids: Sequence[str] | None) -> dict[str, JobVersions]:
    """Each job's versions (``job_ids`` None: every job of the connection's tenant that has
    a score or materials); a job with neither is left out."""
    scored: dict[str, int | None] = {}
    rows: dict[str, list[MaterialRow]] = {}
    skipped: set[str] = set()
    parts = [None] if job_ids is None else list(_chunks(list(dict.fromkeys(job_ids))))
    tenant = tenancy.tenant_of(conn)
    for part in parts:
        # By job id: the keys' indexes (``keyed``); every job: the tenant's (``scoped``).
        mine = tenancy.scoped(JS, conn) if part is None else tenancy.keyed(JS, tenant)
        js = select(JS.c.job_id, JS.c.profile_version).where(mine)
        mine = tenancy.scoped(M, conn) if part is None else tenancy.keyed(M, tenant)
        ms = select(M.c.job_id, M.c.kind, M.c.generation, M.c.state, M.c.profile_version)
        ms = ms.where(mine)
        mine = tenancy.scoped(JL, conn) if part is None else tenancy.keyed(JL, tenant)
        jl = select(JL.c.job_id).where(mine, JL.c.status == JobStatus.SKIPPED.value)
        if part is not None:
            js, ms = js.where(JS.c.job_id.in_(part)), ms.where(M.c.job_id.in_(part))
            jl = jl.where(JL.c.job_id.in_(part))
        scored.update({r.job_id: r.profile_version for r in conn.execute(js)})
        for r in conn.execute(ms):
            rows.setdefault(r.job_id, []).append(
                MaterialRow(r.kind, r.generation, r.state, r.profile_version)
            )
        skipped.update(conn.execute(jl).scalars())
    return {
        job_id: JobVersions(
            scored=scored.get(job_id),
            materials=materials_in_use(rows.get(job_id, ())),
            skipped=job_id in skipped,
        )
        for job_id in scored.keys() | rows.keys()
    }


def versions(store: Store, job_ids: Sequence[str] | None = None) -> dict[str, JobVersions]:
    """``read_versions`` on a read connection of the store's tenant."""
    with store.read() as conn:
        return read_versions(conn, job_ids)


@dataclass(frozen=True)
class StaleCounts:
    jobs: int
    scores: int
    materials: int


def count_stale(found: dict[str, JobVersions], current: int | None) -> StaleCounts:
    """How many of ``found`` are stale against ``current``: in all, by score, by materials."""
    stale = [v for v in found.values() if v.stale(current)]
    return StaleCounts(
        jobs=len(stale),
        scores=sum(1 for v in stale if v.scored is not None and v.scored != current),
        materials=sum(1 for v in stale if v.regenerates_materials(current)),
    )

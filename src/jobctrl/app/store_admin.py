"""Moving a home's store: ``jobctrl store copy --to URL`` copies the home's SQLite database
into an empty PostgreSQL database (issue 14's migration path).

The home stays the home: config.yaml, the API token, ``artifacts/`` (pages, texts,
reports and PDFs, referenced from the rows by sha256) and ``reports/`` are files, not
rows, and are not copied. The target's workers and web app run with the same
``JOBCTRL_HOME`` (or a shared or copied one) and ``JOBCTRL_DATABASE_URL`` set to the
target.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from jobctrl.app.models import View
from jobctrl.domain.errors import STORE_SOURCE_IN_USE, JobctrlError
from jobctrl.home import Home
from jobctrl.store import copy, copy_target
from jobctrl.store.copy import CopyProgress, CopyResult
from jobctrl.store.store import Store

__all__ = ["ArtifactsKept", "CopyStep", "StoreCopied", "copy_store"]


class ArtifactsKept(View):
    """The artifact files, which stay in the home's folder: how many rows reference one,
    and how many of those files are missing."""

    dir: str
    referenced: int
    missing: int


class StoreCopied(View):
    """What a store copy did (stable keys; the target URL never with its password)."""

    source: str
    target: str
    tables: dict[str, int]  # copied rows per table, foreign-key order
    rows: int
    skipped: dict[str, int]
    events: int
    last_seq: int
    sequences: dict[str, int]
    projections_rebuilt: bool
    events_folded: int
    projections: dict[str, int]
    projections_match_source: bool
    projection_differences: list[str]
    artifacts: ArtifactsKept
    reports_dir: str
    workers_running: int
    open_runs: int
    seconds: float
    warnings: list[str]


class CopyStep(View):
    """Where a copy is: its phase (checking, copying, sequences, projections, verifying,
    committing), the table being copied, rows copied of all rows."""

    phase: str
    table: str | None
    done: int
    total: int


def copy_store(
    home: Home,
    to: str,
    *,
    force: bool = False,
    progress: Callable[[CopyStep], None] | None = None,
) -> StoreCopied:
    """Copy the home's SQLite store into the empty PostgreSQL database ``to``; what was
    copied (the URL never with its password). Refused while a worker
    beats against the source (what it writes after the snapshot would stay behind), unless
    ``force``."""
    target = copy_target.target_url(to)  # a bad URL is refused before anything is opened
    copy.source_database(home.database_url)

    def report(p: CopyProgress) -> None:
        if progress is not None:
            progress(CopyStep.from_row(p))

    # An unreachable or used target is refused before the source is opened (and migrated,
    # as every command's first use does): a refused copy changes nothing anywhere.
    report(CopyProgress("checking", None, 0, 0))
    copy_target.refuse_used_target(target)
    source = Store.open(home)
    running = copy.workers_running(source, datetime.now(UTC))
    if running and not force:
        raise JobctrlError(
            f"{running} worker(s) are running against this home: what they write after the "
            "copy begins would stay in the SQLite store only — stop them (and `jobctrl up`) "
            "first, or pass --force to copy the store as it is now",
            code=STORE_SOURCE_IN_USE,
        )
    result = copy.copy_to_postgresql(source, target, progress=report, checked=True)
    return _copied(home, result)


def _copied(home: Home, r: CopyResult) -> StoreCopied:
    return StoreCopied(
        source=r.source,
        target=r.target,
        tables=r.tables,
        rows=sum(r.tables.values()),
        skipped=r.skipped,
        events=r.events,
        last_seq=r.last_seq,
        sequences=r.sequences,
        projections_rebuilt=True,
        events_folded=r.events_folded,
        projections=r.projections,
        projections_match_source=not r.projection_differences,
        projection_differences=r.projection_differences,
        artifacts=ArtifactsKept(
            dir=str(home.artifacts_dir), referenced=r.artifacts, missing=r.artifacts_missing
        ),
        reports_dir=str(home.reports_dir),
        workers_running=r.workers_running,
        open_runs=r.open_runs,
        seconds=r.seconds,
        warnings=_warnings(r),
    )


def _warnings(r: CopyResult) -> list[str]:
    found = []
    if r.workers_running:
        found.append(
            f"{r.workers_running} worker(s) ran against the source moments ago: the copy is "
            "the store as it was when it began; what they write later stays in the SQLite "
            "store only — stop them (and `jobctrl up`) and copy into a new database again"
        )
    if r.open_runs:
        found.append(
            f"{r.open_runs} execution(s) were running: the target's workers must use the "
            "same Temporal server (the embedded one keeps its history in this home's "
            "temporal.db), or their runs end as not found and automatic recovery retries "
            "them"
        )
    if r.artifacts_missing:
        found.append(
            f"{r.artifacts_missing} of {r.artifacts} artifacts are missing from the "
            "artifacts dir already (the source misses them too)"
        )
    if r.projection_differences:
        found.append(
            "the projections rebuilt from the event log differ from the source's in "
            f"{', '.join(r.projection_differences)}: the rebuilt ones are kept "
            "(`jobctrl projections rebuild` on the source gives the same)"
        )
    return found

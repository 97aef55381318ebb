"""career-ops compatible evaluation reports: reserved report numbers and the Markdown file.

The coordinator (the workflow's finalize step) owns both: it reserves a job's number in one
write transaction, so numbers run 1, 2, 3... with no gaps or duplicates however many
workers finish at once, and it writes ``reports/NNN-company-role-YYYY-MM-DD.md`` itself;
workers only return envelopes. A job keeps its number and its file for good: writing the
report again replaces the same file. A report quotes only the requirement lines and the
profile evidence the score report already holds, never the posting's page text.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import unicodedata
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import func, insert, select, update
from sqlalchemy.exc import IntegrityError

from jobctrl.domain.clock import Clock, utcnow
from jobctrl.domain.errors import JOB_NOT_FOUND, JOB_NOT_SCORED, NotFoundError
from jobctrl.domain.events import ReportWritten
from jobctrl.domain.scoring import ScoreReport
from jobctrl.home import Home
from jobctrl.store import schema
from jobctrl.store.jobs import job_row, score_row
from jobctrl.store.store import Store, WriteTx

__all__ = ["render_report", "report_filename", "reserve_number", "write_report"]

R = schema.report_numbers
T = TypeVar("T")
_RESERVE_ATTEMPTS = 5  # only a server database (PostgreSQL) can race to the same number


def reserve_number(store: Store, job_id: str) -> int:
    """The job's report number, reserved on first call (the next after the highest)."""
    return _retrying(lambda: _reserve_in_tx(store, job_id, None)[0])


def render_report(job: dict[str, Any], report: ScoreReport, number: int, today: str) -> str:
    """The Markdown evaluation report, ending in career-ops' fenced YAML Machine Summary."""
    company, role = _inline(job.get("company")), _inline(job.get("title"))
    url = _inline(job.get("url"))
    reqs = report.requirements
    matched = sum(1 for r in reqs if r.matched)
    musts = [r for r in reqs if r.kind == "must"]
    lines = [
        f"# Evaluation: {company or 'Unknown company'} — {role or 'Unknown role'}",
        "",
        f"**Report:** {number:03d}",
        f"**Date:** {today}",
        f"**URL:** {url}",
        f"**Score:** {report.score}/100 ({_inline(report.verdict)})",
        f"**Verdict:** {_inline(report.verdict)}",
        f"**Scored by:** {_inline(report.provider)} / {_inline(report.model)}",
        "",
        "---",
        "",
        "## Summary",
        "",
    ]
    lines += [
        _inline(report.summary)
        or f"Meets {matched} of {len(reqs)} requirements "
        f"({sum(1 for r in musts if r.matched)} of {len(musts)} must-haves).",
        "",
        "## Requirements",
        "",
    ]
    if reqs:
        lines += ["| # | Requirement | Kind | Met | Evidence |", "|---|---|---|---|---|"]
        for i, r in enumerate(reqs, 1):
            quotes = "; ".join(f'"{_cell(e.text)}" ({_cell(e.source)})' for e in r.evidence)
            mark = "✓" if r.matched else "✗"
            lines.append(f"| {i} | {_cell(r.requirement)} | {r.kind} | {mark} | {quotes or '—'} |")
    else:
        lines.append("No requirement list was found in the posting.")
    summary = {
        "report_number": f"{number:03d}",
        "job_id": job.get("id"),
        "company": company or None,
        "role": role or None,
        "url": url or None,
        "date": today,
        "score": report.score,
        "score_scale": 100,
        "verdict": report.verdict,
        "requirements_total": len(reqs),
        "requirements_matched": matched,
    }
    gaps = [_inline(r.requirement) for r in reqs if not r.matched]
    lines += ["", "---", "", "## Machine Summary", "", "```yaml"]
    # JSON scalars are valid YAML, and json.dumps quotes and escapes strings safely.
    lines += [f"{key}: {json.dumps(value, ensure_ascii=False)}" for key, value in summary.items()]
    lines.append("gaps: []" if not gaps else "gaps:")
    lines += [f"  - {json.dumps(g, ensure_ascii=False)}" for g in gaps]
    lines += ["```", ""]
    return "\n".join(lines)


def report_filename(number: int, company: str | None, role: str | None, today: str) -> str:
    """``NNN-company-slug-role-slug-YYYY-MM-DD.md``, safe as a single path component."""
    return f"{number:03d}-{_slug(company, 'company')}-{_slug(role, 'role')}-{today}.md"


def write_report(
    home: Home, store: Store, job_id: str, *, today: str | None = None, clock: Clock | None = None
) -> Path:
    """Write (or rewrite) the job's report, dated ``today`` (default: the clock's UTC day),
    in the tenant's ``reports/`` (``home`` and ``store`` act for the same tenant); its
    number and file name never change."""
    if home.tenant != store.tenant:
        raise ValueError(f"home of tenant {home.tenant}, store of tenant {store.tenant}")
    job = job_row(store, job_id)
    scored = score_row(store, job_id)
    if scored is None:
        raise NotFoundError(f"job {job_id} has no score to report", code=JOB_NOT_SCORED)
    report = ScoreReport.model_validate(scored["report"])
    day = date.fromisoformat(today).isoformat() if today else (clock or utcnow)().date().isoformat()
    # Relative to the root, as it always was: ``reports/…`` (local), ``tenants/T/reports/…``.
    folder = home.reports_dir.relative_to(home.root).as_posix()
    number, rel = _retrying(lambda: _reserve_in_tx(store, job_id, (job, day, folder), clock))
    assert rel is not None
    target = home.root / rel
    _write_atomically(target, render_report(job, report, number, day))
    with store.write(clock=clock) as tx:
        tx.conn.execute(
            update(R)
            .where(R.c.tenant_id == tx.tenant, R.c.job_id == job_id)
            .values(written_at=tx.now)
        )
        tx.append(
            ReportWritten(job_id=job_id, number=number, path=rel),
            key=f"report-written:{job_id}:{number}",
        )
    return target


# -- internals -----------------------------------------------------------------------------


def _reserve_in_tx(
    store: Store,
    job_id: str,
    naming: tuple[dict[str, Any], str, str] | None,
    clock: Clock | None = None,
) -> tuple[int, str | None]:
    """Reserve the number and, given (job, day, folder), fix the report's path on first use."""
    with store.write(clock=clock) as tx:
        number, path = _reserve(tx, job_id)
        if path is None and naming is not None:
            job, day, folder = naming
            name = report_filename(number, job.get("company"), job.get("title"), day)
            path = f"{folder}/{name}"
            tx.conn.execute(
                update(R).where(R.c.tenant_id == tx.tenant, R.c.job_id == job_id).values(path=path)
            )
        return number, path


def _reserve(tx: WriteTx, job_id: str) -> tuple[int, str | None]:
    mine = R.c.tenant_id == tx.tenant
    row = tx.conn.execute(select(R.c.number, R.c.path).where(mine, R.c.job_id == job_id)).first()
    if row is not None:
        return int(row.number), row.path
    J = schema.jobs
    if (
        tx.conn.execute(select(J.c.id).where(J.c.tenant_id == tx.tenant, J.c.id == job_id)).first()
        is None
    ):
        raise NotFoundError(f"no job {job_id!r}", code=JOB_NOT_FOUND)
    # Writers are serialised (BEGIN IMMEDIATE on SQLite, the writers' advisory lock on
    # PostgreSQL), so the tenant's max + 1 leaves no gaps: numbers run 1, 2, 3... per tenant.
    highest = tx.conn.execute(select(func.coalesce(func.max(R.c.number), 0)).where(mine))
    number = int(highest.scalar_one()) + 1
    tx.conn.execute(
        insert(R).values(tenant_id=tx.tenant, job_id=job_id, number=number, created_at=tx.now)
    )
    return number, None


def _retrying(reserve: Callable[[], T]) -> T:
    """Run ``reserve`` again when a concurrent transaction took the same number or job."""
    for attempt in range(_RESERVE_ATTEMPTS):
        try:
            return reserve()
        except IntegrityError:
            if attempt == _RESERVE_ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")


def _write_atomically(target: Path, text: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _slug(text: str | None, fallback: str, limit: int = 40) -> str:
    folded = unicodedata.normalize("NFKD", text or "").encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")[:limit].rstrip("-")
    return slug or fallback


def _inline(text: object) -> str:
    return " ".join(str(text).split()) if text is not None else ""


def _cell(text: str) -> str:
    return _inline(text).replace("|", "\\|")

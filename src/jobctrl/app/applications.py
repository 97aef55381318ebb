"""The application tracker: every application with its status and outcome, the person's
outcome, note and follow-up date for one, and career-ops ``applications.md`` / CSV
export and import.

An outcome (applied, screening, interview, offer, rejected, no answer) means the
application went out: setting one on a job never sent or submitted through jobctrl marks
it applied, so nothing applies for it again. Importing the same career-ops file twice
adds nothing; a row is matched to a job jobctrl knows (by the posting URL — its own URL
column or its report's ``**URL:**`` — else by company and role), otherwise it is kept as
a tracker row with no job. A value changed in jobctrl since the last import is kept.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime
from pathlib import Path
from typing import Any

from jobctrl.app.models import Day, Timestamp, View
from jobctrl.domain.applications import ApplicationStatus, Outcome
from jobctrl.domain.errors import INVALID_INPUT, JobctrlError
from jobctrl.home import Home
from jobctrl.sources.career_ops_tracker import (
    TrackerEntry,
    entry_from_cells,
    parse_applications_md,
    report_url,
    write_applications_md,
)
from jobctrl.sources.tracker_csv import write_csv
from jobctrl.store import application_tracker as tracker
from jobctrl.store import applications, jobs
from jobctrl.store.store import Store, WriteTx

__all__ = [
    "EXPORT_FORMATS",
    "OUTCOMES",
    "ImportCounts",
    "TrackedApplication",
    "export_applications",
    "import_applications",
    "list_applications",
    "set_application_outcome",
]

OUTCOMES = tuple(o.value for o in Outcome)
EXPORT_FORMATS = ("career-ops", "csv")
MAX_NOTE = 2000
MAX_IMPORT_BYTES = 5_000_000
_S = ApplicationStatus


class TrackedApplication(View):
    """An application as the tracker shows it (``jobctrl applications``, the API and the
    Applications page): an imported row without a job has ``job_id`` None."""

    application_id: str
    job_id: str | None
    company: str | None
    role: str | None
    status: str
    outcome: str | None
    applied_at: Timestamp | None
    follow_up: Day | None
    notes: str
    score: int | None
    url: str | None
    channel: str | None
    source: str | None
    error_code: str | None
    updated_at: Timestamp | None

    @classmethod
    def of(cls, row: dict[str, Any]) -> TrackedApplication:
        """From a ``store.application_tracker.tracker_rows`` row: the job's company, role,
        URL and score where the application has none of its own."""
        return cls(
            application_id=row["id"],
            job_id=row["job_id"],
            company=row["company"] or row.get("job_company"),
            role=row["role"] or row.get("job_title"),
            status=row["status"],
            outcome=row["outcome"],
            applied_at=row["applied_at"],
            follow_up=row["follow_up"],
            notes=row["notes"] or "",
            score=row["score"] if row["score"] is not None else row.get("job_score"),
            url=row["url"] or row.get("job_url"),
            channel=row["channel"],
            source=row["source"],
            error_code=row["error_code"],
            updated_at=row["updated_at"],
        )


class ImportCounts(View):
    """What a career-ops import did: rows added as tracker rows, matched to jobs, updated,
    unchanged, and the rows it could not read (``line N: why``)."""

    added: int
    matched: int
    updated: int
    unchanged: int
    skipped: list[str]


def list_applications(home: Home) -> list[TrackedApplication]:
    """Every application, most recently changed first."""
    return [TrackedApplication.of(r) for r in tracker.tracker_rows(Store.open(home))]


def _follow_up(value: str | date | None) -> date | None:
    if value is None or isinstance(value, date):
        return value
    try:
        return date.fromisoformat(value.strip())
    except ValueError:
        raise JobctrlError(
            f"follow-up must be a date as YYYY-MM-DD, not {value[:40]!r}", code=INVALID_INPUT
        ) from None


def set_application_outcome(
    home: Home,
    ref: str,
    outcome: str,
    *,
    note: str | None = None,
    follow_up: str | date | None = None,
) -> TrackedApplication:
    """Record what came of the application of job ``ref`` (or of application ``app-…``),
    with a note and a follow-up date; a job without an application gets one. The event
    carries the outcome code and the date, never the note."""
    if outcome not in OUTCOMES:
        raise JobctrlError(f"outcome must be one of {', '.join(OUTCOMES)}", code=INVALID_INPUT)
    if note is not None and len(note) > MAX_NOTE:
        raise JobctrlError(f"a note is at most {MAX_NOTE} characters", code=INVALID_INPUT)
    when = _follow_up(follow_up)
    store = Store.open(home)
    ref = ref.strip()
    job_id = None if ref.startswith("app-") else jobs.resolve_job_id(store, ref)
    with store.write() as tx:
        row = applications.ensure_for_job(tx, job_id) if job_id else applications.require(tx, ref)
        applications.set_outcome(tx, row["id"], outcome, note, when)
        row["outcome"] = outcome
        tracker.mark_status(tx, row, _S.APPLIED.value, source="person")
        app_id = row["id"]
    return next(TrackedApplication.of(r) for r in tracker.tracker_rows(store) if r["id"] == app_id)


# -- export ----------------------------------------------------------------------------------


def _report_link(home: Home, path: str) -> str:
    """A report's path as applications.md (in ``data/`` of the tenant's folder) links it:
    ``reports/…`` relative to the tenant's own folder (a report's stored path is relative
    to the home: ``tenants/T/reports/…`` outside ``local``)."""
    try:
        return (home.root / path).relative_to(home.tenant_root).as_posix()
    except ValueError:
        return path


def _entries(home: Home, rows: list[dict[str, Any]]) -> list[TrackerEntry]:
    """The tracker's rows in career-ops terms, numbered (an imported row keeps its ``#``,
    a job its report's number unless taken) and in ``#`` order."""
    drafts = []
    for r in rows:
        before = entry_from_cells(r["tracker"] or {})
        day = r["applied_at"] or before.date or r["created_at"]
        path = r["report_path"]
        report = f"[{r['report_number']}](../{_report_link(home, path)})" if path else ""
        view = TrackedApplication.of(r)
        drafts.append(
            TrackerEntry(
                number=before.number if r["tracker"] else r["report_number"],
                date=day.date() if isinstance(day, datetime) else day,
                company=view.company or "",
                role=view.role or "",
                score=view.score,
                status=r["status"],
                outcome=r["outcome"],
                pdf=True if r["has_pdf"] else before.pdf,
                report=report or before.report,
                notes=r["notes"] or "",
                follow_up=r["follow_up"],
                via=before.via,
                url=view.url,
                cells=r["tracker"] or {},
            )
        )
    taken: set[int] = set()
    numbered = []
    for e in sorted(drafts, key=lambda e: (not e.cells, e.number is None, e.number or 0)):
        number = e.number if e.number is not None and e.number not in taken else None
        number = number if number is not None else max(taken, default=0) + 1
        taken.add(number)
        numbered.append(replace(e, number=number))
    return sorted(numbered, key=lambda e: e.number or 0)


def export_applications(home: Home, fmt: str) -> str:
    """The tracker as career-ops ``applications.md`` or as CSV."""
    if fmt not in EXPORT_FORMATS:
        raise JobctrlError(f"format must be {' or '.join(EXPORT_FORMATS)}", code=INVALID_INPUT)
    rows = tracker.tracker_rows(Store.open(home))
    if fmt == "career-ops":
        return write_applications_md(_entries(home, rows))
    records = []
    for r in rows:
        view = TrackedApplication.of(r)
        records.append(
            {
                "company": view.company,
                "role": view.role,
                "status": r["status"],
                "outcome": r["outcome"],
                "applied": r["applied_at"].date() if r["applied_at"] else None,
                "follow_up": r["follow_up"],
                "notes": r["notes"],
                "score": view.score,
                "url": view.url,
                "job_id": r["job_id"],
                "application_id": r["id"],
                "source": r["source"],
            }
        )
    return write_csv(records)


# -- import ----------------------------------------------------------------------------------


def _read_tracker(path: Path) -> str:
    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_IMPORT_BYTES + 1)
    except OSError as exc:
        raise JobctrlError(
            f"cannot read {path}: {exc.strerror or type(exc).__name__}", code=INVALID_INPUT
        ) from None
    if len(data) > MAX_IMPORT_BYTES:
        raise JobctrlError(f"{path} is over {MAX_IMPORT_BYTES // 1_000_000} MB", code=INVALID_INPUT)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise JobctrlError(f"{path} is not UTF-8 text", code=INVALID_INPUT) from None


def _merge(
    tx: WriteTx, row: dict[str, Any], entry: TrackerEntry, before: TrackerEntry | None
) -> bool:
    """Bring the career-ops row's values onto an application: each one jobctrl has none
    of, or has as the last import left it; True if anything changed."""

    def take(new: Any, current: Any, previous: Any) -> bool:
        empty = current is None or current == ""
        return new != current and (empty or (before is not None and current == previous))

    values: dict[str, Any] = {}
    own = row["job_id"] is None  # a tracker row: career-ops owns its company, role, score

    def was(name: str) -> Any:
        return getattr(before, name) if before else None

    fields: list[tuple[str, Any, Any]] = [
        ("notes", entry.notes or None, was("notes") or None),
        ("follow_up", entry.follow_up, was("follow_up")),
    ]
    if own:
        fields += [(name, getattr(entry, name), was(name)) for name in ("company", "role", "score")]
    for name, new, previous in fields:
        if take(new, row[name], previous):
            values[name] = new
    if entry.url and not row["url"]:
        values["url"] = entry.url
    if row["tracker"] != dict(entry.cells):
        values["tracker"] = dict(entry.cells)
    changed = bool(values)
    tracker.update_tracked(tx, row["id"], values)
    if entry.outcome and take(entry.outcome, row["outcome"], was("outcome")):
        applications.set_outcome(tx, row["id"], entry.outcome)
        row["outcome"] = entry.outcome
        changed = True
    if entry.status in (_S.APPLIED, _S.ABANDONED):
        if own and take(entry.status, row["status"], was("status")):
            row["status"] = _S.DRAFT.value  # a tracker row of its own: any status may change
        changed |= tracker.mark_status(tx, row, entry.status, source="career-ops", on=entry.date)
    return changed


def import_applications(home: Home, path: Path) -> ImportCounts:
    """Bring a career-ops ``applications.md`` in: how many rows were added, matched,
    updated and unchanged, and the rows it could not read (``skipped``, and why)."""
    parsed = parse_applications_md(_read_tracker(path))
    if not parsed.entries and not parsed.skipped:
        raise JobctrlError(f"{path} has no career-ops tracker rows", code=INVALID_INPUT)
    urls = [e.url or report_url(path, e.report) for e in parsed.entries]
    counts = {"added": 0, "matched": 0, "updated": 0, "unchanged": 0}
    store = Store.open(home)
    with store.write() as tx:
        for entry, url in zip(parsed.entries, urls, strict=True):
            entry = replace(entry, url=url)
            row = tracker.find_imported(tx.conn, entry.number, entry.company)
            if row is not None:
                before = entry_from_cells(row["tracker"] or {})
                counts["updated" if _merge(tx, row, entry, before) else "unchanged"] += 1
                continue
            job_id = tracker.match_job(tx.conn, url=url, company=entry.company, role=entry.role)
            if job_id is not None:
                _merge(tx, applications.ensure_for_job(tx, job_id), entry, None)
                counts["matched"] += 1
                continue
            tracker.insert_imported(
                tx,
                company=entry.company,
                role=entry.role,
                url=url,
                status=entry.status,
                outcome=entry.outcome,
                notes=entry.notes,
                follow_up=entry.follow_up,
                score=entry.score,
                applied_on=entry.date,
                cells=dict(entry.cells),
            )
            counts["added"] += 1
    return ImportCounts(**counts, skipped=parsed.skipped)

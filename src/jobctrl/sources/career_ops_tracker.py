"""career-ops's application tracker, ``data/applications.md``, read and written. Pure text
in, text out (reading a linked report for its URL aside); the CSV export is ``tracker_csv``.

The tracker (github.com/santifer/career-ops, ``modes/tracker.md``, ``templates/states.yml``,
``tracker-parse.mjs``) is one Markdown table under ``# Applications Tracker``::

    | # | Date | Company | Role | Score | Status | PDF | Report | Notes |
    |---|------|---------|------|-------|--------|-----|--------|-------|
    | 1 | 2026-06-20 | Acme | SRE | 4.2/5 | Applied | ✅ | [1](../reports/001-acme.md) | Fit |

``#`` is the row's identity (its report number); Score is ``N.N/5`` (or ``N/A``, ``—``);
Status is exactly one canonical state (Evaluated, Applied, Responded, Interview, Offer,
Rejected, Discarded, SKIP, Hired; Spanish and Turkish aliases are read as theirs); PDF
is ✅ or ❌; Report is a link into ``reports/`` or ``—``. Columns are found by their
header names (a Via column after Company, Location, URL and Follow-up columns are read
too); a table without a recognisable header is read in the fixed order above. A cell
never holds a ``|`` or a line break (written as `` / `` and a space, as career-ops does).

jobctrl keeps a status (what happened to the application) and an outcome (what came of
it): ``to_jobctrl`` and ``state_of`` map between the two vocabularies. Several career-ops
states fold into one jobctrl pair (SKIP and Discarded, Hired and Offer), so an imported
row keeps its cells (``TrackerEntry.cells``) and ``entry_cells`` writes each one back
unchanged while jobctrl's value still reads the same: import then export gives the same
rows. A follow-up date is a ``follow-up: YYYY-MM-DD`` segment at the end of Notes.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from jobctrl.domain.applications import ApplicationStatus, Outcome

__all__ = [
    "COLUMNS",
    "STATES",
    "TITLE",
    "ParsedTracker",
    "TrackerEntry",
    "entry_cells",
    "entry_from_cells",
    "parse_applications_md",
    "report_url",
    "state_of",
    "to_jobctrl",
    "write_applications_md",
]

TITLE = "# Applications Tracker"
COLUMNS = ("#", "Date", "Company", "Role", "Score", "Status", "PDF", "Report", "Notes")
NO_DATA = "—"

# career-ops's canonical states (templates/states.yml): id → (label, aliases read as it).
STATES: dict[str, tuple[str, tuple[str, ...]]] = {
    "evaluated": ("Evaluated", ("evaluada", "condicional", "hold", "evaluar", "verificar",
                                "değerlendirildi", "degerlendirildi")),
    "applied": ("Applied", ("aplicado", "enviada", "aplicada", "sent", "başvuruldu",
                            "basvuruldu")),
    "responded": ("Responded", ("respondido", "yanıt verildi", "yanıt_verildi",
                                "yanit verildi", "yanit_verildi")),
    "interview": ("Interview", ("entrevista", "mülakat", "mulakat")),
    "offer": ("Offer", ("oferta", "teklif")),
    "rejected": ("Rejected", ("rechazado", "rechazada", "reddedildi")),
    "discarded": ("Discarded", ("descartado", "descartada", "cerrada", "cancelada",
                                "iptal edildi", "iptal_edildi")),
    "skip": ("SKIP", ("no_aplicar", "no aplicar", "monitor", "geo blocker", "geo_blocker",
                      "uygun değil", "uygun_değil", "uygun degil", "uygun_degil")),
    "hired": ("Hired", ("contratado", "contratada", "accepted", "accept", "kabul edildi",
                        "kabul_edildi", "işe alındı", "ise alindi", "işe alindi")),
}  # fmt: skip
_STATE_NAMES = {
    name.casefold(): sid
    for sid, (label, aliases) in STATES.items()
    for name in (sid, label, *aliases)
}

_S, _O = ApplicationStatus, Outcome
# What each career-ops state is in jobctrl's terms: (status, outcome).
_TO_JOBCTRL: dict[str, tuple[ApplicationStatus, Outcome | None]] = {
    "evaluated": (_S.DRAFT, None),
    "applied": (_S.APPLIED, _O.APPLIED),
    "responded": (_S.APPLIED, _O.SCREENING),
    "interview": (_S.APPLIED, _O.INTERVIEW),
    "offer": (_S.APPLIED, _O.OFFER),
    "hired": (_S.APPLIED, _O.OFFER),
    "rejected": (_S.APPLIED, _O.REJECTED),
    "discarded": (_S.ABANDONED, None),
    "skip": (_S.ABANDONED, None),
}
_FROM_OUTCOME = {
    _O.APPLIED: "applied",
    _O.SCREENING: "responded",
    _O.INTERVIEW: "interview",
    _O.OFFER: "offer",
    _O.REJECTED: "rejected",
    _O.NO_ANSWER: "applied",  # career-ops has no such state: still applied, no reply
}
_WENT_OUT = {_S.SENT, _S.SUBMITTED, _S.APPLIED}

# Header names (lowercased) → field (career-ops's tracker-aliases.json).
_HEADERS = {
    "#": "num", "num": "num", "date": "date", "company": "company", "empresa": "company",
    "via": "via", "role": "role", "puesto": "role", "location": "location",
    "score": "score", "status": "status", "pdf": "pdf", "materials": "pdf",
    "report": "report", "follow-up": "followup", "follow up": "followup",
    "followup": "followup", "notes": "notes", "url": "url",
}  # fmt: skip
_REQUIRED = ("num", "company", "role", "score", "status")
_LEGACY = {f: i for i, f in enumerate(
    ("num", "date", "company", "role", "score", "status", "pdf", "report", "notes"), start=1
)}  # fmt: skip
_SEPARATOR = re.compile(r"^\|(?:\s*:?-+:?\s*\|)+\s*$")
_SCORE = re.compile(r"^(\d+(?:\.\d+)?)/5$")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_FOLLOW_UP = re.compile(r"(?:^|;\s*)follow-up:\s*(\d{4}-\d{2}-\d{2})\s*$", re.IGNORECASE)
_REPORT_LINK = re.compile(r"\]\(([^)]+)\)")
_REPORT_URL = re.compile(r"\*\*URL:\*\*[ \t]*(\S+)")
_CELL_FIELDS = ("num", "date", "company", "via", "role", "score", "status", "pdf", "report",
                "notes", "followup", "url")  # fmt: skip


@dataclass(frozen=True)
class TrackerEntry:
    """One application in tracker terms; ``cells`` holds the cells it was imported from."""

    number: int | None
    date: dt.date | None
    company: str
    role: str
    score: int | None  # 0-100, as jobctrl scores
    status: str  # ApplicationStatus
    outcome: str | None  # Outcome
    pdf: bool | None
    report: str  # the Report cell: a Markdown link, or "" for none
    notes: str
    follow_up: dt.date | None = None
    via: str = ""
    url: str | None = None
    cells: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ParsedTracker:
    entries: list[TrackerEntry]
    skipped: list[str]  # "line N: why", for rows that look like rows but are not
    has_via: bool = False


def to_jobctrl(state: str) -> tuple[str, str | None]:
    """A career-ops state (id, label or alias) as jobctrl's (status, outcome)."""
    status, outcome = _TO_JOBCTRL[_state_id(state) or "evaluated"]
    return status.value, outcome.value if outcome else None


def state_of(status: str, outcome: str | None) -> str:
    """The career-ops state id for jobctrl's (status, outcome): the outcome if there is
    one, else applied once it went out, discarded when abandoned, evaluated before."""
    if outcome is not None and outcome in _FROM_OUTCOME:
        return _FROM_OUTCOME[Outcome(outcome)]
    if status in _WENT_OUT:
        return "applied"
    return "discarded" if status == _S.ABANDONED else "evaluated"


def _state_id(text: str) -> str | None:
    plain = text.replace("**", "").strip().casefold()
    return _STATE_NAMES.get(plain) or _STATE_NAMES.get(plain.split(" ")[0] if plain else "")


def _cell(value: object) -> str:
    """A value as a table cell, the way career-ops writes one (tracker-utils ``cell``)."""
    text = re.sub(r"[\r\n]+", " ", str(value if value is not None else ""))
    return re.sub(r"\s*\|\s*", " / ", text).strip()


# -- one value per field, read from its cell and written back -------------------------------


def _read_score(text: str) -> int | None:
    m = _SCORE.match(text.replace("**", "").strip())
    return min(100, round(float(m.group(1)) * 20)) if m else None


def _write_score(score: int | None) -> str:
    return "N/A" if score is None else f"{score / 20:.1f}/5"


def _read_date(text: str) -> date | None:
    m = _DATE.match(text.strip())
    try:
        return date.fromisoformat(m.group(0)) if m else None
    except ValueError:
        return None


def _read_pdf(text: str) -> bool | None:
    return {"✅": True, "❌": False}.get(text.strip())


def _read_notes(text: str) -> tuple[str, date | None]:
    text = "" if text.strip() == NO_DATA else text.strip()
    m = _FOLLOW_UP.search(text)
    if m is None:
        return text, None
    try:
        return text[: m.start()].rstrip(), date.fromisoformat(m.group(1))
    except ValueError:
        return text, None


def _write_notes(notes: str, follow_up: date | None) -> str:
    notes = _cell(notes)
    if follow_up is None:
        return notes
    return (
        f"{notes}; follow-up: {follow_up.isoformat()}"
        if notes
        else (f"follow-up: {follow_up.isoformat()}")
    )


def _values(e: TrackerEntry) -> dict[str, object]:
    """The entry's value of each field, as compared with an imported cell's."""
    return {
        "num": e.number,
        "date": e.date,
        "company": _cell(e.company),
        "via": _cell(e.via),
        "role": _cell(e.role),
        "score": e.score,
        "status": state_of(e.status, e.outcome),
        "pdf": e.pdf,
        "report": _cell(e.report),
        "notes": (_cell(e.notes), e.follow_up),
    }


def _read(name: str, text: str) -> object:
    """An imported cell's value, comparable with ``_values``."""
    if name == "num":
        m = re.match(r"\d+", text.strip())
        return int(m.group(0)) if m else None
    if name == "date":
        return _read_date(text)
    if name == "score":
        return _read_score(text)
    if name == "status":
        return state_of(*to_jobctrl(text))
    if name == "pdf":
        return _read_pdf(text)
    if name == "notes":
        return _read_notes(text)
    return "" if text.strip() == NO_DATA else _cell(text)


def entry_cells(e: TrackerEntry) -> dict[str, str]:
    """The entry's row cells by field: each imported cell kept while jobctrl's value still
    reads the same, else jobctrl's value written the career-ops way."""
    values = _values(e)
    written: dict[str, str] = {
        "num": "" if e.number is None else str(e.number),
        "date": e.date.isoformat() if e.date else NO_DATA,
        "company": _cell(e.company) or NO_DATA,
        "via": _cell(e.via) or NO_DATA,
        "role": _cell(e.role) or NO_DATA,
        "score": _write_score(e.score),
        "status": STATES[state_of(e.status, e.outcome)][0],
        "pdf": "✅" if e.pdf else "❌",
        "report": _cell(e.report) or NO_DATA,
        "notes": _write_notes(e.notes, e.follow_up),
    }
    for name, original in e.cells.items():
        if name in written and _read(name, original) == values[name]:
            written[name] = original
    return written


# -- reading ---------------------------------------------------------------------------------


def _header_map(cells: list[str]) -> dict[str, int] | None:
    found = {}
    for i, c in enumerate(cells):
        name = _HEADERS.get(c.strip().lower())
        if name and name not in found:
            found[name] = i
    return found if all(k in found for k in _REQUIRED) else None


def parse_applications_md(text: str) -> ParsedTracker:
    """Every row of the tracker table, in file order; rows that cannot be read (too few
    cells, an unknown status) are listed in ``skipped`` with their line number."""
    lines = text.splitlines()
    columns = next(
        (m for line in lines if line.lstrip().startswith("|")
         if (m := _header_map(line.strip().split("|")))),
        None,
    ) or _LEGACY  # fmt: skip
    entries: list[TrackerEntry] = []
    skipped: list[str] = []
    for n, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line.startswith("|") or _SEPARATOR.match(line) or _header_map(line.split("|")):
            continue
        parts = [p.strip() for p in line.split("|")]
        if not re.match(r"\d+", parts[columns["num"]] if len(parts) > columns["num"] else ""):
            continue  # not a data row (career-ops skips these too)
        width = max(columns.values()) + (2 if line.endswith("|") else 1)
        if len(parts) < width:
            skipped.append(f"line {n}: fewer cells than the header has columns")
            continue
        cells = {k: parts[i] for k, i in columns.items()}
        if _state_id(cells["status"]) is None:
            skipped.append(f"line {n}: unknown status {cells['status'][:40]!r}")
            continue
        entries.append(entry_from_cells(cells))
    return ParsedTracker(entries, skipped, has_via="via" in columns)


def entry_from_cells(cells: Mapping[str, str]) -> TrackerEntry:
    """The entry a row's cells by field (``num``, ``company``, ``status`` …) read as."""
    status, outcome = to_jobctrl(cells.get("status", ""))
    notes, follow_up = _read_notes(cells.get("notes", ""))
    follow_up = _read_date(cells.get("followup", "")) or follow_up
    url = cells.get("url", "").strip().strip("<>")
    num = _read("num", cells.get("num", ""))
    return TrackerEntry(
        number=num if isinstance(num, int) else None,
        date=_read_date(cells.get("date", "")),
        company=str(_read("company", cells.get("company", ""))),
        role=str(_read("role", cells.get("role", ""))),
        score=_read_score(cells.get("score", "")),
        status=status,
        outcome=outcome,
        pdf=_read_pdf(cells.get("pdf", "")),
        report=str(_read("report", cells.get("report", ""))),
        notes=notes,
        follow_up=follow_up,
        via=str(_read("via", cells.get("via", ""))),
        url=url if url.startswith(("http://", "https://")) else None,
        cells={k: v for k, v in cells.items() if k in _CELL_FIELDS},
    )


def report_url(tracker_file: Path, report_cell: str, *, max_bytes: int = 1_000_000) -> str | None:
    """The posting URL in the ``**URL:**`` header of the report a row links to, if that
    report is inside the workspace's ``reports/`` (the tracker's parent for the
    ``data/applications.md`` layout, else its own directory) and says one."""
    link = _REPORT_LINK.search(report_cell)
    if link is None:
        return None
    here = tracker_file.resolve().parent
    root = here.parent if here.name == "data" else here
    reports = (root / "reports").resolve()
    target = (root / re.sub(r"^(\.\./)+", "", link.group(1).strip())).resolve()
    if not target.is_relative_to(reports) or not target.is_file():
        return None
    try:
        with target.open("rb") as fh:
            head = fh.read(max_bytes).decode("utf-8", "replace")
    except OSError:
        return None
    m = _REPORT_URL.search(head)
    url = m.group(1).strip("<>").rstrip("),.;") if m else ""
    return url if url.startswith(("http://", "https://")) else None


# -- writing ---------------------------------------------------------------------------------


def write_applications_md(entries: Iterable[TrackerEntry], *, via: bool = False) -> str:
    """The tracker file for ``entries`` in the given order; a Via column after Company
    when ``via``, or any entry has one or was imported from a tracker with one."""
    rows = list(entries)
    via = via or any(e.via or "via" in e.cells for e in rows)
    fields = ["num", "date", "company", *(["via"] if via else []), "role", "score",
              "status", "pdf", "report", "notes"]  # fmt: skip
    labels = list(COLUMNS[:3]) + (["Via"] if via else []) + list(COLUMNS[3:])
    out = [
        TITLE,
        "",
        f"| {' | '.join(labels)} |",
        f"|{'|'.join('-' * max(3, len(label) + 2) for label in labels)}|",
    ]
    for e in rows:
        cells = entry_cells(e)
        out.append(f"| {' | '.join(cells[f] for f in fields)} |")
    return "\n".join(out) + "\n"

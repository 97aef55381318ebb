"""career-ops's applications.md read and written (exactly, row for row), and the CSV."""

from __future__ import annotations

import csv
import io
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest

from jobctrl.sources.career_ops_tracker import (
    STATES,
    TrackerEntry,
    entry_cells,
    parse_applications_md,
    report_url,
    state_of,
    to_jobctrl,
    write_applications_md,
)
from jobctrl.sources.tracker_csv import CSV_COLUMNS, write_csv

FIXTURES = Path(__file__).parents[2] / "fixtures" / "career_ops"

# Every canonical state, a bold score, "—" cells, an empty note, a follow-up segment.
TRACKER = (FIXTURES / "applications.md").read_text(encoding="utf-8")
VIA_TRACKER = (FIXTURES / "applications_via.md").read_text(encoding="utf-8")


def test_every_row_is_read_with_jobctrl_status_outcome_and_dates():
    parsed = parse_applications_md(TRACKER)
    assert parsed.skipped == [] and not parsed.has_via
    rows = {e.number: e for e in parsed.entries}
    assert list(rows) == list(range(1, 10))
    first = rows[1]
    assert (first.date, first.company, first.role, first.score) == (
        date(2026, 5, 2),
        "Northwind",
        "Data Platform Engineer",
        88,
    )
    assert (first.status, first.outcome, first.pdf) == ("applied", "applied", True)
    assert first.notes == "Via referral" and first.follow_up == date(2026, 5, 16)
    assert first.report == "[1](../reports/001-northwind-2026-05-02.md)"
    assert rows[3].score == 80, "bold is presentation"
    assert [(rows[n].status, rows[n].outcome) for n in (2, 5, 6, 7, 8, 9)] == [
        ("applied", "screening"),
        ("applied", "offer"),
        ("applied", "rejected"),
        ("abandoned", None),
        ("abandoned", None),
        ("draft", None),
    ]
    assert rows[9].score is None and rows[9].company == "?" and rows[9].notes == ""


@pytest.mark.parametrize("text", [TRACKER, VIA_TRACKER])
def test_import_then_export_gives_the_same_rows(text):
    parsed = parse_applications_md(text)
    assert write_applications_md(parsed.entries) == text


def test_a_via_column_is_read_and_kept():
    parsed = parse_applications_md(VIA_TRACKER)
    assert parsed.has_via
    assert [(e.company, e.via) for e in parsed.entries] == [("Northwind", ""), ("?", "Hays")]


def test_jobctrl_changes_replace_only_the_cells_they_touch():
    entry = parse_applications_md(TRACKER).entries[7]  # 8, SKIP
    cells = entry_cells(entry)
    assert cells["status"] == "SKIP"
    moved = replace(entry, status="applied", outcome="interview", notes="Call on Monday")
    cells = entry_cells(moved)
    assert cells["status"] == "Interview" and cells["notes"] == "Call on Monday"
    assert cells["score"] == "2.1/5" and cells["date"] == "2026-05-09"
    hired = parse_applications_md(TRACKER).entries[4]
    assert entry_cells(hired)["status"] == "Hired", "Hired reads as offer: kept"
    assert entry_cells(replace(hired, outcome="rejected"))["status"] == "Rejected"
    assert entry_cells(replace(hired, score=50))["score"] == "2.5/5"
    assert entry_cells(replace(hired, follow_up=date(2026, 6, 1)))["notes"] == (
        "Starts in July; follow-up: 2026-06-01"
    )


def test_a_jobctrl_entry_is_written_the_career_ops_way():
    entry = TrackerEntry(
        number=12,
        date=date(2026, 6, 1),
        company="Acme | Robotics",
        role="Senior\nEngineer",
        score=73,
        status="sent",
        outcome=None,
        pdf=True,
        report="[12](../reports/012-acme-senior-engineer-2026-06-01.md)",
        notes="line one\r\nline two",
        follow_up=date(2026, 6, 15),
    )
    text = write_applications_md([entry])
    row = text.splitlines()[-1]
    assert row == (
        "| 12 | 2026-06-01 | Acme / Robotics | Senior Engineer | 3.6/5 | Applied | ✅ | "
        "[12](../reports/012-acme-senior-engineer-2026-06-01.md) | "
        "line one line two; follow-up: 2026-06-15 |"
    )
    assert parse_applications_md(text).entries[0].follow_up == date(2026, 6, 15)
    bare = replace(entry, score=None, pdf=False, report="", notes="", follow_up=None)
    assert write_applications_md([bare]).splitlines()[-1].endswith("| N/A | Applied | ❌ | — |  |")


def test_columns_are_found_by_header_name():
    text = (
        "| # | Date | Company | Location | Role | Score | Status | PDF | Report | Follow-up "
        "| Notes | URL |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n"
        "| 4 | 2026-05-05 | Tailspin | Berlin | Staff Engineer | 4.8/5 | aplicado | ✅ | — "
        "| 2026-05-20 | ok | https://jobs.example.com/t/4 |\n"
    )
    (entry,) = parse_applications_md(text).entries
    assert (entry.company, entry.role, entry.score) == ("Tailspin", "Staff Engineer", 96)
    assert (entry.status, entry.outcome) == ("applied", "applied"), "a Spanish alias"
    assert entry.follow_up == date(2026, 5, 20)
    assert entry.url == "https://jobs.example.com/t/4"
    assert entry_cells(entry)["status"] == "aplicado", "kept as imported while it reads the same"


def test_a_table_without_a_header_is_read_in_the_fixed_order():
    text = "| 3 | 2026-05-04 | Fabrikam | SRE | 4.0/5 | Interview | ✅ | — | notes |\n"
    (entry,) = parse_applications_md(text).entries
    assert (entry.number, entry.company, entry.outcome) == (3, "Fabrikam", "interview")


def test_rows_that_cannot_be_read_are_skipped_with_the_reason():
    text = (
        TRACKER
        + "| 10 | 2026-05-11 | Short | Row |\n"
        + "| 11 | 2026-05-12 | Odd | Role | 3.0/5 | Pending maybe | ❌ | — | x |\n"
        + "| 12 | 2026-05-13 | Slug | Senior-Engineer---Platform | 3.0/5 | Applied | ❌ | — "
        + "| a---b |\n"
        + "Some prose | with a pipe\n"
    )
    parsed = parse_applications_md(text)
    assert [e.number for e in parsed.entries] == [*range(1, 10), 12]
    assert len(parsed.skipped) == 2
    assert parsed.skipped[0].startswith("line 14: fewer cells")
    assert "unknown status 'Pending maybe'" in parsed.skipped[1]


def test_states_map_both_ways():
    for sid, (label, _) in STATES.items():
        status, outcome = to_jobctrl(label)
        assert state_of(status, outcome) == {"hired": "offer", "skip": "discarded"}.get(sid, sid)
    assert state_of("sent", None) == "applied" and state_of("unknown", None) == "evaluated"
    assert state_of("submitted", "no_answer") == "applied"
    assert state_of("abandoned", None) == "discarded"


def test_a_reports_url_is_read_only_inside_the_reports_directory(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "reports").mkdir()
    tracker = tmp_path / "data" / "applications.md"
    tracker.write_text(TRACKER)
    (tmp_path / "reports" / "001-northwind-2026-05-02.md").write_text(
        "# Northwind\n\n**Score:** 4.4/5 | **URL:** https://jobs.example.com/nw/1 | **PDF:** ✅\n"
    )
    (tmp_path / "secret.md").write_text("**URL:** https://evil.example/\n")
    link = "[1](../reports/001-northwind-2026-05-02.md)"
    assert report_url(tracker, link) == "https://jobs.example.com/nw/1"
    assert report_url(tracker, "[1](../reports/../secret.md)") is None
    assert report_url(tracker, "[1](../reports/missing.md)") is None
    assert report_url(tracker, "—") is None


def test_the_csv_has_a_header_and_every_row():
    text = write_csv(
        [
            {"company": "Acme, Inc.", "role": "SRE", "status": "sent", "outcome": "interview",
             "applied": date(2026, 6, 1), "follow_up": None, "notes": 'said "soon"\nok',
             "score": 73, "job_id": "abc", "source": "jobctrl"},
            {"company": "=HYPERLINK(\"x\")", "role": "-1+1", "status": "applied",
             "source": "career-ops"},
        ]
    )  # fmt: skip
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == list(CSV_COLUMNS)
    first = dict(zip(CSV_COLUMNS, rows[1], strict=True))
    assert first["company"] == "Acme, Inc." and first["notes"] == 'said "soon"\nok'
    assert first["applied"] == "2026-06-01" and first["follow_up"] == ""
    assert first["score"] == "73"
    second = dict(zip(CSV_COLUMNS, rows[2], strict=True))
    assert second["company"] == '\'=HYPERLINK("x")' and second["role"] == "'-1+1"

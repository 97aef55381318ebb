"""The application tracker through the CLI a person runs, the HTTP API and the page:
outcomes on jobs prepared by the offline pipeline, career-ops applications.md import
(matched to jobs, idempotent) and export (row for row), and the CSV."""

from __future__ import annotations

import csv
import io
import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from jobctrl.api.app import create_app
from jobctrl.app.applications import (
    export_applications,
    import_applications,
    set_application_outcome,
)
from jobctrl.cli import main
from jobctrl.sources.tracker_csv import CSV_COLUMNS
from jobctrl.store import applications as stored_applications
from jobctrl.store import events
from tests.support.materials import prepared_job
from tests.support.processes import run_cli

FIXTURE = Path(__file__).parents[1] / "fixtures" / "career_ops" / "applications.md"
BASE = "http://127.0.0.1:8765"


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


def cli(*args: str) -> Ran:
    """A command run in-process (as `jobctrl` runs it, without a new interpreter's start)."""
    result = CliRunner().invoke(main, list(args))
    return Ran(result.exit_code, result.stdout, result.stderr)


def _ok(result: subprocess.CompletedProcess[str] | Ran) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout


def _refused(result: subprocess.CompletedProcess[str] | Ran) -> str:
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr
    return result.stderr


@pytest.fixture
async def api(home):
    app = create_app(home, port=8765)  # makes the token on first use
    token = (home.root / "api-token").read_text().strip()
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(
        transport=transport, base_url=BASE, headers={"Authorization": f"Bearer {token}"}
    ) as c:
        yield c


def test_importing_a_career_ops_tracker_twice_adds_nothing_and_exports_the_same_rows(
    home, tmp_path
):
    said = _ok(run_cli("applications", "import", str(FIXTURE), process=True))  # the real command
    assert said.startswith("added 9, matched to jobs 0, updated 0, unchanged 0")
    again = json.loads(_ok(cli("applications", "import", str(FIXTURE), "--json")))
    assert again == {"added": 0, "matched": 0, "updated": 0, "unchanged": 9, "skipped": []}

    listed = json.loads(_ok(cli("applications", "--json")))
    assert len(listed) == 9 and {a["source"] for a in listed} == {"career-ops"}
    northwind = next(a for a in listed if a["company"] == "Northwind")
    assert northwind["jobId"] is None and northwind["outcome"] == "applied"
    assert northwind["followUp"] == "2026-05-16" and northwind["notes"] == "Via referral"
    assert northwind["appliedAt"].startswith("2026-05-02") and northwind["score"] == 88
    table = _ok(cli("applications"))
    assert table.splitlines()[0].split()[:4] == ["JOB", "COMPANY", "ROLE", "STATUS"]
    assert len(table.splitlines()) == 10

    out = tmp_path / "export" / "applications.md"
    out.parent.mkdir()
    assert _ok(run_cli("applications", "export", "--format", "career-ops", "--out", str(out)))
    assert out.read_text(encoding="utf-8") == FIXTURE.read_text(encoding="utf-8")
    printed = _ok(cli("applications", "export", "--format", "career-ops"))
    assert printed == FIXTURE.read_text(encoding="utf-8")


def test_the_csv_export_has_a_header_and_one_row_per_application(home):
    import_applications(home, FIXTURE)
    text = _ok(cli("applications", "export", "--format", "csv"))
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0]) == list(CSV_COLUMNS) and len(rows) == 9
    offer = next(r for r in rows if r["company"] == "Tailspin")
    assert (offer["status"], offer["outcome"], offer["applied"], offer["score"]) == (
        "applied",
        "offer",
        "2026-05-05",
        "96",
    )
    assert offer["source"] == "career-ops" and offer["job_id"] == ""


def test_an_outcome_on_a_prepared_job_marks_it_applied_and_keeps_the_note_out_of_events(
    home, store, site, fast_settings
):
    job_id = prepared_job(home, store, site, "/jobs/tracked")
    item = json.loads(
        _ok(
            cli(
                "applications", "set", job_id[:8], "--outcome", "interview",
                "--note", "Recruiter call: salary 90k", "--follow-up", "2026-12-20", "--json",
            )
        )
    )  # fmt: skip
    assert item["jobId"] == job_id and item["status"] == "applied"
    assert (item["outcome"], item["followUp"], item["notes"]) == (
        "interview",
        "2026-12-20",
        "Recruiter call: salary 90k",
    )
    assert item["company"] == "Acme Robotics" and item["role"] == "Senior Backend Engineer"
    assert item["score"] is not None and item["appliedAt"]
    logged = [e for e in events.job_events(store, job_id) if e["type"].startswith("Application")]
    assert [e["type"] for e in logged] == ["ApplicationOutcomeSet", "ApplicationRecorded"]
    assert "salary" not in json.dumps([e["payload"] for e in logged])
    assert logged[0]["payload"]["outcome"] == "interview"

    # A later outcome keeps the status; the note is replaced only when given.
    _ok(cli("applications", "set", job_id, "--outcome", "offer"))
    row = stored_applications.get(store, job_id)
    assert row["outcome"] == "offer" and row["notes"] == "Recruiter call: salary 90k"

    _refused(cli("applications", "set", job_id, "--outcome", "hired"))
    _refused(cli("applications", "set", job_id, "--outcome", "offer", "--follow-up", "soon"))
    _refused(cli("applications", "set", "nosuchjob", "--outcome", "offer"))
    _refused(cli("applications", "set", "app-000000000000", "--outcome", "offer"))
    _refused(cli("applications", "set", job_id))
    _refused(cli("applications", "export", "--format", "xml"))
    _refused(cli("applications", "import", str(FIXTURE.with_name("missing.md"))))


def test_imported_rows_are_matched_to_jobs_by_url_or_company_and_role(
    home, store, site, fast_settings, tmp_path
):
    by_url = prepared_job(home, store, site, "/jobs/by-url", company="Northwind")
    by_name = prepared_job(
        home, store, site, "/jobs/by-name", company="Contoso", title="Backend Engineer"
    )
    url = f"{site.url('/jobs/by-url')}?utm_source=tracker"  # the same posting
    text = FIXTURE.read_text(encoding="utf-8").replace(
        "[1](../reports/001-northwind-2026-05-02.md)", "[1](../reports/001-northwind.md)"
    )
    workspace = tmp_path / "career-ops"
    (workspace / "data").mkdir(parents=True)
    (workspace / "reports").mkdir()
    (workspace / "reports" / "001-northwind.md").write_text(f"**URL:** {url}\n")
    tracker = workspace / "data" / "applications.md"
    tracker.write_text(text, encoding="utf-8")

    result = import_applications(home, tracker)
    assert (result.added, result.matched) == (7, 2)
    first = stored_applications.get(store, by_url)
    assert (first["status"], first["outcome"], first["source"]) == ("applied", "applied", "jobctrl")
    assert first["notes"] == "Via referral" and first["follow_up"].isoformat() == "2026-05-16"
    second = stored_applications.get(store, by_name)
    assert (second["status"], second["outcome"]) == ("applied", "screening")
    assert import_applications(home, tracker).unchanged == 9

    # jobctrl's own values win over a re-import; career-ops's new ones come in.
    set_application_outcome(home, by_url, "interview", note="Onsite booked")
    tracker.write_text(text.replace("| Recruiter wrote back |", "| Call on Friday |"))
    assert import_applications(home, tracker).updated == 1
    assert stored_applications.get(store, by_url)["outcome"] == "interview"
    assert stored_applications.get(store, by_url)["notes"] == "Onsite booked"
    assert stored_applications.get(store, by_name)["notes"] == "Call on Friday"

    exported = export_applications(home, "career-ops")
    row = next(line for line in exported.splitlines() if "| Northwind |" in line)
    assert "| Interview |" in row and "| Onsite booked; follow-up: 2026-05-16 |" in row


def test_a_jobctrl_job_is_exported_with_its_report_pdf_and_score(home, store, site, fast_settings):
    job_id = prepared_job(home, store, site, "/jobs/export-row")
    set_application_outcome(home, job_id, "applied", follow_up="2026-12-24")
    (line,) = [row for row in export_applications(home, "career-ops").splitlines()[4:]]
    cells = [c.strip() for c in line.split("|")[1:-1]]
    number, _, company, role, score, status, pdf, report, notes = cells
    assert (company, role, status, pdf) == (
        "Acme Robotics",
        "Senior Backend Engineer",
        "Applied",
        "✅",
    )
    assert score.endswith("/5") and notes == "follow-up: 2026-12-24"
    assert report.startswith(f"[{number}](../reports/{int(number):03d}-acme-robotics-")
    assert (home.root / report.split("](../")[1].rstrip(")")).is_file()


async def test_the_api_lists_sets_and_exports(api, home, store, site, fast_settings):
    job_id = prepared_job(home, store, site, "/jobs/api")
    r = await api.post(
        f"/v1/applications/{job_id}/outcome",
        json={"outcome": "screening", "note": "HR replied", "followUp": "2026-12-22"},
    )
    assert r.status_code == 200, r.text
    assert (r.json()["outcome"], r.json()["status"]) == ("screening", "applied")
    listed = (await api.get("/v1/applications")).json()["items"]
    assert [(a["jobId"], a["followUp"]) for a in listed] == [(job_id, "2026-12-22")]

    bad = await api.post(f"/v1/applications/{job_id}/outcome", json={"outcome": "ghosted"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_input"
    bad = await api.post(
        f"/v1/applications/{job_id}/outcome", json={"outcome": "offer", "followUp": "13/12"}
    )
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_input"
    snake = await api.post(
        f"/v1/applications/{job_id}/outcome",
        json={"outcome": "screening", "follow_up": "2026-12-29"},
    )  # the field's own name is read too, never silently dropped
    assert snake.status_code == 200 and snake.json()["followUp"] == "2026-12-29", snake.text
    unknown = await api.post(
        f"/v1/applications/{job_id}/outcome", json={"outcome": "offer", "folowUp": "2026-12-29"}
    )
    assert unknown.status_code in (400, 422), unknown.text
    missing = await api.post("/v1/applications/nosuchjob/outcome", json={"outcome": "offer"})
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "job_not_found"
    cross = await api.post(
        f"/v1/applications/{job_id}/outcome",
        json={"outcome": "offer"},
        headers={"Authorization": "", "Origin": "https://evil.example"},
    )
    assert cross.status_code == 403

    md = await api.get("/v1/applications/export", params={"format": "career-ops"})
    assert md.status_code == 200 and md.headers["content-type"].startswith("text/markdown")
    assert md.headers["content-disposition"] == 'attachment; filename="applications.md"'
    assert md.text.startswith("# Applications Tracker\n") and "| Responded |" in md.text
    sheet = await api.get("/v1/applications/export", params={"format": "csv"})
    assert sheet.headers["content-type"].startswith("text/csv")
    assert sheet.text.splitlines()[0] == ",".join(CSV_COLUMNS)
    assert (await api.get("/v1/applications/export", params={"format": "xml"})).status_code == 422


async def test_the_applications_page_renders_each_row_with_its_form(api, home):
    empty = await api.get("/applications")
    assert empty.status_code == 200 and "No applications yet" in empty.text
    assert '<a href="/applications" aria-current="page">Applications</a>' in empty.text
    import_applications(home, FIXTURE)
    page = await api.get("/applications")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert page.text.count('data-outcome="/v1/applications/app-') == 9
    assert "Northwind" in page.text and "2026-05-16" in page.text
    assert "<script>" not in page.text and "onclick" not in page.text, "no inline script"
    fragment = await api.get("/applications", params={"fragment": "main"})
    assert fragment.text.lstrip().startswith("<h1>Applications</h1>")
    jobs_page = await api.get("/jobs")
    assert '<a href="/applications">Applications</a>' in jobs_page.text

"""Evaluation reports: gap-free report numbers, the career-ops file, one ReportWritten event."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import func, select, update

from jobctrl.domain.errors import NotFoundError
from jobctrl.domain.scoring import ScoreReport
from jobctrl.home import Home
from jobctrl.store import schema, tenancy
from jobctrl.store.jobs import create_job, job_row
from jobctrl.store.reports import render_report, reserve_number, write_report
from jobctrl.store.store import Store
from tests.support.jobs import score_row

POSTING = """Requirements

- 4+ years of experience building backend services.
- Strong Python and SQL.
- Experience with Kubernetes and Docker.

Nice to have

- Golang experience.
"""


def _job(
    store: Store, n: int, *, company: str = "Acme Corp", title: str = "Backend Engineer"
) -> str:
    job_id = create_job(store, f"https://jobs.example.org/postings/{n}").job_id
    with store.write() as tx:
        tx.conn.execute(
            update(schema.jobs)
            .where(schema.jobs.c.tenant_id == tx.tenant, schema.jobs.c.id == job_id)
            .values(company=company, title=title)
        )
    return job_id


def _score(store: Store, job_id: str) -> ScoreReport:
    return score_row(store, job_id, POSTING)


def _report_events(store: Store, job_id: str) -> list[dict]:
    with store.read() as conn:
        rows = conn.execute(
            select(schema.job_events).where(
                tenancy.scoped(schema.job_events, conn),
                schema.job_events.c.type == "ReportWritten",
                schema.job_events.c.job_id == job_id,
            )
        ).mappings()
        return [dict(r) for r in rows]


def test_numbers_are_sequential_and_idempotent_per_job(store: Store) -> None:
    a, b, c = (_job(store, n) for n in range(3))
    assert [reserve_number(store, j) for j in (a, b, c)] == [1, 2, 3]
    assert reserve_number(store, b) == 2
    assert reserve_number(store, a) == 1
    assert reserve_number(store, _job(store, 3)) == 4


def test_reserving_for_an_unknown_job_raises_not_found(store: Store) -> None:
    with pytest.raises(NotFoundError):
        reserve_number(store, "nosuchjob")


def test_twenty_threads_get_exactly_one_to_twenty(store: Store) -> None:
    job_ids = [_job(store, n) for n in range(20)]
    got: dict[str, int] = {}
    barrier = threading.Barrier(len(job_ids))

    def reserve(job_id: str) -> None:
        barrier.wait()
        got[job_id] = reserve_number(store, job_id)

    threads = [threading.Thread(target=reserve, args=(j,)) for j in job_ids]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(got.values()) == list(range(1, 21))
    with store.read() as conn:
        count = conn.execute(
            select(func.count())
            .select_from(schema.report_numbers)
            .where(tenancy.scoped(schema.report_numbers, conn))
        ).scalar()
    assert count == 20


def test_write_report_names_the_file_and_holds_score_requirements_and_summary(
    home: Home, store: Store
) -> None:
    _job(store, 0)  # takes number 1 once reserved below
    reserve_number(store, _job(store, 1, company="Other"))
    job_id = _job(store, 2, company="Zürich Labs AG", title="Senior Backend Engineer (Python)")
    report = _score(store, job_id)

    path = write_report(home, store, job_id, today="2026-03-14")

    assert (
        path == home.reports_dir / "002-zurich-labs-ag-senior-backend-engineer-python-2026-03-14.md"
    )
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# Evaluation: Zürich Labs AG — Senior Backend Engineer (Python)\n")
    assert "**Report:** 002" in text
    assert "**URL:** https://jobs.example.org/postings/2" in text
    assert f"**Score:** {report.score}/100 ({report.verdict})" in text
    assert report.requirements
    for r in report.requirements:
        assert r.requirement in text
        for e in r.evidence:
            assert e.text.replace("|", "\\|") in text
    machine = text.split("## Machine Summary", 1)[1]
    assert '```yaml\nreport_number: "002"\n' in machine
    for line in (
        f"score: {report.score}",
        f'verdict: "{report.verdict}"',
        'company: "Zürich Labs AG"',
        'role: "Senior Backend Engineer (Python)"',
        'url: "https://jobs.example.org/postings/2"',
    ):
        assert f"\n{line}\n" in machine
    assert not list(home.reports_dir.glob(".*.tmp"))


def test_rewriting_keeps_the_number_and_file_and_appends_the_event_once(
    home: Home, store: Store
) -> None:
    job_id = _job(store, 0)
    _score(store, job_id)
    first = write_report(home, store, job_id, today="2026-03-14")
    first.write_text("stale", encoding="utf-8")

    second = write_report(home, store, job_id, today="2026-03-15")

    assert second == first
    assert "# Evaluation: Acme Corp — Backend Engineer" in second.read_text(encoding="utf-8")
    assert [p.name for p in home.reports_dir.iterdir()] == [first.name]
    assert reserve_number(store, job_id) == 1
    events = _report_events(store, job_id)
    assert len(events) == 1
    assert events[0]["payload"] == {
        "jobId": job_id,
        "number": 1,
        "path": "reports/001-acme-corp-backend-engineer-2026-03-14.md",
    }
    with store.read() as conn:
        row = (
            conn.execute(
                select(schema.report_numbers).where(
                    tenancy.scoped(schema.report_numbers, conn),
                    schema.report_numbers.c.job_id == job_id,
                )
            )
            .mappings()
            .one()
        )
    assert row["path"] == "reports/001-acme-corp-backend-engineer-2026-03-14.md"
    assert row["written_at"] is not None


def test_a_job_without_a_score_raises_and_reserves_nothing(home: Home, store: Store) -> None:
    job_id = _job(store, 0)
    with pytest.raises(NotFoundError):
        write_report(home, store, job_id)
    with store.read() as conn:
        assert (
            conn.execute(
                select(func.count())
                .select_from(schema.report_numbers)
                .where(tenancy.scoped(schema.report_numbers, conn))
            ).scalar()
            == 0
        )
    assert _report_events(store, job_id) == []


def test_render_escapes_table_cells_and_handles_missing_company(store: Store) -> None:
    job = job_row(store, create_job(store, "https://example.org/x").job_id)
    report = ScoreReport.model_validate(
        {
            "score": 40,
            "verdict": "Partial fit",
            "provider": "offline",
            "model": "m",
            "requirements": [
                {"requirement": "Go | Rust\nsystems", "kind": "nice", "matched": False},
            ],
        }
    )
    text = render_report(job, report, 7, "2026-01-02")
    assert text.startswith("# Evaluation: Unknown company — Unknown role\n")
    assert "| 1 | Go \\| Rust systems | nice | ✗ | — |" in text
    assert "Meets 0 of 1 requirements (0 of 0 must-haves)." in text
    assert "company: null" in text
    assert 'gaps:\n  - "Go | Rust systems"' in text

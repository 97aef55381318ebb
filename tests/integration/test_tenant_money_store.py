"""Issue 14 (tenants), WP2: settings, the spend ledger, profile versions and report
numbers are each tenant's own, on both stores. ``local`` and ``acme`` share one database
(``two_tenants``); what one writes the other never reads, and neither's keys block the
other's (the same setting key, spend day and lane, profile, report number)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from jobctrl.config import load_config
from jobctrl.domain.errors import BudgetExceededError, NotFoundError
from jobctrl.llm.spend import SpendAuthority, Usage
from jobctrl.store import jobs, profiles, reports, spend
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store
from tests.support.jobs import score_row
from tests.support.tenants import TwoTenants

pytestmark = pytest.mark.parametrize(
    "database_url", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)

NOW = datetime(2026, 12, 2, 10, 0, tzinfo=UTC)
DAY = "2026-12-02"
POSTING = """Backend Engineer
Requirements:
- 3+ years of Python.
"""


def _authority(store: Store) -> SpendAuthority:
    return SpendAuthority(store, Settings(store), clock=lambda: NOW)


def _paid(authority: SpendAuthority, observation_id: str, lane: str = "score") -> str:
    """One strict paid call (gpt-4o at 10k in / 5k out: $0.075 at its worst)."""
    return authority.guarded_call(
        lane=lane, observation_id=observation_id, provider="openai", model="gpt-4o",
        call=lambda: ("ok", Usage(10_000, 5_000)), input_tokens=10_000, max_output_tokens=5_000,
    )  # fmt: skip


def test_a_setting_is_the_tenants_own(two_tenants: TwoTenants) -> None:
    local, acme = Settings(two_tenants.local), Settings(two_tenants.acme)
    default = local.get("daily_budget_usd")
    acme.set_value("daily_budget_usd", 7.5)
    assert local.get("daily_budget_usd") == default
    assert local.all()["daily_budget_usd"] == default
    local.set_value("daily_budget_usd", 2.0)  # the same key in both: no conflict
    assert (local.get("daily_budget_usd"), acme.get("daily_budget_usd")) == (2.0, 7.5)
    assert (local.all()["daily_budget_usd"], acme.all()["daily_budget_usd"]) == (2.0, 7.5)
    local.set_value("daily_budget_usd", 3.0)  # an update changes only its tenant's row
    assert acme.get("daily_budget_usd") == 7.5


def test_one_tenant_at_its_ceiling_leaves_the_other_free(two_tenants: TwoTenants) -> None:
    local, acme = two_tenants.local, two_tenants.acme
    for store in (local, acme):
        Settings(store).set_values({"daily_budget_usd": 0.1, "budget.strict": True})
    _paid(_authority(local), "score:job-l:run:1")
    with pytest.raises(BudgetExceededError):
        _paid(_authority(local), "score:job-l:run:2")
    # The same day and lane in acme: its own ledger row, its own ceiling.
    assert _paid(_authority(acme), "score:job-a:run:1") == "ok"
    with pytest.raises(BudgetExceededError):
        _paid(_authority(acme), "score:job-a:run:2")
    for store, spent in ((local, 1), (acme, 1)):
        rows = spend.lane_rows(store, DAY)
        assert [(r["lane"], r["calls"]) for r in rows] == [("score", spent)]
        assert {r["tenant_id"] for r in rows} == {store.tenant}
        assert spend.daily_totals(store, DAY, DAY) == {DAY: pytest.approx(0.075)}
    summary = _authority(acme).summary(DAY)
    assert summary["spentUsd"] == pytest.approx(0.075)
    assert summary["openReservations"]["count"] == 0


def test_open_reservations_count_only_in_their_tenant(two_tenants: TwoTenants) -> None:
    local, acme = two_tenants.local, two_tenants.acme
    Settings(acme).set_value("daily_budget_usd", 0.1)
    _authority(local).reserve(
        reservation_id="r-local", lane="score", provider="openai", model="gpt-4o",
        input_tokens=10_000, max_output_tokens=5_000,
    )  # fmt: skip
    assert spend.unsettled(local, DAY, NOW).in_flight == 1
    assert spend.unsettled(acme, DAY, NOW).in_flight == 0
    assert spend.preflight_reads(acme, DAY, "score", NOW) == (0.0, 0)
    # acme's own reservation fits its $0.10 although local holds $0.075.
    assert _authority(acme).reserve(
        reservation_id="r-acme", lane="score", provider="openai", model="gpt-4o",
        input_tokens=10_000, max_output_tokens=5_000,
    ) == pytest.approx(0.075)  # fmt: skip
    _authority(acme).settle("r-local")  # not acme's: left open
    assert spend.unsettled(local, DAY, NOW).in_flight == 1


def test_the_same_profile_has_its_own_version_in_each_tenant(two_tenants: TwoTenants) -> None:
    profile = load_config(two_tenants.local_home).profile
    local_version = profiles.version_of(two_tenants.local, profile)
    # The same object again (the digest cached): acme still gets a version of its own.
    acme_version = profiles.version_of(two_tenants.acme, profile)
    assert acme_version != local_version
    assert profiles.version_of(two_tenants.local, profile) == local_version
    assert profiles.version_of(two_tenants.acme, profile) == acme_version
    assert profiles.load_version(two_tenants.acme, acme_version) == profile
    with pytest.raises(NotFoundError):
        profiles.load_version(two_tenants.acme, local_version)
    with pytest.raises(NotFoundError):
        profiles.load_version(two_tenants.local, acme_version)


def test_report_numbers_start_at_one_in_each_tenant(two_tenants: TwoTenants) -> None:
    local, acme = two_tenants.local, two_tenants.acme
    local_jobs = [jobs.create_job(local, f"https://example.com/l/{n}").job_id for n in range(3)]
    acme_jobs = [jobs.create_job(acme, f"https://example.com/a/{n}").job_id for n in range(2)]
    assert [reports.reserve_number(local, j) for j in local_jobs[:2]] == [1, 2]
    assert [reports.reserve_number(acme, j) for j in acme_jobs] == [1, 2]
    assert reports.reserve_number(local, local_jobs[2]) == 3
    assert reports.reserve_number(acme, acme_jobs[0]) == 1  # kept
    with pytest.raises(NotFoundError):  # another tenant's job is no job here
        reports.reserve_number(acme, local_jobs[0])


def _scored_job(store: Store, url: str) -> str:
    job_id = jobs.create_job(store, url).job_id
    score_row(store, job_id, POSTING, at=NOW)
    return job_id


def test_a_tenants_report_file_is_in_its_own_reports_folder(two_tenants: TwoTenants) -> None:
    t = two_tenants
    local_job = _scored_job(t.local, "https://example.com/r/1")
    acme_job = _scored_job(t.acme, "https://example.com/r/1")
    local_file = reports.write_report(t.local_home, t.local, local_job, today="2026-12-02")
    acme_file = reports.write_report(t.acme_home, t.acme, acme_job, today="2026-12-02")
    assert local_file.parent == t.local_home.root / "reports"
    assert acme_file.parent == t.acme_home.root / "tenants" / "acme" / "reports"
    assert local_file.name.startswith("001-") and acme_file.name.startswith("001-")
    with pytest.raises(ValueError):  # a tenant's store never writes into another's folder
        reports.write_report(t.local_home, t.acme, acme_job)

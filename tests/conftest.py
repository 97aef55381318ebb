"""Shared fixtures: a fresh jobctrl home per test, on SQLite or on PostgreSQL.

The modules in ``BOTH_STORES`` run every test that uses a home twice: on the default
SQLite file and on a fresh database of a throwaway PostgreSQL server (marked
``postgres``; ``-m 'not postgres'`` leaves those out).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from jobctrl.app.home import init_home
from jobctrl.config import write_template
from jobctrl.domain.tenants import token_sha256
from jobctrl.home import Home
from jobctrl.store import tenants
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store
from tests.support.postgres import PostgresServer, binaries
from tests.support.profile import TEST_PROFILE
from tests.support.sqlite_template import copy_into, make_template
from tests.support.tenants import ACME, ACME_TOKEN, TwoTenants

# Issue 14: every statement on a tenant-bound connection (the tests', and the jobctrl
# processes they start, which inherit this) must keep to its tenant: store/tenancy.py's
# guard. JOBCTRL_TENANT_GUARD=0 turns it off (to measure its cost, say).
os.environ.setdefault("JOBCTRL_TENANT_GUARD", "1")

# Store-level behaviour (store modules, spend, events and projections, report numbers,
# stage fencing, settings) and the pipeline end to end, on both stores.
BOTH_STORES = {
    "tests.unit.test_spend",
    "tests.unit.test_spend_unseen_answer",
    "tests.unit.test_settings",
    "tests.unit.test_reports",
    "tests.unit.test_stop_loss_rules",
    "tests.unit.test_availability_policy",
    "tests.unit.test_profile_answers",
    "tests.unit.test_start_intended",
    "tests.integration.test_store_migrations",
    "tests.integration.test_event_stream",
    "tests.integration.test_apply_store",
    "tests.integration.test_applications",
    "tests.integration.test_auto_recovery_store",
    "tests.integration.test_auto_recovery_stranded",
    "tests.integration.test_auto_recovery_admission",
    "tests.integration.test_public_fetch_recheck",
    "tests.integration.test_reconcile_abandoned",
    "tests.integration.test_operations_store",
    "tests.integration.test_truth_checks",
    "tests.integration.test_profile_versions",
    "tests.integration.test_store_concurrency",
    "tests.integration.test_tenant_migration",
    "tests.integration.test_tenant_store",
}
# From modules whose other tests spend their time outside the store, the tests of store
# behaviour: the suite stays short. (The workflow modules name theirs themselves: their
# own BOTH_STORES, True or a set of tests, with why.)
BOTH_STORES_TESTS = {
    # One winner among claims racing in threads; the racing processes (30 s of spawning
    # whichever the store) are left to test_store_concurrency's cross-process tests.
    "tests.integration.test_apply_claims": {
        "test_claims_racing_in_threads_on_one_job_one_wins",
        "test_a_claim_holds_the_job_until_it_ends_or_its_lease_runs_out",
    },
}

# Tests of the migrations themselves: their SQLite homes migrate from an empty file, as a
# person's new home does; every other SQLite home starts as a copy of a migrated template
# (``sqlite_template``), as every PostgreSQL database does (``postgres_server``).
MIGRATE_FROM_SCRATCH = {
    "tests.integration.test_store_migrations",
    "tests.integration.test_tenant_migration",
}

# Tests of SQLite itself, not of jobctrl's behaviour on a store.
SQLITE_ONLY = {
    "test_the_database_runs_in_wal_mode",
    # Holds SQLite's own write lock (PostgreSQL's: test_store_concurrency's busy test).
    "test_reads_do_not_wait_for_a_writer_and_a_held_lock_is_a_clear_retryable_error",
    # doctor's warning about another program holding jobctrl.db's write lock.
    "test_a_write_lock_held_by_another_program_is_a_warning",
}


def _on_both_stores(module: object, name: str) -> bool:
    """A module may also opt in itself: ``BOTH_STORES = True`` (every test) or a set of
    test names, so the workflow modules say so where their tests are."""
    mod_name = getattr(module, "__name__", "")
    if mod_name in BOTH_STORES or name in BOTH_STORES_TESTS.get(mod_name, ()):
        return True
    own = getattr(module, "BOTH_STORES", False)
    return own is True or (isinstance(own, (set, frozenset)) and name in own)


# CI's second pass (`make test-pg-rest`): the PostgreSQL variants of the tests a workflow
# module leaves out of its BOTH_STORES set (for `make test`'s time) and nothing else, so CI
# runs every workflow integration test on both stores.
PG_REST_ENV = "JOBCTRL_TEST_PG_REST"
# And every test of these modules, which declare nothing (workers, the API, the CLI, paid
# calls: their store work is the same on both, their time is spent elsewhere), so CI runs
# each store-touching integration module on PostgreSQL too.
PG_REST_MODULES = {
    f"tests.integration.test_{name}"
    for name in (
        "leases",
        "paid_call_once",
        "paid_call_answer_kept",
        "paid_call_cancelled",
        "paid_call_interrupted_reused",
        "rate_limit_in_attempt",
        "availability",
        "inbox",
        "starts_observe",
        "worker_upkeep",
        "runtime_inventory",
        "operations_review_fixes",
        "operations_api",
        "auto_recovery_seed_worker",
        "api_commands",
        "cli_progress",
        "materials_export",
        "api",
        "api_tenants",
        "api_tenant_errors",
        "apply_api",
        "apply_browser_api",
        "apply_browser_app",
        "cli_refusals",
        "input_hygiene",
        "career_ops_import",
        "lease_suspend",
        "profile_answers_api",
        "schedule",
        "sweep_turns",
        "tenants_cli",
        "tenant_name_cli",
        "tenant_smtp",
        "tenant_smtp_public",
        "token_resolver",
        "truth_end_to_end",
        "up",
        "worker_cli",
        "worker_crash",
        "worker_server_loss",
        "profile_import_model",  # issue 28: a paid import's attempts, reuse and spend
        "rescore",
        "rescore_refusals",
        "truth_repair_worker",  # issue 27: the repair request, paid once across a kill
        "material_edits",  # issue 30: an edit saved, checked and rendered; approval held
        "apply_email_binding",  # issue 30: the approval binds the job and its posting
        "heartbeat_tenants",  # issue 31: a second tenant's due duties among idle ones
        "llm_output_modes",  # issue 31: a lane's output mode kept, shown and asked by
        "paid_call_truncated",  # issue 31: an answer cut off at its cap, billed once
        "truth_output_modes",  # issue 31: the truth check in json and prompted modes
        "extension_api",  # issue 32: pairing, extension tokens and hostile captures
        "extension_continuation",  # issue 32: Enrich from a capture, a blocked job continued
        "contacts",  # issue 33: research runs, candidates confirmed, contacts removed
        "contacts_paid",  # issue 33: a paid extraction once per source, reused by a retry
        "followups",  # issue 33: follow-ups due, threaded, sent once across a kill
        "outreach",  # issue 33: outreach emails sent once, the daily cap, notes never sent
        "extension_browser",  # issue 32: the extension in Chromium saving to the real app
        "doctor",  # issue 34: the health check's store reads (integrity, artifacts, runs)
        "attempt_metrics",  # issue 34: the attempt metrics' fold, rebuild and panel
        "missing_pdf",  # issue 34: materials without their PDF, listed as such
        "apply_reset",  # issue 34: an abandoned application taken back, the loop's again
        "discovery_stop",  # issue 34: cancel with the preparations, a start refused
        "discovery_plan",  # issue 34: a run's members, their states and reasons
        "source_family_eta",  # issue 34: the source families' durations and steps
    )
}


def _left_to_sqlite(module: object, name: str) -> bool:
    if _on_both_stores(module, name):
        return False
    if getattr(module, "__name__", "") in PG_REST_MODULES:
        return True
    own = getattr(module, "BOTH_STORES", False)
    return isinstance(own, (set, frozenset)) and name not in own


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    name = metafunc.function.__name__
    if "database_url" not in metafunc.fixturenames or name in SQLITE_ONLY:
        return
    postgres = pytest.param("postgres", marks=pytest.mark.postgres)
    if os.environ.get(PG_REST_ENV) == "1":
        if _left_to_sqlite(metafunc.module, name):
            rest = pytest.param("postgres", marks=[pytest.mark.postgres, pytest.mark.pg_rest])
            metafunc.parametrize("database_url", [rest], indirect=True)
    elif _on_both_stores(metafunc.module, name):
        metafunc.parametrize("database_url", ["sqlite", postgres], indirect=True)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get(PG_REST_ENV) != "1":
        return
    kept = [item for item in items if item.get_closest_marker("pg_rest") is not None]
    config.hook.pytest_deselected(items=[item for item in items if item not in kept])
    items[:] = kept


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One throwaway PostgreSQL server for this pytest process, its schema migrated into
    the template database."""
    bindir = binaries()
    if bindir is None:
        if os.environ.get("JOBCTRL_REQUIRE_POSTGRES"):
            pytest.fail("JOBCTRL_REQUIRE_POSTGRES is set but no PostgreSQL binaries exist")
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql)")
    server = PostgresServer(bindir).start()
    try:
        server.create_template()
        yield server
    finally:
        server.stop()


@pytest.fixture
def database_url(request: pytest.FixtureRequest, monkeypatch) -> Iterator[str | None]:
    """``JOBCTRL_DATABASE_URL`` for this test: unset (SQLite in the home), or a fresh
    PostgreSQL database copied from the migrated template and dropped afterwards."""
    if getattr(request, "param", "sqlite") == "sqlite":
        monkeypatch.delenv("JOBCTRL_DATABASE_URL", raising=False)
        yield None
        return
    server: PostgresServer = request.getfixturevalue("postgres_server")
    name = server.new_database()
    url = server.url(name)
    monkeypatch.setenv("JOBCTRL_DATABASE_URL", url)
    yield url
    Store.forget(url)
    server.drop_database(name)


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite database migrated to head once for this pytest process, copied into each
    test's home (tests/support/sqlite_template.py)."""
    return make_template(tmp_path_factory.mktemp("sqlite-template") / "jobctrl.db")


@pytest.fixture(scope="session")
def config_template(tmp_path_factory: pytest.TempPathFactory) -> str:
    """config.yaml as ``init_home`` writes it with the test profile, rendered once for this
    pytest process (a round trip of the commented template through ruamel: 9 ms a home)
    and written into each test's home before ``init_home``, which keeps a config it finds."""
    rendered = Home(tmp_path_factory.mktemp("config-template"))
    write_template(rendered, profile=TEST_PROFILE)
    return rendered.config_path.read_text(encoding="utf-8")


@pytest.fixture
def home(request: pytest.FixtureRequest, tmp_path, monkeypatch, database_url: str | None) -> Home:
    monkeypatch.setenv("JOBCTRL_HOME", str(tmp_path / "home"))
    h = Home.resolve()
    if database_url is None and request.module.__name__ not in MIGRATE_FROM_SCRATCH:
        copy_into(request.getfixturevalue("sqlite_template"), h)
    h.ensure()
    h.config_path.write_text(request.getfixturevalue("config_template"), encoding="utf-8")
    init_home(h, profile=TEST_PROFILE)
    return h


@pytest.fixture
def store(home: Home) -> Iterator[Store]:
    s = Store.open(home)
    yield s
    s.dispose()


@pytest.fixture
def settings(store: Store) -> Settings:
    return Settings(store)


@pytest.fixture
def two_tenants(home: Home, store: Store) -> TwoTenants:
    """``local`` (``home``, ``store``) and ``acme``, added as an operator would, on the
    same database (both stores in ``BOTH_STORES`` modules), each with its config.yaml."""
    tenants.add(store, ACME, token_sha256(ACME_TOKEN))
    acme_home = home.with_tenant(ACME)
    init_home(acme_home, profile=TEST_PROFILE)
    return TwoTenants(store, Store.open(acme_home), home, acme_home)

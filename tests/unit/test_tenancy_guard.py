"""The tenant guard (``JOBCTRL_TENANT_GUARD=1``): on a connection bound to a tenant, a
statement on a tenant table without that tenant's predicate, or an INSERT without its
``tenant_id``, is refused before it runs."""

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import func, insert, select, text, update
from sqlalchemy.dialects import postgresql, sqlite

from jobctrl.domain.events import JobCreated
from jobctrl.store import schema, tenancy
from jobctrl.store.artifacts import ArtifactStore
from jobctrl.store.db import upsert
from jobctrl.store.store import Store
from jobctrl.store.tenancy import TenancyError, all_tenants, scoped, stamped, tenant_param
from jobctrl.testing import hooks

J = schema.jobs
S = schema.job_stage_states
NOW = datetime(2026, 12, 2, 10, 0, tzinfo=UTC)


@pytest.fixture
def acme(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Store]:
    """A guarded store acting for ``acme``."""
    monkeypatch.setenv(hooks.TENANT_GUARD, "1")
    store = Store(f"sqlite:///{tmp_path / 'guard.db'}", ArtifactStore(tmp_path / "artifacts"))
    yield store.for_tenant("acme")
    store.dispose()


def _job(job_id: str) -> dict[str, object]:
    return {
        "id": job_id, "idempotency_key": f"key-{job_id}", "url": "https://x.test/a",
        "canonical_url": "https://x.test/a", "created_at": NOW, "updated_at": NOW,
    }  # fmt: skip


def test_connections_carry_the_stores_tenant(acme: Store) -> None:
    with acme.read() as conn:
        assert tenancy.tenant_of(conn) == "acme"
    with acme.write() as tx:
        assert tx.tenant == "acme" and tenancy.tenant_of(tx.conn) == "acme"


def test_a_select_without_the_tenant_predicate_is_refused(acme: Store) -> None:
    with acme.read() as conn, pytest.raises(TenancyError, match=r"no tenant_id = 'acme'.*jobs"):
        conn.execute(select(J.c.id))
    with acme.read() as conn, pytest.raises(TenancyError, match="jobs"):
        conn.execute(select(func.count()).select_from(J))


def test_a_select_scoped_to_the_tenant_runs(acme: Store) -> None:
    with acme.read() as conn:
        assert conn.execute(select(J.c.id).where(scoped(J, conn))).all() == []


def test_a_predicate_naming_another_tenant_is_refused(acme: Store) -> None:
    with acme.read() as conn, pytest.raises(TenancyError, match="is local, not this tenant"):
        conn.execute(select(J.c.id).where(J.c.tenant_id == "local"))


def test_every_occurrence_of_a_table_needs_its_own_predicate(acme: Store) -> None:
    earlier = S.alias("earlier")
    joined = select(S.c.job_id).join(earlier, earlier.c.job_id == S.c.job_id)
    with acme.read() as conn:
        with pytest.raises(TenancyError, match="earlier"):
            conn.execute(joined.where(scoped(S, conn)))
        with pytest.raises(TenancyError, match="jobs"):
            conn.execute(select(S.c.job_id).where(scoped(S, conn), S.c.job_id.in_(select(J.c.id))))
        conn.execute(joined.where(scoped(S, conn), scoped(earlier, conn)))


def test_a_statement_built_once_takes_the_tenant_as_a_parameter(acme: Store) -> None:
    built_once = select(J.c.id).where(J.c.tenant_id == tenant_param())
    with acme.read() as conn:
        conn.execute(built_once, {"tenant": tenancy.tenant_of(conn)})
        with pytest.raises(TenancyError, match="is local"):
            conn.execute(built_once, {"tenant": "local"})


def test_an_update_or_delete_without_the_predicate_is_refused(acme: Store) -> None:
    with acme.write() as tx, pytest.raises(TenancyError, match="jobs"):
        tx.conn.execute(update(J).where(J.c.id == "a").values(title="x"))
    with acme.write() as tx:
        tx.conn.execute(update(J).where(J.c.id == "a", scoped(J, tx.conn)).values(title="x"))
        with pytest.raises(TenancyError, match="job_stage_states"):
            tx.conn.execute(S.delete().where(S.c.job_id == "a"))


def test_an_insert_must_carry_the_tenant(acme: Store) -> None:
    with acme.write() as tx, pytest.raises(TenancyError, match="INSERT INTO jobs: tenant_id"):
        tx.conn.execute(insert(J).values(**_job("a")))
    with acme.write() as tx, pytest.raises(TenancyError, match="is local"):
        tx.conn.execute(insert(J).values(**_job("a"), tenant_id="local"))
    with acme.write() as tx:
        tx.conn.execute(insert(J).values(stamped(tx.conn, _job("a"))))
        tx.conn.execute(insert(J), [stamped(tx.conn, _job("b")), stamped(tx.conn, _job("c"))])
        with pytest.raises(TenancyError, match="INSERT INTO jobs"):
            tx.conn.execute(insert(J), [stamped(tx.conn, _job("d")), _job("e")])
    with acme.read() as conn:
        found = conn.execute(select(J.c.id, J.c.tenant_id).where(scoped(J, conn)).order_by(J.c.id))
        assert found.all() == [("a", "acme"), ("b", "acme"), ("c", "acme")]


def test_an_upsert_built_once_carries_the_tenant_in_its_values(acme: Store) -> None:
    row = {"key": "min_fit_score", "value": 70, "updated_at": NOW}
    with acme.write() as tx:
        with pytest.raises(TenancyError, match="INSERT INTO settings"):
            upsert(tx.conn, schema.settings, row, keys=["key"])
        keys = ["tenant_id", "key"]  # settings' key per tenant (0024)
        upsert(tx.conn, schema.settings, stamped(tx.conn, row), keys=keys, update=["value"])
        upsert(tx.conn, schema.settings, stamped(tx.conn, row), keys=keys, update={"value": 1})


def test_events_appended_in_a_write_carry_its_tenant(acme: Store) -> None:
    created = JobCreated(
        job_id="a", url="https://x.test/a", canonical_url="https://x.test/a", idempotency_key="k"
    )
    with acme.write() as tx:
        tx.conn.execute(insert(J).values(stamped(tx.conn, _job("a"))))
        assert tx.append(created, key="created:a")
        # The projections' fold is not tenant-aware yet (issue 14, WP1): not run here.
        tx.appended.clear()
    e = schema.job_events
    with acme.read() as conn:
        found = conn.execute(select(e.c.tenant_id, e.c.idempotency_key).where(scoped(e, conn)))
        assert found.all() == [("acme", "acme/created:a")]


def test_statements_marked_for_every_tenant_and_global_tables_are_not_checked(
    acme: Store,
) -> None:
    with acme.read() as conn:
        conn.execute(all_tenants(select(J.c.id)))
        conn.execute(select(J.c.id), execution_options={tenancy.ALL_TENANTS_OPTION: True})
        conn.execute(select(schema.artifacts.c.sha256))
        conn.execute(select(schema.projection_watermarks.c.position))


def test_raw_sql_naming_a_tenant_table_is_refused(acme: Store) -> None:
    with acme.read() as conn:
        conn.execute(text("SELECT 1"))
        with pytest.raises(TenancyError, match="raw SQL on tenant tables \\(jobs\\)"):
            conn.execute(text("SELECT count(*) FROM jobs"))


def test_a_connection_bound_to_no_tenant_is_not_checked(acme: Store) -> None:
    with acme.reader.connect() as conn:
        conn.execute(select(J.c.id))
        with pytest.raises(TenancyError, match="bound to no tenant"):
            tenancy.tenant_of(conn)


def test_without_the_variable_there_is_no_guard(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv(hooks.TENANT_GUARD, raising=False)
    store = Store(f"sqlite:///{tmp_path / 'open.db'}", ArtifactStore(tmp_path / "artifacts"))
    try:
        with store.read() as conn:
            conn.execute(select(J.c.id))
    finally:
        store.dispose()


def test_a_keyed_predicate_counts_and_leaves_sqlite_the_keys_index(acme: Store) -> None:
    other = S.alias("other")
    same_job = select(other.c.job_id).where(
        tenancy.keyed(other, "acme"), other.c.job_id == S.c.job_id
    )
    query = select(S.c.job_id).where(S.c.tenant_id == "acme", same_job.exists())
    sql = str(query.compile(dialect=sqlite.dialect(), compile_kwargs={"literal_binds": True}))
    assert "+other.tenant_id = 'acme'" in sql
    assert "+" not in str(query.compile(dialect=postgresql.dialect()))
    with acme.read() as conn:
        assert conn.execute(query).all() == []  # the guard takes ``keyed`` as the predicate
        plan = " ".join(
            str(r[3]) for r in conn.execute(all_tenants(text("EXPLAIN QUERY PLAN " + sql)))
        )
    # The correlated lookup walks the primary key, not a tenant-first index.
    assert "SEARCH other USING INDEX sqlite_autoindex_job_stage_states_1 (job_id=?)" in plan
    with pytest.raises(TenancyError, match="not this tenant"), acme.read() as conn:
        conn.execute(select(S.c.job_id).where(tenancy.keyed(S, "local")))

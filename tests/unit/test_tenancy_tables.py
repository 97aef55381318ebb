"""Every table chooses: a tenant's data (``tenant_id``) or deployment-wide on purpose."""

from jobctrl.store import tenancy
from jobctrl.store.schema import metadata


def test_every_table_is_a_tenants_or_global_with_a_reason() -> None:
    tables = set(metadata.tables)
    assert tenancy.TENANT_TABLES.isdisjoint(tenancy.GLOBAL_TABLES)
    unclassified = tables - tenancy.TENANT_TABLES - set(tenancy.GLOBAL_TABLES)
    assert not unclassified, f"give these tenant_id or a reason in GLOBAL_TABLES: {unclassified}"
    assert set(tenancy.GLOBAL_TABLES) <= tables
    assert all(reason for reason in tenancy.GLOBAL_TABLES.values())


def test_the_tenant_column_is_never_nullable() -> None:
    for name in tenancy.TENANT_TABLES:
        column = metadata.tables[name].c.tenant_id
        assert not column.nullable and column.type.length == 64, name


def test_keys_that_must_hold_per_tenant_include_it() -> None:
    pk = {name: [c.name for c in metadata.tables[name].primary_key] for name in metadata.tables}
    for name in ("settings", "llm_spend", "stop_loss", "discovery_runs"):
        assert pk[name][0] == "tenant_id", name
    unique = {
        c.name: [col.name for col in c.columns]
        for t in metadata.tables.values()
        for c in t.constraints
        if c.name in ("uq_report_number", "uq_profile_sha")
    }
    assert unique == {
        "uq_report_number": ["tenant_id", "number"],
        "uq_profile_sha": ["tenant_id", "sha256"],
    }

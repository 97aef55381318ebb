"""A Store acts for one tenant: ``Store.open(home)`` gives the one of ``home.tenant`` (an
unknown tenant is refused), its connections and write transactions carry that tenant,
and the events it appends are that tenant's. Tenants are added once; ``local`` always
exists. On both stores."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from jobctrl.domain.errors import JobctrlError, NotFoundError
from jobctrl.domain.events import JobCreated
from jobctrl.domain.tenants import LOCAL, token_sha256
from jobctrl.home import Home
from jobctrl.store import schema, tenancy, tenants
from jobctrl.store.store import Store
from tests.support.tenants import ACME, ACME_TOKEN, TwoTenants

E = schema.job_events


def _created(job_id: str) -> JobCreated:
    url = f"https://x.test/{job_id}"
    return JobCreated(job_id=job_id, url=url, canonical_url=url, idempotency_key=job_id)


def test_the_home_store_is_the_local_tenants(home: Home, store: Store) -> None:
    assert home.tenant == LOCAL and store.tenant == LOCAL
    with store.read() as conn:
        assert tenancy.tenant_of(conn) == LOCAL
    with store.write() as tx:
        assert tx.tenant == LOCAL and tenancy.tenant_of(tx.conn) == LOCAL


def test_an_unknown_tenant_is_refused_until_it_is_added(home: Home, store: Store) -> None:
    with pytest.raises(NotFoundError, match="unknown tenant globex"):
        Store.open(home.with_tenant("globex"))
    with pytest.raises(JobctrlError, match="invalid tenant name"):
        Store.open(home.with_tenant("../etc"))
    assert tenants.add(store, "globex", token_sha256("t")) is True
    opened = Store.open(home.with_tenant("globex"))
    assert opened.tenant == "globex" and opened.writer is store.writer
    assert Store.open(home.with_tenant("globex")) is opened  # one view per tenant


def test_adding_a_tenant_twice_changes_nothing(store: Store) -> None:
    assert tenants.add(store, ACME, token_sha256(ACME_TOKEN)) is True
    assert tenants.add(store, ACME, token_sha256("another")) is False
    assert tenants.by_token_hash(store, token_sha256(ACME_TOKEN)) == ACME
    assert tenants.by_token_hash(store, token_sha256("another")) is None
    assert tenants.add(store, LOCAL, None) is False
    with pytest.raises(JobctrlError, match="invalid tenant name"):
        tenants.add(store, "Acme", None)


def test_local_always_exists_and_gets_a_row_with_its_token(store: Store) -> None:
    assert tenants.names(store) == [LOCAL] and tenants.exists(store, LOCAL)
    assert tenants.rows(store) == [{"name": LOCAL, "created_at": None, "has_token": False}]
    tenants.record_token(store, LOCAL, token_sha256("local-token"))
    tenants.record_token(store, LOCAL, token_sha256("new-local-token"))
    assert tenants.by_token_hash(store, token_sha256("new-local-token")) == LOCAL
    assert tenants.by_token_hash(store, token_sha256("local-token")) is None
    tenants.add(store, "zeta", None)
    tenants.add(store, "beta", None)
    assert tenants.names(store) == [LOCAL, "beta", "zeta"]
    assert [r["has_token"] for r in tenants.rows(store)] == [True, False, False]


def test_two_tenants_share_one_database_and_act_apart(two_tenants: TwoTenants) -> None:
    local, acme = two_tenants.local, two_tenants.acme
    assert (local.tenant, acme.tenant) == (LOCAL, ACME)
    assert acme.writer is local.writer and acme.reader is local.reader
    assert two_tenants.acme_home.config_path.is_file()
    assert two_tenants.acme_home.config_path != two_tenants.local_home.config_path
    with acme.read() as conn:
        assert tenancy.tenant_of(conn) == ACME
    with local.read() as conn:  # a view's binding never leaks into another's connections
        assert tenancy.tenant_of(conn) == LOCAL


def test_events_are_appended_once_per_key_within_their_tenant(two_tenants: TwoTenants) -> None:
    local, acme = two_tenants.local, two_tenants.acme
    for store in (local, acme, acme, local):
        with store.write() as tx:
            tx.append(_created("a1"), key="created:a1")
            # The projections' fold is tenant-blind until issue 14's WP1: not run here.
            tx.appended.clear()
    with local.read() as conn:  # both tenants' events: a read across tenants on purpose
        rows = conn.execute(
            tenancy.all_tenants(
                select(E.c.tenant_id, E.c.idempotency_key)
                .where(E.c.job_id == "a1")
                .order_by(E.c.seq)
            )
        ).all()
    assert [tuple(r) for r in rows] == [(LOCAL, "created:a1"), (ACME, "acme/created:a1")]

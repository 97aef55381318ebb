"""Whose execution a workflow id is: the tenant it names, else the operator's (local)."""

from __future__ import annotations

from jobctrl.domain import ids


def test_an_id_names_its_tenant_else_it_is_locals() -> None:
    assert ids.owner_of("prep-acme-0123456789ab") == "acme"
    assert ids.owner_of("prep-0123456789ab") == "local"
    assert ids.owner_of("something-else") == "local"  # an id jobctrl does not make
    # A tenant that is not (or no longer) among the known ones: the operator's to see.
    assert ids.owner_of("prep-acme-0123456789ab", {"local", "beta"}) == "local"
    assert ids.owner_of("apply-auto-beta", {"local", "beta"}) == "beta"

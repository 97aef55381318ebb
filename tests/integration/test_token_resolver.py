"""The API's token → tenant cache: a flood of wrong tokens never evicts a tenant's answer
(misses are kept apart, bounded), and a wrong token is never a tenant."""

from __future__ import annotations

from jobctrl.app.tenants import TokenResolver
from tests.support.tenants import ACME, ACME_TOKEN, TwoTenants


def test_a_flood_of_wrong_tokens_keeps_the_tenants_answers(two_tenants: TwoTenants) -> None:
    resolver = TokenResolver(two_tenants.local_home)
    resolver.max_kept = 5
    assert resolver(ACME_TOKEN) == ACME
    for n in range(20):
        assert resolver(f"wrong-{n}") is None
        assert resolver.cached(f"wrong-{n}") == (True, None)  # a miss is remembered briefly
    assert resolver.cached(ACME_TOKEN) == (True, ACME)  # not evicted by the flood
    assert len(resolver._missed) <= resolver.max_kept + 1

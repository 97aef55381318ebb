"""The worker's fetchers are shared by every tenant's context, one per fetch policy: a
policy dropped from the full pool is closed only once no fetch holds it (before, another
tenant's settings closed a fetcher in the middle of a fetch: an internal error that
counted towards that lane's stop-loss)."""

from __future__ import annotations

from jobctrl.fetch.safe import FetchPolicy
from jobctrl.stages.context import FetcherPool


def _policy(timeout: float) -> FetchPolicy:
    return FetchPolicy(
        allow_hosts=frozenset(),
        max_bytes=1_000_000,
        timeout_seconds=timeout,
        min_host_interval_seconds=0.0,
        respect_robots=True,
    )


def _closed(fetcher) -> bool:
    return bool(fetcher._client.is_closed)


def test_a_dropped_fetcher_is_closed_only_after_its_last_holder_lets_go() -> None:
    pool = FetcherPool(size=1)
    with pool.lease(_policy(1.0)) as held:
        with pool.lease(_policy(2.0)) as other:  # the pool is full: 1.0's is dropped
            assert not _closed(held)  # still in use by the outer fetch
        assert not _closed(other)  # kept: it is the pool's one policy
        with pool.lease(_policy(1.0)) as again:
            assert again is not held  # 1.0 came back as a new fetcher
        assert not _closed(held)
    assert _closed(held)  # its last holder let go
    pool.close()
    assert _closed(other) and _closed(again)


def test_one_policy_shares_one_fetcher_and_a_kept_one_stays_open() -> None:
    pool = FetcherPool(size=2)
    with pool.lease(_policy(1.0)) as a, pool.lease(_policy(1.0)) as b:
        assert a is b
    assert not _closed(a)  # in the pool: reused by the next fetch
    with pool.lease(_policy(1.0)) as c:
        assert c is a
    pool.close()
    assert _closed(a)

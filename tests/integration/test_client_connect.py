"""``connect``: callers that arrive while the first connects share its attempt (one
connection per server and event loop), and a failed attempt is not kept."""

from __future__ import annotations

import asyncio

import pytest

from jobctrl.domain.errors import UnavailableError
from jobctrl.home import Home
from jobctrl.workflows.client import connect


def _in_a_new_loop(home: Home, n: int) -> list[object]:
    """``n`` concurrent ``connect`` calls in a fresh event loop (no client cached yet);
    each one's client, or the error it raised."""

    async def burst() -> list[object]:
        return await asyncio.gather(*(connect(home) for _ in range(n)), return_exceptions=True)

    return asyncio.run(burst())


def test_a_burst_of_connects_shares_one_client(temporal_address, home) -> None:
    clients = _in_a_new_loop(home, 12)
    assert all(not isinstance(c, BaseException) for c in clients), clients
    assert len({id(c) for c in clients}) == 1


def test_a_failed_attempt_fails_every_caller_and_is_not_kept(no_temporal, home) -> None:
    first = _in_a_new_loop(home, 5)
    assert all(isinstance(e, UnavailableError) for e in first), first

    async def twice() -> None:
        for _ in range(2):  # the second asks again (nothing cached from the first)
            with pytest.raises(UnavailableError):
                await connect(home, timeout=0.5)

    asyncio.run(twice())

"""``starts.wait_for_result`` through server outages: each outage gets the grace on its
own (two short ones in one long wait are both waited out); one longer than the grace
ends the wait in one clear error, whichever way the SDK says the server is gone (UNKNOWN
"transport error" for a connection cut under the long poll, as a killed server gives)."""

from __future__ import annotations

import asyncio

import pytest
from temporalio.service import RPCError, RPCStatusCode

from jobctrl.domain.errors import UnavailableError
from jobctrl.workflows import starts


class FlakyServer:
    """A client whose server is away during ``outages`` (seconds from the start, as
    (from, to)) and whose execution closes at ``done``."""

    def __init__(
        self,
        outages: list[tuple[float, float]],
        done: float,
        status: RPCStatusCode = RPCStatusCode.UNAVAILABLE,
    ) -> None:
        self.outages = outages
        self.status = status
        self.done = done
        self.start = asyncio.get_running_loop().time()

    def _now(self) -> float:
        return asyncio.get_running_loop().time() - self.start

    def _away(self) -> bool:
        return any(a <= self._now() < b for a, b in self.outages)

    def _gone(self) -> RPCError:
        return RPCError("transport error", self.status, b"")

    def get_workflow_handle(self, workflow_id: str, run_id: str | None = None) -> FlakyServer:
        return self

    async def describe(self) -> object:
        if self._away():
            raise self._gone()
        return object()

    async def result(self) -> None:
        if self._away():
            raise self._gone()
        # A long poll: answered when the execution closes, broken by the next outage.
        next_outage = min((a for a, _ in self.outages if a > self._now()), default=None)
        if next_outage is None or next_outage > self.done:
            await asyncio.sleep(max(0.0, self.done - self._now()))
            return
        await asyncio.sleep(next_outage - self._now())
        raise self._gone()


async def _wait(server: FlakyServer) -> None:
    await starts.wait_for_result(
        server,  # type: ignore[arg-type]
        starts.Started("prep-x", "run-x"),
        30.0,
        still_running="still running",
    )


async def test_each_server_outage_gets_the_grace_on_its_own(monkeypatch) -> None:
    monkeypatch.setattr(starts, "SERVER_GRACE_SECONDS", 1.0)
    # Two outages of 0.7 s with the server back in between: 1.4 s away in all.
    server = FlakyServer([(0.0, 0.7), (1.3, 2.0)], done=2.6)
    await _wait(server)
    assert server._now() >= 2.6


@pytest.mark.parametrize(
    "status", [RPCStatusCode.UNAVAILABLE, RPCStatusCode.UNKNOWN, RPCStatusCode.CANCELLED]
)
async def test_an_outage_longer_than_the_grace_ends_the_wait(monkeypatch, status) -> None:
    monkeypatch.setattr(starts, "SERVER_GRACE_SECONDS", 1.0)
    server = FlakyServer([(0.0, 5.0)], done=6.0, status=status)
    with pytest.raises(UnavailableError, match="stopped answering"):
        await _wait(server)
    assert 1.0 <= server._now() < 3.0, "waited the grace out first"

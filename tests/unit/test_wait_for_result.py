"""``wait_for_result`` when the server goes away under the wait: every way the SDK says so
(UNKNOWN "transport error" for a connection cut in the middle of the long poll, as a
killed `temporal server` gives) ends in the one-line "stopped answering" error, never in
an internal error."""

from __future__ import annotations

import pytest
from temporalio.service import RPCError, RPCStatusCode

from jobctrl.domain.errors import UnavailableError
from jobctrl.workflows import starts


class GoneHandle:
    def __init__(self, status: RPCStatusCode) -> None:
        self.status = status
        self.calls = 0

    async def result(self) -> None:
        self.calls += 1
        raise RPCError("transport error", self.status, b"")

    async def describe(self) -> None:
        raise RPCError("transport error", self.status, b"")


class Client:
    def __init__(self, handle: GoneHandle) -> None:
        self.handle = handle

    def get_workflow_handle(self, *_: object, **__: object) -> GoneHandle:
        return self.handle


@pytest.mark.parametrize(
    "status", [RPCStatusCode.UNKNOWN, RPCStatusCode.UNAVAILABLE, RPCStatusCode.CANCELLED]
)
async def test_a_server_gone_under_the_wait_is_said_in_one_line(monkeypatch, status) -> None:
    monkeypatch.setattr(starts, "SERVER_GRACE_SECONDS", 0.6)
    handle = GoneHandle(status)
    with pytest.raises(UnavailableError, match="stopped answering"):
        await starts.wait_for_result(
            Client(handle),  # type: ignore[arg-type]
            starts.Started("wf", "run"),
            30.0,
            still_running="still running",
        )
    assert handle.calls >= 2, "waited for it to come back first"

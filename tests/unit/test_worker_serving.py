"""`jobctrl worker` stops within a bound even when the Temporal worker's shutdown hangs
(its last step waits on the SDK's core without a limit)."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import pytest

from jobctrl.worker.run import serving


class _Worker:
    """Stands in for temporalio's Worker at its ``async with`` seam only."""

    def __init__(self, *, hang: bool) -> None:
        self.hang = hang
        self.entered = self.exited = False
        self.exit_type: Any = None

    async def __aenter__(self) -> _Worker:
        self.entered = True
        return self

    async def __aexit__(self, exc_type: Any, *_: Any) -> None:
        self.exit_type = exc_type
        if self.hang:
            await asyncio.Event().wait()  # never set: the hang seen under load
        self.exited = True


async def test_a_hanging_shutdown_is_left_behind_within_the_bound(caplog) -> None:
    worker = _Worker(hang=True)
    started = time.monotonic()
    with caplog.at_level(logging.ERROR, logger="jobctrl.worker.run"):
        async with serving(worker, timeout=0.2):  # type: ignore[arg-type]
            assert worker.entered
    assert time.monotonic() - started < 5
    assert not worker.exited
    assert "had not shut down after" in caplog.text


async def test_a_clean_shutdown_is_awaited_and_an_error_in_the_block_is_passed_on() -> None:
    worker = _Worker(hang=False)
    async with serving(worker, timeout=5):  # type: ignore[arg-type]
        pass
    assert worker.exited and worker.exit_type is None

    failing = _Worker(hang=False)
    with pytest.raises(RuntimeError, match="boom"):
        async with serving(failing, timeout=5):  # type: ignore[arg-type]
            raise RuntimeError("boom")
    assert failing.exited and failing.exit_type is RuntimeError


def test_the_test_worker_tolerates_only_the_cores_own_last_step() -> None:
    from tests.support.worker import _only_core_finalizing

    core = "Worker.run > Worker._run > Worker.finalize_shutdown > FutureIter"
    fixture = "_wrap_asyncgen_fixture.<locals>.finalizer"
    assert _only_core_finalizing({"activities": [], "awaiting": [core, fixture]})
    # an activity still open, or a run still polling, is a hang of ours: the test fails
    busy = {"type": "fetch", "function_returned": False}
    assert not _only_core_finalizing({"activities": [busy], "awaiting": [core]})
    polling = "Worker.run > Worker._run > _ActivityWorker.run > FutureIter"
    assert not _only_core_finalizing({"activities": [], "awaiting": [polling, core]})
    assert not _only_core_finalizing({"activities": "unknown", "awaiting": [core]})
    assert not _only_core_finalizing({"activities": [], "awaiting": [fixture]})

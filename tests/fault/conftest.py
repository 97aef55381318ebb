"""Fault-suite fixtures: each test's `jobctrl worker` runs its own embedded Temporal server
(history on disk in the test's home) on a task queue of its own, with automatic recovery's
backoff shrunk to seconds; a loopback posting site."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from jobctrl.home import Home
from tests.support.fault import no_server_left
from tests.support.fault_zygote import Zygote
from tests.support.http import FixtureServer


@pytest.fixture
def embedded(home: Home, monkeypatch: pytest.MonkeyPatch) -> Iterator[Home]:
    """The worker starts (or adopts) its own server; none is left running afterwards."""
    monkeypatch.delenv("JOBCTRL_TEMPORAL_ADDRESS", raising=False)
    monkeypatch.setenv("JOBCTRL_TASK_QUEUE", f"fault-{time.time_ns()}")
    # Automatic recovery on a test's time scale: retries 1, 2, 4 … s apart (production:
    # 60 s, doubling); a pending row left between two stages waits 3 s (production: 30 s).
    monkeypatch.setenv("JOBCTRL_RECOVERY_BACKOFF_BASE_SECONDS", "1")
    monkeypatch.setenv("JOBCTRL_RECOVERY_PENDING_GRACE_SECONDS", "3")
    with no_server_left(home):
        yield home


@pytest.fixture(scope="session")
def zygote(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Zygote]:
    """Forks `jobctrl worker` for every fault test (the imports paid once a session)."""
    with Zygote(tmp_path_factory.mktemp("workers")) as forks:
        yield forks


@pytest.fixture
def site() -> Iterator[FixtureServer]:
    with FixtureServer() as server:
        yield server

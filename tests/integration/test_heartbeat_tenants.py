"""The lease holder's beat with many tenants (issue 31): the census finds a second tenant's
due duties among idle tenants and the heartbeat runs them on the next beat, in process and
through a real `jobctrl worker`. The rotation reconciles schedules only (and is off in
process), so nothing but the census can have found them."""

from __future__ import annotations

import os
import signal
import socket
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

import pytest
from temporalio.client import Client

from jobctrl.stages.context import StageContext
from jobctrl.store import (
    applications,
    apply_attempts,
    jobs,
    orphans,
    start_intents,
    tenants,
    workflow_runs,
)
from jobctrl.store.store import Store
from jobctrl.worker import reconcile
from jobctrl.worker.heartbeat import WorkerHeartbeat
from tests.support.clock import WallClock
from tests.support.processes import WorkerProcess, worker_processes
from tests.support.tenants import TwoTenants
from tests.support.waiting import eventually

IDLE = [f"aardvark{i:02d}" for i in range(30)]  # listed before acme


@pytest.fixture
def crowd(two_tenants: TwoTenants) -> TwoTenants:
    """``local``, acme and 30 idle tenants with nothing to do."""
    for name in IDLE:
        tenants.add(two_tenants.local, name, None)
    return two_tenants


def _dead_send(store: Store) -> str:
    """A live email attempt of a process that no longer exists (settled by a beat)."""
    job_id = jobs.create_job(store, "https://jobs.example.com/sender-died").job_id
    dead = f"{socket.gethostname()}/{os.getpid()}/0"  # this pid, another start time: gone
    with store.write() as tx:
        app = applications.ensure_for_job(tx, job_id)
        apply_attempts.start_attempt(tx, app["id"], kind="email", owner=dead)
    return job_id


async def test_a_second_tenants_due_duties_run_on_the_next_beat_among_idle_tenants(
    crowd: TwoTenants, client: Client, task_queue: str
) -> None:
    acme = crowd.acme
    job_id = _dead_send(acme)
    intended = jobs.create_job(acme, "https://jobs.example.com/intended").job_id
    with acme.write(clock=WallClock(datetime.now(UTC) - timedelta(minutes=1))) as tx:
        start_intents.intend(tx, "prep-acme-from-a-lost-command", intended)
    orphans.request_stop(acme, "prep-acme-0123456789abcdef", "run-gone", "orphan")
    heartbeat = WorkerHeartbeat(client, StageContext(home=crowd.local_home, store=crowd.local))
    heartbeat.plan.rotation = 0  # nothing but the census finds acme
    try:
        await heartbeat.beat()

        assert apply_attempts.live_attempts(acme) == [], "the dead send is settled"
        assert applications.get(acme, job_id)["error_code"] == "SEND_SENDER_DIED"
        assert start_intents.unstarted(acme, datetime.now(UTC)) == [], "the intent started"
        assert workflow_runs.latest_runs(acme, "prep-acme-from-a-lost-command")
        assert orphans.pending_stops(acme) == [], "the stop request is seen through"
        [stop] = orphans.stop_requests(acme)
        assert stop.outcome == "not_found"  # Temporal has no such run
    finally:
        await heartbeat.step_down()


async def test_on_start_a_second_tenants_runs_are_reconciled_among_idle_tenants(
    crowd: TwoTenants, client: Client, task_queue: str
) -> None:
    orphans.request_stop(crowd.acme, "prep-acme-0123456789abcdef", "run-gone", "orphan")
    ctx = StageContext(home=crowd.local_home, store=crowd.local)

    await reconcile.reconcile_on_start(client, ctx)

    [stop] = orphans.stop_requests(crowd.acme)
    assert stop.outcome == "not_found"  # seen through before the worker takes activities


@pytest.fixture
def worker_process(
    home, temporal_address, task_queue, fast_settings
) -> Iterator[Callable[[], WorkerProcess]]:
    fast_settings.set_value("worker.heartbeat_seconds", 0.3)
    with worker_processes() as start:
        yield start


def test_a_real_worker_settles_a_second_tenants_dead_send(
    crowd: TwoTenants, worker_process
) -> None:
    acme = crowd.acme
    job_id = _dead_send(acme)

    worker = worker_process()  # acme's settings are its defaults: nothing changed

    assert eventually(lambda: apply_attempts.live_attempts(acme) == [], 60), worker.lines
    assert applications.get(acme, job_id)["error_code"] == "SEND_SENDER_DIED"
    worker.stop(signal.SIGTERM)
    assert any("settled 1 email send" in line for line in worker.lines), worker.lines

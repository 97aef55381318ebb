"""The heartbeat's singleton duties run in one worker of several (issue 14): the task
queue's lease (``store.leases``) is held by one worker at a time, renewed every beat,
taken over once its holder's time runs out, at once when the holder is a dead process
of this host; through `jobctrl worker` processes sharing one store and task queue."""

from __future__ import annotations

import signal
import time
from datetime import timedelta

import psutil

from jobctrl.domain.clock import utcnow
from jobctrl.store import leases
from jobctrl.worker.heartbeat import _dead_here
from jobctrl.worker.inventory import worker_identity
from tests.support.processes import WorkerProcess
from tests.support.waiting import eventually

TTL = timedelta(seconds=30)


def test_one_holder_at_a_time_renewed_then_taken_over_when_it_expires(store) -> None:
    now = utcnow()
    clock = {"t": now}

    def at() -> object:
        return clock["t"]

    assert leases.hold(store, "duties:q", "a", TTL, clock=at)
    assert not leases.hold(store, "duties:q", "b", TTL, clock=at), "held by a"
    clock["t"] = now + timedelta(seconds=20)
    assert leases.hold(store, "duties:q", "a", TTL, clock=at), "renewed by its holder"
    clock["t"] = now + timedelta(seconds=45)
    assert not leases.hold(store, "duties:q", "b", TTL, clock=at), "renewed at 20 s: not yet"
    clock["t"] = now + timedelta(seconds=51)
    assert leases.hold(store, "duties:q", "b", TTL, clock=at), "expired: b takes it"
    assert leases.holder(store, "duties:q").holder == "b"
    assert not leases.hold(store, "duties:q", "a", TTL, clock=at)
    assert leases.hold(store, "other:q", "a", TTL, clock=at), "another name is another lease"
    leases.release(store, "duties:q", "a")  # not a's: nothing happens
    assert leases.holder(store, "duties:q").holder == "b"
    leases.release(store, "duties:q", "b")
    assert leases.holder(store, "duties:q") is None


def test_a_lease_is_taken_from_a_named_holder_only(store) -> None:
    assert leases.hold(store, "duties:q", "gone", TTL)
    assert not leases.take_over(store, "duties:q", "someone-else", "me", TTL)
    assert leases.take_over(store, "duties:q", "gone", "me", TTL)
    assert leases.holder(store, "duties:q").holder == "me"


def test_a_dead_process_of_this_host_is_recognised() -> None:
    me = worker_identity()
    host, _, _ = me.partition(":")
    gone = max(psutil.pids()) + 100_000
    assert _dead_here(f"{host}:{gone}:abcd")
    assert not _dead_here(me), "this process is alive"
    assert not _dead_here(f"another-host:{gone}:abcd"), "another host's process is not judged"
    name, _, space = host.partition("~")
    assert space, "the identity names its PID space"
    assert not _dead_here(f"{name}~{'0' * 8}:{gone}:abcd"), (
        "a process of another PID space with the same host name (a container) is not judged"
    )


def _holder(store) -> str | None:
    held = leases.holder(store, next(iter(_names(store)), ""))
    return held.holder if held else None


def _names(store) -> list[str]:
    from sqlalchemy import select

    from jobctrl.store.operations_tables import worker_leases

    with store.read() as conn:
        return list(conn.execute(select(worker_leases.c.name)).scalars())


def test_two_workers_share_the_duties_of_one_queue_and_the_survivor_takes_them_over(
    home, store, temporal_address, task_queue, fast_settings
) -> None:
    fast_settings.set_value("worker.heartbeat_seconds", 0.5)
    first, second = WorkerProcess(), WorkerProcess()
    try:
        first.wait_ready()
        second.wait_ready()
        # "worker ready" comes before the first beat: the lease is taken at that beat.
        held = eventually(lambda: _holder(store), 60, what="the duties' lease to be held")
        assert _names(store) == [f"heartbeat-duties:{task_queue}"]
        pids = {first.proc.pid: first, second.proc.pid: second}
        holder_pid = int(held.split(":")[1])
        assert holder_pid in pids, held
        time.sleep(2)  # several beats of both: the lease stays where it is
        assert _holder(store) == held
        pids[holder_pid].proc.kill()  # kill -9: it never gives the lease up
        pids[holder_pid].proc.wait(30)
        survivor = next(p for pid, p in pids.items() if pid != holder_pid)
        started = time.monotonic()
        taken = eventually(
            lambda: (h := _holder(store)) and h != held and h,
            60,
            what="the survivor to take the duties' lease over",
        )
        assert int(taken.split(":")[1]) == survivor.proc.pid
        assert time.monotonic() - started < 10, "a dead holder of this host is not waited out"
    finally:
        for process in (first, second):
            if process.proc.poll() is None:
                process.stop(signal.SIGTERM)
    assert _holder(store) is None, "a worker that stops gives the lease up"

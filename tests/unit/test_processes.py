"""Owners of in-flight work (``host~space/pid/start``): only a process of this host and
PID space is looked at; any other is assumed alive (its waiters bound the wait by time),
and an owner written before the space was part of it is still read by host name."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

from jobctrl.domain import processes
from jobctrl.domain.processes import owner_is_alive, owner_of, process_owner


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_this_process_is_alive_and_names_its_host_and_pid_space() -> None:
    me = process_owner()
    assert me.startswith(f"{processes.host_name()}~{processes.pid_space()}/{os.getpid()}/")
    assert owner_is_alive(me)
    assert processes.is_this_process(me)


def test_a_process_that_ended_is_not_alive() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        owner = owner_of(child.pid)
        assert owner_is_alive(owner)
    finally:
        child.kill()
        child.wait()
    assert not owner_is_alive(owner)


def test_another_pid_space_of_the_same_host_name_is_assumed_alive() -> None:
    """A container with this host name, or this host before a reboot: its pids are not
    ours to look up, so a pid that is free here says nothing about it."""
    pid = _dead_pid()
    mine = owner_of(os.getpid())
    start = mine.rsplit("/", 1)[1]
    assert not owner_is_alive(f"{processes.host_name()}~{processes.pid_space()}/{pid}/{start}")
    assert owner_is_alive(f"{processes.host_name()}~0000beef/{pid}/{start}")
    assert owner_is_alive(f"elsewhere~{processes.pid_space()}/{pid}/{start}")


def test_an_owner_written_before_the_pid_space_is_read_by_host_name() -> None:
    pid = _dead_pid()
    assert not owner_is_alive(f"{socket.gethostname()}/{pid}/t1")
    assert not owner_is_alive(f"{socket.gethostname()}/{os.getpid()}/t1")  # another start
    assert owner_is_alive(f"another-host/{pid}/t1")

"""Which process owns a piece of in-flight work, and whether it still runs.

An owner is ``host/pid/start``: the host name, the pid and when that process started (so
a pid the kernel handed to a new process after the owner died does not pass for it). Only
a process of this host can be looked at; another host's is assumed alive, and whoever
waits on it bounds the wait by time instead."""

from __future__ import annotations

import functools
import os
import socket

import psutil

__all__ = ["is_this_process", "owner_is_alive", "owner_of", "process_owner"]


def _started(pid: int) -> str:
    """When process ``pid`` started, in a form that a step of the wall clock leaves alone:
    Linux's start time in clock ticks since boot (field 22 of /proc/PID/stat); elsewhere
    psutil's wall-clock start time (which moves with the clock)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return "t" + stat.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return f"{psutil.Process(pid).create_time():.3f}"


def owner_of(pid: int) -> str:
    """Process ``pid`` of this host as an owner (raises ``psutil.Error`` when it is gone)."""
    return f"{socket.gethostname()}/{pid}/{_started(pid)}"


def process_owner() -> str:
    """This process as an owner: host/pid/process start."""
    return _owner(os.getpid())  # by pid: a forked child is an owner of its own


@functools.cache
def _owner(pid: int) -> str:
    return owner_of(pid)


def is_this_process(owner: str | None) -> bool:
    return owner == process_owner()


def owner_is_alive(owner: str | None) -> bool:
    """Whether the process that owns the work still runs (another host's: assumed so)."""
    host, _, rest = (owner or "").partition("/")
    pid_text, _, started = rest.partition("/")
    if host != socket.gethostname():
        return True
    try:
        return _started(int(pid_text)) == started
    except (ValueError, psutil.Error):
        return False

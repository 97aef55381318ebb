"""Which process owns a piece of in-flight work, and whether it still runs.

An owner is ``host~space/pid/start``: the host name, its PID space (this boot and PID
namespace: containers that share a host name, or a host name after a reboot, number their
processes apart), the pid and when that process started (so a pid the kernel handed to a
new process after the owner died does not pass for it). Only a process of this host and
PID space can be looked at; another's is assumed alive, and whoever waits on it bounds the
wait by time instead. Owners written before the space was part of them (``host/pid/start``)
are still read, by host name alone as then."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import socket
from pathlib import Path

import psutil

__all__ = [
    "host_name",
    "is_this_process",
    "owner_is_alive",
    "owner_of",
    "pid_space",
    "process_owner",
]


def host_name() -> str:
    """This host's name as owners and worker identities carry it: letters, digits and
    ``-._`` only, at most 64 characters."""
    host = "".join(c for c in socket.gethostname() if c.isalnum() or c in "-._")[:64]
    return host or "host"


@functools.cache
def pid_space() -> str:
    """This boot's id and this process's PID namespace, hashed short (Linux; elsewhere only
    what is readable, so at worst the host name alone tells processes apart, as before)."""
    parts = []
    with contextlib.suppress(OSError):
        parts.append(Path("/proc/sys/kernel/random/boot_id").read_text().strip())
    with contextlib.suppress(OSError):
        parts.append(os.readlink("/proc/self/ns/pid"))
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:8]


def _here() -> str:
    return f"{host_name()}~{pid_space()}"


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
    return f"{_here()}/{pid}/{_started(pid)}"


def process_owner() -> str:
    """This process as an owner: host/pid/process start."""
    return _owner(os.getpid())  # by pid: a forked child is an owner of its own


@functools.cache
def _owner(pid: int) -> str:
    return owner_of(pid)


def is_this_process(owner: str | None) -> bool:
    return owner == process_owner()


def owner_is_alive(owner: str | None) -> bool:
    """Whether the process that owns the work still runs (another host's or PID space's:
    assumed so)."""
    host, _, rest = (owner or "").partition("/")
    pid_text, _, started = rest.partition("/")
    if host != (_here() if "~" in host else socket.gethostname()):
        return True
    try:
        return _started(int(pid_text)) == started
    except (ValueError, psutil.Error):
        return False

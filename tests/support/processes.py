"""Running jobctrl commands and worker processes the way a user does."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

JOBCTRL = str(Path(sys.executable).with_name("jobctrl"))


def run_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [JOBCTRL, *args], capture_output=True, text=True, timeout=timeout, env=os.environ.copy()
    )


class WorkerProcess:
    """`jobctrl worker` (or ``args``, e.g. `up`) in a child process; ``wait_ready`` blocks
    until the line containing ``ready`` is printed."""

    def __init__(self, *args: str, ready: str = "worker ready") -> None:
        self.ready_marker = ready
        self.proc = subprocess.Popen(
            [JOBCTRL, *(args or ("worker",))],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=os.environ.copy(),
        )
        self.lines: list[str] = []
        self._ready = threading.Event()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip())
            if self.ready_marker in line:
                self._ready.set()

    def wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while not self._ready.wait(0.1):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("worker did not start:\n" + "\n".join(self.lines))

    def stop(self, sig: int, timeout: float = 30) -> int:
        self.proc.send_signal(sig)
        return self.proc.wait(timeout)


@contextlib.contextmanager
def worker_processes() -> Iterator[Callable[..., WorkerProcess]]:
    """Start `jobctrl worker` processes on demand (``start(ready=False)`` does not wait
    for its ready line); those still running at the end are stopped with SIGTERM."""
    started: list[WorkerProcess] = []

    def start(*, ready: bool = True) -> WorkerProcess:
        process = WorkerProcess()
        started.append(process)
        if ready:
            process.wait_ready()
        return process

    try:
        yield start
    finally:
        for process in started:
            if process.proc.poll() is None:
                process.stop(signal.SIGTERM)


def eventually(check: Callable[[], Any], timeout: float = 30.0) -> Any:
    """Poll ``check`` every 0.2 s until it answers something truthy (that answer), or
    ``timeout`` s have passed (its last answer)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if result := check():
            return result
        time.sleep(0.2)
    return check()

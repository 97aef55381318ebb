"""Running jobctrl commands and worker processes the way a user does."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

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

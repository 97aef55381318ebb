"""Restarting `jobctrl worker` twenty times without paying for its imports twenty times.

A fresh `jobctrl worker` spends seconds of CPU importing the stages and the provider SDKs
before it does anything (≈ 9 s of CPU on the 2-core CI machine). The kill suite restarts
the worker after every `kill -9`, so it starts each one from a zygote: a process that has
imported what `jobctrl worker` imports and forks on request; the child runs the console
entry point (``jobctrl.cli.run`` with ``argv = ["jobctrl", "worker"]``) exactly as the
installed script does, its output in a file. The code that runs, and the process that is
killed, is the real worker's; only the exec and the imports are shared.

Run as ``python -m tests.support.fault_zygote``: each line ``spawn LOGFILE ENV`` on stdin
(ENV: the environment as base64 JSON, so one zygote serves every test's home) forks one
worker and answers its pid on stdout. Children are reaped by the kernel (SIGCHLD ignored
in the zygote, default again in each child).
"""

from __future__ import annotations

import base64
import faulthandler
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType

import psutil

READY = "worker ready"


def _serve() -> None:
    import jobctrl.api.server  # what `jobctrl worker` imports when it runs
    import jobctrl.app.worker
    import jobctrl.cli
    import jobctrl.worker.run

    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    for line in sys.stdin:
        command, log, env = [*line.strip().split(" "), "", ""][:3]
        if command != "spawn":
            continue
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            os.environ.clear()
            os.environ.update(json.loads(base64.b64decode(env)))
            fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            faulthandler.register(signal.SIGUSR2, all_threads=True)  # a stack dump on demand
            sys.argv = ["jobctrl", "worker"]
            jobctrl.cli.run()  # os._exit()s with the command's status
            os._exit(70)
        print(pid, flush=True)


class Zygote:
    """The zygote process; ``spawn`` a worker from it in the current environment."""

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.count = 0
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.support.fault_zygote"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=os.environ.copy(),
            cwd=Path(__file__).resolve().parents[2],
        )

    def spawn(self) -> tuple[int, Path]:
        """A new `jobctrl worker` process: its pid and the file its output goes to."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.count += 1
        log = self.logs / f"worker-{os.getpid()}-{self.count}.log"
        env = base64.b64encode(json.dumps(dict(os.environ)).encode()).decode()
        self.proc.stdin.write(f"spawn {log} {env}\n")
        self.proc.stdin.flush()
        return int(self.proc.stdout.readline()), log

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(30)

    def __enter__(self) -> Zygote:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def wait_ready(pid: int, log: Path, timeout: float = 120) -> None:
    """Until the worker's output says it is ready; raises with its output if it died."""
    deadline = time.monotonic() + timeout
    while True:
        text = log.read_text() if log.exists() else ""
        if READY in text:
            return
        if not psutil.pid_exists(pid) or time.monotonic() > deadline:
            raise AssertionError(f"worker {pid} did not start:\n{text}")
        time.sleep(0.05)


def gone(pid: int, timeout: float = 30) -> None:
    """Until ``pid`` no longer exists (the kernel reaps the zygote's children)."""
    deadline = time.monotonic() + timeout
    while psutil.pid_exists(pid):
        if time.monotonic() > deadline:
            raise AssertionError(f"process {pid} still exists")
        time.sleep(0.02)


if __name__ == "__main__":
    _serve()

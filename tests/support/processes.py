"""Running jobctrl commands and worker processes the way a user does."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path

__all__ = ["JOBCTRL", "WorkerProcess", "run_cli", "run_cli_process", "worker_processes"]

JOBCTRL = str(Path(sys.executable).with_name("jobctrl"))


# The commands that run until stopped, start servers, install signal handlers or end with
# os._exit: always a child process, never inside pytest.
PROCESS_COMMANDS = frozenset({"worker", "up", "demo", "demo-boards"})


def run_cli(
    *args: str, timeout: float = 120, process: bool = False
) -> subprocess.CompletedProcess[str]:
    """`jobctrl ARGS`: its exit status, stdout and stderr.

    In this process by default (click's test runner on ``jobctrl.cli.main``, in a thread
    of its own so a command's ``asyncio.run`` works from an async test): the same parsing,
    error mapping and output as the console script, without a second of imports per call.
    ``process=True`` runs the installed `jobctrl` in a child process instead, for what
    only a process proves: the console entry point itself, a new process opening the store
    (migrations, engines and caches made afresh), environment read at engine creation,
    pipes and signals. The commands in ``PROCESS_COMMANDS`` always run in one.
    """
    if process or (args and args[0] in PROCESS_COMMANDS):
        return run_cli_process(*args, timeout=timeout)
    return _run_cli_in_process(list(args), timeout)


def run_cli_process(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """The installed `jobctrl ARGS` in a child process with this process's environment."""
    return subprocess.run(
        [JOBCTRL, *args], capture_output=True, text=True, timeout=timeout, env=os.environ.copy()
    )


# click's runner swaps sys.stdout and sys.stderr for the whole process: one command at a
# time (commands racing each other are a test for processes, ``process=True``).
_one_at_a_time = threading.Lock()
_running: list[str] = [""]  # the command that holds it


def _run_cli_in_process(args: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
    from click.testing import CliRunner, Result

    from jobctrl.cli import main

    done: list[Result] = []
    # One command at a time (CliRunner swaps the process's stdout). A command that hung
    # keeps the lock: the next one fails at once, naming it, instead of timing out too.
    if not _one_at_a_time.acquire(timeout=timeout):
        raise AssertionError(f"an earlier in-process command still runs: {_running[0]}")
    _running[:] = [" ".join(args)]

    def invoke() -> None:
        try:
            done.append(CliRunner().invoke(main, args, prog_name="jobctrl"))
        finally:
            _one_at_a_time.release()

    thread = threading.Thread(target=invoke, name=f"jobctrl {' '.join(args[:2])}", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise subprocess.TimeoutExpired([JOBCTRL, *args], timeout)
    result = done[0]
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        # What the console script would have printed: an escaped exception's traceback.
        stderr += "".join(traceback.format_exception(result.exception))
    return subprocess.CompletedProcess([JOBCTRL, *args], result.exit_code, result.stdout, stderr)


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

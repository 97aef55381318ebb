"""What the benchmarks share: RSS and CPU meters, and the posting site served from its own
process (it stands for the internet, whose CPU cost is not jobctrl's)."""

from __future__ import annotations

import contextlib
import multiprocessing
import threading
from collections.abc import Iterator

import psutil

from jobctrl.demo.postings import generate_postings
from jobctrl.demo.site import DemoSite


class PeakRss:
    """Samples the RSS of a process every 50 ms."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak, self._stop = pid, 0, threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            try:
                self.peak = max(self.peak, psutil.Process(self.pid).memory_info().rss)
            except psutil.Error:
                return

    def stop(self) -> int:
        self._stop.set()
        return self.peak


class CpuMeter:
    """CPU seconds used by the worker (this process) and the server, per lap."""

    def __init__(self, server_pid: int) -> None:
        self.procs = {"worker": psutil.Process(), "server": psutil.Process(server_pid)}
        self.last = self._read()

    def _read(self) -> dict[str, float]:
        return {k: sum(p.cpu_times()[:2]) for k, p in self.procs.items()}

    def lap(self) -> dict[str, float]:
        now = self._read()
        lap = {k: round(now[k] - self.last[k], 2) for k in now}
        self.last = now
        return lap


def _serve(n: int, seed: int, queue: multiprocessing.Queue) -> None:
    with DemoSite(extra_pages=generate_postings(n, seed=seed)) as site:
        queue.put(site.base_url)
        threading.Event().wait()


@contextlib.contextmanager
def posting_site(n: int, seed: int) -> Iterator[str]:
    """``n`` generated postings served from a spawned process; yields its base URL."""
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_serve, args=(n, seed, queue), daemon=True)
    proc.start()
    try:
        yield queue.get(timeout=30)
    finally:
        proc.terminate()
        proc.join()

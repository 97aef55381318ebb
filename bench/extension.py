"""Benchmark: the browser extension (issue 32) in Debian's Chromium, headless, against
jobctrl served for real (uvicorn in a thread, the embedded Temporal server and a worker
in this process, the offline scorer) and loopback posting pages (the fixture pages of
the extension's tests).

    .venv/bin/python bench/extension.py [--saves 10] [--tasks 20] [--paced 4] [--idle 75]

- **click to job created**: from the click on **Save this job** in the popup to the
  popup's "Saved." (the capture answered 201: the job and its capture are stored), timed
  in the popup's page;
- **click to scored**: from the same click to the job's score in ``/v1/captures/status``
  (Enrich from the capture, Score, by the worker);
- **continuation**: ``--tasks`` jobs whose Enrich robots.txt refused
  (``browser_capture_needed``); the service worker's ``runNextTask`` is called with the
  pace reset, so each figure is the work of one task (open a background tab, wait for the
  page, read it, close it, post it); then ``--paced`` tasks run on the extension's own
  alarms (one every 20 s), which gives the throughput at the pace limit;
- **idle**: Chromium started again without Playwright (a debugger keeps a service worker
  awake) on the paired profile, sampled every second for ``--idle`` seconds with and
  without the extension loaded: the extension's process (its share of CPU, its RSS, the
  seconds it was alive) and the whole browser's CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from tests.support.app import live_server  # noqa: E402
from tests.support.browser import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.support.extension import EXTENSION, extension_browser, fixture_page  # noqa: E402
from tests.support.loopback import LoopbackServer, Request, Response  # noqa: E402

from jobctrl.app import captures  # noqa: E402
from jobctrl.app import extension as app_extension  # noqa: E402
from jobctrl.domain.errors import StageError  # noqa: E402
from jobctrl.stages.context import StageContext  # noqa: E402
from jobctrl.stages.enrich import enrich  # noqa: E402
from jobctrl.store import jobs  # noqa: E402
from support import LOOPBACK_FETCH, embedded_temporal, fresh_home, jobctrl_worker  # noqa: E402


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 1)


def spread(values: list[float]) -> dict[str, float]:
    return {"p50": pct(values, 0.5), "p95": pct(values, 0.95), "n": len(values)}


def posting_site() -> LoopbackServer:
    """Indeed-shaped pages at /viewjob?jk=N and LinkedIn-shaped ones at /blocked?jk=N
    (robots.txt keeps jobctrl's reader out of those), each with its own title."""
    indeed = fixture_page("indeed_viewjob.html").decode()
    linkedin = fixture_page("linkedin_signed_in.html").decode()

    def page(template: str, old: str):
        def answer(request: Request) -> Response:
            body = template.replace(old, f"{old} {request.query.get('jk', '')}")
            return Response.text(body, content_type="text/html; charset=utf-8")

        return answer

    site = LoopbackServer()
    site.on("GET", "/viewjob", page(indeed, "Data Engineer"))
    site.on("GET", "/blocked", page(linkedin, "Senior Python Engineer"))
    site.on("GET", "/robots.txt", Response.text("User-agent: *\nDisallow: /blocked\n"))
    return site.start()


async def status_score(home, url: str) -> int | None:
    return (await asyncio.to_thread(captures.capture_status, home, url)).score


# Timed in the popup itself (a poll from outside would add its own interval): the click
# on "Save this job" to the popup's "Saved.".
CLICK_TO_SAVED = """() => new Promise((resolve) => {
  const message = document.getElementById("message");
  const watch = new MutationObserver(() => {
    if (message.textContent.startsWith("Saved.")) {
      watch.disconnect();
      resolve(performance.now() - started);
    }
  });
  watch.observe(message, { childList: true, characterData: true, subtree: true });
  const started = performance.now();
  document.getElementById("save").click();
})"""


async def saves(ext, home, site, n: int) -> dict[str, Any]:
    created: list[float] = []
    scored: list[float] = []
    for i in range(n + 1):  # the first is a warm-up
        url = site.url(f"/viewjob?jk={i}")
        page = await ext.context.new_page()
        await page.goto(url)
        tab = await ext.tab_id(page.url)
        popup = await ext.popup(tab)
        await popup.wait_for_selector("#paired:not([hidden])")
        started = time.perf_counter()
        created_ms = await popup.evaluate(CLICK_TO_SAVED)
        while await status_score(home, url) is None:
            if time.perf_counter() - started > 60:
                raise RuntimeError(f"{url} was not scored in 60 s")
            await asyncio.sleep(0.02)
        if i:
            created.append(created_ms)
            scored.append((time.perf_counter() - started) * 1000)
        await popup.close()
        await page.close()
    return {"click_to_created_ms": spread(created), "click_to_scored_ms": spread(scored)}


def blocked_jobs(home, store, site, n: int, first: int) -> list[str]:
    urls = []
    ctx = StageContext(home=home, store=store)
    try:
        for i in range(first, first + n):
            url = site.url(f"/blocked?jk={i}")
            job_id = jobs.create_job(store, url).job_id
            with contextlib.suppress(StageError):  # robots.txt: waits for the browser
                enrich(ctx, job_id, f"run-bench-{i}")
            urls.append(url)
    finally:
        ctx.close()
    waiting = {t.url for t in captures.browser_tasks(home, limit=500).items}
    assert set(urls) <= waiting, "the jobs are not waiting for the browser"
    return urls


async def continuation(ext, home, store, site, n: int, paced: int) -> dict[str, Any]:
    await asyncio.to_thread(blocked_jobs, home, store, site, n, 0)
    await ext.set_storage({"sites": {"127.0.0.1": True}, "skipped": {}})
    work: list[float] = []
    for _ in range(n):
        await ext.call("() => chrome.alarms.clearAll()")  # no alarm's task in between
        await ext.set_storage({"lastTaskAt": 0})
        started = time.perf_counter()
        result = await ext.call("() => self.jobctrl.runNextTask()")
        assert result.get("ok"), result
        work.append((time.perf_counter() - started) * 1000)
    await ext.call("() => chrome.alarms.clearAll()")
    assert not captures.browser_tasks(home).items, "every blocked job continued"

    # On the extension's own alarms: the first task at once, then one per alarm.
    await asyncio.to_thread(blocked_jobs, home, store, site, paced, 1000)
    await ext.set_storage({"lastTaskAt": 0})
    started = time.perf_counter()
    await ext.call("() => self.jobctrl.runNextTask()")
    while captures.browser_tasks(home).items:
        if time.perf_counter() - started > 30 * paced + 60:
            raise RuntimeError("the paced tasks did not finish")
        await asyncio.sleep(0.2)
    minutes = (time.perf_counter() - started) / 60
    return {
        "task_work_ms": spread(work),
        "tasks_per_minute_unpaced": round(60000 / statistics.mean(work), 1),
        "paced_tasks": paced,
        "tasks_per_minute_at_pace": round((paced - 1) / minutes, 2) if paced > 1 else None,
    }


def chromium_tree(root: psutil.Process) -> list[psutil.Process]:
    try:
        return [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def worker_running(port: int) -> bool:
    """Whether the extension's service worker runs (the DevTools target list names it
    only then)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=2) as r:
            targets = json.load(r)
    except OSError:
        return False
    return any(
        t.get("type") == "service_worker" and t.get("url", "").endswith("/background.js")
        for t in targets
    )


def idle(profile: Path, seconds: int, with_extension: bool) -> dict[str, Any]:
    port = free_port()
    args = [str(CHROMIUM), "--headless", f"--user-data-dir={profile}", *CHROMIUM_ARGS]
    args.append(f"--remote-debugging-port={port}")  # /json/list attaches no debugger
    if with_extension:
        args += [f"--disable-extensions-except={EXTENSION}", f"--load-extension={EXTENSION}"]
    args.append("about:blank")
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    root = psutil.Process(proc.pid)
    cpu: dict[int, float] = {}
    ext_cpu: dict[int, float] = {}
    ext_rss: list[float] = []
    alive = 0
    awake = 0
    try:
        time.sleep(5)  # start-up is not idle
        start = {p.pid: sum(p.cpu_times()[:2]) for p in chromium_tree(root)}
        for _ in range(seconds):
            time.sleep(1)
            seen_ext = False
            for p in chromium_tree(root):
                try:
                    used = sum(p.cpu_times()[:2]) - start.get(p.pid, 0.0)
                    cpu[p.pid] = used
                    if "--extension-process" in " ".join(p.cmdline()):
                        seen_ext = True
                        ext_cpu[p.pid] = used
                        ext_rss.append(p.memory_info().rss / 2**20)
                except psutil.NoSuchProcess:
                    continue
            alive += seen_ext
            awake += worker_running(port)
    finally:
        proc.terminate()
        proc.wait(10)
    return {
        "seconds": seconds,
        "browser_cpu_s": round(sum(cpu.values()), 2),
        "extension_process_cpu_s": round(sum(ext_cpu.values()), 3),
        "extension_process_alive_s": alive,
        "service_worker_running_s": awake,
        "extension_process_rss_mb_max": round(max(ext_rss), 1) if ext_rss else 0.0,
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    home, store = fresh_home("jobctrl-bench-extension-", settings=LOOPBACK_FETCH)
    site = posting_site()
    profile = Path(tempfile.mkdtemp(prefix="jobctrl-bench-chromium-"))
    result: dict[str, Any] = {}
    try:
        async with embedded_temporal(home) as (client, _), jobctrl_worker(client, store, home):
            with live_server(home) as base:
                async with extension_browser(profile) as ext:
                    popup = await ext.popup()
                    await popup.fill("#server", base)
                    await popup.fill("#code", app_extension.make_code(home).code)
                    await popup.click("#pair-form button")
                    await popup.wait_for_selector("#paired:not([hidden])")
                    await popup.close()
                    result["saves"] = await saves(ext, home, site, args.saves)
                    if args.tasks:
                        result["continuation"] = await continuation(
                            ext, home, store, site, args.tasks, args.paced
                        )
                    await ext.set_storage({"queue": [], "sites": {}})
                if args.idle:
                    result["idle_with_extension"] = await asyncio.to_thread(
                        idle, profile, args.idle, True
                    )
                    result["idle_without_extension"] = await asyncio.to_thread(
                        idle, Path(tempfile.mkdtemp(prefix="jobctrl-bench-bare-")), args.idle, False
                    )
    finally:
        site.stop()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--saves", type=int, default=10)
    parser.add_argument("--tasks", type=int, default=20)
    parser.add_argument("--paced", type=int, default=4)
    parser.add_argument("--idle", type=int, default=75)
    print(json.dumps(asyncio.run(run(parser.parse_args())), indent=2))


if __name__ == "__main__":
    main()

"""`jobctrl demo`: sample postings and job boards on loopback, prepared end to end.

It fills a demo home (a sample profile and target search, the loopback host allowed for
fetching, the demo boards as sources), runs the worker (and its embedded Temporal server)
in this process, adds the sample postings, runs one discovery over the boards (one of
which is broken on purpose), waits for every job to be prepared, and prints title,
company and fit score. Everything goes through the application layer, as a user's
commands do.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable

from jobctrl.api.server import bind, serve_app, url_for
from jobctrl.app import configuration, discovery, jobs, queries, sources
from jobctrl.app.activity import DiscoveryRunView
from jobctrl.app.home import init_home
from jobctrl.app.settings import change_settings
from jobctrl.app.worker import run_worker
from jobctrl.demo.boards import DemoBoards
from jobctrl.demo.profile import DEMO_PROFILE
from jobctrl.demo.site import DemoSite
from jobctrl.domain.errors import EXISTS, JobctrlError
from jobctrl.home import Home

DEMO_TARGET = {"exclude_titles": ["designer", "product manager"]}
DEMO_PORT = 8766  # fixed, so the demo sources in config.yaml stay valid between runs


def _prepare_home(home: Home, boards: DemoBoards) -> None:
    init_home(home, profile=DEMO_PROFILE, target_search=DEMO_TARGET)
    allowed = set(
        configuration.settings_values(home, "fetch.allow_hosts").root["fetch.allow_hosts"]
    )
    change_settings(
        home,
        {
            "fetch.allow_hosts": sorted(allowed | {"127.0.0.1"}),
            "fetch.min_host_interval_seconds": 0.0,
        },
    )
    for source in boards.sources():
        try:
            sources.add_source(home, source["kind"], source["name"], source["base_url"])
        except JobctrlError as exc:
            if exc.code != EXISTS:
                raise


async def _all_prepared(home: Home, timeout: float = 180) -> None:
    for _ in range(int(timeout * 10)):
        if not await asyncio.to_thread(queries.preparations_running, home):
            return
        await asyncio.sleep(0.1)


async def _prepare_everything(home: Home, site: DemoSite, echo: Callable[[str], None]) -> None:
    await asyncio.gather(
        *(jobs.add_job(home, url, wait=True, wait_timeout=120) for url in site.urls())
    )
    echo("discovering from the boards ...")
    run = await discovery.start_discovery(home, wait=True, wait_timeout=300)
    counts = run.counts if isinstance(run, DiscoveryRunView) else {}
    error = run.error_code if isinstance(run, DiscoveryRunView) else None
    echo(
        f"discovery {run.status}: {counts.get('found', 0)} postings found, "
        f"{counts.get('accepted', 0)} accepted, {counts.get('jobs_created', 0)} new jobs"
        + (f"; a source failed with {error}" if error else "")
    )
    await _all_prepared(home)
    rows = queries.list_jobs(home)
    echo("")
    echo(f"{'SCORE':>5}  {'STATUS':<9}  {'TITLE':<40}  COMPANY")
    for row in rows:
        score = "" if row.score is None else str(row.score)
        title = (row.title or row.url)[:40]
        echo(f"{score:>5}  {row.status:<9}  {title:<40}  {row.company or ''}")
    echo("")
    echo(f"try: JOBCTRL_HOME={home.root} .venv/bin/jobctrl show {rows[0].job_id}")
    echo(
        f"     JOBCTRL_HOME={home.root} .venv/bin/jobctrl materials {rows[0].job_id}"
        "   (resume and cover letter PDFs)"
    )
    echo(f"     evaluation reports: {home.reports_dir}")


async def run_demo(
    home: Home,
    *,
    echo: Callable[[str], None],
    keep: bool = False,
    serve_port: int | None = None,
) -> None:
    """Run the demo; with ``serve_port`` the web app is served from the start and the demo
    ends by printing its URL and serving it until Ctrl-C."""
    sock: socket.socket | None = None
    if serve_port is not None:
        sock = bind("127.0.0.1", serve_port)  # a taken port fails now, not after the demo
    echo(f"demo home: {home.root}")
    with DemoSite() as site, DemoBoards(port=DEMO_PORT) as boards:
        _prepare_home(home, boards)
        echo(f"serving {len(site.urls())} sample postings at {site.base_url}")
        echo(f"serving {len(boards.boards)} job boards at {boards.base_url} (one is broken)")

        async def demo(stop: asyncio.Event) -> None:
            app = None
            if sock is not None:
                echo(f"web app: {url_for(sock)}  (open it now to watch the jobs come in)")
                app = asyncio.create_task(serve_app(home, sock, stop))
            try:
                await _prepare_everything(home, site, echo)
                if sock is not None and app is not None:
                    echo(f"open {url_for(sock)}  (Ctrl-C to stop)")
                    await app
                elif keep:
                    echo("worker running; Ctrl-C to stop")
                    await stop.wait()
            finally:
                if app is not None and not app.done():
                    stop.set()
                    await app

        await run_worker(
            home, on_ready=lambda address: echo(f"Temporal dev server at {address}"), alongside=demo
        )

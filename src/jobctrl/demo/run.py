"""`jobctrl demo`: sample postings and job boards on loopback, prepared end to end.

It fills a demo home (a sample profile and target search, the loopback host allowed for
fetching, the demo boards as sources), starts the embedded Temporal server and a worker
in this process, adds the sample postings, runs one discovery over the boards (one of
which is broken on purpose), waits for every job to be enriched and scored, and prints
title, company and fit score.
"""

from __future__ import annotations

import asyncio
import signal
import socket
from collections.abc import Callable

from jobctrl import services
from jobctrl.demo.boards import DemoBoards
from jobctrl.demo.profile import DEMO_PROFILE
from jobctrl.demo.site import DemoSite
from jobctrl.domain.errors import JobctrlError
from jobctrl.home import Home
from jobctrl.store import schema
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store
from jobctrl.worker.connection import connect
from jobctrl.worker.devserver import EmbeddedTemporal
from jobctrl.worker.run import build_worker

DEMO_TARGET = {"exclude_titles": ["designer", "product manager"]}
DEMO_PORT = 8766  # fixed, so the demo sources in config.yaml stay valid between runs


def _prepare_home(home: Home, boards: DemoBoards) -> None:
    services.init_home(home, profile=DEMO_PROFILE, target_search=DEMO_TARGET)
    store = Store.open(home)
    settings = Settings(store)
    allowed = set(settings.get("fetch.allow_hosts"))
    if "127.0.0.1" not in allowed:
        settings.set_value("fetch.allow_hosts", sorted(allowed | {"127.0.0.1"}))
    settings.set_value("fetch.min_host_interval_seconds", 0.0)
    for source in boards.sources():
        try:
            services.add_source(home, source["kind"], source["name"], source["base_url"])
        except JobctrlError as exc:
            if exc.code != "exists":
                raise


async def _all_prepared(store: Store, timeout: float = 180) -> None:
    from sqlalchemy import func, select

    wr = schema.workflow_run_projections
    for _ in range(int(timeout * 10)):
        with store.read() as conn:
            running = conn.execute(
                select(func.count()).where(
                    wr.c.workflow_type == "JobPreparationWorkflow", wr.c.status == "running"
                )
            ).scalar_one()
        if not running:
            return
        await asyncio.sleep(0.1)


class _App:
    """The web app, served from the start of the demo so its Jobs table fills in live."""

    def __init__(self, home: Home, sock: socket.socket, echo: Callable[[str], None]) -> None:
        from jobctrl.api.server import serve_app, url_for

        self.url = url_for(sock)
        self.stop = asyncio.Event()
        self.task = asyncio.create_task(serve_app(home, sock, self.stop))
        echo(f"web app: {self.url}  (open it now to watch the jobs come in)")

    async def serve_until_signal(self, echo: Callable[[str], None]) -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, self.stop.set)
        try:
            echo(f"open {self.url}  (Ctrl-C to stop)")
            await self.task
        finally:
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)

    async def close(self) -> None:
        self.stop.set()
        await self.task


async def run_demo(
    home: Home,
    *,
    echo: Callable[[str], None],
    keep: bool = False,
    serve_port: int | None = None,
) -> None:
    """Run the demo; with ``serve_port`` the web app is served from the start and the demo
    ends by printing its URL and serving it until Ctrl-C."""
    sock = None
    if serve_port is not None:
        from jobctrl.api.server import bind

        sock = bind("127.0.0.1", serve_port)  # a taken port fails now, not after the demo
    echo(f"demo home: {home.root}")
    server = EmbeddedTemporal(home)
    with DemoSite() as site, DemoBoards(port=DEMO_PORT) as boards:
        _prepare_home(home, boards)
        echo(f"serving {len(site.urls())} sample postings at {site.base_url}")
        echo(f"serving {len(boards.boards)} job boards at {boards.base_url} (one is broken)")
        address = await server.ensure()
        echo(f"Temporal dev server at {address}")
        store = Store.open(home)
        client = await connect(home)
        worker, ctx = build_worker(client, store, home)
        app = None
        try:
            async with worker:
                app = _App(home, sock, echo) if sock is not None else None
                await asyncio.gather(
                    *(
                        services.add_job(home, url, wait=True, wait_timeout=120)
                        for url in site.urls()
                    )
                )
                echo("discovering from the boards ...")
                run = await services.start_discovery(home, wait=True, wait_timeout=300)
                counts = run.get("counts") or {}
                echo(
                    f"discovery {run['status']}: {counts.get('found', 0)} postings found, "
                    f"{counts.get('accepted', 0)} accepted, {counts.get('jobs_created', 0)} "
                    "new jobs"
                    + (f"; a source failed with {run['errorCode']}" if run.get("errorCode") else "")
                )
                await _all_prepared(store)
                rows = services.list_jobs(home)
                echo("")
                echo(f"{'SCORE':>5}  {'STATUS':<9}  {'TITLE':<40}  COMPANY")
                for row in rows:
                    score = "" if row["score"] is None else str(row["score"])
                    title = (row["title"] or row["url"])[:40]
                    echo(f"{score:>5}  {row['status']:<9}  {title:<40}  {row['company'] or ''}")
                echo("")
                echo(f"try: JOBCTRL_HOME={home.root} .venv/bin/jobctrl show {rows[0]['jobId']}")
                echo(
                    f"     JOBCTRL_HOME={home.root} .venv/bin/jobctrl materials {rows[0]['jobId']}"
                    "   (resume and cover letter PDFs)"
                )
                echo(f"     evaluation reports: {home.reports_dir}")
                if app is not None:
                    await app.serve_until_signal(echo)
                elif keep:
                    echo("worker running; Ctrl-C to stop")
                    await asyncio.Event().wait()
        finally:
            if app is not None:
                await app.close()
            ctx.close()
            server.stop()

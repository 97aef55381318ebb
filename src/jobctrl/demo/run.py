"""`jobctrl demo`: serve sample postings on loopback and prepare them end to end.

It fills a demo home (a sample profile, the loopback host allowed for fetching), starts
the embedded Temporal server and a worker in this process, adds every sample posting,
waits for each to be enriched and scored, and prints title, company and fit score.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from jobctrl import services
from jobctrl.demo.profile import DEMO_PROFILE
from jobctrl.demo.site import DemoSite
from jobctrl.home import Home
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store
from jobctrl.worker.connection import connect
from jobctrl.worker.devserver import EmbeddedTemporal
from jobctrl.worker.run import build_worker


def _prepare_home(home: Home) -> None:
    services.init_home(home, profile=DEMO_PROFILE)
    store = Store.open(home)
    try:
        settings = Settings(store)
        allowed = set(settings.get("fetch.allow_hosts"))
        if "127.0.0.1" not in allowed:
            settings.set_value("fetch.allow_hosts", sorted(allowed | {"127.0.0.1"}))
        settings.set_value("fetch.min_host_interval_seconds", 0.0)
    finally:
        store.dispose()


async def run_demo(home: Home, *, echo: Callable[[str], None], keep: bool = False) -> None:
    echo(f"demo home: {home.root}")
    _prepare_home(home)
    server = EmbeddedTemporal(home)
    with DemoSite() as site:
        echo(f"serving {len(site.urls())} sample postings at {site.base_url}")
        address = await server.ensure()
        echo(f"Temporal dev server at {address}")
        store = Store.open(home)
        try:
            client = await connect(home)
            worker, ctx = build_worker(client, store, home)
            async with worker:
                views = await asyncio.gather(
                    *(
                        services.add_job(home, url, wait=True, wait_timeout=120)
                        for url in site.urls()
                    )
                )
                echo("")
                echo(f"{'SCORE':>5}  {'STATUS':<9}  {'TITLE':<40}  COMPANY")
                for view in sorted(views, key=lambda v: -(v["score"] or -1)):
                    score = "" if view["score"] is None else str(view["score"])
                    title = (view["title"] or view["url"])[:40]
                    echo(f"{score:>5}  {view['status']:<9}  {title:<40}  {view['company'] or ''}")
                echo("")
                echo(f"try: JOBCTRL_HOME={home.root} .venv/bin/jobctrl show {views[0]['jobId']}")
                if keep:
                    echo("worker running; Ctrl-C to stop")
                    await asyncio.Event().wait()
            ctx.close()
        finally:
            store.dispose()
            server.stop()

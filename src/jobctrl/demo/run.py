"""`jobctrl demo`: sample postings and job boards on loopback, prepared end to end, and
one application sent.

It fills a demo home (a sample profile and target search, the loopback host allowed for
fetching, the demo boards as sources, an SMTP account pointing at the demo's mail sink),
runs the worker (and its embedded Temporal server) in this process, adds the sample
postings, runs one discovery over the boards (one of which is broken on purpose), waits
for every job to be prepared, and prints title, company and fit score. Then it applies to
the best job by email — approve its materials, prepare the message, approve it, send it
to the mail sink on 127.0.0.1 — shows it in Applications, and runs the browser prefill
as a dry run on the demo's application form. Everything goes through the application
layer, as a user's commands do.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable

from jobctrl.api.server import bind, serve_app, url_for
from jobctrl.app import (
    applications,
    apply,
    apply_browser,
    configuration,
    discovery,
    jobs,
    materials,
    queries,
    sources,
)
from jobctrl.app.activity import DiscoveryRunView
from jobctrl.app.home import init_home
from jobctrl.app.settings import change_settings
from jobctrl.app.worker import run_worker
from jobctrl.demo.boards import DemoBoards
from jobctrl.demo.form import FORM_HTML, FORM_PATH
from jobctrl.demo.mail import MailSink
from jobctrl.demo.profile import DEMO_PROFILE
from jobctrl.demo.site import DemoSite
from jobctrl.domain.applications import ApplicationStatus
from jobctrl.domain.errors import EXISTS, JobctrlError
from jobctrl.domain.stages import JobStatus
from jobctrl.home import Home

DEMO_TARGET = {"exclude_titles": ["designer", "product manager"]}
DEMO_PORT = 8766  # fixed, so the demo sources in config.yaml stay valid between runs


def _prepare_home(home: Home, boards: DemoBoards, sink: MailSink) -> None:
    init_home(home, profile=DEMO_PROFILE, target_search=DEMO_TARGET)
    allowed = set(
        configuration.settings_values(home, "fetch.allow_hosts").root["fetch.allow_hosts"]
    )
    change_settings(
        home,
        {
            "fetch.allow_hosts": sorted(allowed | {"127.0.0.1"}),
            "fetch.min_host_interval_seconds": 0.0,
            # The broken demo board is retried in seconds, not the 5 s, 10 s a real
            # source's outage is given: the demo says so and goes on
            "retry.initial_interval_seconds": 1.0,
            # The demo person's email account: the demo's mail sink on loopback
            **sink.settings(sender=DEMO_PROFILE["contact"]["email"]),
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


def _company_address(company: str | None) -> str:
    """The demo employer's (made-up) application address: mail to it stays in the sink."""
    slug = "".join(c for c in (company or "employer").lower() if c.isalnum()) or "employer"
    return f"jobs@{slug}.example"


def _apply_to_best(home: Home, site: DemoSite, sink: MailSink, echo: Callable[[str], None]) -> None:
    """Apply to the best prepared job by email, step by step as a person does, and try the
    browser prefill on the demo's form as a dry run (nothing submitted)."""
    tracked = applications.list_applications(home)
    done = {a.job_id for a in tracked if a.status == ApplicationStatus.SENT}
    prepared = [r for r in queries.list_jobs(home) if r.status == JobStatus.PREPARED]
    best = next((r for r in prepared if r.job_id not in done), None)
    if best is None:  # a demo home used before: its best jobs have been applied to
        echo("")
        echo(
            f"already applied to {len(done)} demo job(s): see `jobctrl applications`"
            if done
            else "no prepared job is left to apply to"
        )
        return
    echo("")
    echo(f"applying to the best fit: {best.title} at {best.company} (score {best.score})")
    try:
        _send_by_email(home, best.job_id, best.company, sink, echo)
    except JobctrlError as exc:  # said as the CLI would say it; the demo still ends well
        echo(f"  could not apply: {exc.message}")
        return
    form = site.base_url + FORM_PATH
    try:
        view = apply_browser.prefill(home, best.job_id, url=form, dry_run=True)
    except JobctrlError as exc:  # no Chromium here: the email above is the demo's ending
        echo(f"  browser prefill (dry run) skipped: {exc.message}")
        return
    echo(
        f"  browser prefill, as a dry run on the demo's form {form}: {len(view.filled)} "
        f"fields filled, {len(view.files)} files attached, {len(view.left)} left for you; "
        "nothing submitted" + (f" (screenshot: {view.screenshot.path})" if view.screenshot else "")
    )


def _send_by_email(
    home: Home, job_id: str, company: str | None, sink: MailSink, echo: Callable[[str], None]
) -> None:
    """Approve the materials, prepare the message, approve it, send it: as printed."""
    decided = materials.decide_materials(home, job_id, "approve")
    kinds = " and ".join("cover letter" if d.kind == "cover" else d.kind for d in decided)
    echo(f"  1. approved its {kinds} (you would read, and maybe edit, them first)")
    to = _company_address(company)
    drafted = apply.prepare_application(home, job_id, channel="email", to=[to])
    files = ", ".join(a.name for a in drafted.attachments)
    echo(f"  2. prepared the email to {to}: {drafted.subject!r}, attached {files}")
    apply.approve_application(home, job_id)
    echo("  3. approved exactly that message (recipients, subject, body, attachments)")
    sent = apply.send_application(home, job_id)
    echo(
        f"  4. send: {sent.status} — the demo's mail sink on 127.0.0.1:{sink.port} received "
        f"{len(sink.received)} message (nothing left this machine)"
    )
    for row in applications.list_applications(home):
        if row.job_id == job_id:
            echo(f"  Applications: {row.company} — {row.role}: {row.status} via {row.channel}")


async def run_demo(
    home: Home,
    *,
    echo: Callable[[str], None],
    keep: bool = False,
    serve_port: int | None = None,
    boards_port: int = DEMO_PORT,
) -> None:
    """Run the demo; with ``serve_port`` the web app is served from the start and the demo
    ends by printing its URL and serving it until Ctrl-C. ``boards_port``: where the demo
    boards are served (fixed, so config.yaml's demo sources stay valid between runs)."""
    sock: socket.socket | None = None
    if serve_port is not None:
        sock = bind("127.0.0.1", serve_port)  # a taken port fails now, not after the demo
    echo(f"demo home: {home.root}")
    with (
        DemoSite(extra_pages={FORM_PATH: FORM_HTML}) as site,
        DemoBoards(port=boards_port) as boards,
        MailSink() as sink,
    ):
        _prepare_home(home, boards, sink)
        echo(f"serving {len(site.urls())} sample postings at {site.base_url}")
        echo(f"serving {len(boards.boards)} job boards at {boards.base_url} (one is broken)")
        echo(f"a mail sink for the demo's applications at 127.0.0.1:{sink.port}")

        async def demo(stop: asyncio.Event) -> None:
            app = None
            if sock is not None:
                echo(f"web app: {url_for(sock)}  (open it now to watch the jobs come in)")
                app = asyncio.create_task(serve_app(home, sock, stop))
            try:
                await _prepare_everything(home, site, echo)
                await asyncio.to_thread(_apply_to_best, home, site, sink, echo)
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

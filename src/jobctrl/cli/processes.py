"""Long-running commands: the worker, the worker with the web app, and the demo.

The worker serves every tenant of the deployment (it acts as ``local``, the deployment's
own, and each activity for its input's tenant); ``JOBCTRL_TENANT`` picks only the web
app's default tenant (a request without a token) and the token `up` prints. The demo is
``local``'s.

What they run (every stage and provider SDK, the web server) takes seconds to import, so
each command imports it when it runs rather than every `jobctrl` invocation.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys

import click

from jobctrl.cli.base import handle_errors, home
from jobctrl.domain.errors import JobctrlError
from jobctrl.domain.tenants import LOCAL


def _server_lost(exc: JobctrlError) -> None:
    """The embedded server is gone for good: say so in one line and end now (with no
    server, the Temporal worker's graceful shutdown would wait for pollers forever)."""
    click.echo(f"error: {exc.message}", err=True)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(exc.exit_status)


def _run_worker_cmd(
    app: tuple[str, int] | None = None, public_url: str | None = None, host: str = ""
) -> None:
    """Run until Ctrl-C or SIGTERM. Ctrl-C ends it the same way at any moment, also while
    it imports or starts: one "stopped" line, exit 0 (issue 30). Once started, the
    worker's own handlers turn Ctrl-C into its stop event; before, it arrives as
    KeyboardInterrupt, after asyncio.run has cancelled (and so cleaned up) what started."""
    with contextlib.suppress(KeyboardInterrupt):
        _serve_until_stopped(app, public_url, host)
    click.echo("stopped")


def _serve_until_stopped(app: tuple[str, int] | None, public_url: str | None, host: str) -> None:
    # Heavy imports (see the module docstring): only these commands need them.
    from jobctrl.api.security import public_origins
    from jobctrl.api.server import bind, serve_app
    from jobctrl.app.worker import run_worker

    public = public_origins(public_url) if app else ()  # a bad URL: one line, nothing started
    if app is not None and host not in ("127.0.0.1", "::1", "localhost"):
        click.echo(
            f"warning: listening on {host}, not loopback: whoever reaches it can read and"
            " change everything (the page check stops other web pages, not other programs);"
            " allow only your proxy to reach it, see docs/DEPLOY.md",
            err=True,
        )
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(message)s")
    here = home()
    alongside = None
    if app is not None:
        sock = bind(*app)  # before anything starts: a taken port is a clean error

        def app_ready(url: str) -> None:
            via = "".join(f", and as {p.origin} through your proxy" for p in public)
            token = (
                f"API token in {here.token_path}"
                if here.token_path.exists()
                else "the API token file is on the host that added this tenant"
            )
            click.echo(f"jobctrl is up: {url}  ({token}{via})")

        async def alongside(stop: asyncio.Event) -> None:
            await serve_app(here, sock, stop, on_ready=app_ready, public=public)

    def ready(address: str) -> None:
        click.echo(f"worker ready: Temporal at {address}, home {here.root} (Ctrl-C to stop)")

    deployment = here.with_tenant(LOCAL)  # the worker serves every tenant
    asyncio.run(
        run_worker(deployment, on_ready=ready, alongside=alongside, on_server_lost=_server_lost)
    )


@click.command()
@handle_errors
def worker() -> None:
    """Run the worker (and the embedded Temporal server) until Ctrl-C / SIGTERM."""
    _run_worker_cmd()


@click.command()
@click.option("--port", default=8765, show_default=True, help="Port of the web app (0: any).")
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on; keep it loopback unless you know why not.",
)
@click.option(
    "--public-url",
    envvar="JOBCTRL_PUBLIC_URL",
    metavar="URL[,URL…]",
    default=None,
    help="Behind a reverse proxy: the https://NAME it serves the app as (exact names, comma"
    " list; env JOBCTRL_PUBLIC_URL). Its Host and Origin are accepted too; default: loopback"
    " only.",
)
@handle_errors
def up(port: int, host: str, public_url: str | None) -> None:
    """Run the worker, its Temporal server and the web app; prints the app's URL.

    This is what to run after `jobctrl init`; Ctrl-C stops it ("stopped", exit 0)."""
    _run_worker_cmd(app=(host, port), public_url=public_url, host=host)


@click.command("demo-boards")
@click.option("--port", default=8766, show_default=True, help="Loopback port to serve on.")
@handle_errors
def demo_boards(port: int) -> None:
    """Serve demo job boards (Greenhouse, Lever and Ashby shapes) on 127.0.0.1."""
    from jobctrl.demo.boards import serve_forever  # only this command serves them

    serve_forever(port)


@click.command()
@click.option("--keep", is_flag=True, help="Keep running after the demo until Ctrl-C.")
@click.option(
    "--serve",
    "serve_port",
    type=int,
    default=None,
    help="End by serving the web app on this port until Ctrl-C (make demo uses 8765).",
)
@handle_errors
def demo(keep: bool, serve_port: int | None) -> None:
    """Run the demo: serve sample postings on loopback and prepare them end to end."""
    from jobctrl.demo.run import run_demo  # heavy: runs a worker and the web app

    local = home().with_tenant(LOCAL)  # the demo's postings and profile are local's
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C: as `up` ends (issue 30)
        asyncio.run(run_demo(local, echo=click.echo, keep=keep, serve_port=serve_port))
    if keep or serve_port is not None:
        click.echo("stopped")

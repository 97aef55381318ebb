"""Commands about the store itself: ``jobctrl store copy --to URL`` (SQLite to PostgreSQL)."""

from __future__ import annotations

import asyncio
import threading

import click

from jobctrl.app import store_admin
from jobctrl.cli.base import echo_json, handle_errors, home
from jobctrl.cli.progress import Snapshot, watch


@click.group("store")
def store_group() -> None:
    """Move the home's database (copy a SQLite home into PostgreSQL)."""


@store_group.command("copy")
@click.option(
    "--to",
    "to",
    required=True,
    metavar="URL",
    help="The empty PostgreSQL database: postgresql+psycopg://USER[:PASSWORD]@HOST[:PORT]/DB.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Copy even while a worker runs against this home (its later writes stay behind).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@handle_errors
def store_copy(to: str, force: bool, as_json: bool) -> None:
    """Copy this home's SQLite database into an empty PostgreSQL database.

    One consistent snapshot of the source, written in one transaction (all or nothing):
    every table, the event log in order, sequences set past the copied rows, projections
    rebuilt from the events. A target holding jobctrl data is refused and left as it is.
    Artifacts and reports stay files in this home: run the target's workers and web app
    with this JOBCTRL_HOME (or a shared copy of it) and JOBCTRL_DATABASE_URL=URL. Stop the
    worker first: while one runs the copy is refused (--force copies anyway; what it writes
    after the copy began stays in the SQLite database).
    """
    here = home()
    seen: dict[str, store_admin.CopyStep] = {}

    stop = threading.Event()

    def note(progress: store_admin.CopyStep) -> None:  # in the copy's thread
        if stop.is_set():  # Ctrl-C: raised inside the copy's transaction, rolling it back
            raise KeyboardInterrupt
        seen["latest"] = progress

    def snapshot() -> Snapshot:
        latest = seen.get("latest")
        if latest is None or latest.phase == "checking":
            return Snapshot(["checking the target database…"])
        done, total = latest.done, latest.total
        if latest.phase == "copying":
            line = f"copying {latest.table}: {done:,} of {total:,} rows"
        else:
            line = {
                "sequences": "setting sequences past the copied rows",
                "projections": "rebuilding projections from the event log",
                "verifying": "verifying row counts and projections",
                "committing": "committing",
            }.get(latest.phase, latest.phase)
        return Snapshot([line], bar=(done, total))

    async def copy_watched() -> store_admin.StoreCopied:
        work = asyncio.to_thread(store_admin.copy_store, here, to, force=force, progress=note)
        try:
            return await watch(work, snapshot, to_stderr=as_json)
        except asyncio.CancelledError:  # Ctrl-C: asyncio.run waits for the thread, so stop it
            stop.set()
            raise

    result = asyncio.run(copy_watched())
    if as_json:
        echo_json(result)
    else:
        _print_summary(result)
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)


def _print_summary(r: store_admin.StoreCopied) -> None:
    click.echo(f"copied {r.source} to {r.target} in {r.seconds:.1f} s")
    width = max(len(name) for name in r.tables)
    for name, rows in r.tables.items():
        if rows:
            click.echo(f"  {name:<{width}}  {rows:>9,}")
    click.echo(f"  {'total':<{width}}  {r.rows:>9,} rows")
    empty = [name for name, rows in r.tables.items() if not rows]
    if empty:
        click.echo(f"  empty, created: {', '.join(empty)}")
    click.echo(f"events: {r.events:,} (last seq {r.last_seq}), in order")
    same = "equal to the source's" if r.projections_match_source else "DIFFERENT from the source's"
    rebuilt = ", ".join(f"{name} {rows:,}" for name, rows in r.projections.items())
    click.echo(f"projections rebuilt from {r.events_folded:,} events ({same}): {rebuilt}")
    if r.sequences:
        nexts = ", ".join(f"{name} → {value}" for name, value in r.sequences.items())
        click.echo(f"sequences continue after the copied rows: {nexts}")
    skipped = ", ".join(r.skipped)
    click.echo(f"not copied (the source's live processes, not data): {skipped}")
    art = r.artifacts
    click.echo(
        f"artifacts: {art.referenced:,} referenced, kept in {art.dir} "
        f"({art.missing} missing); reports in {r.reports_dir}"
    )
    click.echo(
        "next: run the workers and the web app with this JOBCTRL_HOME (or a shared copy of "
        f"it) and JOBCTRL_DATABASE_URL set to {r.target}"
    )

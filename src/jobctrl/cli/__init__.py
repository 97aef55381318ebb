"""The jobctrl command line: click commands that parse, call the application layer
(``jobctrl.app``) and print; no command touches the store or Temporal itself.

``main`` is the group; each module adds a feature's commands (jobs, discovery, materials,
configuration, long-running processes). ``run`` is the console entry point.

The group is lazy: ``COMMANDS`` names each command's module and attribute and its one-line
help, and a module is imported only when its command runs (or its own ``--help`` is asked
for), so ``jobctrl --version`` and ``jobctrl --help`` load neither the store nor Temporal
nor the LLM providers. tests/unit/test_cli_lazy.py keeps the table equal to the commands.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
from collections.abc import MutableMapping
from typing import Any, NamedTuple

import click

from jobctrl import __version__

__all__ = ["COMMANDS", "LazyGroup", "main", "run"]


class LazyCommand(NamedTuple):
    """Where a top-level command lives (``jobctrl.cli.<module>.<attribute>``), its short
    help as ``jobctrl --help`` lists it, and subgroups added to it when it loads."""

    module: str
    attribute: str
    short_help: str
    subcommands: tuple[tuple[str, str], ...] = ()


# In the order the commands were always added; `jobctrl --help` lists them sorted.
COMMANDS: dict[str, LazyCommand] = {
    "init": LazyCommand(
        "configure", "init", "Create the home: a commented config.yaml and the database."
    ),
    "add": LazyCommand(
        "jobs", "add", "Add posting URLs and start preparing each (Enrich, then Score)."
    ),
    "retry": LazyCommand(
        "jobs", "retry", "Run a job's failed stage again, and the stages after it."
    ),
    "rescore": LazyCommand(
        "rescore",
        "rescore",
        "Score jobs again on the current profile (the stale ones by default), and write "
        "materials again where allowed.",
    ),
    "cancel": LazyCommand(
        "control",
        "cancel",
        "Cancel one job's preparation (what it finished stays; `jobctrl retry` starts it again).",
    ),
    "reset": LazyCommand(
        "control",
        "reset",
        "Put one stage of a job (and the later ones not running) back to pending without "
        "cancelling or starting anything now (`jobctrl retry` runs it at once; with "
        "recovery.enabled, the worker's automatic recovery may pick it up later).",
    ),
    "resume": LazyCommand(
        "control",
        "resume",
        "Resume the automation stop-loss paused for a lane (enrich, score, tailor, cover, "
        "pdf) or a source (its name; `lane:NAME` or `source:NAME` when both exist).",
    ),
    "jobs": LazyCommand("jobs", "jobs_cmd", "List jobs, best fit first."),
    "hide": LazyCommand(
        "inbox",
        "hide",
        "Hide a job you are not interested in: out of the inbox, never prepared, checked "
        "or applied to.",
    ),
    "unhide": LazyCommand("inbox", "unhide", "Bring a hidden job back into the inbox."),
    "delete": LazyCommand(
        "inbox", "delete", "Delete a job with its materials and files (needs --yes)."
    ),
    "check": LazyCommand("inbox", "check", "Check now whether a job's posting is still online."),
    "show": LazyCommand(
        "jobs",
        "show",
        "Show one job: posting fields, stages (with errors), the latest truth check of its "
        "resume or letter (each unsupported claim and its sentence) and the fit report.",
    ),
    "events": LazyCommand("jobs", "events", "Print the event log (append-only), oldest first."),
    "settings": LazyCommand(
        "configure",
        "settings",
        "Show or change runtime settings (budget, thresholds, fetch rules).",
    ),
    "spend": LazyCommand(
        "configure",
        "spend",
        "Today's estimated LLM spend per lane against the daily ceiling (UTC day).",
    ),
    "discover": LazyCommand(
        "discovery",
        "discover",
        "Discover postings from the configured sources (`discover-local`).",
    ),
    "runs": LazyCommand(
        "discovery", "runs", "List recent discovery runs with their progress and counts."
    ),
    "ops": LazyCommand(
        "operations",
        "ops",
        "What the worker executes now, what remains, the phase and an honest ETA.",
    ),
    "doctor": LazyCommand(
        "health",
        "doctor",
        "Check the Temporal server, workers, database, disk and open runs; each problem "
        "with the command that fixes it (exit 1 when a check fails).",
    ),
    "executions": LazyCommand(
        "executions",
        "executions_group",
        "Executions Temporal runs that the store does not expect (orphans), the runs the "
        "store holds open (with their reconciled status), and stopping one.",
    ),
    "sources": LazyCommand(
        "discovery",
        "sources",
        "Manage where discovery looks (the `sources:` list in config.yaml).",
    ),
    "materials": LazyCommand(
        "materials",
        "materials_cmd",
        "Show a job's materials, decide on them, or export their PDFs.",
    ),
    "apply": LazyCommand(
        "apply",
        "apply_group",
        "Apply to prepared jobs: list the queue, prepare an email with the approved PDFs, "
        "approve exactly it, send it once, and resolve what happened.",
        subcommands=(("apply_loop", "loop_group"),),
    ),
    "applications": LazyCommand(
        "applications",
        "applications_group",
        "The application tracker: every application with its status and outcome.",
    ),
    "followups": LazyCommand(
        "followups",
        "followups_group",
        "Follow-ups due for applications with no answer; draft, approve and send one once.",
    ),
    "outreach": LazyCommand(
        "outreach",
        "outreach_group",
        "A message to a contact about a job: draft, approve and send an email once, or "
        "copy a note.",
    ),
    "llm": LazyCommand(
        "configure",
        "llm",
        "Choose the provider and model of each lane (score, tailor, cover, "
        "contact_research, apply, profile).",
    ),
    "profile": LazyCommand(
        "configure",
        "profile",
        "Show or import the candidate profile (versioned: work in flight keeps its version).",
    ),
    "projections": LazyCommand(
        "configure", "projections", "Maintain the read models folded from the event log."
    ),
    "store": LazyCommand(
        "store_admin",
        "store_group",
        "Move the home's database (copy a SQLite home into PostgreSQL).",
    ),
    "tenants": LazyCommand(
        "tenants",
        "tenants_group",
        "Add and list tenants (each has its own profile, settings, budget and API "
        "token), and rotate their tokens.",
    ),
    "contacts": LazyCommand(
        "contacts",
        "contacts_group",
        "The people behind a posting: research a job's contacts over the sources you "
        "allow, confirm what was found, and keep, show, add, remove and export contacts.",
    ),
    "extension": LazyCommand(
        "extension",
        "extension_group",
        "The browser extension: load it, pair it, list and revoke its tokens, and see the "
        "jobs waiting for your browser.",
    ),
    "mcp": LazyCommand(
        "mcp",
        "mcp_group",
        "Run the MCP server for your AI assistant (stdio, or --http with a token); "
        "`jobctrl mcp config` prints the client snippet.",
    ),
    "worker": LazyCommand(
        "processes",
        "worker",
        "Run the worker (and the embedded Temporal server) until Ctrl-C / SIGTERM.",
    ),
    "up": LazyCommand(
        "processes",
        "up",
        "Run the worker, its Temporal server and the web app; prints the app's URL.",
    ),
    "demo-boards": LazyCommand(
        "processes",
        "demo_boards",
        "Serve demo job boards (Greenhouse, Lever and Ashby shapes) on 127.0.0.1.",
    ),
    "demo": LazyCommand(
        "processes",
        "demo",
        "Run the demo: serve sample postings on loopback and prepare them end to end.",
    ),
}


# Long-running commands a person ends with Ctrl-C: "stopped", exit 0, whenever it comes.
STOPPED_BY_CTRL_C = frozenset({"up", "worker"})


def _attribute(module: str, attribute: str) -> Any:
    return getattr(importlib.import_module(f"jobctrl.cli.{module}"), attribute)


class LazyGroup(click.Group):
    """A group whose commands are imported when first resolved, listed meanwhile from a
    table of names and short help. ``commands`` (what code walking the whole tree reads,
    e.g. the docs test) loads every command; click itself goes through ``get_command``
    and ``list_commands``, which load one command or none."""

    def __init__(self, *args: Any, lazy: dict[str, LazyCommand], **kwargs: Any) -> None:
        self._loaded: dict[str, click.Command] = {}
        super().__init__(*args, **kwargs)
        self.lazy = lazy

    @property
    def commands(self) -> MutableMapping[str, click.Command]:
        for name in self.lazy:
            self._load(name)
        # In the table's order, whichever command a process happened to load first.
        self._loaded = {**{name: self._loaded[name] for name in self.lazy}, **self._loaded}
        return self._loaded

    @commands.setter
    def commands(self, value: MutableMapping[str, click.Command]) -> None:
        self._loaded = dict(value)

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        name = name or cmd.name
        if name is None:
            raise TypeError("Command has no name.")
        self._loaded[name] = cmd

    def _load(self, name: str) -> click.Command | None:
        if name not in self._loaded and name in self.lazy:
            entry = self.lazy[name]
            command: click.Command = _attribute(entry.module, entry.attribute)
            for module, attribute in entry.subcommands:
                sub: click.Command = _attribute(module, attribute)
                if isinstance(command, click.Group) and sub.name not in command.commands:
                    command.add_command(sub)
            self._loaded[name] = command
        return self._loaded.get(name)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        try:
            return self._load(cmd_name)
        except KeyboardInterrupt:
            if cmd_name not in STOPPED_BY_CTRL_C:
                raise
            # Ctrl-C while `up` still imports: the same end as once it runs (issue 30)
            click.echo("stopped")
            sys.exit(0)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self._loaded, *self.lazy})

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The "Commands:" section as click writes it, from the table for a command not
        loaded (a stand-in with that short help shortens it exactly as the real one)."""
        listed: list[tuple[str, click.Command]] = []
        for name in self.list_commands(ctx):
            command = self._loaded.get(name) or click.Command(name, help=self.lazy[name].short_help)
            if not command.hidden:
                listed.append((name, command))
        if listed:
            limit = formatter.width - 6 - max(len(name) for name, _ in listed)
            with formatter.section("Commands"):
                formatter.write_dl([(n, c.get_short_help_str(limit)) for n, c in listed])


@click.group(
    cls=LazyGroup,
    lazy=COMMANDS,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(__version__, prog_name="jobctrl")
def main() -> None:
    """jobctrl: discover, read, score and prepare job applications, durably.

    Files live in JOBCTRL_HOME (default: the platform's user data dir). Start with
    `jobctrl init`, then `jobctrl up` (the worker and the web app, until Ctrl-C) in one
    terminal and `jobctrl add URL` in another. Just looking? `make demo`.
    """


def run() -> None:
    """The console entry point: ``main``, then ``os._exit`` with its exit code.

    The Temporal SDK's Rust threads can call into the interpreter while it finalizes and
    abort a command that had already finished (temporalio/sdk-python#300: "PyGILState_Release
    ... finalizing", exit 134). Everything a command writes is committed before it returns,
    and the worker stops its own server first, so skipping the teardown loses nothing.
    """
    try:
        main()
        code: int = 0
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            code = exc.code or 0
        else:
            click.echo(exc.code, err=True)
            code = 1
    logging.shutdown()
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        # here only: importing cli.base loads the app layer, which --help and --version skip
        from jobctrl.cli.base import EXIT_BROKEN_PIPE

        code = code or EXIT_BROKEN_PIPE
    sys.stderr.flush()
    os._exit(code)

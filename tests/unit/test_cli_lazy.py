"""The lazy top-level group: `jobctrl --help` lists, from a table, exactly what the
commands would say themselves, and `--version` / `--help` load none of them; a read
(`jobs`, `show`) loads neither Temporal nor pydantic-ai (issue 26: a command answers
sooner the less it imports; bench/cli_startup.py measures how soon)."""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys

import click
import pytest

import jobctrl.cli
from jobctrl.cli import COMMANDS, LazyGroup, main
from jobctrl.store import jobs
from jobctrl.store.store import Store

HEAVY = {"temporalio", "sqlalchemy", "pydantic_ai", "alembic", "fastapi"}


def _command(module: str, attribute: str) -> click.Command:
    command = getattr(importlib.import_module(f"jobctrl.cli.{module}"), attribute)
    assert isinstance(command, click.Command), f"jobctrl.cli.{module}.{attribute}"
    return command


def test_the_table_gives_each_command_its_own_name_and_short_help() -> None:
    for name, entry in COMMANDS.items():
        command = _command(entry.module, entry.attribute)
        assert command.name == name
        assert not command.hidden, name  # format_commands lists every entry
        assert command.get_short_help_str(limit=10**6) == entry.short_help, (
            f"COMMANDS[{name!r}].short_help differs from `jobctrl {name}`'s own help"
        )


def test_loading_every_command_gives_the_commands_of_the_table_in_its_order() -> None:
    # Whichever a process ran first (in-process CLI tests run any of them): still in order.
    main.get_command(click.Context(main), list(COMMANDS)[-1])
    assert list(main.commands) == list(COMMANDS)
    for name, entry in COMMANDS.items():
        assert main.commands[name] is _command(entry.module, entry.attribute)
    loop = _command("apply_loop", "loop_group")
    assert main.commands["apply"].commands["loop"] is loop  # type: ignore[attr-defined]


def test_every_command_a_cli_module_defines_is_in_the_table_or_under_one_of_it() -> None:
    """A new top-level command must be added to the table (or to a group): none is left
    out of `jobctrl` by being defined but never registered."""
    main.commands  # noqa: B018 - loads every command (and attaches `apply loop`)
    defined: dict[str, click.Command] = {}
    for info in pkgutil.iter_modules(jobctrl.cli.__path__):
        module = importlib.import_module(f"jobctrl.cli.{info.name}")
        for attribute, value in vars(module).items():
            callback = getattr(value, "callback", None)
            here = getattr(callback, "__module__", None) == module.__name__  # not imported
            if isinstance(value, click.Command) and here:
                defined[f"{info.name}.{attribute}"] = value
    nested = {
        id(child)
        for command in defined.values()
        if isinstance(command, click.Group)
        for child in _descendants(command)
    }
    roots = {where for where, command in defined.items() if id(command) not in nested}
    assert roots == {f"{e.module}.{e.attribute}" for e in COMMANDS.values()}


def _descendants(group: click.Group) -> list[click.Command]:
    out: list[click.Command] = []
    for child in group.commands.values():
        out.append(child)
        if isinstance(child, click.Group):
            out += _descendants(child)
    return out


@pytest.mark.parametrize("width", [40, 80, 200])
def test_help_lists_the_commands_as_the_loaded_commands_would(width: int) -> None:
    """A fresh lazy group (nothing loaded) prints the same help as a plain click group of
    the real commands, at any terminal width (click shortens short help to fit)."""
    lazy = LazyGroup("jobctrl", lazy=COMMANDS, help=main.help)
    eager = click.Group(
        "jobctrl",
        help=main.help,
        commands={n: _command(e.module, e.attribute) for n, e in COMMANDS.items()},
    )
    for group in (lazy, eager):
        group.params = list(main.params)

    def text(group: click.Group) -> str:
        return group.get_help(click.Context(group, info_name="jobctrl", terminal_width=width))

    assert text(lazy) == text(eager)
    assert not lazy._loaded  # listing the commands loaded none of them


def _run_and_list_modules(args: list[str]) -> tuple[str, set[str]]:
    """Run `jobctrl ARGS` in a fresh interpreter: its output, and the top-level packages
    and jobctrl modules it had loaded by the end."""
    code = (
        "import json, sys\n"
        "from jobctrl.cli import main\n"
        "try:\n"
        f"    main({args!r}, prog_name='jobctrl')\n"
        "except SystemExit as exc:\n"
        "    assert not exc.code, exc.code\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stderr.strip().splitlines()[-1])
    return done.stdout, {m.split(".")[0] for m in loaded} | {
        m for m in loaded if m.startswith("jobctrl.")
    }


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["-h"]])
def test_version_and_help_import_no_command_nor_the_heavy_libraries(args: list[str]) -> None:
    """`jobctrl --version` / `--help` load none of the command modules, the app layer,
    Temporal, SQLAlchemy or pydantic-ai."""
    output, loaded = _run_and_list_modules(args)
    assert "jobctrl" in output
    assert sorted(loaded & HEAVY) == []
    assert sorted(m for m in loaded if m.startswith(("jobctrl.cli.", "jobctrl.app"))) == []


def test_a_read_command_loads_neither_temporal_nor_pydantic_ai(store: Store) -> None:
    """`jobctrl jobs` and `jobctrl show ID` read the store: the Temporal client and the
    LLM providers stay unloaded (the modules that start work import them where they do),
    and so does Alembic (a migrated database needs no migration)."""
    job = jobs.create_job(store, "https://example.com/jobs/1")
    for args in (
        ["jobs"],
        ["jobs", "--json"],
        ["show", job.job_id],
        ["show", job.job_id, "--json"],
    ):
        output, loaded = _run_and_list_modules(args)
        assert job.job_id in output
        assert sorted(loaded & {"temporalio", "pydantic_ai", "alembic"}) == [], args

"""The jobctrl command line: click commands that parse, call the application layer
(``jobctrl.app``) and print; no command touches the store or Temporal itself.

``main`` is the group; each module adds a feature's commands (jobs, discovery, materials,
configuration, long-running processes). ``run`` is the console entry point.
"""

from __future__ import annotations

import logging
import os
import sys

import click

from jobctrl import __version__
from jobctrl.cli import (
    applications,
    apply,
    apply_loop,
    configure,
    control,
    discovery,
    executions,
    jobs,
    materials,
    operations,
    processes,
    store_admin,
    tenants,
)
from jobctrl.cli.base import EXIT_BROKEN_PIPE

__all__ = ["main", "run"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="jobctrl")
def main() -> None:
    """jobctrl: discover, read, score and prepare job applications, durably.

    Files live in JOBCTRL_HOME (default: the platform's user data dir). Run
    `jobctrl init`, then `jobctrl worker` in one terminal and `jobctrl add URL` in another.
    """


for command in (
    configure.init,
    jobs.add,
    jobs.retry,
    control.cancel,
    control.reset,
    control.resume,
    jobs.jobs_cmd,
    jobs.show,
    jobs.events,
    configure.settings,
    configure.spend,
    discovery.discover,
    discovery.runs,
    operations.ops,
    executions.executions_group,
    discovery.sources,
    materials.materials_cmd,
    apply.apply_group,
    applications.applications_group,
    configure.llm,
    configure.profile,
    configure.projections,
    store_admin.store_group,
    tenants.tenants_group,
    processes.worker,
    processes.up,
    processes.demo_boards,
    processes.demo,
):
    main.add_command(command)
apply.apply_group.add_command(apply_loop.loop_group)


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
        code = code or EXIT_BROKEN_PIPE
    sys.stderr.flush()
    os._exit(code)

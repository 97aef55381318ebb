"""The CLI's shared parts: where the home is, JSON output, and the one place errors
become an exit status and a line on stderr (``domain.errors.STATUS``: 2 when no Temporal
server or worker can be reached); anything unexpected goes to ``logs/jobctrl.log`` in the
home and is reported in one line, never as a traceback."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from jobctrl.app.home import current_home
from jobctrl.app.models import dumps
from jobctrl.app.tenants import require_tenant
from jobctrl.domain.errors import JobctrlError, StageError, storage_error
from jobctrl.home import Home

F = TypeVar("F", bound=Callable[..., Any])
EXIT_BROKEN_PIPE = 141  # what a shell reports for a program ended by SIGPIPE


def stop_writing_stdout() -> None:
    """The reader of stdout has gone: send what is left to /dev/null, so the flush at exit
    does not fail again (the way the Python docs recommend for SIGPIPE)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def home() -> Home:
    """The home and tenant a command acts for: ``JOBCTRL_TENANT`` (default ``local``) must
    be a valid name (``invalid_tenant``) of a tenant that exists (``tenant_unknown``), both
    one line and exit 1, before the command touches any of the tenant's files."""
    return require_tenant(current_home())


def home_of_deployment() -> Home:
    """The home for a deployment-wide operator command (``jobctrl tenants``): a valid
    ``JOBCTRL_TENANT`` name, which need not exist yet."""
    return current_home()


def echo_json(data: Any) -> None:
    """``--json``: a model (or a list of them) dumped by alias, as the API serves it."""
    click.echo(dumps(data))


def handle_errors(fn: F) -> F:
    """Run a command, mapping its errors to one line on stderr and an exit status."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except StageError as exc:
            click.echo(f"error: {exc.code}: {exc.message}", err=True)
            sys.exit(exc.exit_status)
        except JobctrlError as exc:
            click.echo(f"error: {exc.message}", err=True)
            sys.exit(exc.exit_status)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            sys.exit(130)
        except BrokenPipeError:  # `jobctrl jobs | head -1`: the reader has gone
            stop_writing_stdout()
            sys.exit(EXIT_BROKEN_PIPE)
        except Exception as exc:
            storage = storage_error(exc)  # a full or read-only disk: not a bug (no log)
            if storage is not None:
                click.echo(f"error: {storage.message}", err=True)
                sys.exit(storage.exit_status)
            path = Home.resolve().log_exception(exc)  # the home's log, whatever the tenant
            where = f" (details in {path})" if path else ""
            click.echo(f"error: unexpected internal error{where}", err=True)
            sys.exit(1)

    return wrapper  # type: ignore[return-value]

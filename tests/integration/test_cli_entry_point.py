"""The installed `jobctrl` console script itself (tests/support/processes.py runs most
commands in process; these go through the real entry point): it answers ``--version`` and
``--help``, and a usage error is click's exit status 2 with the usage on stderr."""

from __future__ import annotations

from jobctrl import __version__
from tests.support.processes import run_cli


def test_the_console_script_answers_version_and_help() -> None:
    version = run_cli("--version", process=True)
    assert (version.returncode, version.stdout) == (0, f"jobctrl, version {__version__}\n")
    helped = run_cli("--help", process=True)
    assert helped.returncode == 0 and "then `jobctrl up`" in " ".join(helped.stdout.split())


def test_a_usage_error_through_the_console_script_is_exit_2() -> None:
    result = run_cli("no-such-command", process=True)
    assert result.returncode == 2 and result.stdout == ""
    assert "No such command" in result.stderr and "Traceback" not in result.stderr

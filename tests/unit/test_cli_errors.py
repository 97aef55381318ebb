"""A bug in a command prints one line and where the details are, never a traceback."""

from __future__ import annotations

from click.testing import CliRunner

from jobctrl.app import queries as queries_module
from jobctrl.cli import main


def test_an_unexpected_error_is_one_line_and_the_traceback_goes_to_the_log(home, monkeypatch):
    def broken(*_args, **_kwargs):
        raise RuntimeError("secret page text")

    monkeypatch.setattr(queries_module, "list_jobs", broken)
    result = CliRunner().invoke(main, ["jobs"])
    assert result.exit_code == 1
    assert result.output.strip() == (
        f"error: unexpected internal error (details in {home.logs_dir / 'jobctrl.log'})"
    )
    logged = (home.logs_dir / "jobctrl.log").read_text()
    assert "secret page text" in logged and "Traceback" in logged

"""A bug in a command prints one line and where the details are, never a traceback."""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

import httpx
from click.testing import CliRunner

from jobctrl.api.app import create_app
from jobctrl.app import queries as queries_module
from jobctrl.cli import main
from tests.support.app import SAME_ORIGIN


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


def _real_disk_full_error() -> sqlite3.OperationalError:
    """SQLite's own error when it cannot grow the file (capped here, as a full disk does)."""
    db = sqlite3.connect(":memory:")
    db.execute("PRAGMA max_page_count=2")
    try:
        db.execute("CREATE TABLE t (x)")
        db.executemany("INSERT INTO t VALUES (?)", [("x" * 4000,)] * 10)
    except sqlite3.OperationalError as exc:
        return exc
    raise AssertionError("SQLite grew past its cap")


def _real_read_only_error(path: Path) -> sqlite3.OperationalError:
    """SQLite's own error on a write to a database it may only read."""
    sqlite3.connect(path).execute("CREATE TABLE t (x)")
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        db.execute("INSERT INTO t VALUES (1)")
    except sqlite3.OperationalError as exc:
        return exc
    raise AssertionError("SQLite wrote to a read-only database")


def test_a_full_or_read_only_disk_is_said_in_words_not_as_an_internal_error(
    home, monkeypatch, tmp_path
):
    full = "error: the disk that holds the home is full: free some space, then try again"
    read_only = "error: the home's files cannot be written (a read-only disk"
    for error, said in (
        (_real_disk_full_error(), full),
        (OSError(errno.ENOSPC, "No space left on device"), full),
        (_real_read_only_error(tmp_path / "ro.db"), read_only),
        (OSError(errno.EROFS, "Read-only file system"), read_only),
    ):

        def broken(*_args, error=error, **_kwargs):
            raise error

        monkeypatch.setattr(queries_module, "list_jobs", broken)
        result = CliRunner().invoke(main, ["jobs"])
        assert result.exit_code == 1
        assert result.output.strip().startswith(said), result.output


async def test_the_api_says_a_full_disk_too(home, monkeypatch):
    def broken(*_args, **_kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(queries_module, "find_jobs", broken)
    # The app's own handler answers (the test transport would raise the error instead)
    transport = httpx.ASGITransport(app=create_app(home, port=8765), raise_app_exceptions=False)
    async with httpx.AsyncClient(
        transport=transport, base_url="http://127.0.0.1:8765", headers=SAME_ORIGIN
    ) as web:
        answer = await web.get("/v1/jobs")
    assert answer.status_code == 507
    assert answer.json()["error"]["code"] == "disk_full"

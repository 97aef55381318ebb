"""The progress display: live (escape codes) on a terminal, plain lines otherwise."""

from __future__ import annotations

import asyncio
import io

from jobctrl.cli import progress
from jobctrl.cli.progress import Snapshot


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


async def _work() -> str:
    await asyncio.sleep(0.25)
    return "done"


def _run(stream, monkeypatch) -> str:
    monkeypatch.setattr(progress.sys, "stderr", stream)
    counter = iter(range(100))

    def snap() -> Snapshot:
        n = next(counter)
        return Snapshot([f"step {min(n, 2)}"], (min(n, 2), 2))

    return asyncio.run(progress.watch(_work(), snap, to_stderr=True, interval=0.05))


def test_plain_lines_when_not_a_terminal(monkeypatch):
    stream = io.StringIO()
    assert _run(stream, monkeypatch) == "done"
    text = stream.getvalue()
    assert "\x1b" not in text
    assert text.splitlines() == ["step 0", "step 1", "step 2"], "each line once, in order"


def test_live_display_on_a_terminal_and_no_plain_lines(monkeypatch):
    stream = _Terminal()
    assert _run(stream, monkeypatch) == "done"
    text = stream.getvalue()
    assert "\x1b" in text, "a live display"


def test_the_work_error_comes_through(monkeypatch):
    async def broken() -> None:
        await asyncio.sleep(0.05)
        raise ValueError("boom")

    monkeypatch.setattr(progress.sys, "stderr", io.StringIO())
    try:
        asyncio.run(progress.watch(broken(), lambda: None, to_stderr=True, interval=0.01))
    except ValueError as exc:
        assert str(exc) == "boom"
    else:
        raise AssertionError("the error was swallowed")

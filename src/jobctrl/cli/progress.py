"""Live progress of a long wait (``discover --wait``, ``add URL… --wait``).

On a terminal it is a ``rich`` live display that disappears when the wait ends; when the
stream is not a terminal (piped, a log file) it is plain lines, one each time something
changed, never escape codes — never both. A command printing ``--json`` gets its
progress on stderr, so stdout holds only the JSON.

The display polls a read of the app layer (``snapshot``) once a second in a thread while
the awaited work runs; a read that fails (a busy database) is skipped, never fatal.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, TypeVar

import click

if TYPE_CHECKING:  # rich loads only when a live display starts (see watch)
    from rich.live import Live

T = TypeVar("T")
POLL_SECONDS = 1.0


@dataclass(frozen=True)
class Snapshot:
    """What the display shows now: lines of text and, optionally, (done, total)."""

    lines: list[str]
    bar: tuple[int, int] | None = None


@dataclass
class _Display:
    stream: IO[str]
    live: Live | None = None
    printed: list[str] = field(default_factory=list)

    def show(self, snap: Snapshot) -> None:
        if self.live is not None:
            # rich is here and in watch only: `jobctrl jobs` imports this module (issue 26)
            from rich.console import Group
            from rich.progress_bar import ProgressBar
            from rich.table import Table
            from rich.text import Text

            lines = [Text(line) for line in snap.lines]
            if snap.bar is not None and lines:  # the bar beside the first line
                done, total = snap.bar
                head = Table.grid(padding=(0, 1))
                head.add_row(ProgressBar(total=max(total, 1), completed=done, width=30), lines[0])
                self.live.update(Group(head, *lines[1:]))
            else:
                self.live.update(Group(*lines))
            return
        for line in snap.lines:  # plain: each line once, when it first reads so
            if line not in self.printed:
                click.echo(line, file=self.stream)
                self.printed.append(line)


async def watch(
    work: Awaitable[T],
    snapshot: Callable[[], Snapshot | None],
    *,
    to_stderr: bool,
    interval: float = POLL_SECONDS,
) -> T:
    """Await ``work`` while showing ``snapshot()`` every ``interval`` seconds; its result
    (or its exception, once the display is gone)."""
    stream = sys.stderr if to_stderr else sys.stdout
    display = _Display(stream)
    task = asyncio.ensure_future(work)
    live: Live | None = None
    if _is_terminal(stream):
        # rich only for a live display: `jobctrl jobs` imports this module (issue 26)
        from rich.console import Console
        from rich.live import Live

        console = Console(file=stream, force_terminal=True)
        live = Live(console=console, transient=True, refresh_per_second=4)
        live.start()
        display.live = live
    try:
        while True:
            snap = await _read(snapshot)
            if snap is not None:
                display.show(snap)
            if task.done():
                break
            await asyncio.wait({task}, timeout=interval)
        return task.result()
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        if live is not None:
            live.stop()


async def _read(snapshot: Callable[[], Snapshot | None]) -> Snapshot | None:
    try:
        return await asyncio.to_thread(snapshot)
    except Exception:  # progress is best effort: the work itself reports its errors
        return None


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False

"""Waiting for a condition: the one ``eventually`` every test polls with, never a local
copy and never a fixed sleep standing in for "by now it has happened".

Both return the first truthy answer of ``check``. Once ``timeout`` seconds have passed
they return its last answer (a test writes ``assert eventually(check), why``), or, given
``what``, fail the test: "timed out after 60 s waiting for <what>".
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import Any


def eventually(
    check: Callable[[], Any],
    timeout: float = 30.0,
    *,
    interval: float = 0.2,
    what: str | None = None,
) -> Any:
    """Poll ``check`` every ``interval`` s until it answers something truthy (that
    answer), or ``timeout`` s have passed (its last answer; with ``what``, a failure)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if result := check():
            return result
        time.sleep(interval)
    return _last(check(), timeout, what)


def _last(answer: Any, timeout: float, what: str | None) -> Any:
    if not answer and what is not None:
        raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
    return answer


async def eventually_async(
    check: Callable[[], Any] | Callable[[], Awaitable[Any]],
    timeout: float = 30.0,
    *,
    interval: float = 0.1,
    what: str | None = None,
) -> Any:
    """``eventually`` for async tests: a coroutine function is awaited, a plain function
    runs in a worker thread (a store read must not hold up the event loop a worker or a
    server of the test runs on)."""

    async def answer() -> Any:
        if inspect.iscoroutinefunction(check):
            return await check()
        value = await asyncio.to_thread(check)
        return await value if inspect.isawaitable(value) else value

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        if result := await answer():
            return result
        await asyncio.sleep(interval)
    return _last(await answer(), timeout, what)

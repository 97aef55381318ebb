"""Stop-loss windows and pauses per lane and source (issue 13, being built by its helper).
The two reads below are the interface other features use; they answer "nothing paused"
until the windows are recorded."""

from __future__ import annotations

from typing import Any

from jobctrl.store.store import Store


def paused(store: Store) -> list[dict[str, Any]]:
    """Every paused lane or source: ``{kind, name, code, pausedAt, streak}``."""
    return []


def is_paused(store: Store, kind: str, name: str) -> str | None:
    """The code that paused this lane or source, or None while it runs."""
    return None

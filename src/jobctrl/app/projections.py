"""Maintaining the read models folded from the event log."""

from __future__ import annotations

from jobctrl.home import Home
from jobctrl.store import events
from jobctrl.store.store import Store

__all__ = ["rebuild_projections"]


def rebuild_projections(home: Home) -> dict[str, int]:
    """Drop every projection row and fold the whole event log again."""
    return {"eventsFolded": events.rebuild_projections(Store.open(home))}

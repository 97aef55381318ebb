"""Maintaining the read models folded from the event log."""

from __future__ import annotations

from jobctrl.app.models import View
from jobctrl.home import Home
from jobctrl.store import events
from jobctrl.store.store import Store

__all__ = ["ProjectionsRebuilt", "rebuild_projections"]


class ProjectionsRebuilt(View):
    """How many events the rebuild folded."""

    events_folded: int


def rebuild_projections(home: Home) -> ProjectionsRebuilt:
    """Drop every projection row and fold the whole event log again."""
    return ProjectionsRebuilt(events_folded=events.rebuild_projections(Store.open(home)))

"""A source's stop-loss window is its kind and name: one company's boards on two ATSs
(the demo's own `greenhouse alderbrook` and `lever alderbrook`) pause apart, and
`jobctrl resume NAME` picks the paused one, or asks which when both are."""

from __future__ import annotations

import socket

import pytest

from jobctrl.app import control
from jobctrl.app.sources import add_source
from jobctrl.domain.discovery import ExecutionRef, SourceRef
from jobctrl.domain.errors import JobctrlError
from jobctrl.domain.profile import TargetSearch
from jobctrl.stages.context import StageContext
from jobctrl.stages.discover import _Linker
from jobctrl.store import stop_loss
from jobctrl.store.settings import Settings


def _closed_port() -> str:
    """A loopback address nothing listens on (a board that is down)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


def test_two_sources_of_one_name_pause_apart_and_resume_by_name(home, store) -> None:
    settings = Settings(store)
    settings.set_value("stop_loss.threshold", 1)
    settings.set_value("fetch.allow_hosts", ["127.0.0.1"])
    down = _closed_port()
    add_source(home, "greenhouse", "alderbrook", down)
    add_source(home, "lever", "alderbrook", down)
    ctx = StageContext(home=home, store=store)
    linker = _Linker(ctx, ExecutionRef("local", "discover-local", "run-1"))
    target = TargetSearch()
    try:
        assert linker.read(SourceRef("greenhouse", "alderbrook", down), target) is not None
        assert stop_loss.is_paused(store, "source", "greenhouse:alderbrook") is not None
        assert stop_loss.is_paused(store, "source", "lever:alderbrook") is None
        # The lever board is read (and fails on its own), not skipped for the other's pause.
        assert linker.read(SourceRef("lever", "alderbrook", down), target) is not None
        assert linker.counts["sources_paused"] == 0
        # A greenhouse read now is skipped.
        assert linker.read(SourceRef("greenhouse", "alderbrook", down), target) is None
        assert linker.counts["sources_paused"] == 1
    finally:
        ctx.close()
    # Both paused: the bare name is ambiguous, the window's name is not.
    with pytest.raises(JobctrlError, match="greenhouse:alderbrook or lever:alderbrook"):
        control.resume(home, "alderbrook")
    done = control.resume(home, "lever:alderbrook")
    assert (done.name, done.resumed) == ("lever:alderbrook", True)
    # Only one paused now: its name alone is enough.
    done = control.resume(home, "alderbrook")
    assert (done.kind, done.name, done.resumed) == (
        "source",
        "greenhouse:alderbrook",
        True,
    )
    assert stop_loss.paused(store) == []


def test_a_window_paused_before_windows_had_kinds_is_resumed_by_its_name(home, store) -> None:
    add_source(home, "greenhouse", "acme", None)
    stop_loss.note_failure(store, "source", "acme", "SOURCE_UNAVAILABLE", "r1", threshold=1)
    stop_loss.note_failure(
        store, "source", "greenhouse:acme", "SOURCE_UNAVAILABLE", "r2", threshold=1
    )
    assert control.resume(home, "acme").name == "acme", "the window named exactly so"
    assert control.resume(home, "acme").name == "greenhouse:acme"
    assert stop_loss.paused(store) == []

"""An idle tenant's heartbeat takes no write lock for its orphans: with nothing found and
nothing recorded, replace_orphans only reads (one write transaction per tenant per beat
would contend, at a hundred tenants, with every stage's writes)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from jobctrl.store import orphans
from jobctrl.store.store import Store

BOTH_STORES = True
NOW = datetime(2026, 12, 2, 7, 0, tzinfo=UTC)


@pytest.fixture
def writes(store: Store, monkeypatch) -> list[int]:
    made: list[int] = []
    write = store.write

    def counted(*args, **kwargs):
        made.append(1)
        return write(*args, **kwargs)

    monkeypatch.setattr(store, "write", counted)
    return made


def test_nothing_found_and_nothing_recorded_writes_nothing(store: Store, writes) -> None:
    orphans.replace_orphans(store, [], NOW)
    assert writes == []

    seen = orphans.Observed("stray-wf", "run-1", "JobPreparationWorkflow", NOW)
    orphans.replace_orphans(store, [seen], NOW)
    assert len(writes) == 1 and [o.workflow_id for o in orphans.orphans(store)] == ["stray-wf"]

    orphans.replace_orphans(store, [], NOW)  # it is gone now: the row must go
    assert len(writes) == 2 and orphans.orphans(store) == []

    orphans.replace_orphans(store, [], NOW)
    assert len(writes) == 2

"""The source-family ETA while discovery reads its sources (issue 34), through the worker
and `jobctrl ops --json`: withheld (``calibrating``) until a family has 3 runs in the last
14 days, then a range from those runs' durations less what the running family has run."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta

from jobctrl.app.discovery import start_discovery
from jobctrl.app.sources import add_source, remove_source
from jobctrl.demo.boards import DemoBoards, build_boards
from jobctrl.domain.runtime import home_identity
from jobctrl.store import runtime
from tests.support.processes import run_cli
from tests.support.waiting import eventually_async

LAYOUT = build_boards(boards=1, per_board=2)[:-1]  # one Greenhouse board, no broken one


def _fresh_worker_report(home, store) -> None:
    """The in-process worker publishes no runtime report: a fresh one, as `jobctrl worker`
    writes every beat (the ETA is withheld without it)."""
    now = datetime.now(UTC)
    runtime.publish(
        store,
        {
            "worker_id": "test:1:eta",
            "home_id": home_identity(home),
            "task_queue": "jobctrl-test",
            "started_at": now - timedelta(minutes=1),
            "beat_at": now,
            "interval_seconds": 60.0,
            "active_slots": 1,
            "capacity": 8,
            "items_total": 0,
            "items": [],
            "durations": {},
            "queue": {"workflowPollers": 1, "activityPollers": 1, "backlog": 0},
        },
    )


async def _source_eta_while_reading(home, store, client) -> dict:
    """Start a run; its ``sourceEta`` (from `jobctrl ops --json`) while it reads; then
    wait for the run to end."""
    started = await start_discovery(home)
    _fresh_worker_report(home, store)

    async def reading():
        done = await asyncio.to_thread(run_cli, "ops", "--json")
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)["sourceEta"]

    found = await eventually_async(reading, 30, what="the run reading its sources")
    handle = client.get_workflow_handle(started.workflow_id, run_id=started.run_id)
    await asyncio.wait_for(handle.result(), 60)
    return found


async def test_the_source_family_eta_calibrates_then_prices_the_families_left(
    home, store, client, worker, fast_settings
):
    fast_settings.set_value("discovery.prepare_jobs", False)  # runs end at once, no drain
    with DemoBoards(LAYOUT, api_delay=1.5) as slow, DemoBoards(LAYOUT) as fast:
        (source,) = slow.sources()
        add_source(home, source["kind"], source["name"], source["base_url"])
        first = await _source_eta_while_reading(home, store, client)
        assert (first["state"], first["reason"], first["low"]) == (
            "calibrating",
            "calibrating",
            None,
        )
        assert "greenhouse has 0 of 3 recent runs" in first["detail"]

        remove_source(home, source["name"])
        (quick,) = fast.sources()
        add_source(home, quick["kind"], quick["name"], quick["base_url"])
        for _ in range(2):
            await start_discovery(home, wait=True)
        remove_source(home, quick["name"])
        add_source(home, source["kind"], source["name"], source["base_url"])
        priced = await _source_eta_while_reading(home, store, client)
    assert priced["state"] == "available" and priced["reason"] is None, priced
    family = priced["families"]["greenhouse"]
    assert family["runs"] == 3 and family["p50"] <= family["p90"]
    # Each earlier run linked the board's two jobs: the family should bring two again.
    assert family["members"] == 2 and priced["members"] == 2
    assert 0 <= priced["low"] <= priced["high"] <= family["p90"] + 0.1  # rounded outwards

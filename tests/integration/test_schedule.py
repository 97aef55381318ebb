"""The discovery schedule follows the settings at the worker's next heartbeat."""

from __future__ import annotations

import asyncio

from temporalio.client import ScheduleOverlapPolicy

from jobctrl.domain.ids import DISCOVERY_SCHEDULE_ID as SCHEDULE_ID
from jobctrl.stages.context import StageContext
from jobctrl.worker.heartbeat import WorkerHeartbeat
from jobctrl.workflows.starts import reconcile_schedule


async def _note(client) -> str | None:
    try:
        return (await client.get_schedule_handle(SCHEDULE_ID).describe()).schedule.state.note
    except Exception:
        return None


async def test_schedule_is_created_updated_and_deleted_from_settings(client, task_queue, settings):
    try:
        assert await reconcile_schedule(client, settings.all(), "local") == "absent", (
            "off by default"
        )
        settings.set_value("discovery.schedule_enabled", True)
        assert await reconcile_schedule(client, settings.all(), "local") == "created"
        described = await client.get_schedule_handle(SCHEDULE_ID).describe()
        assert described.schedule.policy.overlap == ScheduleOverlapPolicy.SKIP
        assert described.schedule.action.workflow == "DiscoverWorkflow"
        assert described.schedule.action.id == "discover-local"
        assert await reconcile_schedule(client, settings.all(), "local") == "unchanged"
        settings.set_value("discovery.schedule_cron", "30 6 * * 1-5")
        assert await reconcile_schedule(client, settings.all(), "local") == "updated"
        assert await _note(client) == "cron=30 6 * * 1-5"
        settings.set_value("discovery.schedule_enabled", False)
        assert await reconcile_schedule(client, settings.all(), "local") == "deleted"
        assert await _note(client) is None
    finally:
        settings.set_value("discovery.schedule_enabled", False)
        await reconcile_schedule(client, settings.all(), "local")


async def test_the_heartbeat_applies_a_change_without_a_restart(
    client, task_queue, store, settings, home
):
    settings.set_value("worker.heartbeat_seconds", 0.2)
    heartbeat = WorkerHeartbeat(client, StageContext(home=home, store=store))
    stop = asyncio.Event()
    beats = asyncio.create_task(heartbeat.run(stop))
    try:
        settings.set_value("discovery.schedule_enabled", True)
        for _ in range(50):
            if await _note(client) == "cron=0 7 * * *":
                break
            await asyncio.sleep(0.1)
        assert await _note(client) == "cron=0 7 * * *"
        settings.set_value("discovery.schedule_cron", "15 5 * * *")
        for _ in range(50):
            if await _note(client) == "cron=15 5 * * *":
                break
            await asyncio.sleep(0.1)
        assert await _note(client) == "cron=15 5 * * *"
        settings.set_value("discovery.schedule_enabled", False)
        for _ in range(50):
            if await _note(client) is None:
                break
            await asyncio.sleep(0.1)
        assert await _note(client) is None
    finally:
        stop.set()
        await beats
        settings.set_value("discovery.schedule_enabled", False)
        await reconcile_schedule(client, settings.all(), "local")

"""Determinism: every workflow replays over recorded histories.

Histories committed under tests/fixtures/histories were recorded from earlier code; a
change that breaks replay of an in-flight or finished execution fails here. Fresh
histories (success and failure paths) are recorded and replayed too.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from temporalio.client import WorkflowFailureError, WorkflowHistory
from temporalio.worker import Replayer

from jobctrl.app.apply_loop import apply_in_worker
from jobctrl.app.jobs import add_job
from jobctrl.domain.ids import APPLY_LOOP_ID
from jobctrl.store.settings import Settings
from jobctrl.worker.run import WORKFLOWS
from jobctrl.workflows.apply import ApplyWorkflow
from jobctrl.workflows.client import default_task_queue
from jobctrl.workflows.converter import DATA_CONVERTER
from jobctrl.workflows.models import ApplyWorkflowInput
from tests.support.apply import approved_job, no_standing_loop
from tests.support.http import Route, posting_html

HISTORIES = Path(__file__).parents[1] / "fixtures" / "histories"
__all__ = ["no_standing_loop"]  # a fixture, imported for pytest to find


async def _replay(history: WorkflowHistory) -> None:
    # debug_mode: no deadlock detector. A replay proves determinism; the detector's 2 s
    # per activation measures the machine (a sandboxed first activation on a loaded CI
    # machine tripped it once), not the workflow.
    replayer = Replayer(workflows=WORKFLOWS, data_converter=DATA_CONVERTER, debug_mode=True)
    result = await replayer.replay_workflow(history, raise_on_replay_failure=True)
    assert result.replay_failure is None


@pytest.mark.parametrize("path", sorted(HISTORIES.glob("*.json")), ids=lambda p: p.stem)
async def test_committed_histories_replay(path: Path):
    data = json.loads(path.read_text())
    await _replay(WorkflowHistory.from_json(data["workflowId"], data["history"]))


def test_there_are_committed_histories_for_each_workflow():
    recorded = {json.loads(p.read_text())["workflowType"] for p in HISTORIES.glob("*.json")}
    assert {w.__temporal_workflow_definition.name for w in WORKFLOWS} <= recorded  # type: ignore[attr-defined]


async def test_fresh_histories_replay(home, worker, client, site):
    ok = await add_job(
        home, site.add("/jobs/r", Route(body=posting_html("SRE", "R", ["Linux"]))), wait=True
    )
    failed = await add_job(home, site.base_url + "/missing", wait=True)
    for view in (ok, failed):
        history = await client.get_workflow_handle(view.workflow_id).fetch_history()
        await _replay(history)
        # Histories hold codes and our own short messages: no stack traces, no page text.
        text = history.to_json()
        assert "stackTrace" not in text and "Traceback" not in text
        assert "<html" not in text


async def test_a_fresh_preparation_with_materials_records_no_patch_marker(
    home, settings, worker, client, site
):
    """Only executions recorded while materials-v1 was patched hold its marker (and the
    search-attribute upsert that comes with it); a new one runs all five stages without."""
    settings.set_value("min_fit_score", 0)
    view = await add_job(
        home, site.add("/jobs/m", Route(body=posting_html("SRE", "M", ["Linux"]))), wait=True
    )
    history = await client.get_workflow_handle(view.workflow_id).fetch_history()
    kinds = [e.WhichOneof("attributes") for e in history.events]
    assert kinds.count("activity_task_completed_event_attributes") == 5
    assert "upsert_workflow_search_attributes_event_attributes" not in kinds
    markers = [e.marker_recorded_event_attributes.marker_name for e in history.events]
    assert "core_patch" not in markers
    await _replay(history)


async def test_fresh_apply_histories_replay(home, store, worker, client, site, no_standing_loop):
    """A one-shot apply, and a standing loop that prepares a job, continues as new and is
    cancelled: each run replays, and holds no address or message text."""
    Settings(store).set_values({"apply_poll_seconds": 0.1})
    once = approved_job(home, store, site, "/apply/r-once", email="r@jobs.example")
    done = await apply_in_worker(home, once, wait=True)
    approved_job(home, store, site, "/apply/r-loop")
    loop = await client.start_workflow(
        ApplyWorkflow.run,
        ApplyWorkflowInput(continuous=True, polls_per_run=2),
        id=APPLY_LOOP_ID,
        task_queue=default_task_queue(),
    )
    while (await client.get_workflow_handle(APPLY_LOOP_ID).describe()).run_id == loop.result_run_id:
        await asyncio.sleep(0.1)
    await client.get_workflow_handle(APPLY_LOOP_ID).cancel()
    with pytest.raises(WorkflowFailureError):
        await client.get_workflow_handle(APPLY_LOOP_ID).result()
    handles = [
        client.get_workflow_handle(done.workflow_id),
        client.get_workflow_handle(APPLY_LOOP_ID, run_id=loop.result_run_id),
        client.get_workflow_handle(APPLY_LOOP_ID),
    ]
    for handle in handles:
        history = await handle.fetch_history()
        await _replay(history)
        text = history.to_json()
        assert "r@jobs.example" not in text and "Dear Hiring" not in text

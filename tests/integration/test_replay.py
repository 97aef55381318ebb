"""Determinism: every workflow replays over recorded histories.

Histories committed under tests/fixtures/histories were recorded from earlier code; a
change that breaks replay of an in-flight or finished execution fails here. Fresh
histories (success and failure paths) are recorded and replayed too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from temporalio.client import WorkflowHistory
from temporalio.worker import Replayer

from jobctrl.app.jobs import add_job
from jobctrl.worker.run import WORKFLOWS
from jobctrl.workflows.converter import DATA_CONVERTER
from tests.support.http import Route, posting_html

HISTORIES = Path(__file__).parents[1] / "fixtures" / "histories"


async def _replay(history: WorkflowHistory) -> None:
    result = await Replayer(workflows=WORKFLOWS, data_converter=DATA_CONVERTER).replay_workflow(
        history, raise_on_replay_failure=True
    )
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
        history = await client.get_workflow_handle(view["workflowId"]).fetch_history()
        await _replay(history)
        # Histories hold codes and our own short messages: no stack traces, no page text.
        text = history.to_json()
        assert "stackTrace" not in text and "Traceback" not in text
        assert "<html" not in text

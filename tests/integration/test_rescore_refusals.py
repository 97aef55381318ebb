"""A rescore honours the stop-loss and the budget before anything changes: a score lane
paused by stop-loss, or a day's budget (or the score lane's tokens) spent, refuses the
whole rescore with a sentence that says why and what to do (HTTP 409), and no stage row
is reset. Run in process: the refusal comes before a worker is asked for."""

from __future__ import annotations

import httpx
import pytest

from jobctrl.api.app import create_app
from jobctrl.app.rescore import rescore
from jobctrl.domain.errors import AUTOMATION_PAUSED, BUDGET_EXCEEDED, JobctrlError
from jobctrl.llm.spend import SpendAuthority, Usage
from jobctrl.stages.context import StageContext
from jobctrl.stages.enrich import enrich
from jobctrl.stages.score import score
from jobctrl.store import jobs, stage_states, stop_loss
from jobctrl.store.settings import Settings
from tests.support.cited import POSTING
from tests.support.http import Route


@pytest.fixture
def scored(home, store, site, fast_settings) -> str:
    ctx = StageContext(home=home, store=store)
    try:
        job = jobs.create_job(store, site.add("/jobs/rescore-refused", Route(body=POSTING)))
        enrich(ctx, job.job_id, "run-0")
        score(ctx, job.job_id, "run-0")
    finally:
        ctx.close()
    return job.job_id


def _score_row(store, job_id: str) -> dict:
    return next(r for r in stage_states.stage_rows(store, job_id) if r["stage"] == "score")


async def _refused(home, store, job_id: str, code: str) -> str:
    before = _score_row(store, job_id)
    with pytest.raises(JobctrlError) as caught:
        await rescore(home, [job_id], "jobs")
    assert caught.value.code == code
    assert _score_row(store, job_id) == before, "nothing was reset"
    transport = httpx.ASGITransport(app=create_app(home, port=8765))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as http:
        same_origin = {"Origin": "http://127.0.0.1:8765", "Sec-Fetch-Site": "same-origin"}
        answer = await http.post("/v1/rescore", json={"jobs": [job_id]}, headers=same_origin)
    assert answer.status_code == 409, answer.text
    assert answer.json()["error"]["code"] == code
    return caught.value.message


async def test_a_score_lane_paused_by_stop_loss_refuses_the_rescore(home, store, scored):
    assert stop_loss.note_failure(
        store, "lane", "score", "provider_unavailable", scored, threshold=1
    ), "the lane is paused"
    message = await _refused(home, store, scored, AUTOMATION_PAUSED)
    assert "stop-loss" in message and "jobctrl resume score" in message


async def test_a_spent_budget_refuses_the_rescore(home, store, scored):
    Settings(store).set_value("lane_token_limits", {"score": 100})
    SpendAuthority(store, Settings(store)).record(
        observation_id="score:earlier:run:1",
        lane="score",
        provider="openai",
        model="gpt-4o-mini",
        usage=Usage(input_tokens=90, output_tokens=20),
    )
    message = await _refused(home, store, scored, BUDGET_EXCEEDED)
    assert "score lane has used 110 of its 100 daily tokens" in message

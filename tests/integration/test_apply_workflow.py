"""ApplyWorkflow on a real Temporal server with an in-process worker: a one-shot apply
prepares one job's application (once per occasion) and a closed posting is refused; the
standing loop prepares approved jobs with the settings read at each claim, goes on in a
new run (continue-as-new), is cancelled cooperatively, and stops with budget_exceeded
when the day's budget is spent — halted until the UTC day rolls over. Nothing is ever
sent: no send attempt exists, no SMTP server is configured."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from temporalio.client import WorkflowExecutionStatus, WorkflowFailureError

from jobctrl.app.apply_loop import apply_in_worker, apply_loop_status, set_apply_loop
from jobctrl.app.materials import decide_materials
from jobctrl.domain import ids
from jobctrl.domain.availability import Availability
from jobctrl.domain.clock import utcnow
from jobctrl.domain.errors import JobctrlError
from jobctrl.llm.spend import Usage
from jobctrl.stages.context import StageContext
from jobctrl.store import (
    applications,
    apply_attempts,
    apply_claims,
    events,
    jobs,
    workflow_runs,
)
from jobctrl.store.availability import record_check
from jobctrl.worker.apply_loop import reconcile_apply_loop
from jobctrl.workflows import starts
from jobctrl.workflows.apply import ApplyWorkflow
from jobctrl.workflows.client import default_task_queue
from jobctrl.workflows.models import ApplyWorkflowInput
from tests.support.apply import REQUIREMENTS, approved_job, no_standing_loop
from tests.support.waiting import eventually_async

HIRING = "jobs@acme-robotics.example"
BOTH_STORES = True  # every test, on SQLite and on PostgreSQL (tests/conftest.py)

pytestmark = pytest.mark.usefixtures("no_standing_loop")
__all__ = ["no_standing_loop"]  # the fixture, imported for pytest to find


def _types(store, job_id: str) -> list[str]:
    return [e["type"] for e in events.job_events(store, job_id)]


def _nothing_sent(store, job_ids: list[str]) -> None:
    for job_id in job_ids:
        app = applications.get(store, job_id)
        assert app is None or not apply_attempts.attempts_of(store, app["id"]), "no send attempt"
        assert "ApplicationSendIntent" not in _types(store, job_id)
        assert "ApplicationSent" not in _types(store, job_id)


@pytest.fixture
def fast_loop(fast_settings):
    fast_settings.set_value("apply_poll_seconds", 0.2)
    return fast_settings


async def test_a_one_shot_apply_prepares_the_email_draft_once(home, store, site, worker, client):
    job_id = approved_job(home, store, site, "/jobs/once", email=HIRING)

    done = await apply_in_worker(home, job_id, wait=True)

    assert done.workflow_id.startswith(f"apply-{job_id}-")
    assert (done.status, done.outcome, done.error_code) == ("completed", "prepared", None)
    app = applications.get(store, job_id)
    assert (app["channel"], app["status"], app["email_to"]) == ("email", "draft", [HIRING])
    assert [a["name"] for a in app["attachments"]] == [
        "Ada_Example_Resume_Acme_Robotics_Senior_Backend_Engineer.pdf",
        "Ada_Example_Cover_Letter_Acme_Robotics_Senior_Backend_Engineer.pdf",
    ]
    assert "ApplicationPrepared" in _types(store, job_id)
    _nothing_sent(store, [job_id])
    again = await apply_in_worker(home, job_id, wait=True)
    assert (again.workflow_id, again.run_id) == (done.workflow_id, done.run_id)
    history = await client.get_workflow_handle(done.workflow_id).fetch_history()
    text = history.to_json()
    assert HIRING not in text and "Dear Hiring Team" not in text, "ids and codes only"


async def test_a_one_shot_apply_of_a_closed_posting_is_refused(home, store, site, worker):
    job_id = approved_job(home, store, site, "/jobs/closed-now")
    record_check(store, job_id, Availability.UNAVAILABLE, "ENRICH_HTTP_NOT_FOUND", utcnow())

    done = await apply_in_worker(home, job_id, wait=True)

    assert (done.status, done.error_code) == ("failed", "POSTING_UNAVAILABLE")
    assert applications.get(store, job_id) is None, "nothing prepared"


async def test_the_loop_prepares_approved_jobs_with_the_settings_read_at_each_claim(
    home, store, site, worker, client, fast_loop
):
    email_job = approved_job(home, store, site, "/jobs/email", email=HIRING)
    form_job = approved_job(home, store, site, "/jobs/form", company="Formwerk")
    undecided = approved_job(home, store, site, "/jobs/undecided", approve=False)

    await starts.start_apply(client, store, None, "")

    def prepared(job_id: str) -> bool:
        app = applications.get(store, job_id)
        return bool(app and app["channel"])

    assert await eventually_async(lambda: prepared(email_job) and prepared(form_job), 60)
    form = applications.get(store, form_job)
    assert (form["channel"], form["status"]) == ("browser", "draft")
    assert form["form_url"].endswith("/jobs/form"), "the person prefills the posting's form"
    status = await asyncio.to_thread(apply_loop_status, home)
    assert status.status == "running" and status.prepared == 2
    assert status.passed_over == {"APPLY_MATERIALS_NOT_APPROVED": 1}
    assert not prepared(undecided), "materials awaiting a decision park the job"

    decide_materials(home, undecided, "approve")  # the next poll takes it, no restart
    assert await eventually_async(lambda: prepared(undecided), 60)

    # A nice-to-have the profile lacks: a score under 100 (an unmet must-have would keep
    # it under min_fit_score, and no materials would be written to approve).
    partial = [*REQUIREMENTS[:2], "Nice to have: Rust and Elixir"]
    high_bar = approved_job(home, store, site, "/jobs/bar", approve=False, requirements=partial)
    scored = jobs.score_row(store, high_bar)["score"]
    assert scored < 100
    fast_loop.set_value("min_fit_score", scored + 1)  # read at the next claim
    decide_materials(home, high_bar, "approve")
    assert await eventually_async(
        lambda: apply_loop_status(home).passed_over.get("MIN_SCORE") == 1, timeout=5
    ), (apply_loop_status(home), applications.get(store, high_bar))
    assert not prepared(high_bar)

    stopped = await set_apply_loop(home, enabled=False)
    assert stopped.cancel_requested is True
    run = await eventually_async(
        lambda: workflow_runs.latest_runs(store, ids.APPLY_LOOP_ID)[0]["status"] == "canceled", 60
    )
    assert run, "the loop's run ends as canceled (WorkflowCanceled)"

    # The store's record comes from the run's last activity; Temporal closes the run at
    # the workflow task after it (a moment later on a loaded machine).
    async def closed_canceled() -> bool:
        description = await client.get_workflow_handle(ids.APPLY_LOOP_ID).describe()
        return description.status == WorkflowExecutionStatus.CANCELED

    assert await eventually_async(closed_canceled, 30), "Temporal ends the loop canceled"
    _nothing_sent(store, [email_job, form_job, undecided, high_bar])


async def test_the_loop_continues_as_new_and_a_cancel_lets_its_claims_go(
    home, store, client, worker, fast_loop
):
    handle = await client.start_workflow(
        ApplyWorkflow.run,
        ApplyWorkflowInput(continuous=True, auto_apply_loop=True, polls_per_run=2),
        id=ids.APPLY_LOOP_ID,
        task_queue=default_task_queue(),
    )
    first = handle.result_run_id

    def continued() -> bool:
        runs = workflow_runs.latest_runs(store, ids.APPLY_LOOP_ID, 10)
        return any(r["outcome"] == "continued" for r in runs) and runs[0]["run_id"] != first

    assert await eventually_async(continued, 60)
    latest = await client.get_workflow_handle(ids.APPLY_LOOP_ID).describe()
    assert latest.run_id != first and latest.status == WorkflowExecutionStatus.RUNNING
    await client.get_workflow_handle(ids.APPLY_LOOP_ID).cancel()
    with pytest.raises(WorkflowFailureError):
        await asyncio.wait_for(client.get_workflow_handle(ids.APPLY_LOOP_ID).result(), 30)
    runs = workflow_runs.latest_runs(store, ids.APPLY_LOOP_ID, 50)
    assert [r["status"] for r in runs if r["status"] == "running"] == []
    assert runs[0]["status"] == "canceled"


async def test_a_spent_budget_halts_the_loop_until_the_utc_day_rolls_over(
    home, store, client, worker, fast_loop
):
    fast_loop.set_values({"daily_budget_usd": 0.01, "auto_apply": True})
    ctx = StageContext(home=home, store=store)
    ctx.spend.record(
        observation_id="spent-today",
        lane="score",
        provider="openai",
        model="gpt-4o",
        usage=Usage(input_tokens=1_000_000, output_tokens=0),
    )
    values = fast_loop.all()
    assert await reconcile_apply_loop(client, ctx, values) == "started"
    handle = client.get_workflow_handle(ids.APPLY_LOOP_ID)
    with pytest.raises(WorkflowFailureError):
        await asyncio.wait_for(handle.result(), 30)
    run = workflow_runs.latest_runs(store, ids.APPLY_LOOP_ID)[0]
    assert (run["status"], run["error_code"]) == ("failed", "budget_exceeded")
    assert apply_loop_status(home).halted is True

    for _ in range(3):  # beat after beat the same day: halted, not started again
        with pytest.raises(JobctrlError, match="budget_exceeded"):
            await reconcile_apply_loop(client, ctx, values)
    assert len(workflow_runs.latest_runs(store, ids.APPLY_LOOP_ID, 10)) == 1

    tomorrow = utcnow() + timedelta(days=1)
    assert await reconcile_apply_loop(client, ctx, values, now=tomorrow) == "started"
    fast_loop.set_value("auto_apply", False)
    assert await reconcile_apply_loop(client, ctx, fast_loop.all()) in ("cancel_requested", "off")
    ctx.close()


def test_the_claim_refuses_a_job_whose_application_has_a_live_attempt(home, store, site, settings):
    settings.set_value("fetch.allow_hosts", ["127.0.0.1"])
    job_id = approved_job(home, store, site, "/jobs/live")
    with store.write() as tx:
        app = applications.ensure_for_job(tx, job_id)
        apply_attempts.start_attempt(tx, app["id"], kind="browser", owner="a-person")

    outcome = apply_claims.claim(
        store, job_id, workflow_id="w", run_id="r", min_fit_score=0, approval_required=True
    )

    assert (outcome.claim_id, outcome.code) == (None, "APPLY_ATTEMPT_LIVE")

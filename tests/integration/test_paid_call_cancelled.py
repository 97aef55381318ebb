"""A paid answer that arrived but could not be recorded must never be settled as unpaid.

B6 (fault suite kill run, 17:46 UTC): the server timed a recovery member's Tailor attempt
out (its heartbeats had not reached it within the 1.5 s timeout on a loaded machine), the
next heartbeat brought the cancellation back, and the SDK raised it into the attempt's
thread while the answer arrived. The reservation was released as if nothing had been
spent, the answer was never recorded, and the next run paid again.

Here the worker is real (in-process), the provider a loopback OpenAI-compatible server
that answers after 3 s, and the first attempt's heartbeats are held back for its first
2.2 s: Temporal times it out and starts a second attempt of the same run; the first
attempt's next heartbeat is refused and it is cancelled. Where the SDK's exception lands
in the attempt's thread is a matter of timing; the answer's commit is held here until the
cancellation has come back (as a busy database would), so that it lands there. The answer
must still be recorded (usage and answer, the reservation closed by them) and the second
attempt must reuse it: one request, one observation, nothing assumed.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select
from temporalio import activity
from temporalio.exceptions import CancelledError

from jobctrl.app.jobs import add_job
from jobctrl.app.lanes import set_lane
from jobctrl.config import LaneProvider
from jobctrl.domain.errors import DatabaseBusyError
from jobctrl.llm import lanes
from jobctrl.llm.answers import ScoreAnswer
from jobctrl.llm.spend import SpendAuthority
from jobctrl.store import jobs, schema, stage_states, tenancy
from jobctrl.workflows import activities
from tests.support.fake_openai import SCORE_REPORT, FakeOpenAI
from tests.support.http import Route, posting_html

HELD_BACK_S = 2.2  # the first attempt's heartbeats: longer than the 1.5 s timeout
ANSWER_DELAY_S = 3.0  # the answer arrives after the cancellation


async def test_an_attempt_cancelled_while_its_answer_arrives_records_it_and_pays_once(
    home, store, client, task_queue, fast_settings, site, worker, monkeypatch
):
    fast_settings.set_value("worker.heartbeat_timeout_seconds", 1.5)
    fast_settings.set_value("retry.max_attempts", 3)
    fast_settings.set_value("preparation.materials", False)
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    beat = activities.activity_heartbeat
    held: list[float] = []

    def unreachable_at_first(*details: object) -> None:
        info = activity.info() if activity.in_activity() else None
        if info is not None and info.activity_type == "score" and info.attempt == 1:
            age = (datetime.now(UTC) - info.started_time).total_seconds()
            if age < HELD_BACK_S:
                held.append(age)
                return  # as if it never reached the server
        beat(*details)

    monkeypatch.setattr(activities, "activity_heartbeat", unreachable_at_first)
    record = lanes.record_in

    def slow_write(tx, **kwargs):  # type: ignore[no-untyped-def]
        # The answer's commit waits (a busy database on a loaded machine) until the
        # cancellation has come back, and the SDK's exception lands right here, before the
        # usage is written. (Where the SDK's own delivery lands is left to chance: an
        # asynchronous exception in the attempt's thread, on this Python at the next
        # check, often inside the event loop, which may swallow it.) The same delivery
        # again, through the SDK's raiser, which a shield holds back as it would the first.
        deadline = time.monotonic() + 8
        while not activity.is_cancelled() and time.monotonic() < deadline:
            time.sleep(0.05)
        if activity.is_cancelled() and activity.info().attempt == 1:
            shielded = activity._Context.current().shield_thread_cancel_exception
            raiser = shielded.__self__  # type: ignore[union-attr]
            raiser.raise_in_thread(CancelledError)
            for _ in range(1000):  # the eval loop checks for it here, unless shielded
                time.sleep(0)
        return record(tx, **kwargs)

    monkeypatch.setattr(lanes, "record_in", slow_write)
    with FakeOpenAI("ok", SCORE_REPORT, delay=ANSWER_DELAY_S) as provider:
        set_lane(home, "score", "openai", "gpt-4o-mini", provider.base_url, "FAKE_KEY")
        url = site.add("/jobs/cut", Route(body=posting_html("Engineer", "Cut", ["Python"])))
        view = await add_job(home, url)
        handle = client.get_workflow_handle(view.workflow_id)
        await asyncio.wait_for(handle.result(), 90)
        # The cancelled attempt's call ends on its own after the workflow: let it finish.
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and _open_reservations(store):
            await asyncio.sleep(0.1)
        requests = len(provider.requests)
        history = await handle.fetch_history()
    assert held, "the first attempt's heartbeats were held back"
    started = [
        e.activity_task_started_event_attributes.attempt
        for e in history.events
        if e.HasField("activity_task_started_event_attributes")
    ]
    assert max(started) >= 2, "the first attempt timed out and a second one ran"
    score = {r["stage"]: r for r in stage_states.stage_rows(store, view.job_id)}["score"]
    # The first attempt (cancelled, shielded) records its answer and finishes the stage
    # before its cancellation is raised; the second finds it done or reuses the answer.
    assert score["state"] == "succeeded"
    assert jobs.score_row(store, view.job_id)["score"] == 81
    assert _settled_unrecorded(store) == [], "no reservation released as if unpaid"
    assert _observations(store) == 1, "the answer that arrived was recorded"
    assert requests == 1, "the provider was paid once"
    summary = SpendAuthority(store, fast_settings).summary()
    assert summary["openReservations"]["count"] == 0 and summary["assumedCalls"] == 0


def _observations(store) -> int:
    with store.read() as conn:
        return conn.execute(
            select(func.count())
            .select_from(schema.llm_usage_observations)
            .where(tenancy.scoped(schema.llm_usage_observations, conn))
        ).scalar_one()


def _open_reservations(store) -> int:
    r = schema.llm_reservations
    with store.read() as conn:
        return conn.execute(
            select(func.count())
            .select_from(r)
            .where(tenancy.scoped(r, conn), r.c.settled_at.is_(None))
        ).scalar_one()


def _settled_unrecorded(store) -> list[str]:
    """Reservations closed with no usage observed under their id (released as unpaid)."""
    r, o = schema.llm_reservations, schema.llm_usage_observations
    with store.read() as conn:
        return list(
            conn.execute(
                select(r.c.reservation_id).where(
                    tenancy.scoped(r, conn),
                    r.c.settled_at.is_not(None),
                    r.c.reservation_id.not_in(
                        select(o.c.observation_id).where(tenancy.scoped(o, conn))
                    ),
                )
            ).scalars()
        )


def test_an_answer_the_busy_database_could_not_record_keeps_its_reservation(
    store, settings, monkeypatch
):
    """The answer arrived but its commit met a locked database (``DatabaseBusyError``, a
    StageError like the provider's own failures): paid for, unrecorded, so the reservation
    stays open as assumed spend instead of being settled as if nothing were paid."""
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    spend = SpendAuthority(store, settings)

    def busy(tx, **kwargs):  # type: ignore[no-untyped-def]
        raise DatabaseBusyError()

    monkeypatch.setattr(lanes, "record_in", busy)
    with FakeOpenAI("ok", SCORE_REPORT) as provider:
        lane = LaneProvider(
            provider="openai", model="gpt-4o-mini", base_url=provider.base_url,
            api_key_env="FAKE_KEY",
        )  # fmt: skip
        with pytest.raises(DatabaseBusyError):
            lanes.call_lane(
                spend, "score", lane, job_id="job1", run_id="run1", attempt=1,
                output_type=ScoreAnswer, system="s", prompt=lambda: "p",
                offline=lambda: ScoreAnswer.model_validate(SCORE_REPORT),
            )  # fmt: skip
        assert len(provider.requests) == 1, "the provider answered"
    assert _observations(store) == 0
    assert _open_reservations(store) == 1, "held as assumed spend, not released"

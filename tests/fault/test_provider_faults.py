"""Provider faults through `jobctrl worker`, the Score lane on a loopback OpenAI-compatible
provider that counts every request (tests/support/fault_provider.py); Enrich + Score only
(``preparation.materials`` off), automatic recovery's backoff shrunk to seconds.

1. 429 with ``Retry-After`` for RATE_WINDOW s (the issue's minute), then 200: a 429 is
   answered inside the attempt (``llm.pacing``: the endpoint holds, the call asks again),
   so work resumes by itself, without using a stage attempt or automatic recovery; spend
   stays under ``daily_budget_usd``; a rate limit never trips stop-loss. The refused ÷
   sent figure is printed (every request in the window is refused, by construction).
   And with several calls in flight (the lane proven first): after a 429 no request
   reaches the provider until its Retry-After has passed, then one goes first (a probe)
   and the others follow once it is answered; no stage attempt is used by a 429.
2. 401 for every request: the fifth consecutive ``provider_auth`` pauses the Score lane
   (streak 5); no request reaches the provider after the pause; the jobs still queued are
   untouched (no Score attempt, or refused ``automation_paused`` without a request);
   once the key works, `jobctrl resume score` lets them be prepared, and `jobctrl retry`
   prepares the ones that failed.
3. A paid call slower than ``worker.heartbeat_timeout_seconds``: paid once.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select

from jobctrl.store import schema, stop_loss, tenancy
from tests.support.fault import (
    CLEAN,
    Worker,
    add_all,
    by_job,
    configure,
    paid_calls,
    postings,
    prepared,
    settled,
    until,
    violations,
)
from tests.support.fault_provider import FaultProvider
from tests.support.processes import run_cli

pytestmark = pytest.mark.fault

ENRICH_SCORE = ("enrich", "score")
RATE_WINDOW = 60.0
RETRY_AFTER = 3
BUDGET_USD = 0.05
AUTH_JOBS = 24


def _spend(store) -> float:
    with store.read() as conn:
        return float(
            conn.execute(
                select(func.coalesce(func.sum(schema.llm_spend.c.cost_usd), 0)).where(
                    tenancy.scoped(schema.llm_spend, conn)
                )
            ).scalar_one()
        )


def _stop_loss_events(store) -> int:
    e = schema.job_events
    with store.read() as conn:
        return conn.execute(
            select(func.count()).where(tenancy.scoped(e, conn), e.c.type == "StopLossPaused")
        ).scalar_one()


@pytest.mark.heavy_fault  # a worker process through a 60 s rate-limited window: ~70 s
async def test_a_rate_limited_window_resumes_by_itself_within_budget(
    home, embedded, store, settings, site, zygote
):
    started = time.monotonic()
    jobs = 8
    with FaultProvider("rate_limited", delay=0.1, retry_after=RETRY_AFTER) as provider:
        configure(
            home,
            settings,
            provider,
            lanes=("score",),
            preparation__materials=False,
            daily_budget_usd=BUDGET_USD,
            retry__max_attempts=3,
        )
        urls = postings(site, jobs)
        worker = Worker(zygote)
        await asyncio.to_thread(worker.start)
        try:
            job_ids = await add_all(home, list(urls.values()))
            titles = {title: job_ids[i] for i, title in enumerate(urls)}
            window_started = time.monotonic()
            max_spend = 0.0
            while time.monotonic() - window_started < RATE_WINDOW:
                max_spend = max(max_spend, await asyncio.to_thread(_spend, store))
                await asyncio.sleep(0.5)
            rows = await asyncio.to_thread(by_job, store)
            stopped = sorted(
                {r["error_code"] for job in rows.values() for r in job.values() if r["error_code"]}
            )
            in_window = provider.counts()
            provider.set_mode("ok")
            resumed_at = time.monotonic()
            settle = None
            with contextlib.suppress(AssertionError):  # the figures are printed either way
                settle = await until(lambda: settled(store, job_ids, ENRICH_SCORE), 90)
            max_spend = max(max_spend, await asyncio.to_thread(_spend, store))
        finally:
            await asyncio.to_thread(worker.stop)
        paid = paid_calls(store, provider, titles)
        counts = provider.counts()
    rows = await asyncio.to_thread(by_job, store)
    broken = await asyncio.to_thread(violations, store, job_ids, stages=ENRICH_SCORE)
    figures = {
        "jobs": jobs,
        "window_s": RATE_WINDOW,
        "retry_after_s": RETRY_AFTER,
        "sent_in_window": in_window["sent"],
        "refused_in_window": in_window["refused"],
        "codes_seen_in_window": stopped,
        "prepared_after_window_s": settle and round(settle, 1),
        "requests_sent": counts["sent"],
        "requests_refused": counts["refused"],
        "refused_over_sent": round(counts["refused"] / max(1, counts["sent"]), 3),
        "score_attempts": sum(j["score"]["attempts"] for j in rows.values()),
        "auto_attempts": sum(r["auto_attempts"] for j in rows.values() for r in j.values()),
        "max_spend_usd": round(max_spend, 6),
        "budget_usd": BUDGET_USD,
        "stop_loss_paused_events": _stop_loss_events(store),
        "paid": paid,
        "wall_s": round(time.monotonic() - started, 1),
        "since_resume_s": round(time.monotonic() - resumed_at, 1),
        **broken,
    }
    print("\nFAULT 429-window figures:", json.dumps(figures, indent=1))
    assert settle is not None, "work did not resume by itself after the window"
    assert stopped == [], "no stage failed on the 429s"
    assert figures["score_attempts"] == jobs and figures["auto_attempts"] == 0
    # The lane's first call asks again at each Retry-After (its canary: one at a time).
    assert in_window["refused"] <= RATE_WINDOW / RETRY_AFTER + 2
    assert max_spend <= BUDGET_USD
    assert figures["stop_loss_paused_events"] == 0 and stop_loss.paused(store) == []
    assert paid["recorded_twice"] == {} and paid["repeated_unaccounted"] == {}
    assert broken == CLEAN


async def test_a_429_holds_every_concurrent_call_and_uses_no_attempt(
    home, embedded, store, settings, site, zygote
):
    jobs, delay, retry_after, refusing = 7, 0.2, 3, 5.0
    slack = 0.5  # a loaded machine may take this long to act on an answer
    with FaultProvider(delay=delay, retry_after=retry_after) as provider:
        configure(home, settings, provider, lanes=("score",), preparation__materials=False)
        urls = list(postings(site, jobs).values())
        worker = Worker(zygote)
        await asyncio.to_thread(worker.start)
        try:
            first = await add_all(home, urls[:1])  # proves the lane: then calls go at width
            await until(lambda: len(prepared(store, first, ENRICH_SCORE)) == 1, 60)
            provider.set_mode("rate_limited")
            rest = await add_all(home, urls[1:])
            await until(lambda: provider.counts()["refused"] > 0, 60, 0.05)
            await asyncio.sleep(refusing)
            provider.set_mode("ok")
            settle = await until(lambda: settled(store, first + rest, ENRICH_SCORE), 60)
        finally:
            await asyncio.to_thread(worker.stop)
        with provider.lock:
            arrivals = sorted(provider.arrivals)
        counts = provider.counts()
    rows = await asyncio.to_thread(by_job, store)
    refusals = [t for t, _, _, status in arrivals if status == 429]
    # Sent before the first refusal was answered: refused together, as any client's would.
    first_wave = [t for t in refusals if t < refusals[0] + delay + slack]
    later = refusals[len(first_wave) :]
    during_holds = [
        (t, lane, title)
        for refused_at in refusals
        for t, lane, title, _ in arrivals
        if refused_at + delay + slack + 0.3 < t < refused_at + retry_after - 0.2
    ]
    figures = {
        "jobs": jobs,
        "sent": counts["sent"],
        "refused": counts["refused"],
        "first_wave_refused": len(first_wave),
        "later_refusals_apart_s": [round(b - a, 2) for a, b in itertools.pairwise(later)],
        "arrivals_during_holds": len(during_holds),
        "score_attempts": {j: r["score"]["attempts"] for j, r in rows.items()},
        "settled_after_s": round(settle, 1),
    }
    print("\nFAULT 429 provider-wide hold:", json.dumps(figures, indent=1))
    held = {title for t, _, title, _ in arrivals if t > refusals[0] + delay}
    assert len(held) >= 2, "several calls waited out the refusals"
    assert during_holds == [], "no request reaches the provider during a hold"
    # After the first wave, one request (the probe) a hold.
    assert all(b - a >= retry_after - slack for a, b in itertools.pairwise(later))
    assert len(later) <= refusing / retry_after + 2
    assert all(r["score"]["attempts"] == 1 for r in rows.values()), "a 429 used no attempt"
    assert counts["repeated_answers"] == {} and counts["answered"] == jobs


async def test_five_auth_failures_pause_the_lane_and_resume_works(
    home, embedded, store, settings, site, zygote
):
    started = time.monotonic()
    with FaultProvider("unauthorized", delay=0.3) as provider:
        configure(home, settings, provider, lanes=("score",), preparation__materials=False)
        urls = postings(site, AUTH_JOBS)
        worker = Worker(zygote)
        await asyncio.to_thread(worker.start)
        try:
            job_ids = await add_all(home, list(urls.values()))
            titles = {title: job_ids[i] for i, title in enumerate(urls)}
            await until(lambda: stop_loss.paused(store) != [], 60, 0.1)
            paused = stop_loss.paused(store)
            paused_epoch = _epoch(paused[0].paused_at)
            await asyncio.sleep(3)  # the queue keeps moving: nothing reaches the provider
            with provider.lock:
                arrivals = list(provider.arrivals)
            after_pause = [a for a in arrivals if a[0] > paused_epoch]
            rows = await asyncio.to_thread(by_job, store)
            failed = [
                j for j in job_ids if rows[j].get("score", {}).get("error_code") == "provider_auth"
            ]
            asked = {titles[a[2]] for a in arrivals if a[2] in titles}
            untouched = [j for j in job_ids if j not in asked]  # never reached the provider
            provider.set_mode("ok")
            resumed = await asyncio.to_thread(run_cli, "resume", "score", "--json")
            resumed_at = time.monotonic()
            settle = None
            with contextlib.suppress(AssertionError):  # the figures are printed either way
                settle = await until(
                    lambda: set(untouched) <= set(prepared(store, job_ids, ENRICH_SCORE)), 90
                )
            retried = [await asyncio.to_thread(run_cli, "retry", j, "--json") for j in failed]
            everything = None
            with contextlib.suppress(AssertionError):
                everything = await until(lambda: settled(store, job_ids, ENRICH_SCORE), 90)
        finally:
            await asyncio.to_thread(worker.stop)
    broken = await asyncio.to_thread(violations, store, job_ids, stages=ENRICH_SCORE)
    figures = {
        "jobs": AUTH_JOBS,
        "paused": paused,
        "requests_before_pause": len(arrivals) - len(after_pause),
        "requests_after_pause": len(after_pause),
        "auth_refusals_before_pause": sum(
            1 for a in arrivals if a[3] == 401 and a[0] <= paused_epoch
        ),
        "auth_failed_jobs": len(failed),
        "untouched_jobs": len(untouched),
        "resume_exit": resumed.returncode,
        "untouched_prepared_after_resume_s": settle and round(settle, 1),
        "retries_exit": sorted({r.returncode for r in retried}),
        "all_prepared_after_retry_s": everything and round(everything, 1),
        "wall_s": round(time.monotonic() - started, 1),
        "since_resume_s": round(time.monotonic() - resumed_at, 1),
        **broken,
    }
    print("\nFAULT 401 stop-loss figures:", json.dumps(figures, indent=1, default=str))
    assert [(p.kind, p.name, p.code) for p in paused] == [("lane", "score", "provider_auth")]
    assert after_pause == [], "no request reaches the provider once the lane is paused"
    assert paused[0].streak == 5 and figures["auth_refusals_before_pause"] >= 5
    assert untouched, "the rest of the queue is untouched"
    assert resumed.returncode == 0, resumed.stderr
    assert settle is not None, "the untouched jobs were not prepared after resume"
    assert {r.returncode for r in retried} <= {0}
    assert everything is not None, "the failed jobs were not prepared after `jobctrl retry`"
    assert broken == CLEAN


def _epoch(value) -> float:
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.timestamp()


async def test_a_paid_call_slower_than_the_heartbeat_timeout_is_paid_once(
    home, embedded, store, settings, site, zygote
):
    """The answer takes twice ``worker.heartbeat_timeout_seconds`` (1.5 s): Temporal must
    not start a second attempt that pays again while the first still waits. The lane is
    proven first by one fast job (an unproven lane runs one attempt at a time, its canary,
    which would hide this behind the first attempt's stored output)."""
    with FaultProvider(delay=0.1) as provider:
        configure(home, settings, provider, lanes=("score",), preparation__materials=False)
        urls = list(postings(site, 2).values())
        worker = Worker(zygote)
        await asyncio.to_thread(worker.start)
        try:
            first = await add_all(home, urls[:1])
            await until(lambda: len(prepared(store, first, ENRICH_SCORE)) == 1, 60)
            provider.delay = 3.0
            slow = await add_all(home, urls[1:])
            await until(lambda: len(prepared(store, slow, ENRICH_SCORE)) == 1, 60)
            await asyncio.sleep(1)  # a late second attempt would have asked by now
        finally:
            await asyncio.to_thread(worker.stop)
        counts = provider.counts()
    print("\nFAULT slow paid call:", json.dumps(counts))
    assert counts["answered"] == 2 and counts["repeated_answers"] == {}, counts

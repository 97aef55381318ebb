"""Stop-loss windows: the rules (domain.stop_loss) and their store (store.stop_loss)."""

from __future__ import annotations

from sqlalchemy import select

from jobctrl.domain.errors import (
    BUDGET_EXCEEDED,
    CANCELED,
    ENRICH_HTTP_NOT_FOUND,
    ENRICH_TIMEOUT,
    ENRICH_UNREACHABLE,
    PROVIDER_AUTH,
    PROVIDER_RATE_LIMITED,
    PROVIDER_UNAVAILABLE,
    SOURCE_RATE_LIMITED,
    SOURCE_UNAVAILABLE,
)
from jobctrl.domain.stop_loss import Window, after_failure, after_success, counts, streak_item
from jobctrl.stages import stage_gate
from jobctrl.stages.context import StageContext
from jobctrl.store import jobs, schema, stop_loss, tenancy


def _fail(window: Window, code: str, item: str, threshold: int = 5) -> tuple[Window, bool]:
    return after_failure(window, code, item, threshold)


def test_five_jobs_in_a_row_with_one_code_pause_on_the_fifth():
    window, paused_at = Window(), []
    for n in range(1, 8):
        window, pauses = _fail(window, PROVIDER_AUTH, f"job{n}")
        if pauses:
            paused_at.append(n)
    assert paused_at == [5], "the fifth failure pauses, and only it"
    assert window.paused == PROVIDER_AUTH and window.streak == 7


def test_another_attempt_of_the_same_job_counts_once():
    window = Window()
    for _ in range(6):
        window, pauses = _fail(window, PROVIDER_UNAVAILABLE, "job1")
        assert not pauses
    assert window.streak == 1


def test_with_a_high_threshold_a_job_of_the_streak_still_counts_once():
    """The streak keeps every job it may still pause on, not only the last fifty."""
    window = Window()
    for n in range(60):
        window, _ = _fail(window, PROVIDER_UNAVAILABLE, f"job{n}", threshold=100)
    window, pauses = _fail(window, PROVIDER_UNAVAILABLE, "job0", threshold=100)
    assert (window.streak, pauses) == (60, False)


def test_a_different_code_restarts_the_streak_and_a_success_clears_it():
    window = Window()
    for n in range(4):
        window, _ = _fail(window, PROVIDER_AUTH, f"a{n}")
    window, _ = _fail(window, PROVIDER_UNAVAILABLE, "b")
    assert (window.code, window.streak) == (PROVIDER_UNAVAILABLE, 1), "restarted at one"
    window = after_success(window)
    assert (window.code, window.streak, window.paused) == (None, 0, None)


def test_rate_limits_budget_cancel_and_a_posting_s_own_problem_never_count():
    for code in (PROVIDER_RATE_LIMITED, SOURCE_RATE_LIMITED, BUDGET_EXCEEDED, CANCELED,
                 ENRICH_HTTP_NOT_FOUND, "automation_paused", "OWNERSHIP_LOST", "MIN_SCORE",
                 "config_invalid", "ENRICH_RATE_LIMITED"):  # fmt: skip
        assert not counts(code), code
    window = Window()
    for n in range(3):
        window, _ = _fail(window, PROVIDER_AUTH, f"a{n}")
    for n in range(50):  # a 429 storm between auth failures neither counts nor breaks it
        window, pauses = _fail(window, PROVIDER_RATE_LIMITED, f"r{n}")
        assert not pauses
    assert (window.code, window.streak) == (PROVIDER_AUTH, 3)


def test_store_pauses_once_lists_it_and_resume_clears_it(store, settings):
    settings.set_value("stop_loss.threshold", 3)
    results = [
        stop_loss.note_failure(store, "source", "acme", SOURCE_UNAVAILABLE, f"run{n}")
        for n in range(5)
    ]
    assert results == [False, False, True, False, False]
    assert stop_loss.is_paused(store, "source", "acme") == SOURCE_UNAVAILABLE
    assert stop_loss.is_paused(store, "lane", "score") is None
    [row] = stop_loss.paused(store)
    assert (row.kind, row.name, row.code, row.streak) == ("source", "acme", SOURCE_UNAVAILABLE, 5)
    assert row.paused_at is not None

    assert stop_loss.resume(store, "source", "acme") == SOURCE_UNAVAILABLE
    assert stop_loss.resume(store, "source", "acme") is None, "resuming twice changes nothing"
    assert stop_loss.paused(store) == []
    assert stop_loss.streak_of(store, "source", "acme") == 0
    ev = schema.job_events
    with store.read() as conn:
        read = select(ev.c.type, ev.c.payload).where(tenancy.scoped(ev, conn))
        events = [(r.type, r.payload) for r in conn.execute(read)
                  if r.type.startswith("StopLoss")]  # fmt: skip
    assert events == [
        ("StopLossPaused", {"kind": "source", "name": "acme", "code": SOURCE_UNAVAILABLE,
                            "streak": 3}),
        ("StopLossResumed", {"kind": "source", "name": "acme", "code": SOURCE_UNAVAILABLE}),
    ]  # fmt: skip


def test_a_success_restarts_the_stored_streak(store):
    for n in range(4):
        stop_loss.note_failure(store, "lane", "score", PROVIDER_AUTH, f"j{n}")
    stop_loss.note_success(store, "lane", "score")
    assert stop_loss.streak_of(store, "lane", "score") == 0
    stop_loss.note_failure(store, "lane", "score", PROVIDER_AUTH, "j9")
    assert stop_loss.streak_of(store, "lane", "score") == 1
    assert stop_loss.is_paused(store, "lane", "score") is None


def test_enrich_network_failures_count_hosts_not_jobs(home, store):
    """Five postings of one dead site do not pause Enrich for every other site; five
    sites failing in a row (the network is down) do. Through the stage gate's note, as a
    worker's Enrich attempt records its failure."""
    ctx = StageContext(home=home, store=store)
    try:
        for n in range(6):
            job = jobs.create_job(store, f"http://127.0.0.1:9/careers/{n}").job_id
            stage_gate.note(ctx, "enrich", job, ENRICH_UNREACHABLE)
        assert stop_loss.is_paused(store, "lane", "enrich") is None
        assert stop_loss.streak_of(store, "lane", "enrich") == 1, "one host, one failure"
        for n in range(2, 6):
            job = jobs.create_job(store, f"http://127.0.0.{n}:9/careers/x").job_id
            stage_gate.note(ctx, "enrich", job, ENRICH_UNREACHABLE)
        assert stop_loss.is_paused(store, "lane", "enrich") == ENRICH_UNREACHABLE
    finally:
        ctx.close()


def test_only_enrich_s_network_failures_are_counted_by_host():
    url = "https://jobs.example.com/a/1"
    assert streak_item("enrich", ENRICH_UNREACHABLE, "j1", url) == "host:jobs.example.com"
    assert streak_item("enrich", ENRICH_TIMEOUT, "j1", url) == "host:jobs.example.com"
    assert streak_item("enrich", "ENRICH_EXTRACTION_FAILED", "j1", url) == "j1"
    assert streak_item("score", PROVIDER_UNAVAILABLE, "j1", url) == "j1"
    assert streak_item("enrich", ENRICH_UNREACHABLE, "j1", None) == "j1"
    assert streak_item("enrich", ENRICH_UNREACHABLE, "j1", "http://[::1/x") == "j1"

"""The public-fetch recheck through its functions (no Temporal): the evidence a real
Enrich refusal leaves, which failures are checked and when, what a check records, and
the one transaction that returns a resolved failure to pending. The resolver is the
test's own table: never DNS (``localhost`` below is the hosts file, not the network)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from jobctrl.domain import errors
from jobctrl.domain import public_fetch as rules
from jobctrl.domain.availability import Availability
from jobctrl.stages.context import StageContext
from jobctrl.stages.enrich import enrich
from jobctrl.store import availability, events, jobs, public_fetch, stage_states
from jobctrl.worker.public_fetch_recovery import recheck_public_fetch
from tests.support.clock import WallClock
from tests.support.http import Route, posting_html

PUBLIC, PRIVATE = "93.184.216.34", "10.1.2.3"
HOST = "jobs.example.test"
POSTING = posting_html("Platform Engineer", "Recheck Co", ["Go"])


class Table:
    """The test's resolver: host -> addresses, changed as the test goes."""

    def __init__(self, **table: list[str]) -> None:
        self.table = {k.replace("_", "."): v for k, v in table.items()}
        self.asked: list[str] = []

    def __call__(self, host: str, port: int) -> list[str]:
        self.asked.append(host)
        return list(self.table.get(host, []))


@pytest.fixture
def clock() -> WallClock:
    return WallClock(datetime.now(UTC))


@pytest.fixture
def ctx(home, store, clock):
    context = StageContext(home=home, store=store, clock=clock)
    yield context
    context.close()


def _refused(store, clock, n: int | str, host: str = HOST) -> str:
    """A job whose Enrich was refused: ``host`` resolved to a non-public address."""
    job_id = jobs.create_job(store, f"https://{host}/jobs/{n}").job_id
    claim = stage_states.claim_stage(store, job_id, "enrich", "run-prep", clock=clock)
    error = rules.UnsafeAddressError(host, rules.DNS_NON_PUBLIC)
    stage_states.fail_stage(store, job_id, "enrich", "run-prep", claim.attempt, error, clock=clock)
    return job_id


def _row(store, job_id: str) -> dict:
    return next(r for r in stage_states.stage_rows(store, job_id) if r["stage"] == "enrich")


def _events(store, type_: str, job_id: str) -> list[dict]:
    return [e["payload"] for e in events.job_events(store, job_id) if e["type"] == type_]


async def _pass(ctx, settings, resolver) -> int:
    return await recheck_public_fetch(ctx, settings.all(), resolver=resolver)


def test_a_real_enrich_refusal_records_its_typed_evidence(home, store, site, ctx) -> None:
    url = site.add("/jobs/local", Route(body=POSTING))
    by_name = jobs.create_job(store, url.replace("127.0.0.1", "localhost")).job_id
    literal = jobs.create_job(store, url).job_id  # a private literal: never rechecked

    for job_id in (by_name, literal):
        with pytest.raises(errors.StageError) as refused:
            enrich(ctx, job_id, "run-prep")
        assert refused.value.code == errors.DETAIL_UNSAFE_URL

    evidence = public_fetch.evidence(store, by_name)
    assert evidence is not None
    assert (evidence["cause"], evidence["host"]) == (rules.DNS_NON_PUBLIC, "localhost")
    assert (evidence["run_id"], evidence["attempt"], evidence["checks"]) == ("run-prep", 1, 0)
    assert public_fetch.evidence(store, literal) is None
    [failed] = _events(store, "StageFailed", by_name)
    assert failed["errorCode"] == errors.DETAIL_UNSAFE_URL and failed["retryable"] is False


async def test_a_failure_is_checked_after_a_minute_then_with_backoff_five_times_at_most(
    store, settings, ctx, clock
) -> None:
    job_id = _refused(store, clock, 1)
    resolver = Table(jobs_example_test=[PRIVATE])
    clock.advance(timedelta(seconds=59))
    assert await _pass(ctx, settings, resolver) == 0
    assert resolver.asked == [], "not before a minute"

    delays = [60, 120, 240, 480, 960]
    clock.advance(timedelta(seconds=1))
    for n, delay in enumerate(delays, start=1):
        assert await _pass(ctx, settings, resolver) == 0
        checks = _events(store, "EnrichmentFetchRechecked", job_id)
        assert len(checks) == n
        clock.advance(timedelta(seconds=delay * 2 - 1))
        assert await _pass(ctx, settings, resolver) == 0
        assert len(_events(store, "EnrichmentFetchRechecked", job_id)) == n, "not yet"
        clock.advance(timedelta(seconds=1))
    clock.advance(timedelta(days=1))
    assert await _pass(ctx, settings, resolver) == 0
    checks = _events(store, "EnrichmentFetchRechecked", job_id)
    assert len(checks) == rules.MAX_CHECKS, "five checks per failure"
    assert [c["checks"] for c in checks] == [1, 2, 3, 4, 5]
    assert checks[0] == {
        "jobId": job_id,
        "errorCode": errors.DETAIL_UNSAFE_URL,
        "cause": rules.DNS_NON_PUBLIC,
        "host": HOST,
        "result": "non_public",
        "checks": 1,
        "nextCheckAt": checks[0]["nextCheckAt"],
    }
    assert checks[-1]["nextCheckAt"] is None  # no more
    assert _row(store, job_id)["state"] == "failed"


async def test_a_host_that_resolves_public_now_returns_the_stage_to_pending(
    store, settings, ctx, clock
) -> None:
    job_id = _refused(store, clock, 1)
    before = _row(store, job_id)
    resolver = Table(jobs_example_test=[PRIVATE])
    clock.advance(timedelta(seconds=61))
    assert await _pass(ctx, settings, resolver) == 0
    resolver.table[HOST] = [PUBLIC]  # the DNS record was fixed
    clock.advance(timedelta(seconds=121))

    assert await _pass(ctx, settings, resolver) == 1

    row = _row(store, job_id)
    assert row["state"] == "pending" and row["error_code"] is None
    assert row["attempts"] == before["attempts"] and row["auto_attempts"] == 0  # kept
    assert _events(store, "StageReset", job_id) == [
        {"jobId": job_id, "stage": "enrich", "reason": "public_fetch_condition_resolved"}
    ]
    [first, second] = _events(store, "EnrichmentFetchRechecked", job_id)
    assert (first["result"], second["result"]) == ("non_public", "public")
    assert second["checks"] == 2 and second["nextCheckAt"] is None
    assert len(_events(store, "StageFailed", job_id)) == 1, "the original failure stays"
    clock.advance(timedelta(days=1))
    assert await _pass(ctx, settings, resolver) == 0, "never checked again"


async def test_an_unresolved_check_leaves_it_blocked(store, settings, ctx, clock) -> None:
    job_id = _refused(store, clock, 1)
    clock.advance(timedelta(seconds=61))
    assert await _pass(ctx, settings, Table()) == 0  # the name does not resolve at all
    [check] = _events(store, "EnrichmentFetchRechecked", job_id)
    assert check["result"] == "unresolved" and check["nextCheckAt"] is not None
    assert _row(store, job_id)["state"] == "failed"


async def test_at_most_five_failures_are_checked_per_pass(store, settings, ctx, clock) -> None:
    ids = []
    for n in range(7):
        ids.append(_refused(store, clock, n))
        clock.advance(timedelta(seconds=1))
    resolver = Table(jobs_example_test=[PRIVATE])
    clock.advance(timedelta(seconds=61))
    await _pass(ctx, settings, resolver)
    checked = [j for j in ids if _events(store, "EnrichmentFetchRechecked", j)]
    assert len(checked) == rules.CANDIDATES_PER_PASS and checked == ids[:5]  # oldest first
    await _pass(ctx, settings, resolver)
    assert all(_events(store, "EnrichmentFetchRechecked", j) for j in ids)


async def test_what_is_never_rechecked(store, settings, ctx, clock) -> None:
    literal = jobs.create_job(store, "https://10.0.0.5/jobs/1").job_id
    claim = stage_states.claim_stage(store, literal, "enrich", "run-prep", clock=clock)
    error = rules.UnsafeAddressError("10.0.0.5", rules.LITERAL_NON_PUBLIC)
    stage_states.fail_stage(store, literal, "enrich", "run-prep", claim.attempt, error, clock=clock)
    untyped = jobs.create_job(store, f"https://{HOST}/jobs/untyped").job_id
    claim = stage_states.claim_stage(store, untyped, "enrich", "run-prep", clock=clock)
    legacy = errors.StageError(errors.DETAIL_UNSAFE_URL, f"{HOST} is not public, it said")
    stage_states.fail_stage(
        store, untyped, "enrich", "run-prep", claim.attempt, legacy, clock=clock
    )
    closed = _refused(store, clock, "closed")
    availability.record_check(store, closed, Availability.UNAVAILABLE, None, clock())
    owned = _refused(store, clock, "owned")
    stage_states.claim_stage(store, owned, "enrich", "run-person", clock=clock)  # a new owner
    superseded = _refused(store, clock, "superseded")
    claim = stage_states.claim_stage(store, superseded, "enrich", "run-later", clock=clock)
    timeout = errors.StageError(errors.ENRICH_TIMEOUT, "no answer", retryable=True)
    stage_states.fail_stage(
        store, superseded, "enrich", "run-later", claim.attempt, timeout, clock=clock
    )
    exhausted = _refused(store, clock, "exhausted")
    with store.write() as tx:
        tx.conn.execute(
            stage_states.S.update()
            .where(stage_states.S.c.tenant_id == tx.tenant, stage_states.S.c.job_id == exhausted)
            .values(auto_attempts=3)  # retry.max_attempts 3: no automatic attempt left
        )

    resolver = Table(jobs_example_test=[PUBLIC])
    clock.advance(timedelta(hours=1))
    assert await _pass(ctx, settings, resolver) == 0

    assert resolver.asked == []
    for job_id in (literal, untyped, closed, owned, superseded, exhausted):
        assert _events(store, "EnrichmentFetchRechecked", job_id) == []
        assert _events(store, "StageReset", job_id) == []


async def test_a_candidate_that_changed_before_its_write_is_left_alone(
    store, settings, ctx, clock
) -> None:
    job_id = _refused(store, clock, 1)
    clock.advance(timedelta(seconds=61))
    [candidate] = public_fetch.due(store, clock(), stage_limit=3)
    stage_states.claim_stage(store, job_id, "enrich", "run-person", clock=clock)  # taken over

    written = public_fetch.settle_check(
        store, candidate, rules.CheckResult.PUBLIC, stage_limit=3, clock=clock
    )

    assert written is None
    assert _row(store, job_id)["state"] == "running"
    assert _events(store, "EnrichmentFetchRechecked", job_id) == []
    assert _events(store, "StageReset", job_id) == []


async def test_nothing_is_checked_while_recovery_is_off(store, settings, ctx, clock) -> None:
    _refused(store, clock, 1)
    settings.set_value("recovery.enabled", False)
    resolver = Table(jobs_example_test=[PUBLIC])
    clock.advance(timedelta(hours=1))
    assert await _pass(ctx, settings, resolver) == 0
    assert resolver.asked == []


async def test_a_refusal_from_before_the_evidence_is_adopted_only_in_its_exact_shape(
    store, settings, ctx, clock
) -> None:
    def legacy(n: str, host: str, message: str) -> str:
        job_id = jobs.create_job(store, f"https://{host}/jobs/{n}").job_id
        claim = stage_states.claim_stage(store, job_id, "enrich", "run-old", clock=clock)
        error = errors.StageError(errors.DETAIL_UNSAFE_URL, message)  # untyped, as before
        stage_states.fail_stage(
            store, job_id, "enrich", "run-old", claim.attempt, error, clock=clock
        )
        assert public_fetch.evidence(store, job_id) is None
        return job_id

    exact = legacy("exact", HOST, f"{HOST} is not a public address")
    literal = legacy("literal", "10.0.0.5", "10.0.0.5 is not a public address")
    other = legacy("other", HOST, f"refused: {HOST} is not a public address")
    resolver = Table(jobs_example_test=[PUBLIC])
    clock.advance(timedelta(seconds=61))

    assert await _pass(ctx, settings, resolver) == 1

    evidence = public_fetch.evidence(store, exact)
    assert evidence is not None and evidence["cause"] == rules.DNS_NON_PUBLIC
    assert (evidence["host"], evidence["run_id"], evidence["attempt"]) == (HOST, "run-old", 1)
    assert _events(store, "StageReset", exact)[0]["reason"] == rules.RESET_REASON
    for job_id in (literal, other):
        assert public_fetch.evidence(store, job_id) is None
        assert _events(store, "EnrichmentFetchRechecked", job_id) == []
        assert _row(store, job_id)["state"] == "failed"


def test_a_legacy_refusal_retried_while_it_is_read_is_not_adopted(
    store, clock, monkeypatch
) -> None:
    """adopt_legacy reads the refusals first and writes under the write lock: a row a
    person retried in between is no longer that refusal, and gets no evidence."""
    job_id = jobs.create_job(store, f"https://{HOST}/jobs/raced").job_id
    claim = stage_states.claim_stage(store, job_id, "enrich", "run-old", clock=clock)
    error = errors.StageError(errors.DETAIL_UNSAFE_URL, f"{HOST} is not a public address")
    stage_states.fail_stage(store, job_id, "enrich", "run-old", claim.attempt, error, clock=clock)
    read = rules.legacy_dns_host

    def retried_meanwhile(message: str | None) -> str | None:
        stage_states.claim_stage(store, job_id, "enrich", "run-new", clock=clock)
        return read(message)

    monkeypatch.setattr(rules, "legacy_dns_host", retried_meanwhile)
    assert public_fetch.adopt_legacy(store, clock=clock) == 0
    assert public_fetch.evidence(store, job_id) is None
    assert _row(store, job_id)["state"] == "running"

"""One live attempt per job: claims of one job racing in threads and in processes —
one wins, the others are refused with APPLY_ATTEMPT_LIVE — and what frees a job again
(a lease that ran out, not a finished claim)."""

from __future__ import annotations

import multiprocessing
import threading
from datetime import timedelta

from jobctrl.domain.apply_loop import CLAIM_LEASE
from jobctrl.domain.clock import utcnow
from jobctrl.store import apply_claims
from tests.support.apply import approved_job, claim_in_process

RULES = {"min_fit_score": 0, "approval_required": True}


def _one_winner(results: list[tuple[str, str | None, str | None]]) -> None:
    winners = [r for r in results if r[1]]
    assert len(winners) == 1, results
    assert {r[2] for r in results if not r[1]} == {"APPLY_ATTEMPT_LIVE"}, results


def test_claims_racing_in_threads_on_one_job_one_wins(home, store, site, fast_settings):
    job_id = approved_job(home, store, site, "/jobs/threads")
    start = threading.Barrier(8)
    results: list[tuple[str, str | None, str | None]] = []

    def claim(owner: str) -> None:
        start.wait()
        outcome = apply_claims.claim(store, job_id, workflow_id=owner, run_id=owner, **RULES)
        results.append((owner, outcome.claim_id, outcome.code))

    threads = [threading.Thread(target=claim, args=(f"thread-{n}",)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)

    assert len(results) == 8
    _one_winner(results)


def test_claims_racing_in_processes_on_one_job_one_wins(home, store, site, fast_settings):
    job_id = approved_job(home, store, site, "/jobs/processes")
    spawn = multiprocessing.get_context("spawn")
    start, out = spawn.Barrier(4), spawn.Queue()
    workers = [
        spawn.Process(
            target=claim_in_process, args=(str(home.root), job_id, f"proc-{n}", start, out)
        )
        for n in range(4)
    ]
    for w in workers:
        w.start()
    results = [out.get(timeout=120) for _ in workers]
    for w in workers:
        w.join(60)
        assert w.exitcode == 0

    _one_winner(results)


def test_a_claim_holds_the_job_until_it_ends_or_its_lease_runs_out(
    home, store, site, fast_settings
):
    job_id = approved_job(home, store, site, "/jobs/lease")
    first = apply_claims.claim(store, job_id, workflow_id="w", run_id="dead-run", **RULES)
    assert first.claim_id
    again = apply_claims.claim(store, job_id, workflow_id="w", run_id="dead-run", **RULES)
    assert again.claim_id == first.claim_id, "a retried activity gets its own claim back"
    later = utcnow() + CLAIM_LEASE + timedelta(seconds=1)

    taken = apply_claims.claim(
        store, job_id, workflow_id="w", run_id="next-run", clock=lambda: later, **RULES
    )

    assert taken.claim_id and taken.claim_id != first.claim_id, "the dead run's lease ran out"
    assert apply_claims.get(store, first.claim_id)["state"] == "released"
    with store.write(clock=lambda: later) as tx:
        apply_claims.ready(tx, taken.claim_id, "app-none")
    assert apply_claims.get(store, taken.claim_id)["state"] == "ready"

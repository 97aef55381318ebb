"""`jobctrl events` prints the whole log, however long, a batch at a time (it stopped
after the first 500)."""

from __future__ import annotations

import json

from jobctrl.store import events, jobs
from tests.support.processes import run_cli


def test_events_prints_every_event_past_the_first_batch(home, store) -> None:
    for n in range(520):
        jobs.create_job(store, f"https://jobs.example.com/events/{n}")
    total = len(events.events_after(store, 0, 100_000))
    assert total > 500

    result = run_cli("events", "--json")

    assert result.returncode == 0, result.stderr
    seqs = [json.loads(line)["seq"] for line in result.stdout.splitlines()]
    assert len(seqs) == total and seqs == sorted(seqs)
    last = jobs.create_job(store, "https://jobs.example.com/events/last").job_id
    mine = run_cli("events", "--json", "--job", last)
    assert [json.loads(line)["jobId"] for line in mine.stdout.splitlines()] == [last]

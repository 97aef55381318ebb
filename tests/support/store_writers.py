"""Store writers in their own process, for the cross-process tests of the store
(tests/integration/test_store_concurrency.py). Each writer opens the store the environment
names (``JOBCTRL_HOME``, ``JOBCTRL_DATABASE_URL``), says it is waiting
(``GO.<pid>.waiting``), waits for the ``GO`` file so that all of them start together,
does its part and prints one JSON line.

    python -m tests.support.store_writers spend GO THREADS PREFIX
    python -m tests.support.store_writers claim GO RUN_ID JOB_ID...
    python -m tests.support.store_writers report GO JOB_ID...
    python -m tests.support.store_writers hold-event GO READY KEY
    python -m tests.support.store_writers append-event GO KEY
    python -m tests.support.store_writers open GO
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

from jobctrl.domain.errors import BudgetExceededError, StageError
from jobctrl.domain.events import WorkflowCanceled
from jobctrl.home import Home
from jobctrl.llm.spend import SpendAuthority, Usage
from jobctrl.store import reports, stage_states
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store


def _wait_for(path: str, timeout: float = 60.0) -> None:
    Path(f"{path}.{os.getpid()}.waiting").touch()  # the test waits for every writer's
    deadline = time.monotonic() + timeout
    while not Path(path).exists():
        if time.monotonic() > deadline:
            raise SystemExit(f"{path} never appeared")
        time.sleep(0.002)


def spend(store: Store, go: str, threads: int, prefix: str) -> dict[str, Any]:
    """``threads`` paid calls at once (gpt-4o, $0.075 each: the most one may cost). While
    its call is in flight each one reads the day's spend plus open reservations: the peak
    it saw."""
    authority = SpendAuthority(store, Settings(store))
    admitted: list[int] = []
    refused: list[int] = []
    peak = [0.0]
    lock = threading.Lock()

    def one(n: int) -> None:
        def call() -> tuple[str, Usage]:
            summary = authority.summary()
            seen = summary["spentUsd"] + summary["openReservations"]["amountUsd"]
            with lock:
                peak[0] = max(peak[0], seen)
            time.sleep(0.01)  # in flight a moment, as a real call is
            return "ok", Usage(10_000, 5_000)  # its worst case: one call too many shows

        try:
            authority.guarded_call(
                lane="score", observation_id=f"{prefix}{n}", provider="openai",
                model="gpt-4o", call=call, input_tokens=10_000, max_output_tokens=5_000,
            )  # fmt: skip
            admitted.append(n)
        except BudgetExceededError:
            refused.append(n)

    workers = [threading.Thread(target=one, args=(n,)) for n in range(threads)]
    _wait_for(go)
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    return {"admitted": len(admitted), "refused": len(refused), "peak": peak[0]}


def claim(store: Store, go: str, run_id: str, job_ids: list[str]) -> dict[str, Any]:
    """Claim the enrich stage of each job for ``run_id``: the attempt number each got."""
    _wait_for(go)
    attempts: dict[str, int] = {}
    for job_id in job_ids:
        try:
            attempts[job_id] = stage_states.claim_stage(store, job_id, "enrich", run_id).attempt
        except StageError:
            attempts[job_id] = -1
    return {"attempts": attempts}


def report(store: Store, go: str, job_ids: list[str]) -> dict[str, Any]:
    _wait_for(go)
    return {"numbers": {job_id: reports.reserve_number(store, job_id) for job_id in job_ids}}


def _event(key: str) -> WorkflowCanceled:
    return WorkflowCanceled(workflow_id=f"wf-{key}", run_id=key)


def hold_event(store: Store, go: str, ready: str, key: str) -> dict[str, Any]:
    """Append an event, say so (``ready``), and commit only once ``go`` appears."""
    with store.write() as tx:
        tx.append(_event(key), key=key)
        seq = tx.appended[-1].seq
        Path(ready).touch()
        _wait_for(go)
    return {"seq": seq}


def append_event(store: Store, go: str, key: str) -> dict[str, Any]:
    """Append an event as soon as ``go`` appears; ``go``.trying says it is about to."""
    _wait_for(go)
    Path(f"{go}.trying").touch()
    with store.write() as tx:
        tx.append(_event(key), key=key)
        seq = tx.appended[-1].seq
    return {"seq": seq, "committed_at": time.monotonic()}


def main(argv: list[str]) -> None:
    command, go, *rest = argv
    if command == "open":  # the first open of an empty database: it migrates
        _wait_for(go)
        Store.open(Home.resolve())
        print(json.dumps({"opened": True}), flush=True)
        return
    store = Store.open(Home.resolve())
    if command == "spend":
        out = spend(store, go, int(rest[0]), rest[1])
    elif command == "claim":
        out = claim(store, go, rest[0], rest[1:])
    elif command == "report":
        out = report(store, go, rest)
    elif command == "hold-event":
        out = hold_event(store, go, rest[0], rest[1])
    elif command == "append-event":
        out = append_event(store, go, rest[0])
    else:
        raise SystemExit(f"unknown command {command}")
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])

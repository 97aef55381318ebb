"""How long a paid call's answer goes unrecorded: from the provider's answer to the commit
that counts its usage (a worker killed inside that window leaves a call the ledger only
knows as a reservation, counted at its worst case).

The provider is the test suite's OpenAI-compatible fake on loopback (the real OpenAI SDK,
HTTP and pydantic-ai in between). Each call goes through ``llm.lanes.call_lane`` as the
Score stage makes it: strict reservation, the call, usage recorded as the response
arrives, then the validated output stored. Times are monotonic, one process.

    .venv/bin/python bench/paid_call.py          # --calls 200
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

from sqlalchemy import event

from jobctrl.config import LaneProvider
from jobctrl.domain.scoring import ScoreReport
from jobctrl.llm.lanes import call_lane
from jobctrl.llm.spend import SpendAuthority
from jobctrl.store.settings import Settings
from support import fresh_home

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the fake lives in tests/
from tests.support.fake_openai import FakeOpenAI

REPORT = {
    "score": 70,
    "verdict": "Good fit",
    "summary": "s",
    "provider": "openai",
    "model": "gpt-4o-mini",
    "requirements": [{"requirement": "Python", "kind": "must", "matched": True}],
}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    _, store = fresh_home("jobctrl-bench-paid-")
    os.environ["BENCH_KEY"] = "sk-bench-not-a-real-key"
    answered: list[float] = []
    commits: list[float] = []
    lock = threading.Lock()

    @event.listens_for(store.writer, "commit")
    def _committed(_conn: Any) -> None:
        with lock:
            commits.append(time.monotonic())

    with FakeOpenAI("ok", REPORT, on_answer=lambda: answered.append(time.monotonic())) as provider:
        lane = LaneProvider(
            provider="openai",
            model="gpt-4o-mini",
            base_url=provider.base_url,
            api_key_env="BENCH_KEY",
        )
        spend = SpendAuthority(store, Settings(store))
        usage_window, output_window, call_ms = [], [], []
        for n in range(args.calls):
            with lock:
                commits.clear()
            start = time.monotonic()
            call_lane(
                spend,
                "score",
                lane,
                job_id=f"job{n}",
                run_id="run",
                attempt=1,
                output_type=ScoreReport,
                system="s",
                prompt=lambda: "p",
                offline=lambda: ScoreReport.model_validate(REPORT),
            )
            call_ms.append(1000 * (time.monotonic() - start))
            after = [c for c in commits if c >= answered[-1]]
            usage_window.append(1000 * (after[0] - answered[-1]))  # the usage commit
            output_window.append(1000 * (after[1] - answered[-1]))  # the output's
    figures = {
        "calls": args.calls,
        "answer_to_usage_commit_ms": {
            "p50": percentile(usage_window, 0.5),
            "p95": percentile(usage_window, 0.95),
            "max": round(max(usage_window), 2),
        },
        "answer_to_output_commit_ms": {
            "p50": percentile(output_window, 0.5),
            "p95": percentile(output_window, 0.95),
            "max": round(max(output_window), 2),
        },
        "whole_call_ms_p50": round(statistics.median(call_ms), 2),
    }
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()

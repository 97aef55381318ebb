"""One Score attempt's paid call in a process of its own (another worker, as far as the
store can tell): ``python -m tests.support.paid_call_child BASE_URL JOB_ID RUN_ID ATTEMPT``.
The home and database come from the environment, as for any jobctrl process. Prints the
report's score, or the error code the call raised."""

from __future__ import annotations

import sys

from jobctrl.config import LaneProvider
from jobctrl.domain.errors import StageError
from jobctrl.home import Home
from jobctrl.llm.answers import ScoreAnswer
from jobctrl.llm.lanes import call_lane
from jobctrl.llm.spend import SpendAuthority
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store
from tests.support.fake_openai import SCORE_REPORT


def main(base_url: str, job_id: str, run_id: str, attempt: str) -> None:
    store = Store.open(Home.resolve())
    lane = LaneProvider(
        provider="openai", model="gpt-4o-mini", base_url=base_url, api_key_env="FAKE_KEY"
    )
    print("asking", flush=True)
    try:
        report = call_lane(
            SpendAuthority(store, Settings(store)), "score", lane,
            job_id=job_id, run_id=run_id, attempt=int(attempt),
            output_type=ScoreAnswer, system="s", prompt=lambda: "p",
            offline=lambda: ScoreAnswer.model_validate(SCORE_REPORT),
        )  # fmt: skip
    except StageError as error:
        print(error.code, flush=True)
        return
    print(report.score, flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])

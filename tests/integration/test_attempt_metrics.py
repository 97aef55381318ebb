"""Operational attempt metrics through the real worker: each stage attempt a preparation
makes is one ``operational_attempt_metrics`` row (its duration, its failure code), folded
from the events like the other projections (a rebuild gives the same rows), and `jobctrl
ops --json` and the Operations page show per stage the day's attempts, p50/p90 seconds
and the most frequent failure codes; the ETA's duration samples are its successes."""

from __future__ import annotations

import asyncio
import collections
import json
from datetime import timedelta

from jobctrl.app.jobs import add_job
from jobctrl.app.projections import rebuild_projections
from jobctrl.domain.clock import utcnow
from jobctrl.store import attempt_metrics
from tests.support.app import app_client
from tests.support.http import Route, posting_html
from tests.support.processes import run_cli

GOOD = posting_html("Senior Python Engineer", "Acme Robotics", ["5+ years of Python"])


def _rows(store) -> list[tuple]:
    return sorted(
        (r["job_id"], r["stage"], r["run_id"], r["attempt"], r["outcome"], r["error_code"],
         r["duration_seconds"])
        for r in attempt_metrics.attempts_since(store, utcnow() - timedelta(days=1))
    )  # fmt: skip


async def test_each_attempt_is_a_metric_row_shown_per_stage_and_rebuilt_the_same(
    home, store, worker, site
):
    good = await add_job(home, site.add("/jobs/m1", Route(body=GOOD)), wait=True)
    gone = await add_job(home, site.base_url + "/gone", wait=True)

    rows = {(r[0], r[1]): r for r in _rows(store)}
    enrich_ok, score_ok = rows[(good.job_id, "enrich")], rows[(good.job_id, "score")]
    assert enrich_ok[4] == score_ok[4] == "succeeded"
    assert enrich_ok[6] is not None and enrich_ok[6] >= 0
    failed = rows[(gone.job_id, "enrich")]
    code = gone.stages[0].error_code
    assert (failed[4], failed[5]) == ("failed", code) and code

    done = await asyncio.to_thread(run_cli, "ops", "--json")
    assert done.returncode == 0, done.stderr
    snap = json.loads(done.stdout)
    today = snap["attemptsToday"]
    # The ETA's duration samples are these rows' successes, stage by stage.
    samples = {stage: e["samples"] for stage, e in snap["eta"]["perStage"].items()}
    ok = collections.Counter(r[1] for r in _rows(store) if r[4] == "succeeded")
    assert samples == {stage: ok[stage] for stage in samples} and samples["enrich"] == 1
    assert set(today) == {"enrich", "score", "tailor", "cover", "pdf"}
    enrich = today["enrich"]
    assert (enrich["attempts"], enrich["succeeded"], enrich["failed"]) == (2, 1, 1)
    assert enrich["topFailures"] == [{"code": code, "count": 1}]
    assert today["score"]["succeeded"] == 1 and today["score"]["p50"] is not None

    text = (await asyncio.to_thread(run_cli, "ops")).stdout
    assert "Attempts today (UTC):" in text and f"failures: {code} x1" in text

    async with app_client(home) as http:
        page = await http.get("/operations")
    assert 'id="ops-attempts"' in page.text and f"<code>{code}</code> ×1" in page.text

    before = _rows(store)
    rebuild_projections(home)
    assert _rows(store) == before

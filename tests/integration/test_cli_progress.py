"""Long CLI waits show progress: plain lines when piped (no escape codes), on stderr when
stdout holds --json; `add` takes several URLs; `add` issued while `jobctrl worker` is
still starting waits for it instead of saying no server runs."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time

from jobctrl.store import schema, tenancy
from tests.support.http import Route, posting_html
from tests.support.processes import JOBCTRL, WorkerProcess, run_cli

ESC = "\x1b"


async def _cli(*args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        JOBCTRL,
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=os.environ.copy(),
    )
    out, err = await asyncio.wait_for(proc.communicate(), 240)
    return proc.returncode or 0, out.decode(), err.decode()


def _postings(site, n: int, prefix: str) -> list[str]:
    return [
        site.add(f"/jobs/{prefix}{i}", Route(body=posting_html(f"SRE {i}", f"Co{i}", ["Go"])))
        for i in range(n)
    ]


async def test_add_several_with_wait_prepares_all_with_plain_progress_and_exits_1_on_a_failure(
    home, store, worker, site, fast_settings
):
    urls = [*_postings(site, 3, "plain"), site.base_url + "/missing"]
    code, out, err = await _cli("add", *urls, "--wait")
    assert code == 1, "one job ended failed: --wait says so in its exit status (issue 30)"
    failed = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(failed) == 1 and "failed at enrich: ENRICH_HTTP_NOT_FOUND" in failed[0], err
    assert ESC not in out and ESC not in err, "piped: no escape codes"
    assert "4/4 jobs finished" in out, "plain progress lines when piped (a failure finishes)"
    assert out.count("added:") == 4
    with store.read() as conn:
        states = conn.execute(
            schema.job_stage_states.select().where(
                tenancy.scoped(schema.job_stage_states, conn),
                schema.job_stage_states.c.stage == "score",
            )
        ).all()
    assert sorted(r.state for r in states) == ["pending", "succeeded", "succeeded", "succeeded"]


async def test_add_several_json_is_a_parseable_list_and_progress_goes_to_stderr(
    home, store, worker, site, fast_settings
):
    urls = _postings(site, 3, "json")
    code, out, err = await _cli("add", *urls, "--wait", "--json")
    assert code == 0, err
    views = json.loads(out)
    assert [v["url"] for v in views] == urls
    assert all({s["stage"]: s["state"] for s in v["stages"]}["score"] == "succeeded" for v in views)
    assert "jobs finished" in err and ESC not in err

    one = site.add("/jobs/one", Route(body=posting_html("SRE", "One", ["Go"])))
    code, out, err = await _cli("add", one, "--json")
    assert code == 0, err
    assert isinstance(json.loads(out), dict), "one URL keeps its one JSON object"


async def test_discover_wait_shows_plain_progress_and_keeps_json_parseable(
    home, store, worker, fast_settings
):
    code, out, err = await _cli("discover", "--wait")
    assert code == 0, err
    assert ESC not in out and ESC not in err
    lines = [line for line in out.splitlines() if line.startswith("discovery ")]
    assert len(lines) >= 2, "progress lines, then the result line"
    assert "completed" in lines[-1]

    code, out, err = await _cli("discover", "--wait", "--json")
    assert code == 0, err
    assert json.loads(out)["status"] == "completed"
    assert "discovery" in err and ESC not in err, "progress on stderr beside --json"


def test_add_right_after_the_worker_starts_waits_for_it(home, site, settings, monkeypatch):
    monkeypatch.delenv("JOBCTRL_TEMPORAL_ADDRESS", raising=False)
    monkeypatch.setenv("JOBCTRL_TASK_QUEUE", f"starting-{time.time_ns()}")
    settings.set_value("fetch.allow_hosts", ["127.0.0.1"])
    settings.set_value("fetch.min_host_interval_seconds", 0.0)
    url = site.add("/jobs/early", Route(body=posting_html("Early Engineer", "E", ["Go"])))

    worker = WorkerProcess()
    try:
        # The worker's server is not up yet, nor does it poll: add waits for both.
        added = run_cli("add", url, "--wait", "--json", timeout=180)
        assert added.returncode == 0, added.stderr
        assert "no Temporal server" not in added.stderr
        view = json.loads(added.stdout)
        assert {s["stage"]: s["state"] for s in view["stages"]}["score"] == "succeeded"
        worker.wait_ready()
    finally:
        assert worker.stop(signal.SIGINT) == 0

    started = time.monotonic()
    refused = run_cli("add", url)
    assert refused.returncode == 2, "with no worker starting, no waiting"
    assert time.monotonic() - started < 10

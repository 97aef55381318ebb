"""The truth check's one repair request is paid once, through `jobctrl worker`.

The Tailor lane's model answers a resume a third of which lies (too much to cut), then,
asked to repair it with the findings, a truthful one. The worker is killed right after the
repair answer is stored; the next worker finishes Tailor from the stored answers — the
first answer and the repair each paid once — keeps the repaired resume, and the job ends
with both PDFs and a check saying the model was asked once to repair it.
"""

from __future__ import annotations

import asyncio
import json

from jobctrl.app.jobs import add_job
from jobctrl.app.lanes import set_lane
from jobctrl.app.queries import show_job
from jobctrl.domain.materials import TailoredResume
from jobctrl.store import materials as stored
from jobctrl.store import truth_checks
from jobctrl.testing import hooks
from tests.support.cited import (
    LIE_MARKERS,
    LYING_RESUME,
    POSTING,
    TRUE_LETTER,
    TRUE_RESUME,
    as_resume,
    is_repair,
    scripted,
)
from tests.support.fake_openai import FakeOpenAI
from tests.support.http import Route
from tests.support.processes import WorkerProcess


async def test_a_worker_killed_after_the_repair_answer_pays_for_it_once(
    home, store, client, task_queue, fast_settings, site, monkeypatch
):
    fast_settings.set_value("min_fit_score", 0)
    fast_settings.set_value("worker.heartbeat_timeout_seconds", 1.5)
    fast_settings.set_value("retry.max_attempts", 3)
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    script = {"resume": LYING_RESUME, "resume_repair": TRUE_RESUME, "letter": TRUE_LETTER}
    with FakeOpenAI("ok", answer=scripted(script)) as provider:
        for lane in ("tailor", "cover"):
            set_lane(home, lane, "openai", "gpt-4o-mini", provider.base_url, "FAKE_KEY")
        url = site.add("/jobs/repair", Route(body=POSTING))
        monkeypatch.setenv(hooks.EXIT_AFTER_PROVIDER_CALL, "tailor:repair")
        first = WorkerProcess()
        first.wait_ready()
        view = await add_job(home, url)
        await asyncio.to_thread(first.proc.wait, 60)
        assert first.proc.returncode == 137, "the worker died right after the repair answer"
        monkeypatch.delenv(hooks.EXIT_AFTER_PROVIDER_CALL)
        second = WorkerProcess()
        try:
            second.wait_ready()
            handle = client.get_workflow_handle(view.workflow_id)
            await asyncio.wait_for(handle.result(), 90)
        finally:
            second.stop(15)
        asked = [("letter" if "paragraphs" in json.dumps(r) else "resume", is_repair(r))
                 for r in provider.requests]  # fmt: skip
    assert sorted(asked) == [("letter", False), ("resume", False), ("resume", True)], (
        "the resume, its repair and the letter: each paid once"
    )

    job = show_job(home, view.job_id)
    stages = {s.stage: s for s in job.stages}
    assert stages["tailor"].state == "succeeded" and stages["tailor"].attempts == 2
    assert stages["pdf"].state == "succeeded"
    resume = stored.latest(store, view.job_id, "resume")
    assert resume is not None and resume["pdf_artifact"]
    assert TailoredResume.model_validate(resume["content"]) == as_resume(TRUE_RESUME)
    assert not [m for m in LIE_MARKERS if m in json.dumps(resume["content"])]
    checks = {c["stage"]: c for c in truth_checks.latest_per_stage(store, view.job_id)}
    assert checks["tailor"]["passed"] and checks["tailor"]["repair_requested"]
    assert checks["tailor"]["attempt"] == 2 and checks["tailor"]["changes"] == []
    assert job.truth_check is not None and job.truth_check.dropped == []

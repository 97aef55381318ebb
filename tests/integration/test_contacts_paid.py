"""Contact research with a paid contact_research lane (issue 33), against a loopback
OpenAI-compatible server: the spend preflight refuses a spent lane before anything is
read, the model's answer keeps only the people and addresses the text shows, and a
retried attempt of the same run reuses the paid answer instead of asking again."""

from __future__ import annotations

from typing import Any

import pytest

from jobctrl.app.lanes import set_lane
from jobctrl.domain.errors import BUDGET_EXCEEDED, StageError
from jobctrl.llm.spend import SpendAuthority, Usage
from jobctrl.stages import contacts
from jobctrl.stages.context import StageContext
from jobctrl.store import contact_research, jobs
from jobctrl.store.settings import Settings
from tests.support.fake_openai import FakeOpenAI

PASTED = (
    "Team notes: Jane Roe is our Technical Recruiter (jane.roe@acme.example). "
    "You would report to Sam Lee, Engineering Manager."
)
ANSWER: dict[str, Any] = {
    "people": [
        {"name": "Jane Roe", "role": "recruiter", "title": "Technical Recruiter",
         "email": "jane.roe@acme.example", "evidence": "Jane Roe is our Technical Recruiter"},
        {"name": "Sam Lee", "role": "hiring_manager", "title": "Engineering Manager",
         "email": "sam@acme.example", "evidence": "an invented sentence"},
        {"name": "Alex Invented", "role": "founder", "title": "CEO", "email": "",
         "evidence": "Alex Invented founded the company"},
    ]
}  # fmt: skip


@pytest.fixture
def paid(home, monkeypatch):
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    with FakeOpenAI("ok", ANSWER) as provider:
        set_lane(home, "contact_research", "openai", "gpt-4o-mini", provider.base_url, "FAKE_KEY")
        yield provider


def _task(store) -> str:
    job = jobs.create_job(store, "https://jobs.acme.example/backend")
    sha = store.artifacts.put(PASTED.encode())
    task, _ = contact_research.new_task(store, job.job_id, "k1", [{"kind": "pasted", "ref": sha}])
    return task.task_id


def test_a_paid_answer_keeps_what_the_text_shows_and_is_reused_by_a_retry(home, store, paid):
    ctx = StageContext(home=home, store=store)
    task_id = _task(store)
    contacts.claim_task(ctx, task_id, "run1")

    assert contacts.research_source(ctx, task_id, "run1", 0, attempt=1) == 2
    # The activity retried after a crash between the answer and its result: no new call.
    assert contacts.research_source(ctx, task_id, "run1", 0, attempt=2) == 2
    assert len(paid.requests) == 1

    found = {c.name: c for c in contact_research.candidate_rows(store, task_id=task_id)}
    assert sorted(found) == ["Jane Roe", "Sam Lee"]  # the invented person is not kept
    assert found["Jane Roe"].email == "jane.roe@acme.example"
    assert found["Sam Lee"].email is None  # an address the text does not show
    assert "report to Sam Lee" in found["Sam Lee"].evidence  # the text's own sentence
    task = contact_research.task_row(store, task_id)
    assert task is not None and task.attempts[0]["provider"] == "openai"


def test_a_spent_lane_refuses_the_run_before_anything_is_read(home, store, paid):
    Settings(store).set_value("lane_token_limits", {"contact_research": 100})
    SpendAuthority(store, Settings(store)).record(
        observation_id="contact_research:earlier:run:1",
        lane="contact_research",
        provider="openai",
        model="gpt-4o-mini",
        usage=Usage(input_tokens=90, output_tokens=20),
    )
    ctx = StageContext(home=home, store=store)
    task_id = _task(store)
    with pytest.raises(StageError) as refused:
        contacts.claim_task(ctx, task_id, "run1")
    assert refused.value.code == BUDGET_EXCEEDED
    assert paid.requests == []
    task = contact_research.task_row(store, task_id)
    assert task is not None and task.status == "queued"

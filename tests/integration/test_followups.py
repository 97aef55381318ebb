"""Follow-ups through the CLI a person runs, against a real SMTP server on loopback
(aiosmtpd, STARTTLS and AUTH): an application with no answer after followup.after_days
is listed; its follow-up replies in the application email's thread and arrives once;
a draft with a claim the profile does not support is refused; a sender killed mid-send
never sends twice; an outcome stops follow-ups; at most followup.max_count of them.

The application goes out with a clock eight days back (the app functions take ``clock``),
so "now" is the real one for the commands that follow.
"""

from __future__ import annotations

import email
import json
import os
import signal
import subprocess
from datetime import UTC, datetime, timedelta
from email import policy

import pytest
from sqlalchemy import select

from jobctrl.app.apply import (
    approve_application,
    prepare_application,
    resolve_application,
    send_application,
)
from jobctrl.app.followups import (
    approve_followup,
    draft_followup,
    list_followups,
    send_followup,
    show_followup,
)
from jobctrl.app.inbox import jobs_inbox
from jobctrl.app.materials import decide_materials
from jobctrl.domain.errors import JobctrlError
from jobctrl.store import schema, tenancy
from jobctrl.store.outbound_tables import outbound_messages as O
from jobctrl.store.settings import Settings
from tests.support.app import app_client
from tests.support.clock import WallClock
from tests.support.materials import prepared_job
from tests.support.processes import JOBCTRL, run_cli
from tests.support.smtp import SmtpServer

TO = "hiring@acme-robotics.example"
SUBJECT = "Application: Senior Backend Engineer – Ada Example"


@pytest.fixture
def smtp(tmp_path, settings: Settings, monkeypatch):
    with SmtpServer(tmp_path) as server:
        settings.set_values(server.settings())
        for key, value in server.client_env().items():
            monkeypatch.setenv(key, value)
        yield server


def _applied(home, store, site, path: str, days_ago: float = 8) -> tuple[str, str]:
    """A job whose application email went out ``days_ago`` days ago: (job id, its
    Message-ID)."""
    job_id = prepared_job(home, store, site, path)
    decide_materials(home, job_id, "approve")
    back = WallClock(datetime.now(UTC) - timedelta(days=days_ago))
    prepare_application(home, job_id, to=[TO], clock=back)
    approve_application(home, job_id, clock=back)
    sent = send_application(home, job_id, clock=back)
    assert sent.status == "sent" and sent.message_id
    return job_id, sent.message_id


def _group(home, job_id: str) -> str:
    """The inbox group the job is in."""
    inbox = jobs_inbox(home)
    return next(g.action for g in inbox.groups for r in g.rows if r.job_id == job_id)


def _json(result: subprocess.CompletedProcess[str]) -> dict:
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _error(result: subprocess.CompletedProcess[str], says: str) -> None:
    assert result.returncode != 0, result.stdout
    assert result.stderr.startswith("error: ") and says in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_a_due_followup_replies_in_the_thread_and_arrives_once(
    home, store, site, fast_settings, smtp
) -> None:
    job_id, original = _applied(home, store, site, "/jobs/followup-once")
    assert _group(home, job_id) == "follow_up"
    listed = _json(run_cli("followups", "--json"))
    assert [(i["jobId"], i["count"]) for i in listed] == [(job_id, 0)]
    assert set(listed[0]) >= {"jobId", "applicationId", "dueAt", "count"}

    draft = _json(run_cli("followups", "draft", job_id, "--json"))
    assert (draft["status"], draft["to"], draft["sequence"]) == ("draft", [TO], 1)
    assert draft["subject"] == f"Re: {SUBJECT}"
    assert draft["inReplyTo"] == original and draft["references"] == original
    assert "follow up on my application" in draft["body"]
    _error(run_cli("followups", "send", job_id), "not approved")
    assert _json(run_cli("followups", "approve", job_id, "--json"))["approvalValid"]
    sent = _json(run_cli("followups", "send", job_id, "--json"))
    assert sent["status"] == "sent"

    assert len(smtp.delivered) == 2  # the application, then its follow-up
    message = email.message_from_bytes(smtp.delivered[1].data, policy=policy.default)
    assert message["Subject"] == f"Re: {SUBJECT}"
    assert message["In-Reply-To"] == original and message["References"] == original
    assert message["Message-ID"] == sent["messageId"] != original
    assert smtp.delivered[1].recipients == [TO]

    _error(run_cli("followups", "send", job_id), "already sent")
    assert len(smtp.delivered) == 2, "never a second follow-up"
    # the next one is due after another interval, not now
    assert _json(run_cli("followups", "--json")) == []
    assert _group(home, job_id) == "applied"
    _error(run_cli("followups", "draft", job_id), "due on")
    with store.read() as conn:  # the log holds ids and codes, never text
        events = select(schema.job_events).where(tenancy.scoped(schema.job_events, conn))
        logged = json.dumps([r.payload for r in conn.execute(events)])
    assert TO not in logged and "follow up on my application" not in logged


def test_a_draft_with_an_unsupported_claim_or_a_referral_is_refused(
    home, store, site, fast_settings, smtp, tmp_path
) -> None:
    job_id, _ = _applied(home, store, site, "/jobs/followup-truth")
    body = draft_followup(home, job_id).body
    for injected, says in (
        ("I led a team of 40 engineers at Google.", "40 engineers"),
        ("Jordan Lee from your team referred me to this role.", "referred"),
    ):
        path = tmp_path / "body.txt"
        path.write_text(body.replace("Thank you for your time.", injected))
        _error(run_cli("followups", "draft", job_id, "--body", str(path)), says)
    shown = show_followup(home, job_id)
    assert shown.body == body, "a refused text is not saved"
    assert approve_followup(home, job_id).approval_valid


def test_an_outcome_stops_followups_and_at_most_max_count_go_out(
    home, store, site, fast_settings, smtp
) -> None:
    stopped, _ = _applied(home, store, site, "/jobs/followup-stopped")
    counted, _ = _applied(home, store, site, "/jobs/followup-counted", days_ago=20)
    assert {i.job_id for i in list_followups(home)} == {stopped, counted}
    draft_followup(home, stopped)
    assert _json(run_cli("applications", "set", stopped, "--outcome", "interview", "--json"))
    assert [i.job_id for i in list_followups(home)] == [counted]
    with pytest.raises(JobctrlError, match="interview"):
        approve_followup(home, stopped)
    with pytest.raises(JobctrlError, match="interview"):
        send_followup(home, stopped)

    Settings(store).set_values({"followup.max_count": 2})
    start = datetime.now(UTC) - timedelta(days=10)
    for n in (1, 2):  # the second one due an interval after the first
        clock = WallClock(start + timedelta(days=8 * (n - 1)))
        assert draft_followup(home, counted, clock=clock).sequence == n
        approve_followup(home, counted, clock=clock)
        assert send_followup(home, counted, clock=clock).status == "sent"
    assert list_followups(home) == []
    with pytest.raises(JobctrlError, match="max_count"):
        draft_followup(home, counted)
    assert len(smtp.delivered) == 4  # two applications, two follow-ups


KILL_POINTS = {"after_intent": "failed", "after_data": "unknown"}


@pytest.mark.parametrize("point", list(KILL_POINTS))
def test_a_followup_sender_killed_mid_send_never_sends_twice(
    point, home, store, site, fast_settings, smtp
) -> None:
    job_id, original = _applied(home, store, site, f"/jobs/followup-kill-{point}")
    draft_followup(home, job_id)
    approve_followup(home, job_id)
    env = {**os.environ, "JOBCTRL_TEST_PAUSE_AT": point}
    proc = subprocess.Popen(
        [JOBCTRL, "followups", "send", job_id], stderr=subprocess.PIPE, text=True, env=env
    )
    assert proc.stderr is not None
    line = proc.stderr.readline()
    assert line.strip() == f"paused at {point}", line + proc.stderr.read()
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)

    status = KILL_POINTS[point]
    result = run_cli("followups", "send", job_id)  # settles the dead sender first
    if status == "unknown":
        _error(result, "may have gone out")
        shown = show_followup(home, job_id)
        assert shown.status == "unknown" and "`jobctrl followups resolve JOB" in shown.next_step
        assert _json(run_cli("followups", "resolve", job_id, "sent", "--json"))["status"] == "sent"
    else:  # nothing went out: this send is the one
        assert result.returncode == 0, result.stderr
    followups = smtp.delivered[1:]
    assert len(followups) == 1, "the follow-up arrives once"
    message = email.message_from_bytes(followups[0].data, policy=policy.default)
    assert message["In-Reply-To"] == original
    _error(run_cli("followups", "send", job_id), "already sent")
    assert len(smtp.delivered) == 2


def test_deleting_a_job_deletes_its_followups(home, store, site, fast_settings, smtp) -> None:
    job_id, _ = _applied(home, store, site, "/jobs/followup-deleted")
    draft_followup(home, job_id)
    assert _json(run_cli("delete", job_id, "--yes", "--json"))
    with store.read() as conn:
        left = conn.execute(select(O.c.id).where(tenancy.scoped(O, conn))).all()
    assert left == [], "its follow-up's address and text go with it"


async def test_the_job_page_offers_a_followup_where_one_is_due_and_the_api_writes_it(
    home, store, site, fast_settings, smtp
) -> None:
    job_id, original = _applied(home, store, site, "/jobs/followup-api")
    async with app_client(home) as client:
        inbox = (await client.get("/jobs")).text
        assert f'href="/jobs/{job_id}#followup"' in inbox
        settings_page = (await client.get("/settings")).text
        assert "Follow-ups per application" in settings_page
        assert "Emails to contacts per day" in settings_page
        page = (await client.get(f"/jobs/{job_id}")).text
        assert "Write a follow-up" in page and f"/v1/followups/{job_id}/draft" in page
        listed = (await client.get("/v1/followups")).json()["items"]
        assert [i["jobId"] for i in listed] == [job_id]
        drafted = await client.post(f"/v1/followups/{job_id}/draft")
        assert drafted.status_code == 200 and drafted.json()["inReplyTo"] == original
        page = (await client.get(f"/jobs/{job_id}")).text
        assert "Approve this follow-up" in page and "Write a follow-up" not in page
        refused = await client.post(f"/v1/followups/{job_id}/send")
        assert refused.status_code == 409
        assert refused.json()["error"]["code"] == "APPLY_NOT_APPROVED"
    assert len(smtp.delivered) == 1  # the application only


def test_a_form_application_is_followed_up_in_a_thread_of_its_own(
    home, store, site, fast_settings, smtp
) -> None:
    job_id = prepared_job(home, store, site, "/jobs/followup-form")
    decide_materials(home, job_id, "approve")
    back = WallClock(datetime.now(UTC) - timedelta(days=8))
    prepare_application(home, job_id, channel="browser", clock=back)
    resolve_application(home, job_id, "submitted", clock=back)
    with pytest.raises(JobctrlError, match="--to"):
        draft_followup(home, job_id)
    draft = draft_followup(home, job_id, to=[TO])
    assert draft.in_reply_to is None and draft.references is None
    assert draft.subject == "Following up on my application: Senior Backend Engineer"
    approve_followup(home, job_id)
    assert send_followup(home, job_id).status == "sent"
    message = email.message_from_bytes(smtp.delivered[0].data, policy=policy.default)
    assert message["In-Reply-To"] is None and message["Subject"] == draft.subject

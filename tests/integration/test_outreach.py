"""Outreach to contacts through the CLI, against a real SMTP server on loopback: an email
grounded in the posting and the profile arrives once; an invented referral or claim is
refused; a note is never sent; the eleventh outreach email of a UTC day is refused
(outreach.max_per_day, 10) and nothing of it reaches the server.
"""

from __future__ import annotations

import email
import json
import subprocess
from datetime import UTC, datetime, timedelta
from email import policy

import pytest
from sqlalchemy import select

from jobctrl.app.outreach import approve_outreach, draft_outreach, send_outreach
from jobctrl.domain.errors import OUTREACH_DAILY_CAP, JobctrlError
from jobctrl.store import contacts, schema, tenancy
from jobctrl.store.outbound_tables import outbound_messages as O
from jobctrl.store.settings import Settings
from tests.support.app import app_client
from tests.support.clock import WallClock
from tests.support.materials import prepared_job
from tests.support.processes import run_cli
from tests.support.smtp import SmtpServer


@pytest.fixture
def smtp(tmp_path, settings: Settings, monkeypatch):
    with SmtpServer(tmp_path) as server:
        settings.set_values(server.settings())
        for key, value in server.client_env().items():
            monkeypatch.setenv(key, value)
        yield server


def _contact(store, job_id: str, n: int = 0, email_: str | None = None) -> str:
    return contacts.add_contact(
        store,
        company="Acme Robotics",
        name="Jane Smith" if n == 0 else f"Jane {'ABCDEFGHIJKLM'[n]}ston",
        role="hiring_manager",
        email=email_ if email_ is not None else f"jane{n}@acme-robotics.example",
        job_id=job_id,
    )


def _json(result: subprocess.CompletedProcess[str]) -> dict:
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _error(result: subprocess.CompletedProcess[str], says: str) -> None:
    assert result.returncode != 0, result.stdout
    assert result.stderr.startswith("error: ") and says in result.stderr, result.stderr


def test_an_outreach_email_arrives_once_and_a_note_is_never_sent(
    home, store, site, fast_settings, smtp, tmp_path
) -> None:
    job_id = prepared_job(home, store, site, "/jobs/outreach-once")
    jane = _contact(store, job_id)
    drafted = _json(run_cli("outreach", "draft", jane, "--job", job_id, "--json"))
    assert drafted["to"] == ["jane0@acme-robotics.example"] and drafted["inReplyTo"] is None
    assert drafted["body"].startswith("Dear Jane Smith,")
    assert drafted["subject"] == "The Senior Backend Engineer role at Acme Robotics"

    invented = tmp_path / "invented.txt"
    for line, says in (
        ("Our mutual friend Sam suggested I write to you.", "connection"),
        ("I have 12 years of experience with Rust.", "12 years"),
    ):
        invented.write_text(drafted["body"].replace("Would you", f"{line} Would you"))
        _error(run_cli("outreach", "edit", jane, "--job", job_id, "--body", str(invented)), says)

    _json(run_cli("outreach", "approve", jane, "--job", job_id, "--json"))
    sent = _json(run_cli("outreach", "send", jane, "--job", job_id, "--json"))
    assert sent["status"] == "sent" and len(smtp.delivered) == 1
    message = email.message_from_bytes(smtp.delivered[0].data, policy=policy.default)
    assert message["Message-ID"] == sent["messageId"] and message["In-Reply-To"] is None
    assert smtp.delivered[0].recipients == ["jane0@acme-robotics.example"]
    _error(run_cli("outreach", "send", jane, "--job", job_id), "already sent")
    _error(run_cli("outreach", "draft", jane, "--job", job_id), "its follow-up is due")
    assert len(smtp.delivered) == 1
    with store.read() as conn:  # third parties' data stays out of the log: ids only
        events = select(schema.job_events).where(tenancy.scoped(schema.job_events, conn))
        logged = json.dumps([r.payload for r in conn.execute(events)])
    assert jane in logged  # the contact by its id
    assert "jane0@" not in logged and "Jane Smith" not in logged and "Dear" not in logged

    noted = _contact(store, job_id, 1, email_="")
    note = _json(
        run_cli("outreach", "draft", noted, "--job", job_id, "--channel", "note", "--json")
    )
    assert note["channel"] == "note" and len(note["body"]) <= 300 and note["to"] == []
    shown = run_cli("outreach", "show", noted, "--job", job_id)
    assert "never sends it" in shown.stdout and note["body"] in shown.stdout
    _error(run_cli("outreach", "approve", noted, "--job", job_id), "never sent by jobctrl")
    _error(run_cli("outreach", "send", noted, "--job", job_id), "never sent by jobctrl")
    assert len(smtp.delivered) == 1

    # removing a contact removes what was written to them, address and text
    assert _json(run_cli("contacts", "remove", jane, "--json"))
    _error(run_cli("outreach", "show", jane, "--job", job_id), "no contact")
    with store.read() as conn:
        left = conn.execute(select(O.c.contact_id).where(tenancy.scoped(O, conn))).scalars()
        assert set(left) == {noted}


def test_the_eleventh_outreach_email_of_a_day_is_refused(
    home, store, site, fast_settings, smtp
) -> None:
    job_id = prepared_job(home, store, site, "/jobs/outreach-cap")
    people = [_contact(store, job_id, n) for n in range(11)]
    for person in people:
        draft_outreach(home, person, job_id)
        approve_outreach(home, person, job_id)
    for person in people[:10]:
        assert send_outreach(home, person, job_id).status == "sent"
    with pytest.raises(JobctrlError, match="max_per_day") as refused:
        send_outreach(home, people[10], job_id)
    assert refused.value.code == OUTREACH_DAILY_CAP
    _error(run_cli("outreach", "send", people[10], "--job", job_id), "outreach.max_per_day")
    assert len(smtp.delivered) == 10, "the eleventh never reaches the server"
    Settings(store).set_values({"outreach.max_per_day": 11})
    assert send_outreach(home, people[10], job_id).status == "sent"


def test_a_sent_outreach_email_is_followed_up_once_in_its_thread(
    home, store, site, fast_settings, smtp
) -> None:
    job_id = prepared_job(home, store, site, "/jobs/outreach-followup")
    jane = _contact(store, job_id)
    back = WallClock(datetime.now(UTC) - timedelta(days=8))
    first = draft_outreach(home, jane, job_id, clock=back)
    approve_outreach(home, jane, job_id, clock=back)
    sent = send_outreach(home, jane, job_id, clock=back)
    followup = _json(run_cli("outreach", "draft", jane, "--job", job_id, "--json"))
    assert followup["sequence"] == 2 and followup["inReplyTo"] == sent.message_id
    assert followup["subject"] == f"Re: {first.subject}"
    assert "follow up on my earlier message" in followup["body"]
    _json(run_cli("outreach", "approve", jane, "--job", job_id, "--json"))
    assert _json(run_cli("outreach", "send", jane, "--job", job_id, "--json"))["status"] == "sent"
    message = email.message_from_bytes(smtp.delivered[1].data, policy=policy.default)
    assert message["In-Reply-To"] == sent.message_id == message["References"]
    _error(run_cli("outreach", "draft", jane, "--job", job_id), "its follow-up is due")
    assert len(smtp.delivered) == 2


async def test_the_job_page_writes_to_a_contact_and_shows_the_message(
    home, store, site, fast_settings, smtp
) -> None:
    job_id = prepared_job(home, store, site, "/jobs/outreach-page")
    jane, quiet = _contact(store, job_id), _contact(store, job_id, 1, email_="")
    async with app_client(home) as client:
        page = (await client.get(f"/jobs/{job_id}")).text
        assert f"/v1/outreach/{jane}/{job_id}/draft" in page and "Write to them" in page
        assert "Write a note to copy" in page
        drafted = await client.post(f"/v1/outreach/{jane}/{job_id}/draft")
        assert drafted.status_code == 200 and drafted.json()["to"] == [
            "jane0@acme-robotics.example"
        ]
        noted = await client.post(f"/v1/outreach/{quiet}/{job_id}/draft", json={"channel": "note"})
        assert noted.json()["channel"] == "note"
        page = (await client.get(f"/jobs/{job_id}")).text
        assert "Approve this email" in page and "Note to copy" in page
        assert "jobctrl never sends a note" in page
        refused = await client.post(f"/v1/outreach/{quiet}/{job_id}/send")
        assert refused.status_code == 400 and "never sent" in refused.text
    assert smtp.delivered == []

"""What an email approval binds besides the message: the job and its posting's URL (the
submit intent names the posting), and a subject the email library can send — a subject
with any line break it refuses is refused at prepare, with its code, never approved."""

from __future__ import annotations

import pytest
from sqlalchemy import update

from jobctrl.app.apply import approve_application, prepare_application, send_application
from jobctrl.app.materials import decide_materials
from jobctrl.domain.applications import approval_digest
from jobctrl.domain.errors import APPLY_APPROVAL_MISMATCH, INVALID_INPUT, JobctrlError
from jobctrl.store import applications, schema
from jobctrl.store.application_tables import applications as application_rows
from jobctrl.store.settings import Settings
from tests.support.http import Route
from tests.support.materials import prepared_job
from tests.support.processes import run_cli
from tests.support.smtp import SmtpServer

TO = "hiring@acme-robotics.example"


@pytest.fixture
def smtp(tmp_path, settings: Settings, monkeypatch):
    with SmtpServer(tmp_path) as server:
        settings.set_values(server.settings())
        for key, value in server.client_env().items():
            monkeypatch.setenv(key, value)
        yield server


def _ready(home, store, site, path: str) -> str:
    job_id = prepared_job(home, store, site, path)
    decide_materials(home, job_id, "approve")
    return job_id


def test_the_approval_binds_the_job_and_its_posting_url(home, store, site, fast_settings, smtp):
    job_id = _ready(home, store, site, "/jobs/bound")
    prepare_application(home, job_id, to=[TO])
    approve_application(home, job_id)
    row = applications.get(store, job_id)
    assert row["url"] and row["approval_digest"]
    base = {
        "application_id": row["id"],
        "sender": smtp.settings()["smtp.from"],
        "to": row["email_to"],
        "subject": row["email_subject"],
        "body": row["email_body"],
        "attachments": row["attachments"],
    }
    assert row["approval_digest"] == approval_digest(**base, job_id=job_id, posting_url=row["url"])
    # The job's posting is replaced after the approval: the intent is refused, nothing sent.
    with store.write() as tx:
        tx.conn.execute(
            update(schema.jobs)
            .where(schema.jobs.c.tenant_id == tx.tenant, schema.jobs.c.id == job_id)
            .values(url=site.add("/jobs/another-posting", Route(body="")))
        )
    with pytest.raises(JobctrlError) as refused:
        send_application(home, job_id)
    assert refused.value.code == APPLY_APPROVAL_MISMATCH
    assert "not the one this message was prepared for" in str(refused.value)
    with pytest.raises(JobctrlError):
        approve_application(home, job_id)
    assert smtp.delivered == []

    prepare_application(home, job_id)  # prepared again: it names the posting as it is now
    approve_application(home, job_id)
    assert send_application(home, job_id).status == "sent"
    assert len(smtp.delivered) == 1


@pytest.mark.parametrize(
    "char", ["\v", "\f", "\x85", "\u2028", "\u2029", "\x1c", "\r", "\n", "\x00"]
)
def test_a_subject_with_a_line_break_is_refused_at_prepare(
    home, store, site, fast_settings, smtp, char
):
    job_id = _ready(home, store, site, f"/jobs/subject-{ord(char)}")
    with pytest.raises(JobctrlError) as refused:
        prepare_application(home, job_id, to=[TO], subject=f"Application{char}Bcc: x@evil.test")
    assert refused.value.code == INVALID_INPUT
    assert f"U+{ord(char):04X}" in str(refused.value)
    assert (
        applications.get(store, job_id) is None
        or not applications.get(store, job_id)["email_subject"]
    ), "nothing was saved"


def test_the_cli_says_why_a_subject_is_refused_and_a_saved_one_is_not_sent(
    home, store, site, fast_settings, smtp
):
    job_id = _ready(home, store, site, "/jobs/subject-cli")
    result = run_cli("apply", "prepare", job_id, "--to", TO, "--subject", "Hello\u2028there")
    assert result.returncode == 1
    assert result.stderr.startswith("error: the subject must be one line") and "U+2028" in (
        result.stderr
    )
    # A subject saved before prepare refused it: approve says so (never an internal error).
    prepare_application(home, job_id, to=[TO])
    with store.write() as tx:
        tx.conn.execute(
            update(application_rows)
            .where(application_rows.c.tenant_id == tx.tenant, application_rows.c.job_id == job_id)
            .values(email_subject="Hello\vthere")
        )
    approve = run_cli("apply", "approve", job_id)
    assert approve.returncode == 1 and "U+000B" in approve.stderr, approve.stderr
    assert "internal" not in approve.stderr
    assert smtp.delivered == []

"""The applications' store and the send's edges, in-process: one live attempt per
application under concurrent starts (and in the schema itself), an edit after approval
withdrawn in the log, a send that stops on an unforeseen error never left live, and the
other two security modes (TLS from the first byte, none on loopback)."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError

from jobctrl.app.apply import approve_application, prepare_application, send_application
from jobctrl.app.apply_views import show_application
from jobctrl.app.materials import decide_materials
from jobctrl.domain.applications import Channel
from jobctrl.domain.errors import APPLY_ATTEMPT_LIVE, SEND_INTERRUPTED, JobctrlError
from jobctrl.stages import smtp_session
from jobctrl.store import applications, apply_attempts, jobs, schema, tenancy
from jobctrl.store.application_tables import apply_attempts as attempts_table
from tests.support.materials import prepared_job
from tests.support.smtp import SmtpServer

TO = "people@acme-robotics.example"


def _application(store, url: str) -> str:
    job = jobs.create_job(store, url)
    with store.write() as tx:
        return str(applications.ensure_for_job(tx, job.job_id, company="Acme")["id"])


def test_concurrent_starts_leave_one_live_attempt(store) -> None:
    app_id = _application(store, "https://jobs.example.com/acme/one-live")
    won, refused = [], []
    barrier = threading.Barrier(8)

    def start() -> None:
        barrier.wait()
        try:
            with store.write() as tx:
                won.append(apply_attempts.start_attempt(tx, app_id, kind="email", owner="x/1/1"))
        except JobctrlError as exc:
            refused.append(exc.code)

    threads = [threading.Thread(target=start) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(won) == 1 and refused == [APPLY_ATTEMPT_LIVE] * 7


def test_the_schema_itself_refuses_a_second_live_attempt(store) -> None:
    app_id = _application(store, "https://jobs.example.com/acme/schema-live")
    with store.write() as tx:
        apply_attempts.start_attempt(tx, app_id, kind="browser", owner="x/1/1")
    with pytest.raises(IntegrityError), store.write() as tx:  # past the store's own check
        tx.conn.execute(
            insert(attempts_table).values(
                tenant_id=tx.tenant, id="att-bypass", application_id=app_id, kind="email",
                state="intent", started_at=tx.now,
            )
        )  # fmt: skip


@pytest.fixture
def ready(home, store, site, fast_settings, tmp_path, monkeypatch):
    """A job with approved PDFs and an approved email, and a STARTTLS server for it."""
    with SmtpServer(tmp_path) as server:
        fast_settings.set_values(server.settings())
        for key, value in server.client_env().items():
            monkeypatch.setenv(key, value)
        job_id = prepared_job(home, store, site, "/jobs/store-edges")
        decide_materials(home, job_id, "approve")
        prepare_application(home, job_id, to=[TO])
        approve_application(home, job_id)
        yield job_id, server


@pytest.mark.parametrize(
    "where, status", [("connect", "failed"), ("send_data", "unknown")], ids=["before", "after"]
)
def test_a_send_stopped_by_an_unforeseen_error_is_never_left_live(
    where, status, home, store, ready, monkeypatch
) -> None:
    job_id, server = ready

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(smtp_session, where, broken)
    with pytest.raises(RuntimeError):
        send_application(home, job_id)
    shown = show_application(home, job_id)
    assert (shown.status, shown.error_code) == (status, SEND_INTERRUPTED)
    assert apply_attempts.live_attempts(store) == [] and server.delivered == []


@pytest.mark.parametrize("mode", ["tls", "none"])
def test_tls_from_the_first_byte_and_none_on_loopback_send(
    mode, home, store, site, fast_settings, tmp_path, monkeypatch
) -> None:
    kwargs = {"implicit_tls": True} if mode == "tls" else {"tls": False}
    with SmtpServer(tmp_path, **kwargs) as server:
        fast_settings.set_values(server.settings())
        for key, value in server.client_env().items():
            monkeypatch.setenv(key, value)
        assert fast_settings.get("smtp.security") == mode
        job_id = prepared_job(home, store, site, f"/jobs/store-{mode}")
        decide_materials(home, job_id, "approve")
        prepared = prepare_application(home, job_id, to=[TO], channel=Channel.EMAIL.value)
        approve_application(home, job_id)
        assert send_application(home, job_id).status == "sent"
        assert len(server.delivered) == 1 and server.delivered[0].recipients == [TO]
        assert prepared.application_id == applications.get(store, job_id)["id"]


def test_an_edit_after_approval_withdraws_it_in_the_log(store) -> None:
    app_id = _application(store, "https://jobs.example.com/acme/withdrawn")
    with store.write() as tx:
        applications.save_email(tx, app_id, to=[TO], subject="s", body="b", attachments=[])
    with store.write() as tx:
        applications.approve(
            tx, app_id, digest="d" * 64, message_id="<m>", expires_at=tx.now + timedelta(minutes=9)
        )
    same = {"to": [TO], "subject": "s", "body": "b", "attachments": []}
    with store.write() as tx:
        assert not applications.save_email(tx, app_id, **same)
    with store.write() as tx:
        applications.save_email(tx, app_id, **{**same, "subject": "s2"})
    with store.read() as conn:
        types = [
            r.type
            for r in conn.execute(
                select(schema.job_events.c.type).where(tenancy.scoped(schema.job_events, conn))
            )
        ]
    assert types[-2:] == ["ApplicationCancelled", "ApplicationPrepared"]
    assert types.count("ApplicationCancelled") == 1, "an unchanged message keeps its approval"
    row = applications.by_id(store, app_id)
    assert row is not None
    assert (row["status"], row["approval_digest"], row["approval_expires_at"]) == (
        "draft",
        None,
        None,
    )

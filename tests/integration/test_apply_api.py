"""The Apply routes and page (httpx against the real app, a real SMTP server on loopback):
the queue, the exact message, edit → approval cleared, approve, send once, the error
bodies, the security middleware on the commands, and the page with its buttons."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from jobctrl.api.app import create_app
from jobctrl.api.security import api_token
from jobctrl.app.materials import decide_materials
from tests.support.materials import prepared_job
from tests.support.smtp import SmtpServer

TO = "jobs@acme-robotics.example"


@pytest.fixture
async def api(home) -> AsyncIterator[httpx.AsyncClient]:
    token = api_token(home.token_path)
    transport = httpx.ASGITransport(app=create_app(home, port=8765))
    async with httpx.AsyncClient(
        transport=transport,
        base_url="http://127.0.0.1:8765",
        headers={"Authorization": f"Bearer {token}"},
    ) as client:
        yield client


@pytest.fixture
def smtp(tmp_path, fast_settings, monkeypatch):
    with SmtpServer(tmp_path) as server:
        fast_settings.set_values(server.settings())
        for key, value in server.client_env().items():
            monkeypatch.setenv(key, value)
        yield server


async def test_the_api_prepares_approves_and_sends_once(home, store, site, smtp, api) -> None:
    job_id = prepared_job(home, store, site, "/jobs/api-email")
    refused = await api.post(f"/v1/apply/{job_id}/prepare", json={"to": [TO]})
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "APPLY_MATERIALS_NOT_APPROVED"
    decide_materials(home, job_id, "approve")

    queue = (await api.get("/v1/apply")).json()["items"]
    assert [q["jobId"] for q in queue] == [job_id] and queue[0]["applicationId"] is None
    assert (await api.get(f"/v1/apply/{job_id}")).json() == {"jobId": job_id, "application": None}

    prepared = (await api.post(f"/v1/apply/{job_id}/prepare", json={"to": [TO]})).json()
    assert (prepared["channel"], prepared["status"], prepared["to"]) == ("email", "draft", [TO])
    approved = (await api.post(f"/v1/apply/{job_id}/approve")).json()
    assert approved["status"] == "approved" and approved["approvalValid"]
    edited = await api.post(f"/v1/apply/{job_id}/prepare", json={"subject": "Hello again"})
    assert edited.json()["status"] == "draft" and not edited.json()["approvalValid"]
    not_approved = await api.post(f"/v1/apply/{job_id}/send")
    assert not_approved.status_code == 409
    assert not_approved.json()["error"]["code"] == "APPLY_NOT_APPROVED"

    await api.post(f"/v1/apply/{job_id}/approve")
    sent = await api.post(f"/v1/apply/{job_id}/send")
    assert sent.status_code == 200 and sent.json()["status"] == "sent"
    assert len(smtp.delivered) == 1
    again = await api.post(f"/v1/apply/{job_id}/send")
    assert again.status_code == 409 and again.json()["error"]["code"] == "APPLY_ALREADY_DONE"
    assert len(smtp.delivered) == 1

    shown = (await api.get(f"/v1/apply/{job_id}")).json()
    assert (shown["status"], shown["subject"]) == ("sent", "Hello again")
    assert (await api.get(f"/v1/jobs/{job_id}")).json()["application"]["status"] == "sent"
    bad = await api.post(f"/v1/apply/{job_id}/resolve", json={"resolution": "maybe"})
    assert bad.status_code == 422


async def test_a_refused_send_is_an_error_body_with_its_code(home, store, site, smtp, api) -> None:
    job_id = prepared_job(home, store, site, "/jobs/api-refused")
    decide_materials(home, job_id, "approve")
    smtp.handler.refuse.add(TO)
    await api.post(f"/v1/apply/{job_id}/prepare", json={"to": [TO]})
    await api.post(f"/v1/apply/{job_id}/approve")
    refused = await api.post(f"/v1/apply/{job_id}/send")
    assert refused.status_code == 502
    body = refused.json()
    assert body["error"]["code"] == "SMTP_RECIPIENT_REFUSED" and body["status"] == "failed"
    assert smtp.delivered == []


async def test_apply_commands_need_the_token_or_the_apps_own_page(home, store, site, smtp):
    job_id = prepared_job(home, store, site, "/jobs/api-security")
    transport = httpx.ASGITransport(app=create_app(home, port=8765))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as c:
        cross = await c.post(
            f"/v1/apply/{job_id}/send",
            headers={"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"},
        )
        assert cross.status_code == 403
        assert (await c.post(f"/v1/apply/{job_id}/approve")).status_code in (401, 403)
        assert (await c.get("/v1/apply")).status_code == 200, "reads need no token"
    assert smtp.delivered == []


async def test_the_apply_page_shows_the_exact_message_and_its_buttons(
    home, store, site, smtp, api
) -> None:
    job_id = prepared_job(home, store, site, "/jobs/api-page")
    decide_materials(home, job_id, "approve")
    empty = await api.get("/apply")
    assert empty.status_code == 200 and "Prepare email" in empty.text
    assert f'data-apply-edit="/v1/apply/{job_id}/prepare"' in empty.text

    await api.post(
        f"/v1/apply/{job_id}/prepare",
        json={"to": [TO], "body": "Dear team,\n<b>not markup</b>\nAda"},
    )
    page = (await api.get("/apply")).text
    assert TO in page and "Ada_Example_Resume_Acme_Robotics_Senior_Backend_Engineer.pdf" in page
    assert "&lt;b&gt;not markup&lt;/b&gt;" in page and "<b>not markup" not in page
    assert f'data-post="/v1/apply/{job_id}/approve"' in page
    assert f'data-post="/v1/apply/{job_id}/send"' not in page, "no send before an approval"
    assert "<script>" not in page.split("</head>", 1)[1], "no inline script (CSP)"
    await api.post(f"/v1/apply/{job_id}/approve")
    live = await api.get("/apply?fragment=main")
    assert f'data-post="/v1/apply/{job_id}/send"' in live.text and "<html" not in live.text
    assert 'data-live="main"' in (await api.get("/apply")).text
    job_page = (await api.get(f"/jobs/{job_id}")).text
    assert "Application" in job_page and "badge-approved" in job_page and TO in job_page

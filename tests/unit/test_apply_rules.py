"""The pure rules of applying: what an approval binds, the Message-ID, which resolutions
fit which status, and the SMTP account and address rules."""

from __future__ import annotations

import pytest

from jobctrl.domain.applications import (
    ApplicationStatus,
    Resolution,
    approval_digest,
    message_id,
    resolution_allowed,
)
from jobctrl.domain.mail import (
    check_security_for_host,
    email_address,
    env_var_name,
    is_loopback_host,
    smtp_host,
)

RESUME = {"kind": "resume", "name": "Ada_Resume.pdf", "sha256": "a" * 64, "size": 10}
BASE = {
    "application_id": "app-000000000001",
    "job_id": "0123456789ab",
    "posting_url": "https://jobs.example/acme/1",
    "sender": "ada@example.org",
    "to": ["hr@acme.example", "cto@acme.example"],
    "subject": "Application",
    "body": "Dear team,",
    "attachments": [RESUME],
}


@pytest.mark.parametrize(
    "change",
    [
        {"sender": "other@example.org"},
        {"to": ["hr@acme.example"]},
        {"subject": "Application!"},
        {"body": "Dear team,\n"},
        {"attachments": [{**RESUME, "sha256": "b" * 64}]},
        {"attachments": [{**RESUME, "name": "Other.pdf"}]},
        {"attachments": []},
        {"application_id": "app-000000000002"},
        {"job_id": "0123456789ac"},
        {"posting_url": "https://jobs.example/acme/2"},
    ],
)
def test_an_approval_binds_every_part_of_the_message(change) -> None:
    assert approval_digest(**{**BASE, **change}) != approval_digest(**BASE)


def test_an_approval_does_not_depend_on_recipient_order_or_case() -> None:
    same = {**BASE, "to": ["CTO@acme.example", "hr@acme.example"]}
    assert approval_digest(**same) == approval_digest(**BASE)


def test_the_message_id_is_deterministic_and_names_the_senders_domain() -> None:
    digest = approval_digest(**BASE)
    first = message_id("app-000000000001", digest, "ada@Example.org")
    assert first == message_id("app-000000000001", digest, "ada@example.org")
    assert first.startswith("<jobctrl.app-000000000001.") and first.endswith("@example.org>")


def test_resolutions_fit_only_their_statuses() -> None:
    assert resolution_allowed(ApplicationStatus.UNKNOWN, Resolution.SENT)
    assert resolution_allowed(ApplicationStatus.UNKNOWN, Resolution.NOT_SENT)
    assert not resolution_allowed(ApplicationStatus.FAILED, Resolution.SENT)
    assert not resolution_allowed(ApplicationStatus.SENT, Resolution.ABANDONED)
    assert resolution_allowed(ApplicationStatus.PREFILLED, Resolution.SUBMITTED)


@pytest.mark.parametrize(
    "raw",
    ["", "ada", "ada@", "Ada <ada@example.org>", "a@b.com, c@d.com", "a@b.com\r\nBcc: x@y.z"],
)
def test_only_one_plain_address_is_an_address(raw) -> None:
    with pytest.raises(ValueError):
        email_address(raw)


def test_none_is_only_for_a_loopback_host() -> None:
    for host in ("127.0.0.1", "localhost", "::1", "127.8.9.10", "mail.localhost"):
        assert is_loopback_host(host) and check_security_for_host("none", host) is None
    for host in ("smtp.gmail.com", "10.0.0.5", "192.168.1.2", "localhost.example.com"):
        assert check_security_for_host("none", host) is not None
        assert check_security_for_host("starttls", host) is None


def test_the_password_setting_is_a_variable_name_and_hosts_are_hosts() -> None:
    assert env_var_name("SMTP_PASSWORD") == "SMTP_PASSWORD"
    for bad in ("hunter2!", "my password", "$SMTP"):
        with pytest.raises(ValueError):
            env_var_name(bad)
    assert smtp_host(" SMTP.Example.com ") == "smtp.example.com"
    with pytest.raises(ValueError):
        smtp_host("smtp.example.com:587")


def test_a_form_drafts_next_step_is_the_browser_not_an_approval() -> None:
    from jobctrl.app.apply_views import FORM_DRAFT_STEP, _next_step  # the rule under test

    assert _next_step("draft", "browser") == FORM_DRAFT_STEP
    assert "approve" in (_next_step("draft", "email") or "")


def test_the_email_draft_names_a_cover_letter_only_when_one_is_attached() -> None:
    from jobctrl.stages.apply_prepare import default_text

    job = {"title": "Backend Engineer", "company": "Acme", "url": "http://127.0.0.1/j"}
    person = {"name": "Ada Example", "email": "ada@example.org", "phone": ""}
    _, both = default_text(job, person)
    _, resume_only = default_text(job, person, with_letter=False)
    assert "resume and cover letter are attached" in both
    assert "My resume is attached" in resume_only and "cover letter" not in resume_only

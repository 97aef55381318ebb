"""Review, edit, approve and send in a real headless Chromium against the app served by
uvicorn: a letter edited on the Job page with a sentence the profile does not support is
saved as written, the reason is shown and Approve is held back; the sentence removed, the
letter passes, Approve changes the buttons and shows the decision; the evaluation report
opens from its link; the email goes out to a real SMTP server (aiosmtpd) with the edited
letter's PDF under a name that carries the role. Screenshots go to test-artifacts/browser/."""

from __future__ import annotations

import email
import os
import time
from email import policy

import pytest
from playwright.async_api import expect

from jobctrl.app.material_edits import material_text
from jobctrl.app.materials import material_files
from jobctrl.store.settings import Settings
from tests.support.app import live_server
from tests.support.browser import CHROMIUM, chromium_page, screenshot
from tests.support.materials import prepared_job
from tests.support.smtp import SmtpServer

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists() and not os.environ.get("JOBCTRL_REQUIRE_BROWSER"),
    reason=f"browser tests need Chromium at {CHROMIUM}",
)

UNSUPPORTED = "I hold a PhD in Astrophysics from the University of Mars."
TO = "hiring@acme-robotics.example"
LETTER = "Ada_Example_Cover_Letter_Acme_Robotics_Senior_Backend_Engineer.pdf"


@pytest.fixture
def smtp(tmp_path, settings: Settings, monkeypatch):
    with SmtpServer(tmp_path) as server:
        settings.set_values(server.settings())
        for key, value in server.client_env().items():
            monkeypatch.setenv(key, value)
        yield server


async def test_edit_a_letter_fix_it_approve_and_send(home, store, site, fast_settings, smtp):
    job_id = prepared_job(home, store, site, "/jobs/browser-edit")
    original = material_text(home, job_id, "letter").text
    lines = original.splitlines()
    with_claim = "\n".join([*lines[:2], UNSUPPORTED, *lines[2:]]) + "\n"
    timings: dict[str, float] = {}
    with live_server(home) as base:
        async with chromium_page() as (page, errors):
            await page.goto(f"{base}/jobs/{job_id}")
            approve = page.get_by_role("button", name="Approve", exact=True)
            await expect(approve).to_be_enabled()

            # The evaluation report is a link that opens the report.
            report = page.locator("#evaluation-report")
            await expect(report).to_have_attribute("href", f"/v1/jobs/{job_id}/report")
            opened = await page.request.get(base + await report.get_attribute("href"))
            assert opened.ok and "Acme Robotics" in await opened.text()

            # Edit the letter with a sentence the profile does not support.
            editor = page.locator("#edit-letter")
            await editor.locator("summary").click()
            area = editor.locator("textarea")
            await expect(area).to_have_value(original)
            await area.fill(with_claim)
            started = time.perf_counter()
            await editor.get_by_role("button", name="Save and check").click()
            blocked = page.locator("#approval-blocked")
            await expect(blocked).to_contain_text(UNSUPPORTED)
            timings["edit → check → PDF → page (blocked)"] = time.perf_counter() - started
            await expect(blocked).to_contain_text("names a degree")
            await expect(approve).to_be_disabled()
            await expect(page.locator("#flash")).to_contain_text("does not support")
            await screenshot(page, "material-edit-blocked")

            # Remove it: the letter passes and Approve is offered again.
            editor = page.locator("#edit-letter")
            if not await editor.evaluate("d => d.open"):
                await editor.locator("summary").click()
            await expect(editor.locator("textarea")).to_have_value(with_claim)
            await editor.locator("textarea").fill(original)
            started = time.perf_counter()
            await editor.get_by_role("button", name="Save and check").click()
            await expect(page.locator("#approval-blocked")).to_have_count(0)
            timings["edit → check → PDF → page (passed)"] = time.perf_counter() - started
            await expect(approve).to_be_enabled()

            # Approve: the buttons change and the decision is shown, without a reload.
            await page.evaluate("window.__same_page = true")
            await approve.click()
            decision = page.locator("#materials-decision")
            await expect(decision).to_contain_text("You approved the resume (generation 1)")
            await expect(decision).to_contain_text("the letter (generation 3)")
            await expect(page.locator("#flash")).to_contain_text("Approved:")
            await expect(page.get_by_role("button", name="Approve", exact=True)).to_have_count(0)
            assert await page.evaluate("window.__same_page === true"), "no full reload"
            await screenshot(page, "material-edit-approved")

            # Apply by email from the Apply page: prepare, approve the message, send.
            await page.goto(f"{base}/apply")
            await page.locator("input[name=to]").first.fill(TO)
            await page.get_by_role("button", name="Prepare email").first.click()
            await page.get_by_role("button", name="Approve this message").first.click()
            await page.get_by_role("button", name="Send").first.click()
            await expect(page.locator("#flash")).to_contain_text("sent")
            assert errors == [], errors

    assert len(smtp.delivered) == 1
    message = email.message_from_bytes(smtp.delivered[0].data, policy=policy.default)
    sent = {
        p.get_filename(): p.get_payload(decode=True) for p in message.walk() if p.get_filename()
    }
    files = {f.kind: f for f in material_files(home, job_id, approved_only=True)}
    assert files["cover"].generation == 3 and files["cover"].name == LETTER
    assert sent[LETTER] == files["cover"].source.read_bytes(), "the edited letter's PDF"
    for what, seconds in timings.items():
        print(f"{what}: {seconds * 1000:.0f} ms")

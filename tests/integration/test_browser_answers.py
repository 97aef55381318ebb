"""The Settings page's saved answers in a real headless Chromium against the app served by
uvicorn: an answer edited on the page lands in config.yaml (comments kept), a bad one is
refused with its reason and nothing is written. Screenshots go to test-artifacts/browser/."""

from __future__ import annotations

import os

import pytest
import yaml
from playwright.async_api import expect

from tests.support.app import live_server
from tests.support.browser import CHROMIUM, chromium_page, screenshot

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists() and not os.environ.get("JOBCTRL_REQUIRE_BROWSER"),
    reason=f"browser tests need Chromium at {CHROMIUM}",
)


def _answers(home) -> dict:
    return yaml.safe_load(home.config_path.read_text())["profile"].get("answers") or {}


async def test_a_saved_answer_edited_on_the_settings_page_changes_config_yaml(home):
    home.config_path.write_text("# kept by the page\n" + home.config_path.read_text())
    with live_server(home) as base:
        async with chromium_page() as (page, errors):
            await page.goto(base + "/settings")
            form = page.locator("form[data-answers]")
            await form.locator("[name=notice_period]").fill("2 months")
            await form.locator("[name=needs_sponsorship]").select_option("false")
            await form.get_by_label("question 1").fill("Are you open to hybrid work?")
            await form.get_by_label("answer 1").fill("Yes, three days a week")
            await form.get_by_role("button", name="Save answers").click()
            await expect(form.locator("output")).to_have_text("saved")

            saved = _answers(home)
            assert (saved["notice_period"], saved["needs_sponsorship"]) == ("2 months", False)
            assert saved["questions"] == [
                {"question": "Are you open to hybrid work?", "answer": "Yes, three days a week"}
            ]
            assert home.config_path.read_text().startswith("# kept by the page\n")

            await page.reload()
            await expect(form.locator("[name=notice_period]")).to_have_value("2 months")
            await expect(form.get_by_label("question 1")).to_have_value(
                "Are you open to hybrid work?"
            )
            before = home.config_path.read_bytes()
            await form.locator("[name=salary_expectation]").fill("x" * 400)
            await form.get_by_role("button", name="Save answers").click()
            await expect(form.locator("output")).to_contain_text("salary_expectation")
            assert home.config_path.read_bytes() == before  # refused: nothing written
            await screenshot(page, "settings-answers")
            refused = "Failed to load resource: the server responded with a status of 4"
            assert all(e.startswith(refused) for e in errors), errors

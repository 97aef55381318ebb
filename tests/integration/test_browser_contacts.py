"""The Job page's People in a real headless Chromium against the app served by uvicorn
and a real worker (issue 33): names pasted into the form are researched, each candidate
shows the sentence it came from, Keep makes it a contact listed on the page."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.async_api import expect

from jobctrl.app.jobs import add_job
from tests.support.app import live_server
from tests.support.browser import CHROMIUM, chromium_page, screenshot
from tests.support.http import Route

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists() and not os.environ.get("JOBCTRL_REQUIRE_BROWSER"),
    reason=f"browser tests need Chromium at {CHROMIUM}",
)
PAGES = Path(__file__).parents[1] / "fixtures" / "contacts" / "pages"


async def test_paste_names_research_them_and_keep_one(home, settings, worker, site):
    settings.set_value("preparation.materials", False)
    body = (PAGES / "p13_plain_posting.html").read_bytes()  # a posting that names nobody
    job_id = (await add_job(home, site.add("/jobs/people", Route(body=body)), wait=True)).job_id
    with live_server(home) as base:
        async with chromium_page() as (page, errors):
            await page.goto(f"{base}/jobs/{job_id}")
            people = page.locator("#people")
            await people.locator("textarea[name=paste]").fill(
                "Marta Kowalczyk - CEO\nLucas Moreau - VP Engineering\n"
            )
            await people.get_by_role("button", name="Find the people behind this posting").click()
            marta = people.locator("li", has_text="Marta Kowalczyk")
            await expect(marta).to_be_visible(timeout=30_000)
            await expect(marta.locator("blockquote")).to_have_text("Marta Kowalczyk - CEO")
            await marta.get_by_role("button", name="Keep").click()
            await expect(people.locator("ul.contacts")).to_contain_text("Marta Kowalczyk")
            await expect(people.locator("ul.candidates")).not_to_contain_text("Marta Kowalczyk")
            await screenshot(page, "job-people")
            assert errors == []

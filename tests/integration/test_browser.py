"""The web pages in a real headless Chromium against the app served by uvicorn, with a real
worker: pages update from the event stream without a reload, and their buttons and forms
drive the JSON API. Screenshots go to test-artifacts/browser/."""

from __future__ import annotations

import os
import re

import pytest
from playwright.async_api import Page, expect

from jobctrl.app.jobs import add_job
from jobctrl.store.settings import Settings
from tests.support.app import live_server
from tests.support.browser import CHROMIUM, chromium_page, screenshot
from tests.support.http import Route, posting_html

# CI sets JOBCTRL_REQUIRE_BROWSER (and installs Chromium): there a missing browser fails.
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists() and not os.environ.get("JOBCTRL_REQUIRE_BROWSER"),
    reason=f"browser tests need Chromium at {CHROMIUM}",
)

GOOD = posting_html(
    "Senior Python Engineer",
    "Acme Robotics",
    ["5+ years of Python", "Experience with PostgreSQL", "Kubernetes and Docker"],
)
LIVE = 60_000  # ms: what a page may take to show what the worker did


async def _no_reload_marker(page: Page) -> None:
    await page.evaluate("window.notReloaded = true")


async def test_a_job_added_on_the_jobs_page_is_scored_without_a_reload(
    home, worker, site, fast_settings
):
    fast_settings.set_value("preparation.materials", False)
    # The posting answers after a moment, so the row is seen before its score arrives.
    url = site.add("/jobs/python.html", Route(body=GOOD, delay=1.0))
    with live_server(home) as base:
        async with chromium_page() as (page, errors):
            await page.goto(base + "/jobs")
            await _no_reload_marker(page)
            await page.fill("#add-job input[name=url]", url)
            await page.click("#add-job button[type=submit]")
            await expect(page.locator("#flash")).to_have_text(re.compile("^Added job"))
            row = page.locator("#inbox tr[data-job]")
            await expect(row).to_have_count(1)
            await expect(row.locator(".score")).to_have_text("–")
            await expect(row.locator(".score")).to_have_text(re.compile(r"^\d+$"), timeout=LIVE)
            await expect(row).to_contain_text("Senior Python Engineer")
            # prepared, so the inbox asks for a review (materials are off here)
            await expect(row).to_have_attribute("data-action", "review", timeout=LIVE)
            assert await page.evaluate("window.notReloaded") is True, "the page was reloaded"
            await screenshot(page, "jobs")

            await row.get_by_role("link", name="Review").click()
            await expect(page.locator("h1")).to_have_text("Senior Python Engineer")
            report = page.locator("table.report tbody tr")
            await expect(report).to_have_count(3)
            await expect(report.first).to_contain_text("5+ years of Python")
            await expect(page.locator(".timeline")).to_contain_text("JobScored")
            await screenshot(page, "job")
            assert errors == [], errors


async def test_a_failed_stage_is_retried_from_the_job_page(home, worker, site, fast_settings):
    fast_settings.set_value("preparation.materials", False)
    view = await add_job(home, site.base_url + "/gone", wait=True)
    with live_server(home) as base:
        async with chromium_page() as (page, errors):
            await page.goto(f"{base}/jobs/{view.job_id}")
            enrich = page.locator("tr", has=page.locator("td", has_text=re.compile("^enrich$")))
            await expect(enrich).to_contain_text("ENRICH_HTTP_NOT_FOUND")
            await _no_reload_marker(page)
            site.add("/gone", Route(body=GOOD))  # the posting is back
            await enrich.get_by_role("button", name="Retry").click()
            await expect(page.locator("#flash")).to_have_text("Retry: requested.")
            await expect(page.locator("h1")).to_have_text("Senior Python Engineer", timeout=LIVE)
            await expect(page.locator("table.report tbody tr")).to_have_count(3, timeout=LIVE)
            assert await page.evaluate("window.notReloaded") is True
            await expect(page.locator(".timeline")).to_contain_text("StageReset")
            assert errors == [], errors


async def test_materials_are_shown_approved_regenerated_and_rejected_on_the_job_page(
    home, worker, site, fast_settings
):
    view = await add_job(home, site.add("/jobs/m", Route(body=GOOD)), wait=True)
    with live_server(home) as base:
        async with chromium_page() as (page, errors):
            await page.goto(f"{base}/jobs/{view.job_id}")
            links = page.get_by_role("link", name="Open PDF")
            await expect(links).to_have_count(2)
            pdf = await page.request.get(base + (await links.first.get_attribute("href") or ""))
            assert pdf.ok and pdf.headers["content-type"] == "application/pdf"
            assert (await pdf.body()).startswith(b"%PDF")
            await expect(page.locator(".viewers object")).to_have_count(2)

            await page.get_by_role("button", name="Approve").click()
            await expect(page.locator("#flash")).to_have_text(
                "Approved: resume generation 1, letter generation 1."
            )
            await expect(page.locator("#materials-decision")).to_contain_text("You approved")
            approvals = page.locator("section", has_text="Materials").locator("tbody .badge")
            await expect(approvals).to_have_text(["approved", "approved"])
            await expect(page.get_by_role("button", name="Approve")).to_have_count(0)

            await page.get_by_role("button", name="Regenerate materials").click()
            await expect(approvals).to_have_count(4, timeout=LIVE)  # generation 2 arrives live
            await page.get_by_role("button", name="Reject").click()
            # cover 1, cover 2, resume 1, resume 2: the approved generation stays accepted
            await expect(approvals).to_have_text(["approved", "rejected"] * 2)
            # The viewers show the accepted generation again, not the rejected newer one.
            await expect(page.locator(".viewers")).to_contain_text("cover, generation 1")
            await page.wait_for_timeout(500)  # let the embedded viewers load (or be refused)
            await screenshot(page, "job-materials")

            assert errors == []
            assert sum("/v1/artifacts/" in f.url for f in page.frames) >= 2


async def test_runs_spend_and_settings_pages_work(home, worker, fast_settings, store):
    with live_server(home) as base:
        async with chromium_page() as (page, errors):
            await page.goto(base + "/runs")
            await expect(page.locator("main")).to_contain_text("No discovery runs yet")
            await _no_reload_marker(page)
            await page.get_by_role("button", name="Start discovery").click()
            await expect(page.locator("#flash")).to_have_text("Start discovery: requested.")
            run = page.locator("article.discovery-run")  # not the apply loop's article
            await expect(run).to_have_count(1, timeout=LIVE)
            await expect(run.locator(".badge")).not_to_have_text("running", timeout=LIVE)
            assert await page.evaluate("window.notReloaded") is True
            await screenshot(page, "runs")

            await page.goto(base + "/spend")
            await expect(page.locator("h1")).to_contain_text("Spend on")
            await expect(page.locator("svg.chart rect")).to_have_count(14)
            await screenshot(page, "spend")

            await page.goto(base + "/settings")
            form = page.locator("form[data-setting='min_fit_score']")
            await form.locator("input").fill("60")
            await form.get_by_role("button", name="Save").click()
            await expect(form.locator("output")).to_have_text("saved")
            assert Settings(store).get("min_fit_score") == 60
            await form.locator("input").fill("500")
            await form.get_by_role("button", name="Save").click()
            await expect(form.locator("output")).to_have_text(re.compile("0 to 100"))
            await page.get_by_text("Advanced", exact=True).click()  # operator settings
            hosts = page.locator("form[data-setting='fetch.allow_hosts']")
            await hosts.locator("input").fill("intranet.local, 127.0.0.1")
            await hosts.get_by_role("button", name="Save").click()
            await expect(hosts.locator("input")).to_have_value("127.0.0.1, intranet.local")
            assert Settings(store).get("fetch.allow_hosts") == ["127.0.0.1", "intranet.local"]
            await screenshot(page, "settings")
            refused = "Failed to load resource: the server responded with a status of 400"
            assert [e.split(" (")[0] for e in errors] == [refused], "only the refused value"

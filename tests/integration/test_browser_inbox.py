"""The Jobs inbox in a real headless Chromium against the app served by uvicorn: the
groups in order (the folded ones folded), a follow-up due after the days set (the
application stamped by an injected clock), a closed posting said in words, a posting on
two boards shown once, and hiding, checking and deleting from the buttons.

Jobs are read and scored by running Enrich and Score directly (no worker needed)."""

from __future__ import annotations

import asyncio
import os
import re
from datetime import UTC, datetime, timedelta

import pytest
from playwright.async_api import expect
from sqlalchemy import update

from jobctrl.stages.context import StageContext
from jobctrl.stages.enrich import enrich
from jobctrl.stages.score import score
from jobctrl.store import applications, jobs, schema, tenancy
from jobctrl.store.application_tables import applications as A
from tests.support.app import live_server
from tests.support.browser import CHROMIUM, chromium_page, screenshot
from tests.support.http import Route, posting_html

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists() and not os.environ.get("JOBCTRL_REQUIRE_BROWSER"),
    reason=f"browser tests need Chromium at {CHROMIUM}",
)


def _prepare(home, store, site, path: str, title: str, company: str, *, bar: int = 0) -> str:
    StageContext(home=home, store=store).settings.set_value("min_fit_score", bar)
    body = posting_html(title, company, ["5+ years of Python", "Experience with PostgreSQL"])
    job = jobs.create_job(store, site.add(path, Route(body=body)))
    ctx = StageContext(home=home, store=store)
    try:
        enrich(ctx, job.job_id, "run-browser-inbox")
        score(ctx, job.job_id, "run-browser-inbox", materials=False)
    finally:
        ctx.close()
    return job.job_id


def _listed(store, job_id: str, kind: str, url: str) -> None:
    with store.write() as tx:
        tx.conn.execute(
            schema.source_observations.insert().values(
                job_id=job_id, source_kind=kind, source_name=kind, url=url,
                first_seen_at=tx.now, last_seen_at=tx.now, tenant_id=tx.tenant,
            )
        )  # fmt: skip


async def test_the_inbox_groups_hides_checks_and_deletes_in_the_browser(
    home, store, site, fast_settings
):
    review = _prepare(home, store, site, "/r", "Senior Python Engineer", "Acme")
    twin_a = _prepare(home, store, site, "/board-a/7", "Platform Engineer", "Globex")
    twin_b = _prepare(home, store, site, "/board-b/7", "Platform Engineer", "Globex")
    _listed(store, twin_a, "greenhouse", site.base_url + "/board-a/7")
    _listed(store, twin_b, "lever", site.base_url + "/board-b/7")
    closed = _prepare(home, store, site, "/c", "Data Engineer", "Initech")
    site.add("/c", Route(status=404, body=b"gone"))
    applied = _prepare(home, store, site, "/f", "Backend Engineer", "Umbrella")
    eight_days_ago = datetime.now(UTC) - timedelta(days=8)
    with store.write(clock=lambda: eight_days_ago) as tx:  # the injected clock: applied then
        app = applications.ensure_for_job(tx, applied)
        tx.conn.execute(
            update(A)
            .where(A.c.id == app["id"], tenancy.scoped(A, tx.conn))
            .values(status="sent", applied_at=tx.now)
        )
    low = _prepare(home, store, site, "/low", "Pastry Chef", "Bakery", bar=100)
    fast_settings.set_value("min_fit_score", 50)
    fast_settings.set_value("followup.after_days", 7)

    with live_server(home) as base:
        async with chromium_page() as (page, errors):
            # The closed posting: checked from its page's button
            await page.goto(f"{base}/jobs/{closed}")
            await page.get_by_role("button", name="Check now").click()
            await expect(page.locator("#flash")).to_have_text("Check now: requested.")
            await expect(page.locator("#availability")).to_contain_text(
                "The posting is no longer online", timeout=10_000
            )

            await page.goto(base + "/jobs")
            groups = page.locator("details.inbox-group")
            await expect(groups).to_have_count(4)
            order = [await g.get_attribute("data-group") for g in await groups.all()]
            assert order == ["review", "follow_up", "not_a_fit", "closed"], order
            for action, folded in (("review", False), ("not_a_fit", True), ("closed", True)):
                opened = await page.locator(f'details[data-group="{action}"]').get_attribute("open")
                assert (opened is None) == folded, action
            follow = page.locator(f'details[data-group="follow_up"] tr[data-job="{applied}"]')
            await expect(follow).to_contain_text("Applied 8 days ago with no answer yet")
            await expect(follow.get_by_role("link", name="Follow up")).to_be_visible()
            closed_group = page.locator('details[data-group="closed"]')
            await closed_group.locator(":scope > summary").click()
            await expect(closed_group.locator(f'tr[data-job="{closed}"]')).to_contain_text(
                "The posting is no longer online"
            )
            not_a_fit = page.locator(f'tr[data-job="{low}"]')
            await expect(not_a_fit).to_contain_text("Below your minimum fit score (50).")
            # a posting on two boards: one row, both boards linked
            twins = page.locator("#inbox tr[data-job]").filter(has_text="Platform Engineer")
            await expect(twins).to_have_count(1)
            await expect(twins.locator(".sources a")).to_have_count(2)
            for board in ("greenhouse", "lever"):  # each with its own link
                await expect(twins.get_by_role("link", name=board)).to_have_attribute(
                    "href", re.compile(r"/board-[ab]/7$")
                )
            await screenshot(page, "inbox")

            # Not interested, with a reason: the row leaves the inbox without a reload
            row = page.locator(f'#inbox tr[data-job="{review}"]')
            page.once("dialog", lambda d: asyncio.ensure_future(d.accept("too far away")))
            await row.get_by_role("button", name="Not interested").click()
            await expect(page.locator("#flash")).to_have_text("Not interested: requested.")
            await expect(page.locator(f'#inbox tr[data-job="{review}"]')).to_have_count(0)
            await expect(page.get_by_role("link", name="1 hidden job")).to_be_visible()
            await page.get_by_role("link", name="1 hidden job").click()
            await expect(page.locator(f'tr[data-job="{review}"]')).to_contain_text(
                "You said you are not interested"
            )
            hidden_row = page.locator(f'tr[data-job="{review}"]')
            page.once("dialog", lambda d: asyncio.ensure_future(d.dismiss()))  # not now
            await hidden_row.get_by_role("button", name="Delete").click()
            await hidden_row.get_by_role("button", name="Unhide").click()
            await expect(page.locator("#flash")).to_have_text("Unhide: requested.")
            await expect(page.locator(f'tr[data-job="{review}"]')).to_have_count(0)
            await page.goto(base + "/jobs")
            await expect(page.locator(f'#inbox tr[data-job="{review}"]')).to_have_count(1)

            # Delete from the job's page: asked first, then back on the inbox without it
            await page.goto(f"{base}/jobs/{low}")
            page.once("dialog", lambda d: asyncio.ensure_future(d.accept()))
            await page.get_by_role("button", name="Delete").click()
            await expect(page).to_have_url(re.compile(r"/jobs$"))
            await expect(page.locator(f'tr[data-job="{low}"]')).to_have_count(0)
            assert errors == [], errors
    assert jobs.job_row(store, review)  # hidden and back, never deleted

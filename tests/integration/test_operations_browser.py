"""The Operations page in a real headless Chromium: it renders the snapshot and follows
the worker's runtime report live, without a reload (the report changes without an event,
so the page refreshes itself every few seconds)."""

from __future__ import annotations

import os
from datetime import UTC, datetime

import pytest
from playwright.async_api import expect

from tests.integration.test_operations_api import _beat, _drained_world
from tests.support.app import live_server
from tests.support.browser import CHROMIUM, chromium_page, screenshot

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists() and not os.environ.get("JOBCTRL_REQUIRE_BROWSER"),
    reason=f"browser tests need Chromium at {CHROMIUM}",
)


async def test_the_operations_page_follows_the_runtime_without_a_reload(home, store):
    _drained_world(home, store)
    with live_server(home) as base:
        async with chromium_page() as (page, errors):
            await page.goto(base + "/operations")
            await page.evaluate("window.notReloaded = true")
            await expect(page.locator("#ops-phase")).to_contain_text("Source collection complete")
            await expect(page.locator("#ops-eta")).to_contain_text("No ETA")
            await expect(page.locator("#ops-runtime strong")).to_have_text("2")
            _beat(home, store, datetime.now(UTC), slots=7)
            await expect(page.locator("#ops-runtime strong")).to_have_text("7", timeout=15_000)
            assert await page.evaluate("window.notReloaded") is True, "the page was reloaded"
            await screenshot(page, "operations")
            assert errors == [], errors

"""The roles and places discovery looks for, set from the Settings page without editing
YAML (issue 30): `GET`/`PATCH /v1/target-search` and the page's form write config.yaml's
``target_search`` in place, its comments kept; a bad change writes nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from playwright.async_api import expect

from jobctrl.config import load_config
from tests.support.app import app_client, live_server
from tests.support.browser import CHROMIUM, chromium_page, screenshot


@pytest.fixture
async def page(home) -> AsyncIterator[httpx.AsyncClient]:
    async with app_client(home) as c:
        yield c


async def test_roles_and_places_are_set_from_the_settings_page(home, page):
    home.config_path.write_text("# mine, kept\n" + home.config_path.read_text())
    r = await page.patch(
        "/v1/target-search",
        json={"titles": "Backend Engineer, Platform Engineer", "excludeTitles": ["Manager"],
              "locations": ["Berlin", "Remote"], "remote_only": True},
    )  # fmt: skip
    assert r.status_code == 200, r.text
    assert r.json()["titles"] == ["Backend Engineer", "Platform Engineer"]
    target = load_config(home).target_search
    assert (target.exclude_titles, target.locations, target.remote_only) == (
        ["Manager"], ["Berlin", "Remote"], True,
    )  # fmt: skip
    assert home.config_path.read_text().startswith("# mine, kept\n")
    assert (await page.get("/v1/target-search")).json()["locations"] == ["Berlin", "Remote"]
    shown = (await page.get("/settings")).text
    assert (
        'value="Backend Engineer, Platform Engineer"' in shown and 'value="Berlin, Remote"' in shown
    )


@pytest.mark.parametrize(
    "change",
    [{}, {"salary": "lots"}, {"titles": ["x" * 301]}, {"locations": [f"p{i}" for i in range(500)]},
     {"remote_only": "perhaps"}],
    ids=["nothing", "unknown", "too-long", "too-many", "not-a-boolean"],
)  # fmt: skip
async def test_a_bad_change_is_refused_and_writes_nothing(home, page, change):
    before = home.config_path.read_bytes()
    r = await page.patch("/v1/target-search", json=change)
    assert r.status_code in (400, 422) and r.json()["error"]["code"] == "invalid_input", r.text
    assert home.config_path.read_bytes() == before


@pytest.mark.skipif(not CHROMIUM.exists(), reason=f"needs Chromium at {CHROMIUM}")
async def test_the_settings_page_form_saves_roles_and_places_in_chromium(home):
    with live_server(home) as base:
        async with chromium_page() as (browser, errors):
            await browser.goto(base + "/settings")
            form = browser.locator("form[data-target-search]")
            await form.get_by_label("Roles you look for").fill("Data Engineer, Analytics Engineer")
            await form.get_by_label("Places").fill("Leeds")
            await form.get_by_label("Remote only").select_option("true")
            await form.get_by_role("button", name="Save roles and places").click()
            await expect(form.locator("output")).to_have_text("saved")
            target = load_config(home).target_search
            assert target.titles == ["Data Engineer", "Analytics Engineer"]
            assert (target.locations, target.remote_only) == (["Leeds"], True)
            await screenshot(browser, "settings-target-search")
            assert errors == []

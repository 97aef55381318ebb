"""The jobctrl browser extension loaded in Debian's Chromium (headless, a persistent
profile: extensions need one), and the few ways a test reaches into it: the service
worker (chrome.* calls, its ``self.jobctrl`` functions), a tab's id and badge, and the
popup opened as a page for a given tab (``popup.html?tab=ID``)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.async_api import BrowserContext, Page, Worker, async_playwright

import jobctrl
from tests.support.browser import CHROMIUM, CHROMIUM_ARGS

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "extension"
EXTENSION = (
    Path(jobctrl.__file__).resolve().parent / "extension"
)  # what `jobctrl extension path` prints
EXTRACT_JS = EXTENSION / "extract.js"


def fixture_page(name: str) -> bytes:
    """A fixture page of tests/fixtures/extension (written for these tests)."""
    return (FIXTURES / name).read_bytes()


@dataclass
class LoadedExtension:
    context: BrowserContext
    worker: Worker
    id: str
    errors: list[str]

    async def call(self, expression: str, arg: Any = None) -> Any:
        """Evaluates ``expression`` (a function of one argument) in the service worker."""
        return await self.worker.evaluate(expression, arg)

    async def storage(self) -> dict[str, Any]:
        return await self.call("() => chrome.storage.local.get(null)")

    async def set_storage(self, values: dict[str, Any]) -> None:
        await self.call("(v) => chrome.storage.local.set(v)", values)

    async def clear_storage(self) -> None:
        await self.call("() => chrome.storage.local.clear()")

    async def tab_id(self, url: str) -> int:
        """The id of the open tab showing ``url``."""
        tabs = await self.call("() => chrome.tabs.query({})")
        found = [t["id"] for t in tabs if t.get("url") == url]
        assert found, f"no tab shows {url}: {[t.get('url') for t in tabs]}"
        return int(found[-1])

    async def tab_urls(self) -> list[str]:
        return [t.get("url", "") for t in await self.call("() => chrome.tabs.query({})")]

    async def badge(self, tab_id: int) -> str:
        return str(await self.call("(id) => chrome.action.getBadgeText({tabId: id})", tab_id))

    async def popup(self, tab_id: int | None = None) -> Page:
        """The popup as a page, acting on ``tab_id`` (or on no page at all)."""
        page = await self.context.new_page()
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        query = f"?tab={tab_id}" if tab_id is not None else ""
        await page.goto(f"chrome-extension://{self.id}/popup.html{query}")
        return page

    async def open(self, url: str) -> tuple[Page, int]:
        """A tab showing ``url``, and its id."""
        page = await self.context.new_page()
        await page.goto(url)
        return page, await self.tab_id(page.url)


@asynccontextmanager
async def extension_browser(profile: Path) -> AsyncIterator[LoadedExtension]:
    """Chromium with the extension of the package loaded, its profile in ``profile``."""
    folder = str(EXTENSION)
    async with async_playwright() as p:
        context = await p.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(CHROMIUM),
            headless=True,
            args=[
                *CHROMIUM_ARGS,
                f"--disable-extensions-except={folder}",
                f"--load-extension={folder}",
            ],
        )
        try:
            workers = context.service_workers
            worker = workers[0] if workers else await context.wait_for_event("serviceworker")
            ext_id = worker.url.split("/")[2]
            yield LoadedExtension(context, worker, ext_id, [])
        finally:
            await context.close()


async def run_extract(page: Page, html: bytes, url: str) -> dict[str, Any]:
    """The extension's extractor run on ``html`` as if it were served at ``url``."""
    await page.set_content(html.decode())
    await page.add_script_tag(path=str(EXTRACT_JS))
    result = await page.evaluate("(u) => JSON.stringify(jobctrlExtract(document, u))", url)
    return dict(json.loads(result))

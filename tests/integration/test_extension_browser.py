"""The browser extension (src/jobctrl/extension) in Debian's Chromium: its extractors on
pages shaped like LinkedIn, Indeed, Greenhouse, Lever, Ashby, Workable, a JSON-LD page and
any other page; pairing, saving, the badge, revocation and hostile content through its
popup; and the background loop that opens a page jobctrl is waiting for.

One Chromium (headless, the extension loaded) serves the whole module.
"""

from __future__ import annotations

import os

import pytest
from playwright.async_api import expect

from tests.support.browser import CHROMIUM
from tests.support.extension import extension_browser, fixture_page, run_extract
from tests.support.loopback import LoopbackServer, Request, Response

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists() and not os.environ.get("JOBCTRL_REQUIRE_BROWSER"),
    reason=f"browser tests need Chromium at {CHROMIUM}",
)


@pytest.fixture(scope="module")
async def ext(tmp_path_factory):
    expect.set_options(timeout=5000)
    async with extension_browser(tmp_path_factory.mktemp("chromium-profile")) as loaded:
        loaded.context.set_default_timeout(5000)
        yield loaded


@pytest.fixture(scope="module")
async def scratch(ext):
    page = await ext.context.new_page()
    yield page
    await page.close()


EXTRACTED = [
    (
        "linkedin_signed_in.html",
        "https://www.linkedin.com/jobs/view/4001/",
        dict(
            site="linkedin",
            title="Senior Python Engineer",
            company="Nordwind Logistics",
            location="Hamburg, Germany",
            applyOnSite=True,
            signInWall=False,
        ),
        ["5+ years of Python", "Hybrid: three days a week in Hamburg."],
    ),
    (
        "indeed_viewjob.html",
        "https://de.indeed.com/viewjob?jk=8a1b",
        dict(
            site="indeed",
            title="Data Engineer",
            company="Rheinwerk Analytics",
            location="50667 Köln",
            applyOnSite=True,
        ),
        ["Look after our dbt models", "3+ years as a data engineer"],
    ),
    (
        "jsonld.html",
        "https://fjord.example/careers/backend",
        dict(
            site="generic",
            title="Backend Developer (Go/Python)",
            company="Fjord Health AS",
            location="Oslo, NO; Remote",
        ),
        ["We build software for clinics.", "gRPC APIs"],
    ),
    (
        "greenhouse.html",
        "https://boards.greenhouse.io/polaris/jobs/77",
        dict(
            site="greenhouse",
            title="Site Reliability Engineer",
            company="Polaris Robotics",
            location="Remote (EU)",
        ),
        ["Keep our fleet's control plane up.", "Terraform"],
    ),
    (
        "lever.html",
        "https://jobs.lever.co/lumen/5b1f",
        dict(site="lever", title="Frontend Engineer", company="Lumen Labs", location="Lisbon"),
        ["Lumen Labs makes lighting software.", "Accessibility first"],
    ),
    (
        "ashby.html",
        "https://jobs.ashbyhq.com/quanta/91",
        dict(site="ashby", title="ML Engineer", company="Quanta Grid", location="Amsterdam"),
        ["Forecast grid load.", "Time series"],
    ),
    (
        "workable.html",
        "https://apply.workable.com/tallinn-games/j/AB12/",
        dict(
            site="workable",
            title="QA Engineer",
            company="Tallinn Games",
            location="Tallinn, Harju County, Estonia",
        ),
        ["Test our mobile games.", "Appium", "Free lunch."],
    ),
    (
        "generic.html",
        "https://birchwood.example/jobs/support",
        dict(site="generic", title="Support Engineer", company="Birchwood Tools", location=""),
        ["Help carpenters get the most", "Clear writing"],
    ),
]


@pytest.mark.parametrize(("name", "url", "fields", "said"), EXTRACTED, ids=lambda v: str(v)[:12])
async def test_the_extractors_read_each_site_shape(scratch, name, url, fields, said):
    capture = await run_extract(scratch, fixture_page(name), url)
    for key, value in fields.items():
        assert capture[key] == value, (key, capture[key])
    for words in said:
        assert words in capture["description"]
    assert capture["url"] == url
    assert "Newsletter" not in capture["description"]  # the generic page's aside is left out
    assert "Imprint" not in capture["description"]


async def test_a_linkedin_page_behind_its_sign_in_wall_gives_no_description(scratch):
    capture = await run_extract(
        scratch, fixture_page("linkedin_guest.html"), "https://www.linkedin.com/jobs/view/4001/"
    )
    assert capture["signInWall"] is True
    assert capture["description"] == ""
    assert capture["title"] == "Senior Python Engineer"
    assert capture["company"] == "Nordwind Logistics"


async def test_a_posting_is_known_by_its_markup_on_any_host(scratch):
    capture = await run_extract(
        scratch, fixture_page("indeed_viewjob.html"), "http://127.0.0.1:9/viewjob?jk=1"
    )
    assert capture["site"] == "indeed"
    assert capture["company"] == "Rheinwerk Analytics"


# -- jobctrl's side: a loopback stand-in of the contract until the real routes land -------


class FakeJobctrl:
    """The issue 32 contract on a loopback port: pairing, captures, status and tasks."""

    def __init__(self) -> None:
        self.server = LoopbackServer(fallback=lambda r: Response.json({}, status=404))
        self.codes: set[str] = set()
        self.tokens: dict[str, str] = {}  # token -> name
        self.jobs: dict[str, dict] = {}  # url -> the capture that made it
        self.waiting: list[str] = []
        self.server.on("POST", "/v1/extension/pair", self._pair)
        self.server.on("POST", "/v1/captures", self._capture)
        self.server.on("GET", "/v1/captures/status", self._status)
        self.server.on("GET", "/v1/extension/tasks", self._tasks)
        self.base_url = self.server.base_url

    def make_code(self) -> str:
        code = f"CODE{len(self.codes) + 2}X"
        self.codes.add(code)
        return code

    def revoke(self, name: str) -> None:
        self.tokens = {t: n for t, n in self.tokens.items() if n != name}

    def job(self, url: str) -> dict | None:
        return self.jobs.get(url)

    def _authorised(self, request: Request) -> bool:
        token = request.headers.get("authorization", "").removeprefix("Bearer ")
        return token in self.tokens

    def _pair(self, request: Request) -> Response:
        body = request.json()
        if body.get("code") not in self.codes:
            return Response.json({"error": {"code": "forbidden", "message": "no"}}, status=403)
        self.codes.discard(body["code"])
        token = f"token-{len(self.tokens)}"
        self.tokens[token] = body.get("name") or "Chromium"
        return Response.json({"token": token, "name": self.tokens[token]})

    def _capture(self, request: Request) -> Response:
        if not self._authorised(request):
            return Response.json({"error": {"code": "unauthorized"}}, status=401)
        body = request.json()
        created = body["url"] not in self.jobs
        self.jobs[body["url"]] = body
        if body["url"] in self.waiting:
            self.waiting.remove(body["url"])
        return Response.json({"jobId": f"job-{len(self.jobs)}", "created": created})

    def _status(self, request: Request) -> Response:
        if not self._authorised(request):
            return Response.json({"error": {"code": "unauthorized"}}, status=401)
        url = request.query["url"]
        if url not in self.jobs:
            return Response.json({"known": False})
        n = list(self.jobs).index(url) + 1
        return Response.json({"known": True, "jobId": f"job-{n}", "score": 82,
                              "nextAction": "review"})  # fmt: skip

    def _tasks(self, request: Request) -> Response:
        if not self._authorised(request):
            return Response.json({"error": {"code": "unauthorized"}}, status=401)
        items = [{"jobId": "j", "url": u, "condition": "browser_capture_needed",
                  "errorCode": "enrich_login_wall", "since": "2026-12-07T10:00:00Z"}
                 for u in self.waiting]  # fmt: skip
        return Response.json({"items": items, "enabled": True})


def _site_page(name: str, *, needs_cookie: str | None = None):
    def answer(request: Request) -> Response:
        signed_in = needs_cookie is None or needs_cookie in request.headers.get("cookie", "")
        page = name if signed_in else "linkedin_guest.html"
        return Response.text(fixture_page(page), content_type="text/html; charset=utf-8")

    return answer


@pytest.fixture(scope="module")
def sites():
    with LoopbackServer() as server:
        linkedin = _site_page("linkedin_signed_in.html", needs_cookie="li_at=")
        server.on("GET", "/jobs/view/4001/", linkedin)
        server.on("GET", "/jobs/view/4002/", linkedin)
        server.on("GET", "/viewjob", _site_page("indeed_viewjob.html"))
        server.on("GET", "/careers/backend", _site_page("jsonld.html"))
        server.on("GET", "/jobs/hostile", _site_page("hostile.html"))
        yield server


@pytest.fixture(scope="module")
def jobctrl():
    fake = FakeJobctrl()
    with fake.server:
        yield fake


async def _pair(ext, jobctrl, name="laptop") -> None:
    popup = await ext.popup()
    await popup.fill("#server", jobctrl.base_url)
    await popup.fill("#code", jobctrl.make_code())
    await popup.fill("#name", name)
    await popup.click("#pair-form button")
    await expect(popup.locator("#message")).to_contain_text("Connected")
    await expect(popup.locator("#paired")).to_be_visible()
    await popup.close()


async def test_pairing_saving_the_badge_and_revocation(ext, jobctrl, sites):
    await ext.clear_storage()
    popup = await ext.popup()
    await popup.fill("#server", jobctrl.base_url)
    await popup.fill("#code", "WRONG123")
    await popup.click("#pair-form button")
    await expect(popup.locator("#message")).to_contain_text("That pairing code did not work")
    assert "token" not in await ext.storage()
    await popup.close()
    await _pair(ext, jobctrl)
    stored = await ext.storage()
    assert stored["name"] == "laptop" and stored["token"] in jobctrl.tokens

    # Indeed without JSON-LD: read by its markup, saved, the badge shows the score.
    page, tab = await ext.open(sites.url("/viewjob?jk=8a1b"))
    popup = await ext.popup(tab)
    await expect(popup.locator("#page-status")).to_contain_text("not in jobctrl yet")
    await popup.click("#save")
    await expect(popup.locator("#message")).to_contain_text("Saved.")
    landed = jobctrl.job(page.url)
    assert landed["title"] == "Data Engineer" and landed["company"] == "Rheinwerk Analytics"
    assert "dbt models" in landed["description"] and "jsonld" not in landed
    assert await ext.badge(tab) == "82"
    await expect(popup.locator("#recent li")).to_contain_text("Data Engineer — Rheinwerk")
    await expect(popup.locator("#recent li .state")).to_contain_text("fit 82 · review")
    await popup.close()

    # A JSON-LD page: the posting object travels with the fields read from it.
    page, tab = await ext.open(sites.url("/careers/backend"))
    popup = await ext.popup(tab)
    await popup.click("#save")
    await expect(popup.locator("#message")).to_contain_text("Saved.")
    landed = jobctrl.job(page.url)
    assert landed["jsonld"]["@type"] == "JobPosting"
    assert landed["company"] == "Fjord Health AS"
    await popup.close()

    # Revoked in jobctrl: the popup says so in words and asks to pair again.
    jobctrl.revoke("laptop")
    page, tab = await ext.open(sites.url("/jobs/hostile"))
    popup = await ext.popup(tab)
    await expect(popup.locator("#message")).to_contain_text("no longer connected")
    await expect(popup.locator("#connect")).to_be_visible()
    assert "token" not in await ext.storage()
    assert jobctrl.job(page.url) is None
    await popup.close()
    assert not ext.errors


async def test_a_linkedin_view_is_saved_only_when_the_person_is_signed_in(ext, jobctrl, sites):
    await ext.clear_storage()
    await _pair(ext, jobctrl, name="desk")
    url = sites.url("/jobs/view/4001/")
    page, tab = await ext.open(url)
    popup = await ext.popup(tab)
    await popup.click("#save")
    await expect(popup.locator("#message")).to_contain_text("asks you to sign in")
    assert jobctrl.job(url) is None
    await ext.context.add_cookies([{"name": "li_at", "value": "member", "url": sites.base_url}])
    await page.reload()
    await popup.click("#save")
    await expect(popup.locator("#message")).to_contain_text("Saved.")
    landed = jobctrl.job(url)
    assert (
        landed["company"] == "Nordwind Logistics" and "5+ years of Python" in landed["description"]
    )
    assert "Ada Member" not in landed.get("html", "")  # the member's own header stays home
    await ext.context.clear_cookies()
    await popup.close()
    await page.close()


async def test_hostile_page_text_stays_text_in_the_popup(ext, jobctrl, sites):
    await ext.clear_storage()
    await _pair(ext, jobctrl, name="hostile")
    page, tab = await ext.open(sites.url("/jobs/hostile"))
    popup = await ext.popup(tab)
    await popup.click("#save")
    await expect(popup.locator("#message")).to_contain_text("Saved.")
    title = jobctrl.job(page.url)["title"]
    assert title.startswith("<script>window.pwned=1</script><img src=x")
    await expect(popup.locator("#recent li a").first).to_contain_text("<script>window.pwned=1")
    assert await popup.evaluate("window.pwned") is None
    assert await popup.locator("#recent img").count() == 0
    await popup.close()
    await page.close()


async def test_a_waiting_page_is_opened_in_the_background_read_closed_and_sent(ext, jobctrl, sites):
    await ext.clear_storage()
    await _pair(ext, jobctrl, name="tasks")
    alarm = await ext.call("() => chrome.alarms.get('tasks')")
    assert alarm["periodInMinutes"] == 1  # woken once a minute by an alarm, asleep between
    url = sites.url("/jobs/view/4002/")
    second = sites.url("/viewjob?jk=77c0")
    jobctrl.waiting[:] = [url, second]
    run = "() => self.jobctrl.runNextTask()"
    assert (await ext.call(run))["why"] == "nothing allowed"  # no site allowed yet

    popup = await ext.popup()
    site = popup.locator("#queue li[data-site='127.0.0.1']")
    await expect(site).to_contain_text("127.0.0.1: 2 pages")
    await site.locator("input[type=checkbox]").check()
    assert (await ext.storage())["sites"] == {"127.0.0.1": True}

    # Not signed in to the site: nothing is sent, the popup says to sign in.
    tabs_before = await ext.tab_urls()
    assert (await ext.call(run)) == {"ran": True, "url": url, "ok": False}
    assert jobctrl.job(url) is None and await ext.tab_urls() == tabs_before
    await popup.reload()
    await expect(site).to_contain_text("Sign in to 127.0.0.1 in this browser")

    # At the pace limit the next page waits for an alarm; then, signed in, it is read.
    assert (await ext.call(run))["why"] == "pace"
    assert await ext.call("() => chrome.alarms.get('tasks-next')")
    await ext.context.add_cookies([{"name": "li_at", "value": "member", "url": sites.base_url}])
    await ext.set_storage({"lastTaskAt": 0, "skipped": {}})
    assert (await ext.call(run)) == {"ran": True, "url": url, "ok": True}
    assert "5+ years of Python" in jobctrl.job(url)["description"]
    assert await ext.tab_urls() == tabs_before  # the background tab is closed again

    # The Stop switch: nothing more is opened.
    await popup.locator("#stopped").check()
    await ext.set_storage({"lastTaskAt": 0})
    assert (await ext.call(run))["why"] == "stopped"
    assert jobctrl.job(second) is None
    assert await ext.call("() => chrome.alarms.getAll()") == []
    await ext.context.clear_cookies()
    await popup.close()

"""The browser extension (src/jobctrl/extension) in Debian's Chromium: its extractors on
pages shaped like LinkedIn, Indeed, Greenhouse, Lever, Ashby, Workable, a JSON-LD page and
any other page; pairing, saving, the badge, revocation and hostile content through its
popup; and the background loop that opens a page jobctrl is waiting for.

One Chromium (headless, the extension loaded) serves the whole module; jobctrl is the
real app on a loopback port with a real store (no worker: a saved job keeps its start
intent), and what each step leaves in the store is asserted.
"""

from __future__ import annotations

import os

import pytest
from playwright.async_api import expect
from sqlalchemy import select

from jobctrl.app import captures as app_captures
from jobctrl.app import extension as app_extension
from jobctrl.domain.errors import StageError
from jobctrl.stages.context import StageContext
from jobctrl.stages.enrich import enrich
from jobctrl.stages.score import score
from jobctrl.store import extension_tables, jobs, stage_states, tenancy
from tests.support.app import closed_port_address, live_server
from tests.support.browser import CHROMIUM, screenshot
from tests.support.extension import extension_browser, fixture_page, run_extract
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.waiting import eventually_async

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


@pytest.mark.parametrize(
    ("seen", "saved"),
    [
        ("https://www.linkedin.com/jobs/search/?currentJobId=4001&keywords=python",
         "https://www.linkedin.com/jobs/view/4001/"),
        ("https://de.linkedin.com/jobs/view/senior-python-engineer-at-nordwind-4001?trk=x",
         "https://www.linkedin.com/jobs/view/4001/"),
        ("https://de.indeed.com/jobs?q=data&vjk=8a1b2c", "https://de.indeed.com/viewjob?jk=8a1b2c"),
        ("https://jobs.lever.co/lumen/5b1f?lever-source=x", "https://jobs.lever.co/lumen/5b1f?lever-source=x"),
    ],
)  # fmt: skip
async def test_a_job_beside_search_results_is_saved_as_the_job_s_own_page(ext, seen, saved):
    assert await ext.call("(u) => self.jobctrl.postingAddress(u)", seen) == saved


async def test_the_badge_asks_only_about_job_pages_and_a_site_is_allowed_whole(ext):
    looks = "(u) => self.jobctrl.looksLikePosting(u)"
    for url in (
        "https://www.linkedin.com/jobs/view/1/",
        "https://acme.example/careers/42",
        "https://boards.greenhouse.io/acme/jobs/7",
        "http://127.0.0.1:9/viewjob?jk=1",
    ):
        assert await ext.call(looks, url) is True, url
    for url in ("https://news.example/today", "chrome://settings", "file:///tmp/jobs.html"):
        assert await ext.call(looks, url) is False, url
    pattern = "(u) => self.jobctrl.originPattern(u)"
    assert await ext.call(pattern, "https://www.linkedin.com/jobs/view/1/") == (
        "https://*.linkedin.com/*"
    )
    assert await ext.call(pattern, "http://127.0.0.1:8080/jobs/1") == "http://127.0.0.1/*"


async def test_the_popup_says_when_jobctrl_is_not_running(ext, sites):
    await ext.clear_storage()
    await ext.set_storage({"server": f"http://{closed_port_address()}", "token": "t", "name": "x"})
    page, tab = await ext.open(sites.url("/careers/backend"))
    popup = await ext.popup(tab)
    await expect(popup.locator("#page-status")).to_contain_text("jobctrl did not answer")
    await popup.click("#save")
    await expect(popup.locator("#message")).to_contain_text('Start it with "jobctrl up"')
    assert (await ext.storage())["token"] == "t"  # still paired: jobctrl is only away
    await popup.close()
    await page.close()


# -- with jobctrl: the app served on a loopback port, a real store ------------------------


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
        huge = "<html><body><h1>Endless Engineer</h1><div class=posting><p>%s</p></div>"
        server.on("GET", "/jobs/huge", Response.text(huge % ("work " * 200_000),
                                                     content_type="text/html"))  # fmt: skip
        robots = "User-agent: *\nDisallow: /jobs/view/4002/\n"  # a job only a person may read
        server.on("GET", "/robots.txt", Response.text(robots))
        yield server


@pytest.fixture
async def jobctrl(ext, home, fast_settings, no_temporal):
    """jobctrl served for real (no worker: a saved job keeps its start intent), and a
    browser whose extension remembers nothing yet."""
    await ext.clear_storage()
    with live_server(home) as base:
        yield base


def _landed(store, url: str) -> dict | None:
    """What the capture of ``url`` left in the store: the fields as read and the
    sanitised snapshot Enrich will read."""
    with store.read() as conn:
        c = extension_tables.job_captures
        row = conn.execute(
            select(c).where(c.c.url == url, tenancy.scoped(c, conn)).order_by(c.c.created_at)
        ).fetchall()
    if not row:
        return None
    last = row[-1]
    snapshot = store.artifacts.get(last.snapshot_artifact).decode()
    return {**last.fields, "job_id": last.job_id, "snapshot": snapshot, "count": len(row)}


def _read_and_score(home, store, job_id: str) -> int | None:
    """Enrich (from the capture) and Score run directly, as the worker would."""
    ctx = StageContext(home=home, store=store)
    try:
        enrich(ctx, job_id, "run-extension")
        score(ctx, job_id, "run-extension", materials=False)
    finally:
        ctx.close()
    return app_captures.capture_status(home, jobs.job_row(store, job_id)["url"]).score


def _blocked(home, store, url: str) -> str:
    """A job whose Enrich the site refused to jobctrl's reader: waiting for the browser."""
    job_id = jobs.create_job(store, url).job_id
    ctx = StageContext(home=home, store=store)
    try:
        with pytest.raises(StageError):
            enrich(ctx, job_id, "run-blocked")
    finally:
        ctx.close()
    return job_id


async def _pair(ext, home, base, name="laptop") -> None:
    popup = await ext.popup()
    await popup.fill("#server", base)
    await popup.fill("#code", app_extension.make_code(home).code)
    await popup.fill("#name", name)
    await popup.click("#pair-form button")
    await expect(popup.locator("#message")).to_contain_text("Connected")
    await expect(popup.locator("#paired")).to_be_visible()
    await popup.close()


async def _save(ext, url: str, said: str = "Saved."):
    page, tab = await ext.open(url)
    popup = await ext.popup(tab)
    await popup.click("#save")
    await expect(popup.locator("#message")).to_contain_text(said)
    return page, tab, popup


async def test_pairing_saving_the_badge_and_revocation(ext, jobctrl, home, store, sites):
    popup = await ext.popup()
    await popup.fill("#server", jobctrl)
    await popup.fill("#code", "WRONG123")
    await popup.click("#pair-form button")
    await expect(popup.locator("#message")).to_contain_text("That pairing code did not work")
    assert "token" not in await ext.storage()
    await popup.close()
    await _pair(ext, home, jobctrl)
    assert (await ext.storage())["name"] == "laptop"
    assert [e.name for e in app_extension.list_extensions(home).items] == ["laptop"]

    # Indeed without JSON-LD: read by its markup and saved; the badge says jobctrl has it.
    url = sites.url("/viewjob?jk=8a1b")
    page, tab = await ext.open(url)
    popup = await ext.popup(tab)
    await expect(popup.locator("#page-status")).to_contain_text("not in jobctrl yet")
    await popup.click("#save")
    await expect(popup.locator("#message")).to_contain_text("Saved.")
    landed = _landed(store, url)
    assert landed["title"] == "Data Engineer" and landed["company"] == "Rheinwerk Analytics"
    assert "Look after our dbt models" in landed["snapshot"]

    async def badge_shows_known() -> bool:
        return await ext.badge(tab) == "✓"

    await eventually_async(badge_shows_known, 5, what="the badge to show jobctrl has it")
    await expect(popup.locator("#recent li")).to_contain_text("Data Engineer — Rheinwerk")
    href = await popup.locator("#recent li a").get_attribute("href")
    assert href == f"{jobctrl}/jobs/{landed['job_id']}"
    await popup.close()

    # Read and scored: the badge and the popup show the fit.
    fit = _read_and_score(home, store, landed["job_id"])
    assert fit is not None
    await page.reload()

    async def badge_shows_fit() -> bool:
        return await ext.badge(tab) == str(fit)

    await eventually_async(badge_shows_fit, 5, what="the badge to show the fit")
    popup = await ext.popup(tab)
    await expect(popup.locator("#page-status")).to_contain_text(f"jobctrl has this job (fit {fit})")
    await expect(popup.locator("#recent li .state")).to_contain_text(f"fit {fit}")
    await popup.close()

    # A JSON-LD page: the posting object travels and is kept as data.
    url = sites.url("/careers/backend")
    await _save(ext, url)
    landed = _landed(store, url)
    assert '"JobPosting"' in landed["snapshot"] and "Fjord Health AS" in landed["snapshot"]

    # Revoked in jobctrl: the popup says so in words and asks to pair again.
    app_extension.revoke(home, "laptop")
    url = sites.url("/jobs/hostile")
    page, tab = await ext.open(url)
    popup = await ext.popup(tab)
    await expect(popup.locator("#message")).to_contain_text("no longer connected")
    await expect(popup.locator("#connect")).to_be_visible()
    assert "token" not in await ext.storage()
    assert _landed(store, url) is None
    await popup.close()
    assert not ext.errors


async def test_a_linkedin_view_is_saved_only_when_the_person_is_signed_in(
    ext, jobctrl, home, store, sites
):
    await _pair(ext, home, jobctrl, name="desk")
    url = sites.url("/jobs/view/4001/")
    page, _, popup = await _save(ext, url, said="asks you to sign in")
    assert _landed(store, url) is None
    await ext.context.add_cookies([{"name": "li_at", "value": "member", "url": sites.base_url}])
    await page.reload()
    await popup.click("#save")
    await expect(popup.locator("#message")).to_contain_text("Saved.")
    landed = _landed(store, url)
    assert landed["company"] == "Nordwind Logistics"
    assert "5+ years of Python" in landed["snapshot"]
    assert "Ada Member" not in landed["snapshot"]  # the member's own header stays home
    await ext.context.clear_cookies()
    await popup.close()
    await page.close()


async def test_hostile_page_text_stays_text_in_the_popup_and_the_store(
    ext, jobctrl, home, store, sites
):
    await _pair(ext, home, jobctrl, name="hostile")
    url = sites.url("/jobs/hostile")
    page, _, popup = await _save(ext, url)
    landed = _landed(store, url)
    assert landed["title"].startswith("<script>window.pwned=1</script><img src=x")
    snapshot = landed["snapshot"]
    assert "<script>" not in snapshot and "<img" not in snapshot
    assert "&lt;script&gt;window.pwned=1" in snapshot  # text, as the page showed it
    await expect(popup.locator("#recent li a").first).to_contain_text("<script>window.pwned=1")
    assert await popup.evaluate("window.pwned") is None
    assert await popup.locator("#recent img").count() == 0
    await popup.close()
    await page.close()

    # A 1 MB description: the extension sends jobctrl's limit (100,000 characters) of it
    # (a 5 MB capture sent by anyone else is refused by the API: test_extension_api).
    url = sites.url("/jobs/huge")
    page, _, popup = await _save(ext, url)
    landed = _landed(store, url)
    assert landed["title"] == "Endless Engineer"
    assert len(landed["description"]) == 100_000
    await popup.close()
    await page.close()


async def test_a_waiting_page_is_opened_in_the_background_read_closed_and_sent(
    ext, jobctrl, home, store, sites
):
    url = sites.url("/jobs/view/4002/")  # robots.txt keeps jobctrl's robot out
    job_id = _blocked(home, store, url)
    second = sites.url("/jobs/view/4002/?page=2")
    jobs.create_job(store, second)
    assert [t.url for t in app_captures.browser_tasks(home).items] == [url]

    await _pair(ext, home, jobctrl, name="tasks")
    alarm = await ext.call("() => chrome.alarms.get('tasks')")
    assert alarm["periodInMinutes"] == 1  # woken once a minute by an alarm, asleep between
    run = "() => self.jobctrl.runNextTask()"
    assert (await ext.call(run))["why"] == "nothing allowed"  # no site allowed yet
    alarm = await ext.call("() => chrome.alarms.get('tasks')")
    assert alarm["periodInMinutes"] == 5  # nothing it may open: it asks (wakes) rarely

    popup = await ext.popup()
    site = popup.locator("#queue li[data-site='127.0.0.1']")
    await expect(site).to_contain_text("127.0.0.1: 1 page")
    await site.locator("input[type=checkbox]").check()

    async def allowed() -> bool:
        return (await ext.storage()).get("sites") == {"127.0.0.1": True}

    await eventually_async(allowed, 5, what="the site to be allowed")

    # Not signed in to the site: nothing is sent, the popup says to sign in.
    tabs_before = await ext.tab_urls()
    assert (await ext.call(run)) == {"ran": True, "url": url, "ok": False}
    assert _landed(store, url) is None and await ext.tab_urls() == tabs_before
    await popup.reload()
    await expect(site).to_contain_text("Sign in to 127.0.0.1 in this browser")

    # At the pace limit the next page waits for an alarm; then, signed in, it is read.
    await ext.set_storage({"skipped": {}})
    assert (await ext.call(run))["why"] == "pace"
    assert await ext.call("() => chrome.alarms.get('tasks-next')")
    await ext.context.add_cookies([{"name": "li_at", "value": "member", "url": sites.base_url}])
    await ext.set_storage({"lastTaskAt": 0})
    assert (await ext.call(run)) == {"ran": True, "url": url, "ok": True}
    assert (await ext.call("() => chrome.alarms.get('tasks')"))["periodInMinutes"] == 1
    landed = _landed(store, url)
    assert landed["job_id"] == job_id and "5+ years of Python" in landed["snapshot"]
    assert await ext.tab_urls() == tabs_before  # the background tab is closed again
    enrich_row = next(r for r in stage_states.stage_rows(store, job_id) if r["stage"] == "enrich")
    assert enrich_row["state"] == "pending"
    assert app_captures.browser_tasks(home).items == []  # it continues: no longer waiting

    # A background tab a stopped service worker left open: busy while fresh, then closed.
    left, left_tab = await ext.open(sites.url("/jobs/hostile"))
    await ext.set_storage({"taskTab": left_tab, "taskTabAt": await ext.call("() => Date.now()")})
    assert (await ext.call(run))["why"] == "busy"
    await ext.set_storage({"taskTabAt": 0})
    assert (await ext.call(run))["why"] == "nothing allowed"  # the loop goes on
    assert left.is_closed() and "taskTab" not in await ext.storage()

    # The Stop switch: nothing more is opened.
    await popup.locator("#stopped").check()
    await ext.set_storage({"lastTaskAt": 0})
    assert (await ext.call(run))["why"] == "stopped"
    assert await ext.call("() => chrome.alarms.getAll()") == []
    await ext.context.clear_cookies()

    # Stopped in jobctrl (`jobctrl extension tasks --stop`): the popup says so.
    app_captures.set_tasks(home, enabled=False)
    await popup.reload()
    await expect(popup.locator("#queue-empty")).to_contain_text("not offering pages")
    await screenshot(popup, "extension-popup")
    await popup.close()


async def test_a_background_page_jobctrl_refuses_is_not_opened_again_soon(
    ext, jobctrl, home, store, sites, fast_settings
):
    url = sites.url("/jobs/view/4002/")
    _blocked(home, store, url)
    fast_settings.set_value("extension.capture_hosts", ["linkedin.com"])  # not 127.0.0.1
    await _pair(ext, home, jobctrl, name="refused")
    await ext.set_storage({"sites": {"127.0.0.1": True}})
    await ext.context.add_cookies([{"name": "li_at", "value": "member", "url": sites.base_url}])
    run = "() => self.jobctrl.runNextTask()"
    assert (await ext.call(run)) == {"ran": True, "url": url, "ok": False}
    stored = await ext.storage()
    assert stored["skipped"][url]["reason"] == "refused" and stored["token"]  # still paired
    assert _landed(store, url) is None
    await ext.set_storage({"lastTaskAt": 0})
    assert (await ext.call(run))["why"] == "nothing allowed"  # not opened again soon
    popup = await ext.popup()
    await expect(popup.locator("#queue li")).to_contain_text("did not take pages from 127.0.0.1")
    await popup.close()
    await ext.context.clear_cookies()

"""The server-rendered pages (httpx against the real app): each renders from the same data
as the JSON API, filters work, the rows fragment is rows only, and posting text is escaped.

Jobs are prepared by running the Enrich and Score stages directly against a loopback
posting (no Temporal needed for reading pages)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from sqlalchemy import update

from jobctrl.api.app import create_app
from jobctrl.llm.spend import SpendAuthority, Usage
from jobctrl.stages.context import StageContext
from jobctrl.stages.enrich import enrich
from jobctrl.stages.score import score
from jobctrl.store import jobs, schema, tenancy
from tests.support.http import Route, posting_html

XSS = "<script>alert('x')</script> Engineer"


def _hostile_posting() -> bytes:
    """A posting whose JSON-LD title and company carry markup (kept as text by Enrich)."""
    ld = {
        "@context": "https://schema.org",
        "@type": "JobPosting",
        "title": XSS,
        "hiringOrganization": {"@type": "Organization", "name": "Evil <b>Corp</b>"},
        "description": "<p>Join us.</p><ul><li>5+ years of Python</li></ul>",
    }
    script = json.dumps(ld).replace("<", "\\u003c")
    return (
        f'<html><head><script type="application/ld+json">{script}</script></head></html>'.encode()
    )


@pytest.fixture
async def pages(home):
    transport = httpx.ASGITransport(app=create_app(home, port=8765))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as c:
        yield c


def _posting(title: str, company: str) -> bytes:
    return posting_html(title, company, ["5+ years of Python", "Experience with PostgreSQL"])


def _prepare(home, store, site, path: str, body: bytes) -> str:
    job = jobs.create_job(store, site.add(path, Route(body=body)))
    ctx = StageContext(home=home, store=store)
    try:
        enrich(ctx, job.job_id, "run-pages")
        # Enrich and Score only (materials off): with materials on, a scored job's
        # Tailor/Cover/PDF would wait, pending, for a workflow this test does not run.
        score(ctx, job.job_id, "run-pages", materials=False)
    finally:
        ctx.close()
    return job.job_id


async def test_the_root_redirects_and_every_page_renders(pages):
    root = await pages.get("/")
    assert root.status_code == 303 and root.headers["location"] == "/jobs"
    for path, text in [
        ("/jobs", "Add a job URL"),
        ("/runs", "No discovery runs yet"),
        ("/spend", "Last 14 days"),
        ("/settings", "daily_budget_usd"),
    ]:
        r = await pages.get(path)
        assert r.status_code == 200, path
        assert r.headers["content-type"].startswith("text/html")
        assert text in r.text, path
        assert 'href="/static/app.css"' in r.text and r.headers["x-frame-options"] == "DENY"
    assert (await pages.get("/static/app.js")).status_code == 200
    missing = await pages.get("/jobs/nosuchjob")
    assert missing.status_code == 404 and "No such job" in missing.text


async def test_jobs_are_listed_filtered_and_the_fragment_is_rows_only(
    pages, home, store, site, fast_settings
):
    python = _prepare(home, store, site, "/a", _posting("Senior Python Engineer", "Acme"))
    _prepare(home, store, site, "/b", _posting("Pastry Chef", "Bakery & Sons"))
    jobs.create_job(store, "https://jobs.example.com/unread")

    page = (await pages.get("/jobs")).text
    assert "Senior Python Engineer" in page and "Bakery &amp; Sons" in page
    assert page.count('<tr data-job="') == 3
    assert page.index("Senior Python Engineer") < page.index("jobs.example.com/unread")

    only = (await pages.get("/jobs", params={"q": "acme", "min_score": "", "stage": ""})).text
    assert f'data-job="{python}"' in only and "Pastry Chef" not in only
    pending = (await pages.get("/jobs", params={"status": "pending"})).text
    assert pending.count('<tr data-job="') == 1 and "jobs.example.com/unread" in pending
    assert "No jobs match." in (await pages.get("/jobs", params={"q": "no such words"})).text
    junk = await pages.get("/jobs", params={"min_score": "lots", "sort": "evil", "page": "x"})
    assert junk.status_code == 200 and junk.text.count('<tr data-job="') == 3

    rows = await pages.get("/jobs", params={"fragment": "rows", "q": "pastry"})
    assert rows.status_code == 200 and rows.headers["x-total-count"] == "1"
    assert rows.text.lstrip().startswith("<tr") and "<html" not in rows.text
    assert "Pastry Chef" in rows.text and "<tbody" not in rows.text


async def test_the_job_page_shows_the_report_stages_and_events(
    pages, home, store, site, fast_settings
):
    job_id = _prepare(home, store, site, "/py", _posting("Senior Python Engineer", "Acme"))
    page = (await pages.get(f"/jobs/{job_id}")).text
    assert "Senior Python Engineer" in page and "Acme" in page
    assert 'rel="noopener noreferrer"' in page and site.base_url + "/py" in page
    assert "Requirement fit" in page and "5+ years of Python" in page and "✓ yes" in page
    assert "JobScored" in page and "JobEnriched" in page and "Regenerate materials" in page
    assert f'data-live-job="{job_id}"' in page
    main = (await pages.get(f"/jobs/{job_id[:8]}", params={"fragment": "main"})).text
    assert "Requirement fit" in main and "<html" not in main


async def test_posting_text_is_escaped_everywhere(pages, home, store, site, fast_settings):
    job_id = _prepare(home, store, site, "/xss", _hostile_posting())
    for path in ("/jobs", f"/jobs/{job_id}"):
        text = (await pages.get(path)).text
        assert "<script>alert" not in text and "<b>Corp" not in text, path
        assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in text, path
        assert "Evil &lt;b&gt;Corp&lt;/b&gt;" in text, path
    failed = jobs.create_job(store, "javascript:alert(1)")
    text = (await pages.get(f"/jobs/{failed.job_id}")).text
    assert 'href="javascript:' not in text


async def test_spend_shows_today_and_the_last_14_days(pages, store, settings):
    authority = SpendAuthority(store, settings)
    authority.record(
        observation_id="o1", lane="score", provider="fake", model="gpt-4o", usage=Usage(1000, 100)
    )
    authority.record(
        observation_id="o2", lane="tailor", provider="fake", model="gpt-4o", usage=Usage(900, 90)
    )
    three_days_ago = (datetime.now(UTC) - timedelta(days=3)).strftime("%Y-%m-%d")
    with store.write() as tx:
        ls = schema.llm_spend
        tx.conn.execute(
            update(ls)
            .where(tenancy.scoped(ls, tx.conn), ls.c.lane == "tailor")
            .values(day=three_days_ago)
        )
    page = (await pages.get("/spend")).text
    assert "of $25.00" in page and "<td>score</td>" in page and "<td>tailor</td>" not in page
    assert page.count("<rect ") == 14 and page.count('class="bar zero"') == 12
    assert f"<title>{three_days_ago}: $" in page


async def test_settings_show_each_value_with_its_editor(pages, home, settings):
    settings.set_value("lane_token_limits", {"score": 200000})
    settings.set_value("fetch.allow_hosts", ["127.0.0.1", "intranet.local"])
    page = (await pages.get("/settings")).text
    assert 'data-setting="daily_budget_usd" data-kind="number"' in page
    assert 'data-setting="min_fit_score" data-kind="int"' in page
    assert 'data-setting="budget.strict" data-kind="bool"' in page
    assert 'value="score=200000"' in page and 'value="127.0.0.1, intranet.local"' in page
    assert "AI models" in page and "No sources configured." in page


async def test_settings_put_a_job_seekers_settings_first_and_the_rest_under_advanced(pages):
    """Issue 30: the page listed 36 operator keys alphabetically."""
    page = (await pages.get("/settings")).text
    advanced = page.index('<details class="advanced"')
    for words in (
        "Your search",
        "Minimum fit score",
        "Daily spending limit",
        "Roles you look for",
        "Places",
        "Your email account",
        "Mail server",
        "AI models",
        "Tailoring your resume",
    ):
        assert -1 < page.index(words) < advanced, words
    assert page.index('data-setting="smtp.host"') < advanced
    for key in ("fetch.allow_hosts", "retry.max_attempts", "pipeline_internal_concurrency"):
        assert page.index(f'data-setting="{key}"') > advanced, key
    assert "Will you need visa sponsorship?" in page, "saved answers asked in words"
    assert "<summary>Advanced</summary>" in page and '<details class="advanced" open' not in page

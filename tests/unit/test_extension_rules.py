"""The browser extension's pure rules and a capture's cleaning (issue 32): which refusals
wait for the person's browser, which apply pages are the site's own, a code as typed, and
a captured page kept without anything that could run — read as Enrich reads a page."""

from __future__ import annotations

import json

import pytest

from jobctrl.domain.extension import (
    apply_on_site,
    browser_condition,
    extension_origin,
    normal_code,
)
from jobctrl.fetch.capture import capture_posting, capture_snapshot, plain_field

URL = "https://www.linkedin.com/jobs/view/4001/"


@pytest.mark.parametrize(
    ("stage", "state", "code", "condition"),
    [
        ("enrich", "failed", "ENRICH_ROBOTS_DISALLOWED", "browser_capture_needed"),
        ("enrich", "failed", "ENRICH_LOGIN_WALL", "browser_capture_needed"),
        ("enrich", "failed", "ENRICH_NO_CONTENT", "browser_capture_needed"),
        ("enrich", "failed", "ENRICH_HTTP_NOT_FOUND", None),  # gone: no browser helps
        ("enrich", "failed", "DETAIL_UNSAFE_URL", None),
        ("enrich", "pending", "ENRICH_ROBOTS_DISALLOWED", None),
        ("score", "failed", "ENRICH_NO_CONTENT", None),
    ],
)
def test_only_refusals_a_browser_gets_past_wait_for_it(stage, state, code, condition) -> None:
    assert browser_condition(stage, state, code) == condition


def test_linkedin_and_indeed_applications_are_made_on_their_sites() -> None:
    assert apply_on_site(URL) and apply_on_site("https://uk.indeed.com/viewjob?jk=1")
    assert not apply_on_site("https://boards.greenhouse.io/acme/jobs/1")
    assert not apply_on_site("https://notlinkedin.com/jobs/1") and not apply_on_site(None)


def test_a_code_is_read_as_typed_and_only_an_extension_is_an_extension_origin() -> None:
    assert normal_code(" abcd-efgh ") == "ABCDEFGH"
    assert extension_origin("chrome-extension://abc") and extension_origin("moz-extension://x")
    assert not extension_origin("https://chrome-extension.example") and not extension_origin(None)


def test_a_captured_page_keeps_its_posting_and_nothing_that_runs() -> None:
    hostile = {
        "@context": "https://schema.org",
        "@type": "JobPosting",
        "title": "Data Engineer</script><script>alert(1)</script>",
        "hiringOrganization": {"@type": "Organization", "name": "Acme"},
        "description": "<p>SQL and Python.</p><script>steal()</script>",
    }
    page = (
        "<html><head><script>window.x=1</script><style>p{}</style></head><body>"
        "<h1 onmouseover='steal()'>Data Engineer</h1><iframe src='https://evil.test'></iframe>"
        "<form action='https://evil.test'><input name='p'></form>"
        "<p><a href='javascript:steal()'>Apply</a> SQL and Python.</p></body></html>"
    )
    snapshot = capture_snapshot(URL, page, json.dumps(hostile)).decode()
    for unsafe in ("window.x", "<style", "onmouseover", "<iframe", "<form", "javascript:"):
        assert unsafe not in snapshot, unsafe
    assert "</script><script>" not in snapshot, "a string cannot end its data block"
    posting = capture_posting(snapshot.encode(), URL, {"title": "ignored: JSON-LD wins"})
    assert posting.method == "json-ld" and posting.company == "Acme"
    assert posting.title == hostile["title"], "kept as the text it is"
    assert "SQL and Python." in posting.description and "steal" not in posting.description


def test_without_json_ld_the_browsers_fields_are_the_posting() -> None:
    fields = {
        "title": "  Backend\nEngineer \x07",
        "company": "Acme",
        "location": "Berlin",
        "description": "<ul><li>Python</li><li>PostgreSQL</li></ul>",
    }
    posting = capture_posting(capture_snapshot(URL, "<p>Sign in</p>", None), URL, fields)
    assert (posting.title, posting.company, posting.location) == (
        "Backend Engineer",
        "Acme",
        "Berlin",
    )
    assert posting.description == "- Python\n- PostgreSQL"
    assert plain_field("x" * 600) == "x" * 500 and plain_field("  ") is None

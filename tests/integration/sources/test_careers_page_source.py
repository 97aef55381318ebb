"""CareersPageSource finds postings on a loopback careers page: in its own JSON-LD, or on the
same-site posting pages it links to, skipping broken links and pages without JobPosting."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from tests.support.http import FixtureServer, Route, posting_html

from jobctrl.domain.errors import ENRICH_ROBOTS_DISALLOWED, SOURCE_NOT_FOUND, SOURCE_RATE_LIMITED
from jobctrl.fetch.safe import SafeFetcher
from jobctrl.sources.base import SourceConfig, SourceError
from jobctrl.sources.careers_page import CareersPageSource


def _source(server: FixtureServer, path: str = "/careers") -> CareersPageSource:
    return CareersPageSource(SourceConfig(kind="careers-page", name=server.base_url + path))


def _page(links: list[str], head: str = "") -> bytes:
    anchors = "".join(f'<li><a href="{href}">{href}</a></li>' for href in links)
    return f"<html><head>{head}</head><body><ul>{anchors}</ul></body></html>".encode()


def _ld(data: object) -> str:
    return f'<script type="application/ld+json">{json.dumps(data)}</script>'


def test_linked_posting_pages_with_json_ld_are_yielded(
    server: FixtureServer, fetcher: SafeFetcher
) -> None:
    server.add(
        "/robots.txt",
        Route(
            body=b"User-agent: *\nDisallow: /careers/secret\n",
            headers={"Content-Type": "text/plain"},
        ),
    )
    server.add(
        "/careers",
        Route(
            body=_page(
                [
                    "/careers/backend-engineer",
                    "/careers/backend-engineer?utm_source=site#apply",  # same posting
                    "jobs/42",  # relative, named like a posting
                    "/careers/broken",  # 404
                    "/careers/server-error",  # 500
                    "/careers/life-at-acme",  # a page without JobPosting
                    "/careers/secret",  # robots.txt forbids it
                    "/careers/brochure.pdf",  # not a page
                    "/blog/hello",  # not a posting link
                    "https://elsewhere.example/jobs/1",  # another site
                    "mailto:jobs@acme.example",
                    "#top",
                ]
            )
        ),
    )
    server.add(
        "/careers/backend-engineer",
        Route(body=posting_html("Senior Backend Engineer", "Acme", ["Python", "PostgreSQL"])),
    )
    server.add(
        "/jobs/42",
        Route(body=posting_html("Data Engineer", "Acme", ["SQL"], location="Munich")),
    )
    server.add("/careers/server-error", Route(status=500, body=b"oops"))
    server.add("/careers/life-at-acme", Route(body=b"<html><body><h1>Life</h1></body></html>"))
    server.add("/careers/secret", Route(body=posting_html("Secret Role", "Acme", ["x"])))

    postings = list(_source(server).discover(fetcher))

    assert [(p.title, p.url) for p in postings] == [
        ("Senior Backend Engineer", server.base_url + "/careers/backend-engineer"),
        ("Data Engineer", server.base_url + "/jobs/42"),
    ]
    backend, data = postings
    assert backend.company == "Acme"
    assert backend.location == "Berlin"
    assert backend.date_posted == "2026-11-01"
    assert backend.description is not None and "- PostgreSQL" in backend.description
    assert backend.source_kind == "careers-page"
    assert backend.extra["careers_page"] == server.base_url + "/careers"
    assert data.location == "Munich"
    assert server.hits.get("/careers/backend-engineer") == 1
    assert server.hits.get("/careers/life-at-acme") == 1
    for never in ("/careers/secret", "/careers/brochure.pdf", "/blog/hello"):
        assert server.hits.get(never, 0) == 0


def test_careers_page_with_its_own_json_ld_items(
    server: FixtureServer, fetcher: SafeFetcher
) -> None:
    graph = {
        "@context": "https://schema.org",
        "@graph": [
            {"@id": "#org", "@type": "Organization", "name": "Globex"},
            {
                "@type": "ItemList",
                "itemListElement": [
                    {
                        "@type": "ListItem",
                        "item": {
                            "@type": "JobPosting",
                            "title": "Staff Platform Engineer",
                            "url": "/careers/staff-platform",
                            "identifier": {"@type": "PropertyValue", "value": "GX-1"},
                            "hiringOrganization": {"@id": "#org"},
                            "employmentType": ["FULL_TIME", "CONTRACTOR"],
                            "jobLocationType": "TELECOMMUTE",
                            "description": "<p>Run the platform.</p>",
                        },
                    },
                    {
                        "@type": "ListItem",
                        "item": {
                            "@type": "JobPosting",
                            "title": "Product Designer",
                            "hiringOrganization": {"@id": "#org"},
                            "jobLocation": {
                                "@type": "Place",
                                "address": {"addressLocality": "Lisbon"},
                            },
                        },
                    },
                ],
            },
        ],
    }
    server.add(
        "/careers",
        Route(body=_page(["/careers/staff-platform"], head=_ld(graph))),
    )

    postings = list(_source(server).discover(fetcher))

    assert [p.title for p in postings] == ["Staff Platform Engineer", "Product Designer"]
    staff, designer = postings
    assert staff.url == server.base_url + "/careers/staff-platform"
    assert staff.external_id == "GX-1"
    assert staff.company == "Globex"
    assert staff.remote is True
    assert staff.employment_type == "FULL_TIME, CONTRACTOR"
    assert staff.description == "Run the platform."
    assert "url_is_listing" not in staff.extra
    # No URL of its own: it carries the careers page URL, marked so dedupe ignores it.
    assert designer.url == server.base_url + "/careers"
    assert designer.extra["url_is_listing"] == "true"
    assert designer.location == "Lisbon"
    # The page's own items are used; its links are not followed.
    assert server.hits.get("/careers/staff-platform", 0) == 0


def test_a_page_that_is_one_posting_yields_it(server: FixtureServer, fetcher: SafeFetcher) -> None:
    server.add("/careers", Route(body=posting_html("Site Reliability Engineer", "Initech", [])))

    (posting,) = _source(server).discover(fetcher)

    assert posting.title == "Site Reliability Engineer"
    assert posting.url == server.base_url + "/careers"
    assert "url_is_listing" not in posting.extra


def test_robots_disallow_of_the_careers_page_raises(
    server: FixtureServer, fetcher: SafeFetcher
) -> None:
    server.add(
        "/robots.txt",
        Route(body=b"User-agent: *\nDisallow: /careers\n", headers={"Content-Type": "text/plain"}),
    )
    server.add("/careers", Route(body=_page([])))

    with pytest.raises(SourceError) as caught:
        list(_source(server).discover(fetcher))

    assert caught.value.code == ENRICH_ROBOTS_DISALLOWED
    assert server.hits.get("/careers", 0) == 0


def test_missing_careers_page_is_not_found(server: FixtureServer, fetcher: SafeFetcher) -> None:
    with pytest.raises(SourceError) as caught:
        list(_source(server, "/no-such-careers").discover(fetcher))

    assert caught.value.code == SOURCE_NOT_FOUND


def test_rate_limit_mid_crawl_ends_it_after_yielding_what_was_found(
    server: FixtureServer, fetcher: SafeFetcher
) -> None:
    server.add("/careers", Route(body=_page(["/careers/a", "/careers/b", "/careers/c"])))
    server.add("/careers/a", Route(body=posting_html("Engineer A", "Acme", [])))
    server.add("/careers/b", Route(status=429, headers={"Retry-After": "30"}))
    server.add("/careers/c", Route(body=posting_html("Engineer C", "Acme", [])))
    found: list[str] = []

    with pytest.raises(SourceError) as caught:
        for posting in _source(server).discover(fetcher):
            found.append(posting.title)

    assert found == ["Engineer A"]
    assert caught.value.code == SOURCE_RATE_LIMITED
    assert caught.value.retry_after == timedelta(seconds=30)
    assert server.hits.get("/careers/c", 0) == 0

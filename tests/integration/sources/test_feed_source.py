"""FeedSource reads RSS and Atom feeds over loopback HTTP and maps failures to SOURCE_* codes."""

from __future__ import annotations

import socket
from datetime import timedelta

import pytest
from tests.support.http import FixtureServer, Route

from jobctrl.domain.errors import (
    DETAIL_UNSAFE_URL,
    ENRICH_ROBOTS_DISALLOWED,
    SOURCE_MALFORMED,
    SOURCE_NOT_FOUND,
    SOURCE_RATE_LIMITED,
    SOURCE_UNAVAILABLE,
)
from jobctrl.fetch.safe import FetchPolicy, SafeFetcher
from jobctrl.sources.base import SourceConfig, SourceError
from jobctrl.sources.feed import FeedSource

RSS = b"""<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0" xmlns:job="https://example.org/job">
<channel>
  <title>Jobs at Acme</title>
  <link>https://acme.example/careers</link>
  <item>
    <title>Senior Backend Engineer</title>
    <link>/jobs/101?utm_source=rss</link>
    <guid isPermaLink="false">acme-101</guid>
    <pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate>
    <job:location>Berlin, Germany</job:location>
    <category>Engineering</category>
    <description><![CDATA[<p>Build our API.</p><h3>Requirements</h3>
      <ul><li>Python</li><li>PostgreSQL</li></ul>]]></description>
  </item>
  <item>
    <title>Data Engineer</title>
    <link>https://partner.example/jobs/7</link>
    <guid>https://partner.example/jobs/7</guid>
    <company>Partner Co</company>
    <job:location>Remote</job:location>
    <description>Plain text description.</description>
  </item>
  <item>
    <title>An item without a link</title>
    <description>skipped</description>
  </item>
</channel>
</rss>
"""

ATOM = b"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Globex Careers</title>
  <id>urn:uuid:feed</id>
  <updated>2026-11-03T00:00:00Z</updated>
  <entry>
    <title>Staff Platform Engineer</title>
    <link rel="alternate" href="https://globex.example/jobs/staff-platform"/>
    <id>urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a</id>
    <updated>2026-11-03T09:30:00Z</updated>
    <summary>Short teaser.</summary>
    <content type="html">&lt;h2&gt;About the role&lt;/h2&gt;
      &lt;p&gt;Own our Kubernetes platform.&lt;/p&gt;</content>
  </entry>
</feed>
"""


def _source(server: FixtureServer, path: str) -> FeedSource:
    return FeedSource(SourceConfig(kind="feed", name=server.base_url + path))


def _error(server: FixtureServer, fetcher: SafeFetcher, path: str) -> SourceError:
    with pytest.raises(SourceError) as caught:
        list(_source(server, path).discover(fetcher))
    return caught.value


def test_rss_entries_become_postings(server: FixtureServer, fetcher: SafeFetcher) -> None:
    server.add("/feed.xml", Route(body=RSS, headers={"Content-Type": "application/rss+xml"}))

    postings = list(_source(server, "/feed.xml").discover(fetcher))

    assert [p.title for p in postings] == ["Senior Backend Engineer", "Data Engineer"]
    first, second = postings
    assert first.url == server.base_url + "/jobs/101?utm_source=rss"  # relative link resolved
    assert first.external_id == "acme-101"
    assert first.company == "Acme"  # from the feed title "Jobs at Acme"
    assert first.location == "Berlin, Germany"
    assert first.date_posted == "2026-11-02"
    assert first.description == "Build our API.\n\nRequirements\n\n- Python\n- PostgreSQL"
    assert first.extra == {"categories": "Engineering"}
    assert first.source_kind == "feed"
    assert first.source_name == server.base_url + "/feed.xml"
    assert second.company == "Partner Co"  # the entry names its own company
    assert second.remote is True
    assert second.description == "Plain text description."


def test_atom_entries_become_postings(server: FixtureServer, fetcher: SafeFetcher) -> None:
    server.add("/atom", Route(body=ATOM, headers={"Content-Type": "application/atom+xml"}))

    (posting,) = _source(server, "/atom").discover(fetcher)

    assert posting.title == "Staff Platform Engineer"
    assert posting.url == "https://globex.example/jobs/staff-platform"
    assert posting.external_id == "urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a"
    assert posting.company == "Globex"
    assert posting.date_posted == "2026-11-03"
    assert posting.description == "About the role\n\nOwn our Kubernetes platform."


def test_base_url_is_used_as_the_feed_url(server: FixtureServer, fetcher: SafeFetcher) -> None:
    server.add("/mirror.xml", Route(body=ATOM, headers={"Content-Type": "text/xml"}))
    config = SourceConfig(kind="feed", name="globex", base_url=server.base_url + "/mirror.xml")

    postings = list(FeedSource(config).discover(fetcher))

    assert [p.title for p in postings] == ["Staff Platform Engineer"]
    assert postings[0].source_name == "globex"


def test_xml_body_that_is_not_a_feed_is_malformed(
    server: FixtureServer, fetcher: SafeFetcher
) -> None:
    body = b"<html><body><h1>Careers</h1><p>Not a feed & broken"
    server.add("/notfeed.xml", Route(body=body, headers={"Content-Type": "application/xml"}))

    error = _error(server, fetcher, "/notfeed.xml")

    assert error.code == SOURCE_MALFORMED
    assert not error.retryable


def test_html_page_instead_of_a_feed_is_malformed(
    server: FixtureServer, fetcher: SafeFetcher
) -> None:
    server.add("/page", Route(body=b"<html><body>hello</body></html>"))

    assert _error(server, fetcher, "/page").code == SOURCE_MALFORMED


def test_an_empty_feed_yields_nothing(server: FixtureServer, fetcher: SafeFetcher) -> None:
    body = b'<?xml version="1.0"?><rss version="2.0"><channel><title>x</title></channel></rss>'
    server.add("/empty.xml", Route(body=body, headers={"Content-Type": "application/rss+xml"}))

    assert list(_source(server, "/empty.xml").discover(fetcher)) == []


def test_missing_feed_is_not_found(server: FixtureServer, fetcher: SafeFetcher) -> None:
    error = _error(server, fetcher, "/gone.xml")

    assert error.code == SOURCE_NOT_FOUND
    assert not error.retryable


def test_server_error_is_unavailable_and_retryable(
    server: FixtureServer, fetcher: SafeFetcher
) -> None:
    server.add("/feed.xml", Route(status=500, body=b"oops"))

    error = _error(server, fetcher, "/feed.xml")

    assert error.code == SOURCE_UNAVAILABLE
    assert error.retryable


def test_rate_limit_keeps_retry_after(server: FixtureServer, fetcher: SafeFetcher) -> None:
    server.add("/feed.xml", Route(status=429, body=b"", headers={"Retry-After": "120"}))

    error = _error(server, fetcher, "/feed.xml")

    assert error.code == SOURCE_RATE_LIMITED
    assert error.retryable
    assert error.retry_after == timedelta(seconds=120)


def test_unreachable_feed_is_unavailable(fetcher: SafeFetcher) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    source = FeedSource(SourceConfig(kind="feed", name=f"http://127.0.0.1:{port}/feed.xml"))

    with pytest.raises(SourceError) as caught:
        list(source.discover(fetcher))

    assert caught.value.code == SOURCE_UNAVAILABLE
    assert caught.value.retryable


def test_robots_disallow_keeps_its_code(server: FixtureServer, fetcher: SafeFetcher) -> None:
    server.add(
        "/robots.txt",
        Route(body=b"User-agent: *\nDisallow: /feed\n", headers={"Content-Type": "text/plain"}),
    )
    server.add("/feed.xml", Route(body=RSS, headers={"Content-Type": "application/rss+xml"}))

    assert _error(server, fetcher, "/feed.xml").code == ENRICH_ROBOTS_DISALLOWED
    assert server.hits.get("/feed.xml", 0) == 0


def test_private_address_keeps_unsafe_url_code(server: FixtureServer) -> None:
    with SafeFetcher(FetchPolicy(min_host_interval_seconds=0)) as strict:
        assert _error(server, strict, "/feed.xml").code == DETAIL_UNSAFE_URL

"""RSS 2.0 and Atom job feeds: every entry of one feed, read with feedparser.

The feed is fetched through the ``SafeFetcher`` like any crawled page (robots.txt honoured)
and only its bytes are handed to feedparser, which never touches the network itself. Each
entry becomes a ``DiscoveredPosting``; the company is the feed's title (cleaned of "Jobs at"
and "Careers") unless the entry names one in a ``<company>``-like element. A body that is not
a feed at all is ``SOURCE_MALFORMED``; fetch failures become ``SourceError`` through
``source_error_from_fetch``, which the careers-page source shares.
"""

from __future__ import annotations

import io
import re
import time
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from typing import Any, ClassVar
from urllib.parse import urljoin

import feedparser

from jobctrl.domain.errors import (
    SOURCE_CONFIG,
    SOURCE_MALFORMED,
    StageError,
)
from jobctrl.fetch.extract import html_fragment_to_text
from jobctrl.fetch.safe import SafeFetcher
from jobctrl.sources._http import as_source_error
from jobctrl.sources.base import DiscoveredPosting, SourceConfig, SourceError

__all__ = ["FEED_CONTENT_TYPES", "FeedSource", "parse_feed", "source_error_from_fetch"]

FEED_CONTENT_TYPES = (
    "application/rss+xml",
    "application/atom+xml",
    "application/rdf+xml",
    "application/x-rss+xml",
    "application/xml",
    "text/xml",
)

_TITLE_PREFIX_RE = re.compile(
    r"^(?:jobs|careers|open positions|openings|vacancies)\s+(?:at|@)\s+(.+)$", re.IGNORECASE
)
_TITLE_SUFFIX_RE = re.compile(
    r"^(.+?)\s*(?:[-–—|·]\s*)?(?:jobs|careers|job openings|open positions|vacancies)$",
    re.IGNORECASE,
)


def source_error_from_fetch(error: StageError, config: SourceConfig) -> SourceError:
    """The ``SourceError`` a fetch failure means for this source (one mapping for all
    sources: ``_http.as_source_error``)."""
    return as_source_error(error, _describe(config))


class FeedSource:
    """One RSS/Atom feed; its URL is ``config.base_url`` when given, else ``config.name``."""

    kind: ClassVar[str] = "feed"

    def __init__(self, config: SourceConfig) -> None:
        self.config = config
        url = (config.base_url or config.name or "").strip()
        if not url:
            raise SourceError(SOURCE_CONFIG, "the feed source needs a feed URL")
        self.url = url

    def discover(self, fetcher: SafeFetcher) -> Iterator[DiscoveredPosting]:
        try:
            result = fetcher.fetch(self.url, accept_content_types=FEED_CONTENT_TYPES)
        except StageError as error:
            raise source_error_from_fetch(error, self.config) from None
        # No content-location: feedparser would then "resolve" plain guids into URLs too.
        headers = {"content-type": result.content_type}
        yield from parse_feed(result.body, self.config, base_url=result.final_url, headers=headers)


def parse_feed(
    body: bytes,
    config: SourceConfig,
    *,
    base_url: str,
    headers: Mapping[str, str] | None = None,
) -> list[DiscoveredPosting]:
    """The postings in one feed document; an entry without a link or title is skipped."""
    # A stream, never bytes or str: feedparser treats those as a URL or a file name to open.
    parsed = feedparser.parse(io.BytesIO(body), response_headers=dict(headers or {}))
    entries = list(parsed.get("entries") or [])
    if not entries and (parsed.get("bozo") or not parsed.get("version")):
        raise SourceError(SOURCE_MALFORMED, f"{_describe(config)}: the answer is not a feed")
    feed_company = _company_from_feed_title(_clean(parsed.get("feed", {}).get("title")))
    postings: list[DiscoveredPosting] = []
    for entry in entries:
        posting = _posting(entry, config, base_url, feed_company)
        if posting is not None:
            postings.append(posting)
    return postings


def _posting(
    entry: Mapping[str, Any], config: SourceConfig, base_url: str, feed_company: str | None
) -> DiscoveredPosting | None:
    title = _clean(entry.get("title"))
    link = _clean(entry.get("link"))
    if not title or not link:
        return None
    url = urljoin(base_url, link)
    if not url.lower().startswith(("http://", "https://")):
        return None
    location = _element(entry, ("location", "region"))
    return DiscoveredPosting(
        source_kind=FeedSource.kind,
        source_name=config.name,
        url=url,
        title=title,
        external_id=_clean(entry.get("id")),
        company=_element(entry, ("company",)) or feed_company,
        location=location,
        remote=True if location and "remote" in location.lower() else None,
        description=_description(entry),
        date_posted=_date(entry.get("published_parsed") or entry.get("updated_parsed")),
        extra=_extra(entry),
    )


def _description(entry: Mapping[str, Any]) -> str | None:
    # Atom <content> (or RSS content:encoded) is the full text; <summary>/<description> may
    # be a teaser, so content wins when both are there.
    for item in entry.get("content") or []:
        value = item.get("value") if isinstance(item, Mapping) else None
        if isinstance(value, str) and value.strip():
            text = html_fragment_to_text(value)
            if text:
                return text
    summary = entry.get("summary")
    if isinstance(summary, str) and summary.strip():
        return html_fragment_to_text(summary) or None
    return None


def _element(entry: Mapping[str, Any], names: tuple[str, ...]) -> str | None:
    """A job-specific element such as ``<company>`` or ``<job:company>`` (feedparser names
    unknown namespaced elements ``prefix_name``)."""
    for key, value in entry.items():
        if not isinstance(key, str):
            continue
        local = key.rsplit("_", 1)[-1].lower()
        if local in names and (text := _clean(value)):
            return text
    return None


def _extra(entry: Mapping[str, Any]) -> dict[str, str]:
    tags = [
        term
        for tag in entry.get("tags") or []
        if isinstance(tag, Mapping) and (term := _clean(tag.get("term")))
    ]
    return {"categories": ", ".join(dict.fromkeys(tags))} if tags else {}


def _date(value: Any) -> str | None:
    if not isinstance(value, time.struct_time):
        return None
    try:
        return datetime(*value[:6], tzinfo=UTC).date().isoformat()
    except ValueError:
        return None


def _company_from_feed_title(title: str | None) -> str | None:
    if not title:
        return None
    for pattern in (_TITLE_PREFIX_RE, _TITLE_SUFFIX_RE):
        match = pattern.match(title)
        if match and match.group(1).strip(" -–—|·:"):
            return match.group(1).strip(" -–—|·:")
    return title


def _clean(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    text = " ".join(value.split())
    return text or None


def _describe(config: SourceConfig) -> str:
    name = config.name if len(config.name) <= 60 else config.name[:57] + "..."
    return f"{config.kind} source {name!r}"

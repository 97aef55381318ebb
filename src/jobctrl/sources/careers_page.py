"""A company's own careers page: the postings it lists, read from schema.org JSON-LD.

``config.name`` is the careers page URL. When the page itself carries ``JobPosting``
JSON-LD, those items are the postings. Otherwise the page's same-site links that look like
postings (under the page's path, or with job/career/position/opening/vacancy in them) are
fetched one by one, politely and within robots.txt (the ``SafeFetcher`` sees to both), and
every linked page with ``JobPosting`` JSON-LD becomes a posting; pages without it are not
postings and are skipped, and so is a link that fails to fetch. Only a failure of the
careers page itself raises, except for a rate limit met mid-crawl: the host would refuse
every further link, so the crawl stops there and, after yielding what it found,
``SOURCE_RATE_LIMITED`` is raised so the caller tries again later.

Several postings on one page without URLs of their own all carry the page URL; they are
marked ``extra["url_is_listing"] = "true"`` so the ``Deduper`` does not merge them by URL.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, ClassVar
from urllib.parse import urljoin, urlsplit

import lxml.html

from jobctrl.domain.errors import ENRICH_RATE_LIMITED, SOURCE_CONFIG, StageError
from jobctrl.domain.ids import canonical_url
from jobctrl.domain.posting import ExtractedPosting
from jobctrl.fetch.extract import extract_posting, job_posting_nodes, parse_html, site_name
from jobctrl.fetch.safe import FetchResult, SafeFetcher
from jobctrl.sources.base import DiscoveredPosting, SourceConfig, SourceError
from jobctrl.sources.feed import source_error_from_fetch

__all__ = ["MAX_POSTING_LINKS", "CareersPageSource", "posting_links"]

MAX_POSTING_LINKS = 200
_POSTING_WORDS = ("job", "career", "position", "opening", "vacanc")
_NOT_PAGES = (
    ".pdf", ".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".ico", ".css", ".js",
    ".json", ".xml", ".zip", ".mp4", ".mp3", ".doc", ".docx",
)  # fmt: skip


class CareersPageSource:
    """One careers page; ``config.name`` is its URL."""

    kind: ClassVar[str] = "careers-page"

    def __init__(self, config: SourceConfig) -> None:
        self.config = config
        url = (config.name or "").strip()
        if not url:
            raise SourceError(SOURCE_CONFIG, "the careers-page source needs the page URL")
        self.url = url

    def discover(self, fetcher: SafeFetcher) -> Iterator[DiscoveredPosting]:
        try:
            page = fetcher.fetch(self.url)
        except StageError as error:
            raise source_error_from_fetch(error, self.config) from None
        tree = parse_html(page.body)
        if tree is None:
            return
        nodes = job_posting_nodes(tree, page.final_url)
        if nodes:
            yield from self._page_postings(page, tree, nodes)
            return
        seen: set[str] = set()
        for link in posting_links(tree, page.final_url):
            try:
                result = fetcher.fetch(link)
            except StageError as error:
                if error.code == ENRICH_RATE_LIMITED:
                    raise source_error_from_fetch(error, self.config) from None
                continue  # a broken link is not the careers page's failure
            posting = self._linked_posting(result, page.final_url)
            if posting is not None and canonical_url(posting.url) not in seen:
                seen.add(canonical_url(posting.url))
                yield posting

    def _page_postings(
        self, page: FetchResult, tree: lxml.html.HtmlElement, nodes: list[dict[str, Any]]
    ) -> Iterator[DiscoveredPosting]:
        site = site_name(tree)
        for node in nodes:
            if len(nodes) == 1:
                # The page is one posting: read it whole, so page-level fallbacks apply.
                extracted = extract_posting(page.body, page.final_url)
            else:
                extracted = extract_posting(_single_posting_page(node, site), page.final_url)
            url = _node_url(node, page.final_url)
            listing = url is None and len(nodes) > 1
            posting = self._posting(
                extracted, node, url or page.final_url, page.final_url, listing=listing
            )
            if posting is not None:
                yield posting

    def _linked_posting(self, result: FetchResult, careers_url: str) -> DiscoveredPosting | None:
        tree = parse_html(result.body)
        nodes = job_posting_nodes(tree, result.final_url) if tree is not None else []
        if not nodes:
            return None
        extracted = extract_posting(result.body, result.final_url)
        if extracted.method != "json-ld":
            return None
        return self._posting(extracted, nodes[0], result.final_url, careers_url)

    def _posting(
        self,
        extracted: ExtractedPosting,
        node: dict[str, Any],
        url: str,
        careers_url: str,
        *,
        listing: bool = False,
    ) -> DiscoveredPosting | None:
        if not extracted.title:
            return None
        extra = {"careers_page": careers_url}
        if extracted.valid_through:
            extra["valid_through"] = extracted.valid_through
        if listing:
            extra["url_is_listing"] = "true"
        return DiscoveredPosting(
            source_kind=self.kind,
            source_name=self.config.name,
            url=url,
            title=extracted.title,
            external_id=_identifier(node.get("identifier")),
            company=extracted.company,
            location=extracted.location,
            remote=extracted.remote,
            employment_type=_joined(node.get("employmentType")),
            description=extracted.description or None,
            apply_url=extracted.apply_url,
            date_posted=extracted.date_posted,
            salary=extracted.salary,
            extra=extra,
        )


# -- JSON-LD --------------------------------------------------------------------------------


def _single_posting_page(node: dict[str, Any], site_name: str | None) -> str:
    """A minimal page holding one posting's JSON-LD, for ``extract_posting`` to read."""
    data = json.dumps(node, default=str).replace("</", "<\\/")
    meta = ""
    if site_name:
        escaped = site_name.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
        meta = f'<meta property="og:site_name" content="{escaped}">'
    return (
        f'<html><head>{meta}<script type="application/ld+json">{data}</script></head>'
        "<body></body></html>"
    )


def _node_url(node: dict[str, Any], page_url: str) -> str | None:
    """The posting's own page named in its JSON-LD (``url``), as an absolute http(s) URL."""
    link = _text(node.get("url"))
    if not link:
        return None
    absolute = urljoin(page_url, link)
    return absolute if absolute.lower().startswith(("http://", "https://")) else None


def _identifier(value: Any) -> str | None:
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, dict):
        value = value.get("value") if value.get("value") is not None else value.get("name")
    if isinstance(value, bool) or value is None:
        return None
    return _text(str(value)) if isinstance(value, (int, float, str)) else None


def _joined(value: Any) -> str | None:
    values = value if isinstance(value, list) else [value]
    texts = [t for v in values if (t := _text(v))]
    return ", ".join(dict.fromkeys(texts)) or None


def _text(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    return " ".join(value.split()) or None


# -- links ------------------------------------------------------------------------------------


def posting_links(
    tree: lxml.html.HtmlElement, page_url: str, limit: int = MAX_POSTING_LINKS
) -> list[str]:
    """Same-site links on the page that look like postings, de-duplicated, at most ``limit``.

    Same site means the same host (a leading "www." aside) and port. A link looks like a
    posting when its path is under the careers page's own path, or when its path or query
    names a job, career, position, opening or vacancy.
    """
    page = urlsplit(page_url)
    site = _site(page_url)
    base_href = next(iter(tree.xpath("//base/@href")), None)
    base = urljoin(page_url, str(base_href).strip()) if base_href else page_url
    directory = (
        page.path if "." not in page.path.rsplit("/", 1)[-1] else page.path.rsplit("/", 1)[0]
    )
    prefix = directory.rstrip("/") + "/" if directory.strip("/") else None
    own = canonical_url(page_url)
    links: list[str] = []
    seen: set[str] = {own}
    for anchor in tree.iter("a"):
        href = (anchor.get("href") or "").strip()
        if not href or href.startswith("#"):
            continue
        try:
            absolute = urljoin(base, href).split("#", 1)[0]
            parts = urlsplit(absolute)
        except ValueError:
            continue
        if parts.scheme not in ("http", "https") or _site(absolute) != site:
            continue
        path = parts.path.lower()
        if path.endswith(_NOT_PAGES):
            continue
        under = prefix is not None and parts.path.startswith(prefix) and parts.path != prefix
        named = any(word in f"{path}?{parts.query.lower()}" for word in _POSTING_WORDS)
        if not (under or named):
            continue
        key = canonical_url(absolute)
        if key in seen:
            continue
        seen.add(key)
        links.append(absolute)
        if len(links) >= limit:
            break
    return links


def _site(url: str) -> tuple[str, int | None] | None:
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    except ValueError:
        return None
    return (host.removeprefix("www."), port) if host else None

"""Lever job sites: every posting of one company, from the public Postings API.

``GET {base}/v0/postings/{company}?mode=json&skip=N&limit=L`` answers a JSON list of
postings. Pages are read until one holds fewer than ``limit`` items; all pages are read before
anything is yielded, so a failure on a later page never leaves a partial board behind.
"""

from __future__ import annotations

import html
from datetime import UTC, datetime
from typing import Any, ClassVar

from jobctrl.sources._http import (
    PAGE_SIZE,
    PagedSource,
    api_url,
    array,
    description,
    extras,
    joined,
    obj,
    parse_items,
    path_segment,
    salary,
    text,
    web_url,
)
from jobctrl.sources.base import DiscoveredPosting, SourceConfig

__all__ = ["DEFAULT_BASE_URL", "PAGE_SIZE", "LeverSource", "parse_postings"]

DEFAULT_BASE_URL = "https://api.lever.co"

_REMOTE = {"remote": True, "hybrid": False, "on-site": False, "onsite": False}


class LeverSource(PagedSource):
    """One Lever company; ``config.name`` is the company's Lever site name."""

    kind: ClassVar[str] = "lever"

    def page_url(self, offset: int) -> str:
        path = f"/v0/postings/{path_segment(self._company)}"
        query: dict[str, str | int] = {"mode": "json", "skip": offset, "limit": self._page_size}
        return api_url(self.config, DEFAULT_BASE_URL, path, query)

    def read_page(self, data: Any, offset: int) -> tuple[list[DiscoveredPosting], int | None]:
        """A page shorter than ``limit`` is the last (the answer has no total)."""
        postings = parse_postings(data, self.config)
        return postings, None if len(data) < self._page_size else offset + self._page_size

    def key(self, posting: DiscoveredPosting) -> str:
        return posting.external_id or posting.url


def parse_postings(data: Any, config: SourceConfig) -> list[DiscoveredPosting]:
    """The postings in one page; a posting without title or hosted URL is skipped."""
    return parse_items(data, None, config, _posting)


def _posting(item: dict[str, Any], config: SourceConfig) -> DiscoveredPosting | None:
    title, url = text(item.get("text")), web_url(item.get("hostedUrl"))
    if title is None or url is None:
        return None
    categories = obj(item.get("categories"))
    primary = text(categories.get("location"))
    location = joined([primary, *(text(p) for p in array(categories.get("allLocations")))], "; ")
    workplace = (text(item.get("workplaceType")) or "").lower()
    remote = _REMOTE.get(workplace)
    if remote is None and location and "remote" in location.lower():
        remote = True
    pay = obj(item.get("salaryRange"))
    return DiscoveredPosting(
        source_kind=config.kind,
        source_name=config.name,
        url=url,
        title=title,
        external_id=text(item.get("id")),
        company=config.name.strip(),
        location=location,
        remote=remote,
        department=text(categories.get("department")) or text(categories.get("team")),
        employment_type=text(categories.get("commitment")),
        description=_description(item),
        apply_url=web_url(item.get("applyUrl")),
        date_posted=_iso_from_epoch_ms(item.get("createdAt")),
        salary=salary(pay.get("min"), pay.get("max"), pay.get("currency"), pay.get("interval")),
        extra=extras(
            team=text(categories.get("team")),
            workplace_type=workplace or None,
            salary_description=text(item.get("salaryDescriptionPlain")),
        ),
    )


def _description(item: dict[str, Any]) -> str | None:
    """Opening, then each list ("Requirements": <li>...) under its heading, then closing."""
    parts: list[str] = []
    if isinstance(item.get("description"), str):
        parts.append(item["description"])
    for entry in array(item.get("lists")):
        heading, content = text(obj(entry).get("text")), obj(entry).get("content")
        if heading:
            parts.append(f"<h3>{html.escape(heading)}</h3>")
        if isinstance(content, str):
            parts.append(f"<ul>{content}</ul>")
    if isinstance(item.get("additional"), str):
        parts.append(item["additional"])
    plain = [item.get("descriptionPlain"), item.get("additionalPlain")]
    plain_text = "\n\n".join(p for p in plain if isinstance(p, str) and p.strip())
    return description("".join(parts), plain_text)


def _iso_from_epoch_ms(value: Any) -> str | None:
    """Lever's ``createdAt`` (milliseconds since the epoch) as ISO 8601 UTC."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        moment = datetime.fromtimestamp(value / 1000, UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")

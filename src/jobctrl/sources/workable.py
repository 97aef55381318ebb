"""Workable accounts: every published job of one account, from the public widget API.

``GET {base}/api/v1/widget/accounts/{account}?details=true`` answers ``{"name",
"description", "jobs": [...]}`` in one response (the same payload the legacy
``www.workable.com/api/accounts/{account}`` URL redirects to). Workable documents its
authenticated SPI v3 API, not this widget endpoint; the field names here are the ones its
responses carry and third-party write-ups agree on, so every field is read defensively:
``description`` is only present with ``details=true`` (some accounts also send
``full_description``, which is preferred), ``locations[]`` entries may be marked ``hidden``,
and ``telecommuting`` is the only remote flag.
"""

from __future__ import annotations

from typing import Any, ClassVar

from jobctrl.sources._http import (
    BoardSource,
    api_url,
    array,
    description,
    extras,
    flag,
    joined,
    obj,
    parse_items,
    path_segment,
    text,
    web_url,
)
from jobctrl.sources.base import DiscoveredPosting, SourceConfig

__all__ = ["DEFAULT_BASE_URL", "WorkableSource", "parse_account"]

DEFAULT_BASE_URL = "https://apply.workable.com"


class WorkableSource(BoardSource):
    """One Workable account; ``config.name`` is its slug (apply.workable.com/{slug})."""

    kind: ClassVar[str] = "workable"

    def board_url(self, name: str) -> str:
        path = f"/api/v1/widget/accounts/{path_segment(name)}"
        return api_url(self.config, DEFAULT_BASE_URL, path, {"details": "true"})

    def parse(self, data: Any) -> list[DiscoveredPosting]:
        return parse_account(data, self.config)


def parse_account(data: Any, config: SourceConfig) -> list[DiscoveredPosting]:
    """The jobs in one widget answer; a job without title or URL is skipped."""
    company = text(obj(data).get("name")) or config.name.strip()  # the account's own name
    return parse_items(data, "jobs", config, lambda job, _: _posting(job, company, config))


def _posting(job: dict[str, Any], company: str, config: SourceConfig) -> DiscoveredPosting | None:
    title = text(job.get("title"))
    url = web_url(job.get("url")) or web_url(job.get("shortlink"))
    if title is None or url is None:
        return None
    html = job.get("full_description") or job.get("description")
    return DiscoveredPosting(
        source_kind=config.kind,
        source_name=config.name,
        url=url,
        title=title,
        external_id=text(job.get("shortcode")),
        company=company,
        location=_location(job),
        remote=flag(job.get("telecommuting")),
        department=text(job.get("department")),
        employment_type=text(job.get("employment_type")),
        description=description(html if isinstance(html, str) else None),
        apply_url=web_url(job.get("application_url")),
        date_posted=text(job.get("published_on")) or text(job.get("created_at")),
        extra=extras(
            code=text(job.get("code")),
            shortlink=web_url(job.get("shortlink")),
            experience=text(job.get("experience")),
        ),
    )


def _location(job: dict[str, Any]) -> str | None:
    """Every visible ``locations[]`` entry as "City, Region, Country"; else the top fields."""
    places = []
    for entry in array(job.get("locations")):
        place = obj(entry)
        if place.get("hidden") is True:
            continue
        places.append(
            joined([text(place.get("city")), text(place.get("region")), text(place.get("country"))])
        )
    return joined(places, "; ") or joined(
        [text(job.get("city")), text(job.get("state")), text(job.get("country"))]
    )

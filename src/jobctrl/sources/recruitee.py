"""Recruitee careers sites: every published offer of one company, from the Careers Site API.

``GET https://{company}.recruitee.com/api/offers/`` (with a base_url: ``{base}/api/offers/``)
answers ``{"offers": [...]}`` in one response. ``description`` and ``requirements`` are HTML
and become one text, the requirements under their own heading. Salary amounts may be strings
("18.50"). Dates come as "2024-01-15 09:30:00 UTC" and are rewritten as ISO 8601.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any, ClassVar

from jobctrl.domain.errors import SOURCE_CONFIG
from jobctrl.sources._http import (
    BoardSource,
    api_url,
    describe,
    description,
    extras,
    flag,
    joined,
    obj,
    parse_items,
    salary,
    text,
    web_url,
)
from jobctrl.sources.base import DiscoveredPosting, SourceConfig, SourceError

__all__ = ["RecruiteeSource", "parse_offers"]

_SUBDOMAIN_RE = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
_RECRUITEE_TIME_RE = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC")


class RecruiteeSource(BoardSource):
    """One Recruitee company; ``config.name`` is its subdomain ({name}.recruitee.com)."""

    kind: ClassVar[str] = "recruitee"

    def board_url(self, name: str) -> str:
        company = name.lower()
        if not _SUBDOMAIN_RE.fullmatch(company):
            raise SourceError(
                SOURCE_CONFIG, f"{describe(self.config)} is not a Recruitee subdomain"
            )
        return api_url(self.config, f"https://{company}.recruitee.com", "/api/offers/")

    def parse(self, data: Any) -> list[DiscoveredPosting]:
        return parse_offers(data, self.config)


def parse_offers(data: Any, config: SourceConfig) -> list[DiscoveredPosting]:
    """The offers in one answer; an offer without title or careers URL is skipped."""
    return parse_items(data, "offers", config, _posting)


def _posting(offer: dict[str, Any], config: SourceConfig) -> DiscoveredPosting | None:
    title, url = text(offer.get("title")), web_url(offer.get("careers_url"))
    if title is None or url is None:
        return None
    pay = obj(offer.get("salary"))
    return DiscoveredPosting(
        source_kind=config.kind,
        source_name=config.name,
        url=url,
        title=title,
        external_id=text(offer.get("id")),
        company=text(offer.get("company_name")) or config.name.strip(),
        location=text(offer.get("location"))
        or joined([text(offer.get("city")), text(offer.get("country"))]),
        remote=_remote(offer),
        department=text(offer.get("department")),
        employment_type=text(offer.get("employment_type_code")),
        description=_description(offer),
        apply_url=web_url(offer.get("careers_apply_url")),
        date_posted=_iso(offer.get("published_at")) or _iso(offer.get("created_at")),
        salary=salary(pay.get("min"), pay.get("max"), pay.get("currency"), pay.get("period")),
        extra=extras(slug=text(offer.get("slug"))),
    )


def _remote(offer: dict[str, Any]) -> bool | None:
    if offer.get("remote") is True:
        return True
    if offer.get("hybrid") is True or offer.get("on_site") is True:
        return False
    return flag(offer.get("remote"))


def _description(offer: dict[str, Any]) -> str | None:
    body = offer.get("description")
    requirements = offer.get("requirements")
    html = body if isinstance(body, str) else ""
    if isinstance(requirements, str) and requirements.strip():
        html += f"<h3>Requirements</h3>{requirements}"
    return description(html)


def _iso(value: Any) -> str | None:
    """Recruitee's "YYYY-MM-DD HH:MM:SS UTC" as ISO 8601; any other text as published."""
    raw = text(value)
    if raw is None or not _RECRUITEE_TIME_RE.fullmatch(raw):
        return raw
    moment = datetime.strptime(raw[:19], "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
    return moment.isoformat().replace("+00:00", "Z")

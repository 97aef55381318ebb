"""Greenhouse job boards: every posting on one board, from the public Job Board API.

``GET {base}/v1/boards/{token}/jobs?content=true`` answers ``{"jobs": [...], "meta":
{"total": n}}`` in one response (no paging). ``content`` is the description as HTML-escaped
HTML. The API has no remote flag: remote is True only when the location name says "remote",
otherwise unknown.
"""

from __future__ import annotations

from typing import Any, ClassVar

from jobctrl.sources._http import (
    BoardSource,
    api_url,
    array,
    description,
    extras,
    joined,
    obj,
    parse_items,
    path_segment,
    text,
    web_url,
)
from jobctrl.sources.base import DiscoveredPosting, SourceConfig

__all__ = ["DEFAULT_BASE_URL", "GreenhouseSource", "parse_board"]

DEFAULT_BASE_URL = "https://boards-api.greenhouse.io"


class GreenhouseSource(BoardSource):
    """One Greenhouse board; ``config.name`` is the board token."""

    kind: ClassVar[str] = "greenhouse"

    def board_url(self, name: str) -> str:
        path = f"/v1/boards/{path_segment(name)}/jobs"
        return api_url(self.config, DEFAULT_BASE_URL, path, {"content": "true"})

    def parse(self, data: Any) -> list[DiscoveredPosting]:
        return parse_board(data, self.config)


def parse_board(data: Any, config: SourceConfig) -> list[DiscoveredPosting]:
    """The postings in one Job Board API answer; a job without title or URL is skipped."""
    return parse_items(data, "jobs", config, _posting)


def _posting(job: dict[str, Any], config: SourceConfig) -> DiscoveredPosting | None:
    title, url = text(job.get("title")), web_url(job.get("absolute_url"))
    if title is None or url is None:
        return None
    location = text(obj(job.get("location")).get("name"))
    departments = [text(obj(d).get("name")) for d in array(job.get("departments"))]
    offices = [text(obj(o).get("name")) for o in array(job.get("offices"))]
    content = job.get("content")
    return DiscoveredPosting(
        source_kind=config.kind,
        source_name=config.name,
        url=url,
        title=title,
        external_id=text(job.get("id")),
        company=text(job.get("company_name")) or config.name.strip(),
        location=location,
        remote=True if location and "remote" in location.lower() else None,
        department=joined(departments),
        employment_type=_metadata_value(job, "employment type"),
        description=description(content if isinstance(content, str) else None),
        apply_url=url,  # the posting page carries the application form
        date_posted=text(job.get("first_published")) or text(job.get("updated_at")),
        extra=extras(
            offices=joined(offices, "; "),
            updated_at=text(job.get("updated_at")),
            requisition_id=text(job.get("requisition_id")),
            internal_job_id=text(job.get("internal_job_id")),
        ),
    )


def _metadata_value(job: dict[str, Any], name: str) -> str | None:
    """A custom field (``metadata``: ``[{"name", "value"}]``) whose name matches, if text."""
    for field in array(job.get("metadata")):
        entry = obj(field)
        if (text(entry.get("name")) or "").lower() == name:
            return text(entry.get("value"))
    return None

"""Greenhouse job boards: every posting on one board, from the public Job Board API.

``GET {base}/v1/boards/{token}/jobs?content=true`` answers ``{"jobs": [...], "meta":
{"total": n}}`` in one response (no paging). ``content`` is the description as HTML-escaped
HTML. The API has no remote flag: remote is True only when the location name says "remote",
otherwise unknown.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

from jobctrl.fetch.safe import SafeFetcher
from jobctrl.sources._http import (
    api_url,
    array,
    describe,
    description,
    extras,
    fetch_json,
    joined,
    json_list,
    obj,
    path_segment,
    source_name,
    text,
    web_url,
)
from jobctrl.sources.base import DiscoveredPosting, SourceConfig

__all__ = ["DEFAULT_BASE_URL", "GreenhouseSource", "parse_board"]

DEFAULT_BASE_URL = "https://boards-api.greenhouse.io"


class GreenhouseSource:
    """One Greenhouse board; ``config.name`` is the board token."""

    kind: ClassVar[str] = "greenhouse"

    def __init__(self, config: SourceConfig) -> None:
        self.config = config
        token = source_name(config, self.kind)
        path = f"/v1/boards/{path_segment(token)}/jobs"
        self.url = api_url(config, DEFAULT_BASE_URL, path, {"content": "true"})

    def discover(self, fetcher: SafeFetcher) -> Iterator[DiscoveredPosting]:
        data = fetch_json(fetcher, self.url, what=describe(self.config))
        yield from parse_board(data, self.config)


def parse_board(data: Any, config: SourceConfig) -> list[DiscoveredPosting]:
    """The postings in one Job Board API answer; a job without title or URL is skipped."""
    jobs = json_list(data, "jobs", describe(config))
    return [p for job in jobs if (p := _posting(obj(job), config)) is not None]


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

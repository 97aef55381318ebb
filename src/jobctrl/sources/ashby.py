"""Ashby job boards: every listed posting on one board, from the public Posting API.

``GET {base}/posting-api/job-board/{board}?includeCompensation=true`` answers ``{"jobs":
[...], "apiVersion": ...}`` in one response. Jobs with ``isListed: false`` are not on the
public board and are skipped. Salary comes from the compensation summary component of type
"Salary"; the tier summary text is kept in ``extra``.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from jobctrl.domain.posting import SalaryRange
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
    salary,
    text,
    web_url,
)
from jobctrl.sources.base import DiscoveredPosting, SourceConfig

__all__ = ["DEFAULT_BASE_URL", "AshbySource", "parse_board"]

DEFAULT_BASE_URL = "https://api.ashbyhq.com"

_WORKPLACE_REMOTE = {"remote": True, "hybrid": False, "onsite": False}


class AshbySource(BoardSource):
    """One Ashby job board; ``config.name`` is the board name (jobs.ashbyhq.com/{name})."""

    kind: ClassVar[str] = "ashby"

    def board_url(self, name: str) -> str:
        path = f"/posting-api/job-board/{path_segment(name)}"
        return api_url(self.config, DEFAULT_BASE_URL, path, {"includeCompensation": "true"})

    def parse(self, data: Any) -> list[DiscoveredPosting]:
        return parse_board(data, self.config)


def parse_board(data: Any, config: SourceConfig) -> list[DiscoveredPosting]:
    """The listed postings in one answer; a job without title or URL is skipped."""
    return parse_items(data, "jobs", config, _posting)


def _posting(job: dict[str, Any], config: SourceConfig) -> DiscoveredPosting | None:
    if job.get("isListed") is False:
        return None
    title, url = text(job.get("title")), web_url(job.get("jobUrl"))
    if title is None or url is None:
        return None
    secondary = [text(obj(s).get("location")) for s in array(job.get("secondaryLocations"))]
    workplace = re.sub(r"[^a-z]", "", (text(job.get("workplaceType")) or "").lower())
    remote = _WORKPLACE_REMOTE.get(workplace, flag(job.get("isRemote")))
    compensation = obj(job.get("compensation"))
    html = job.get("descriptionHtml")
    plain = job.get("descriptionPlain")
    return DiscoveredPosting(
        source_kind=config.kind,
        source_name=config.name,
        url=url,
        title=title,
        external_id=text(job.get("id")),
        company=config.name.strip(),
        location=joined([text(job.get("location")), *secondary], "; "),
        remote=remote,
        department=text(job.get("department")) or text(job.get("team")),
        employment_type=text(job.get("employmentType")),
        description=description(
            html if isinstance(html, str) else None, plain if isinstance(plain, str) else None
        ),
        apply_url=web_url(job.get("applyUrl")),
        date_posted=text(job.get("publishedAt")),
        salary=_salary(compensation),
        extra=extras(
            team=text(job.get("team")),
            workplace_type=text(job.get("workplaceType")),
            compensation=text(compensation.get("compensationTierSummary")),
        ),
    )


def _salary(compensation: dict[str, Any]) -> SalaryRange | None:
    for component in array(compensation.get("summaryComponents")):
        part = obj(component)
        if (text(part.get("compensationType")) or "").lower() == "salary":
            return salary(
                part.get("minValue"),
                part.get("maxValue"),
                part.get("currencyCode"),
                part.get("interval"),  # "1 YEAR", "1 HOUR", ...
            )
    return None

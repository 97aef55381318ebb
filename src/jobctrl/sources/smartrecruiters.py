"""SmartRecruiters companies: every public posting of one company, from the Posting API.

``GET {base}/v1/companies/{company}/postings?limit=L&offset=N`` answers ``{"offset",
"limit", "totalFound", "content": [...]}``; pages are read by offset until ``offset + len
(content)`` reaches ``totalFound``, and all of them before anything is yielded. The list has
no description (that needs one more request per posting, to ``ref``): the Enrich stage reads
it from the posting page, ``https://jobs.smartrecruiters.com/{company}/{id}``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from jobctrl.sources._http import (
    PAGE_SIZE,
    PagedSource,
    api_url,
    describe,
    extras,
    flag,
    joined,
    json_list,
    obj,
    path_segment,
    text,
    web_url,
)
from jobctrl.sources.base import DiscoveredPosting, SourceConfig

__all__ = [
    "DEFAULT_BASE_URL",
    "DEFAULT_JOBS_URL",
    "PAGE_SIZE",
    "PostingsPage",
    "SmartRecruitersSource",
    "parse_page",
]

DEFAULT_BASE_URL = "https://api.smartrecruiters.com"
DEFAULT_JOBS_URL = "https://jobs.smartrecruiters.com"  # where the public posting pages are


@dataclass(frozen=True)
class PostingsPage:
    postings: list[DiscoveredPosting]
    size: int  # items in ``content``, skipped ones included: the next page's offset step
    total_found: int | None


class SmartRecruitersSource(PagedSource):
    """One SmartRecruiters company; ``config.name`` is its company identifier."""

    kind: ClassVar[str] = "smartrecruiters"

    def __init__(self, config: SourceConfig, *, page_size: int = PAGE_SIZE) -> None:
        super().__init__(config, page_size=page_size)
        # With a base_url (a mirror or test server) the posting pages stay under it too.
        self._jobs_base = (config.base_url or DEFAULT_JOBS_URL).strip().rstrip("/")

    def page_url(self, offset: int) -> str:
        path = f"/v1/companies/{path_segment(self._company)}/postings"
        query = {"limit": self._page_size, "offset": offset}
        return api_url(self.config, DEFAULT_BASE_URL, path, query)

    def read_page(self, data: Any, offset: int) -> tuple[list[DiscoveredPosting], int | None]:
        """The last page reaches ``totalFound`` (without one: is short); skipped items count."""
        page = parse_page(data, self.config, jobs_base=self._jobs_base)
        offset += page.size
        if page.total_found is not None:
            last = offset >= page.total_found
        else:
            last = page.size < self._page_size
        return page.postings, None if page.size == 0 or last else offset


def parse_page(
    data: Any, config: SourceConfig, *, jobs_base: str = DEFAULT_JOBS_URL
) -> PostingsPage:
    """One page of postings; a posting without id or name is skipped."""
    content = json_list(data, "content", describe(config))
    total = obj(data).get("totalFound")
    total_found = total if isinstance(total, int) and not isinstance(total, bool) else None
    fallback = config.name.strip()
    postings = [
        p for item in content if (p := _posting(obj(item), config, jobs_base, fallback)) is not None
    ]
    return PostingsPage(postings=postings, size=len(content), total_found=total_found)


def _posting(
    item: dict[str, Any], config: SourceConfig, jobs_base: str, fallback_company: str
) -> DiscoveredPosting | None:
    title, posting_id = text(item.get("name")), text(item.get("id"))
    if title is None or posting_id is None:
        return None
    company = obj(item.get("company"))
    identifier = text(company.get("identifier")) or fallback_company
    url = f"{jobs_base}/{path_segment(identifier)}/{path_segment(posting_id)}"
    place = obj(item.get("location"))
    location = text(place.get("fullLocation")) or joined(
        [text(place.get("city")), text(place.get("region")), text(place.get("country"))]
    )
    return DiscoveredPosting(
        source_kind=config.kind,
        source_name=config.name,
        url=url,
        title=title,
        external_id=posting_id,
        company=text(company.get("name")) or fallback_company,
        location=location,
        remote=flag(place.get("remote")),
        department=text(obj(item.get("department")).get("label")),
        employment_type=text(obj(item.get("typeOfEmployment")).get("label")),
        date_posted=text(item.get("releasedDate")),
        extra=extras(
            ref_number=text(item.get("refNumber")),
            api_ref=web_url(item.get("ref")),
            experience_level=text(obj(item.get("experienceLevel")).get("label")),
        ),
    )

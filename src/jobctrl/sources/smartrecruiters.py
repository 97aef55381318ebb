"""SmartRecruiters companies: every public posting of one company, from the Posting API.

``GET {base}/v1/companies/{company}/postings?limit=L&offset=N`` answers ``{"offset",
"limit", "totalFound", "content": [...]}``; pages are read by offset until ``offset + len
(content)`` reaches ``totalFound``, and all of them before anything is yielded. The list has
no description (that needs one more request per posting, to ``ref``): the Enrich stage reads
it from the posting page, ``https://jobs.smartrecruiters.com/{company}/{id}``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

from jobctrl.fetch.safe import SafeFetcher
from jobctrl.sources._http import (
    api_url,
    describe,
    extras,
    fetch_json,
    flag,
    joined,
    json_list,
    obj,
    path_segment,
    source_name,
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
PAGE_SIZE = 100  # the API's maximum
MAX_PAGES = 200


@dataclass(frozen=True)
class PostingsPage:
    postings: list[DiscoveredPosting]
    size: int  # items in ``content``, skipped ones included: the next page's offset step
    total_found: int | None


class SmartRecruitersSource:
    """One SmartRecruiters company; ``config.name`` is its company identifier."""

    kind: ClassVar[str] = "smartrecruiters"

    def __init__(self, config: SourceConfig, *, page_size: int = PAGE_SIZE) -> None:
        self.config = config
        self._company = source_name(config, self.kind)
        self._page_size = max(1, page_size)
        self.page_url(0)  # a bad base_url is a config error now, not at the first fetch
        # With a base_url (a mirror or test server) the posting pages stay under it too.
        self._jobs_base = (config.base_url or DEFAULT_JOBS_URL).strip().rstrip("/")

    def page_url(self, offset: int) -> str:
        path = f"/v1/companies/{path_segment(self._company)}/postings"
        query = {"limit": self._page_size, "offset": offset}
        return api_url(self.config, DEFAULT_BASE_URL, path, query)

    def discover(self, fetcher: SafeFetcher) -> Iterator[DiscoveredPosting]:
        what = describe(self.config)
        found: dict[str, DiscoveredPosting] = {}
        offset = 0
        for _ in range(MAX_PAGES):
            data = fetch_json(fetcher, self.page_url(offset), what=what)
            page = parse_page(data, self.config, jobs_base=self._jobs_base)
            fresh = [p for p in page.postings if p.url not in found]
            found.update((p.url, p) for p in fresh)
            offset += page.size
            if page.size == 0 or (page.postings and not fresh):
                break  # nothing more, or a server that ignores offset and repeats itself
            if page.total_found is not None and offset >= page.total_found:
                break
            if page.total_found is None and page.size < self._page_size:
                break
        yield from found.values()


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

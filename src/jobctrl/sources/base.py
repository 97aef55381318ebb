"""The one interface every discovery source implements.

A source reads one board, feed or page through the safe fetch client and yields what it
found as ``DiscoveredPosting`` values; it never writes to the store. A response it cannot
read raises ``SourceError`` with a stable code, never a crash.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

from jobctrl.domain.errors import StageError
from jobctrl.domain.posting import SalaryRange
from jobctrl.domain.shown_text import one_line, without_controls
from jobctrl.fetch.safe import SafeFetcher

KINDS = (
    "greenhouse",
    "lever",
    "ashby",
    "workable",
    "smartrecruiters",
    "recruitee",
    "feed",
    "careers-page",
)


class SourceError(StageError):
    """A source could not be read; ``code`` is one of the SOURCE_* codes or a fetch code."""


@dataclass(frozen=True)
class SourceConfig:
    kind: str  # one of KINDS
    name: str  # board token, company slug, feed URL or careers-page URL
    base_url: str | None = None  # a mirror or test server with the provider's own paths


@dataclass(frozen=True)
class DiscoveredPosting:
    """One posting as a source saw it. ``url`` is the posting's own page."""

    source_kind: str
    source_name: str
    url: str
    title: str
    external_id: str | None = None  # the ATS's id for the posting
    company: str | None = None
    location: str | None = None
    remote: bool | None = None
    department: str | None = None
    employment_type: str | None = None
    description: str | None = None  # plain text, when the source gives it
    apply_url: str | None = None
    date_posted: str | None = None
    salary: SalaryRange | None = None
    extra: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # A board's title or company may hold a NUL or a bidirectional override: what is
        # stored (and shown) is one clean line (issue 30; PostgreSQL cannot store a NUL).
        object.__setattr__(self, "title", one_line(self.title) or "")
        object.__setattr__(self, "url", one_line(self.url) or "")
        for name in _ONE_LINE:
            object.__setattr__(self, name, one_line(getattr(self, name)))
        if self.description is not None:
            object.__setattr__(self, "description", without_controls(self.description))


_ONE_LINE = (
    "external_id", "company", "location", "department", "employment_type", "apply_url",
    "date_posted",
)  # fmt: skip


class Source(Protocol):
    kind: ClassVar[str]
    config: SourceConfig

    def discover(self, fetcher: SafeFetcher) -> Iterator[DiscoveredPosting]: ...

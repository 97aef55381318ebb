"""Which class reads which kind of source: ``make_source`` builds one from its config.

Adding a kind is one entry in ``SOURCE_TYPES``: a class whose constructor takes the
``SourceConfig`` and which implements ``Source``.
"""

from __future__ import annotations

from collections.abc import Callable

from jobctrl.domain.errors import SOURCE_CONFIG
from jobctrl.sources.ashby import AshbySource
from jobctrl.sources.base import Source, SourceConfig, SourceError
from jobctrl.sources.careers_page import CareersPageSource
from jobctrl.sources.feed import FeedSource
from jobctrl.sources.greenhouse import GreenhouseSource
from jobctrl.sources.lever import LeverSource
from jobctrl.sources.recruitee import RecruiteeSource
from jobctrl.sources.smartrecruiters import SmartRecruitersSource
from jobctrl.sources.workable import WorkableSource

__all__ = ["SOURCE_TYPES", "make_source"]

SOURCE_TYPES: dict[str, Callable[[SourceConfig], Source]] = {
    GreenhouseSource.kind: GreenhouseSource,
    LeverSource.kind: LeverSource,
    AshbySource.kind: AshbySource,
    FeedSource.kind: FeedSource,
    CareersPageSource.kind: CareersPageSource,
    WorkableSource.kind: WorkableSource,
    SmartRecruitersSource.kind: SmartRecruitersSource,
    RecruiteeSource.kind: RecruiteeSource,
}


def make_source(config: SourceConfig) -> Source:
    """The source for ``config.kind``; SOURCE_CONFIG for a kind without one, or a bad config."""
    factory = SOURCE_TYPES.get(config.kind)
    if factory is None:
        kind = config.kind if len(config.kind) <= 40 else config.kind[:37] + "..."
        raise SourceError(SOURCE_CONFIG, f"no source reads the kind {kind!r}")
    return factory(config)

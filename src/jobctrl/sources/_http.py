"""What every ATS source shares: its API URL, one JSON fetch, and reading provider fields.

``BoardSource`` and ``PagedSource`` are the two shapes an adapter takes (a whole board in one
answer, or a board read page by page), so an adapter holds only its URL and its field mapping.
``fetch_json`` GETs a documented public job-board API through the ``SafeFetcher`` (robots.txt
is for crawlers, not these APIs; the address checks, politeness and Retry-After still apply)
and turns each fetch failure into a ``SourceError`` once, here. The small readers below it
take one field of a provider's JSON and return a clean value or None, so a parser tolerates
missing or oddly typed optional fields without a crash.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar
from urllib.parse import quote, urlencode, urlsplit

from jobctrl.domain.errors import (
    DETAIL_UNSAFE_URL,
    ENRICH_HTTP_NOT_FOUND,
    ENRICH_HTTP_SERVER_ERROR,
    ENRICH_INVALID_URL,
    ENRICH_RATE_LIMITED,
    ENRICH_TIMEOUT,
    ENRICH_UNREACHABLE,
    ENRICH_UNSUPPORTED_CONTENT,
    ENRICH_UNSUPPORTED_SCHEME,
    SOURCE_CONFIG,
    SOURCE_MALFORMED,
    SOURCE_NOT_FOUND,
    SOURCE_RATE_LIMITED,
    SOURCE_UNAVAILABLE,
    StageError,
)
from jobctrl.domain.posting import SalaryRange
from jobctrl.fetch.extract import html_fragment_to_text, normalise_text
from jobctrl.fetch.safe import SafeFetcher
from jobctrl.sources.base import DiscoveredPosting, SourceConfig, SourceError

JSON_CONTENT_TYPES = ("application/json",)

# Fetch codes and the source code each becomes. A code not listed here (too large, too many
# redirects, another 4xx) is kept as it is, with its retryable flag.
_SOURCE_CODES = {
    ENRICH_HTTP_NOT_FOUND: SOURCE_NOT_FOUND,
    ENRICH_RATE_LIMITED: SOURCE_RATE_LIMITED,
    ENRICH_HTTP_SERVER_ERROR: SOURCE_UNAVAILABLE,
    ENRICH_TIMEOUT: SOURCE_UNAVAILABLE,
    ENRICH_UNREACHABLE: SOURCE_UNAVAILABLE,
    ENRICH_UNSUPPORTED_CONTENT: SOURCE_MALFORMED,  # not JSON, or an encoding we do not read
    # We build every URL from the config, so an unparsable one is the config's fault.
    ENRICH_INVALID_URL: SOURCE_CONFIG,
    ENRICH_UNSUPPORTED_SCHEME: SOURCE_CONFIG,
    DETAIL_UNSAFE_URL: DETAIL_UNSAFE_URL,
}
_RETRYABLE = frozenset({SOURCE_RATE_LIMITED, SOURCE_UNAVAILABLE})


# -- configuration and URLs -------------------------------------------------------------------


def describe(config: SourceConfig) -> str:
    """How messages name a source: its kind and (shortened) name, never response text."""
    name = config.name if len(config.name) <= 60 else config.name[:57] + "..."
    return f"{config.kind} source {name!r}"


def source_name(config: SourceConfig, kind: str) -> str:
    """The board/company name of a config meant for ``kind``, or SOURCE_CONFIG."""
    if config.kind != kind:
        raise SourceError(SOURCE_CONFIG, f"a {config.kind} config was given to the {kind} source")
    name = config.name.strip()
    if not name:
        raise SourceError(SOURCE_CONFIG, f"the {kind} source needs a board or company name")
    return name


def api_url(
    config: SourceConfig,
    default_base: str,
    path: str,
    query: Mapping[str, str | int] | None = None,
) -> str:
    """``path`` (the provider's own) under ``config.base_url`` or ``default_base``, plus query."""
    base = default_base if config.base_url is None else _checked_base(config)
    url = base.rstrip("/") + path
    return f"{url}?{urlencode(query)}" if query else url


def _checked_base(config: SourceConfig) -> str:
    base = (config.base_url or "").strip()
    try:
        parts = urlsplit(base)
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise SourceError(SOURCE_CONFIG, f"{describe(config)} has a base_url that is not http(s)")
    if parts.query or parts.fragment:
        raise SourceError(SOURCE_CONFIG, f"{describe(config)} has a base_url with a query")
    return base


def path_segment(value: str) -> str:
    """``value`` quoted as one path segment, so a name can never add a path or a query."""
    return quote(value, safe="")


# -- fetching -------------------------------------------------------------------------------


def fetch_json(fetcher: SafeFetcher, url: str, *, what: str) -> Any:
    """GET ``url`` as JSON and decode it; every failure is a ``SourceError``."""
    try:
        result = fetcher.fetch(url, accept_content_types=JSON_CONTENT_TYPES, robots=False)
    except StageError as error:
        raise as_source_error(error, what) from None
    try:
        return json.loads(result.body)
    except (ValueError, RecursionError):  # JSONDecodeError and UnicodeDecodeError included
        raise malformed(what, "did not answer with valid JSON") from None


def as_source_error(error: StageError, what: str) -> SourceError:
    """The ``SourceError`` a fetch error means for a source (see ``_SOURCE_CODES``)."""
    code = _SOURCE_CODES.get(error.code, error.code)
    if code in _RETRYABLE:
        retryable = True
    elif code in _SOURCE_CODES.values():
        retryable = False
    else:
        retryable = error.retryable
    return SourceError(
        code, f"{what}: {error.message}", retryable=retryable, retry_after=error.retry_after
    )


def malformed(what: str, problem: str) -> SourceError:
    return SourceError(SOURCE_MALFORMED, f"{what} {problem}")


# -- reading the provider's JSON ------------------------------------------------------------


def json_list(data: Any, key: str | None, what: str) -> list[Any]:
    """``data[key]`` (or ``data`` itself when key is None) as a list, or SOURCE_MALFORMED."""
    if key is not None:
        if not isinstance(data, dict):
            raise malformed(what, "did not answer with a JSON object")
        data = data.get(key)
        if not isinstance(data, list):
            raise malformed(what, f"answered without a {key!r} list")
    elif not isinstance(data, list):
        raise malformed(what, "did not answer with a JSON list")
    return data


def parse_items(
    data: Any,
    key: str | None,
    config: SourceConfig,
    read: Callable[[dict[str, Any], SourceConfig], DiscoveredPosting | None],
) -> list[DiscoveredPosting]:
    """Each item of ``data[key]`` (see ``json_list``) as ``read`` maps it; None skips one.

    A whole answer of the wrong shape is SOURCE_MALFORMED, but one bad item is only skipped,
    so a single odd job never hides the rest of a board.
    """
    items = json_list(data, key, describe(config))
    return [p for item in items if (p := read(obj(item), config)) is not None]


def obj(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def array(value: Any) -> list[Any]:
    """``value`` if it is a JSON list, else an empty one."""
    return value if isinstance(value, list) else []


def text(value: Any) -> str | None:
    """A string or number as one trimmed line of text; None for anything else or blank."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return str(value)
    if not isinstance(value, str):
        return None
    line = " ".join(value.split())
    return line or None


def flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def number(value: Any) -> float | None:
    """A JSON number, or a numeric string such as "18.50" or "100,000"."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.replace(",", "").strip())
        except ValueError:
            return None
    return None


def web_url(value: Any) -> str | None:
    """An absolute http(s) URL, or None (a posting needs a page a person can open)."""
    url = value.strip() if isinstance(value, str) else ""
    if not url.lower().startswith(("http://", "https://")):
        return None
    return url


def joined(parts: list[str | None], separator: str = ", ") -> str | None:
    """The distinct non-empty parts in order, joined; None when there are none."""
    seen: list[str] = []
    for part in parts:
        if part and part not in seen:
            seen.append(part)
    return separator.join(seen) or None


def extras(**values: str | None) -> dict[str, str]:
    """The ``DiscoveredPosting.extra`` entries that have a value."""
    return {key: value for key, value in values.items() if value}


def description(html: str | None, plain: str | None = None) -> str | None:
    """Structured plain text from an HTML description, else from the plain-text one."""
    if html and html.strip():
        converted = html_fragment_to_text(html)
        if converted:
            return converted
    if plain and plain.strip():
        return normalise_text(plain) or None
    return None


_PERIOD_WORDS = {
    "year": "YEAR", "yearly": "YEAR", "annual": "YEAR", "annually": "YEAR",
    "month": "MONTH", "monthly": "MONTH",
    "week": "WEEK", "weekly": "WEEK",
    "day": "DAY", "daily": "DAY",
    "hour": "HOUR", "hourly": "HOUR",
}  # fmt: skip


def salary_period(value: Any) -> str | None:
    """ "per-year-salary", "1 YEAR", "month" ... as "YEAR", "MONTH" ...; else the raw text."""
    raw = text(value)
    if raw is None:
        return None
    for word in re.findall(r"[a-z]+", raw.lower()):
        if word in _PERIOD_WORDS:
            return _PERIOD_WORDS[word]
    return raw.upper()


def salary(low: Any, high: Any, currency: Any, period: Any) -> SalaryRange | None:
    lo, hi = number(low), number(high)
    if lo is None and hi is None:
        return None
    return SalaryRange(min=lo, max=hi, currency=text(currency), period=salary_period(period))


# -- the two adapter shapes -----------------------------------------------------------------


class BoardSource:
    """A board that is one JSON answer: a subclass gives ``board_url`` and ``parse``.

    The config check runs in the constructor, so a bad name or base_url is a SOURCE_CONFIG
    error when the source is made, not at its first fetch.
    """

    kind: ClassVar[str]

    def __init__(self, config: SourceConfig) -> None:
        self.config = config
        self.url = self.board_url(source_name(config, self.kind))

    def board_url(self, name: str) -> str:
        """The API URL of the board ``name`` (already checked to be non-blank)."""
        raise NotImplementedError

    def parse(self, data: Any) -> list[DiscoveredPosting]:
        """The postings in the decoded answer."""
        raise NotImplementedError

    def discover(self, fetcher: SafeFetcher) -> Iterator[DiscoveredPosting]:
        data = fetch_json(fetcher, self.url, what=describe(self.config))
        yield from self.parse(data)


PAGE_SIZE = 100  # items asked for per page (SmartRecruiters' maximum)
MAX_PAGES = 200  # 20,000 postings: far past any real board, and a stop for a looping server


class PagedSource:
    """A board read page by page: a subclass gives ``page_url`` and ``read_page``.

    Every page is read before anything is yielded, so a failure on a later page never leaves
    a partial board behind; a page that only repeats postings already seen ends the reading.
    """

    kind: ClassVar[str]

    def __init__(self, config: SourceConfig, *, page_size: int = PAGE_SIZE) -> None:
        self.config = config
        self._company = source_name(config, self.kind)
        self._page_size = max(1, page_size)
        self.page_url(0)  # a bad base_url is a config error now, not at the first fetch

    def page_url(self, offset: int) -> str:
        """The API URL of the page starting at item ``offset``."""
        raise NotImplementedError

    def read_page(self, data: Any, offset: int) -> tuple[list[DiscoveredPosting], int | None]:
        """The postings on the page at ``offset``, and where the next starts (None: no next)."""
        raise NotImplementedError

    def key(self, posting: DiscoveredPosting) -> str:
        """What makes two postings the same one, to notice a server that repeats itself."""
        return posting.url

    def discover(self, fetcher: SafeFetcher) -> Iterator[DiscoveredPosting]:
        what = describe(self.config)
        found: dict[str, DiscoveredPosting] = {}
        offset = 0
        for _ in range(MAX_PAGES):
            data = fetch_json(fetcher, self.page_url(offset), what=what)
            postings, next_offset = self.read_page(data, offset)
            fresh = [p for p in postings if self.key(p) not in found]
            found.update((self.key(p), p) for p in fresh)
            if next_offset is None or (postings and not fresh):
                break  # the last page, or a server that ignores the offset and repeats itself
            offset = next_offset
        yield from found.values()

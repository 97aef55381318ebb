"""One job per real posting: group the postings several sources found for the same job.

A posting joins the first existing group it matches, tried in this order:

1. **URL**: its canonical URL (``ids.canonical_url``: no tracking parameters, fragment or
   trailing slash), or that of its apply URL, equals a URL or apply URL already seen. An apply URL
   can be shared by many postings (a generic "/apply" page), so a match that involves an
   apply URL on either side also needs the titles to agree loosely (token_set_ratio ≥ 80).
   A URL marked ``extra["url_is_listing"]`` (the careers page several postings sit on) is
   not used.
2. **ATS id**: the same ``(source_kind, external_id)``. ATS ids are unique within their
   ATS; feed and careers-page ids are only unique within one feed or page, so for those
   the source name is part of the key too.
3. **Fuzzy**, for postings of the same company after normalisation (case, accents,
   punctuation and legal suffixes such as Inc, GmbH, Ltd, LLC, AG, SA, BV, PLC dropped):
    - titles, as words (``filtering.words``: punctuation ignored, "Sr."/"Snr" read as
      "Senior", "Jr" as "Junior", so "Sr. Backend Engineer" *is* "Senior Backend Engineer";
      other abbreviations such as "Eng" or "Dev" are not expanded), score
      ``token_set_ratio ≥ 92`` (TITLE_SET_MIN), and
    - every word only one title has is filler (gender markers like "m/f/d", work mode,
      employment type, small words), a word of either posting's location ("... - Berlin"),
      or a misspelling of a word only the other has (``ratio ≥ 85``, WORD_MIN). Character
      scores alone would merge "Backend ..." with "Frontend ..." in a long title, and
      token_set scores 100 whenever one title's words are a subset of the other's, so
      "Software Engineer, Payments" would merge with "Software Engineer";
    - both name the same level markers: seniority words, roman numerals and numbers
      ("Engineer II" is not "Engineer III", "Senior" is not "Staff");
    - locations agree: either is missing, one's place words contain the other's ("Berlin"
      and "Berlin, Germany"), or they score ``token_set_ratio ≥ 85`` (LOCATION_MIN) with
      no short word (a country code) differing, and a remote place never agrees with an
      office elsewhere ("Remote (NL)" vs "Amsterdam, NL"); the place must also agree with
      every place the group was already seen at, so a posting without one cannot bridge
      two cities.
   A posting without a company is never matched fuzzily. When in doubt we keep two groups:
   a duplicate shown twice costs a glance, a distinct job merged away is lost.

Groups are never merged afterwards, so an index ``add`` returned stays valid. Fuzzy matching
is blocked by (company, level markers) and, inside a block, only scores the variants that
hold all but one of the new title's three rarest distinctive words, so 10,000 postings take
about a second.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from jobctrl.domain.ids import canonical_url
from jobctrl.sources.base import DiscoveredPosting
from jobctrl.sources.filtering import seniority_levels, words

__all__ = [
    "APPLY_URL_TITLE_MIN",
    "LOCATION_MIN",
    "TITLE_SET_MIN",
    "WORD_MIN",
    "Deduper",
    "normalise_company",
]

TITLE_SET_MIN = 92.0
WORD_MIN = 85.0
LOCATION_MIN = 85.0
APPLY_URL_TITLE_MIN = 80.0
_MAX_VARIANTS_PER_GROUP = 8  # title/location variants kept for fuzzy matching per group
_RARE_WORDS = 3

# Per-source ids: unique only within one feed or careers page.
_LOCAL_ID_KINDS = frozenset({"feed", "careers-page"})
_LEGAL_SUFFIXES = frozenset(
    {
        "inc", "incorporated", "corp", "corporation", "co", "company", "llc", "llp", "lp",
        "ltd", "limited", "plc", "gmbh", "mbh", "ag", "kg", "kgaa", "se", "sa", "sas", "sarl",
        "srl", "spa", "bv", "nv", "oy", "oyj", "ab", "as", "asa", "aps", "pty", "pte",
        "kk", "sl", "sro", "zoo", "ug", "ev", "holding", "holdings", "group",
    }
)  # fmt: skip
# Words that do not make two titles different jobs.
_FILLER_WORDS = frozenset(
    {
        "m", "f", "w", "d", "x", "h", "mfd", "mwd", "fmd", "all", "gender", "genders",
        "remote", "hybrid", "onsite", "on", "site", "office", "based",
        "full", "time", "fulltime", "part", "parttime", "permanent",
        "a", "an", "the", "and", "or", "of", "for", "in", "at", "with", "to",
    }
)  # fmt: skip
_ROMAN = frozenset({"i", "ii", "iii", "iv", "v", "vi"})
_NON_WORD_RE = re.compile(r"[^\w]+")


def normalise_company(name: str | None) -> str:
    """A company name for comparison: "ACME, Inc." and "Acme GmbH & Co. KG" are "acme"."""
    if not name:
        return ""
    folded = unicodedata.normalize("NFKD", name.casefold())
    folded = "".join(c for c in folded if not unicodedata.combining(c))
    # Dotted abbreviations first ("B.V.", "S.A."), then any punctuation is a space.
    folded = re.sub(r"\b(\w)\.(?=\w\b)", r"\1", folded).replace("&", " ")
    tokens = _NON_WORD_RE.sub(" ", folded).split()
    while len(tokens) > 1 and tokens[-1] in _LEGAL_SUFFIXES:
        tokens.pop()
    if len(tokens) > 1 and tokens[0] == "the":
        tokens.pop(0)
    return " ".join(tokens)


@dataclass(frozen=True)
class _Variant:
    """One way a group's job was written, for fuzzy comparison."""

    group: int
    title: str  # normalised words joined by spaces
    words: frozenset[str]
    levels: frozenset[str]
    location: str
    location_words: frozenset[str]

    @classmethod
    def of(cls, p: DiscoveredPosting, group: int = -1) -> _Variant:
        title_words = words(p.title)
        location_words = words(p.location)
        return cls(
            group=group,
            title=" ".join(title_words),
            words=frozenset(title_words),
            levels=_levels(title_words),
            location=" ".join(location_words),
            location_words=frozenset(location_words),
        )

    def same_job(self, other: _Variant) -> bool:
        """The word and location checks (the title score is checked by the caller)."""
        if not _locations_agree(self.location, other.location):
            return False
        ignorable = _FILLER_WORDS | self.location_words | other.location_words
        only_self = [w for w in self.words - other.words if w not in ignorable]
        only_other = [w for w in other.words - self.words if w not in ignorable]
        return all(_misspelt(w, only_other) for w in only_self) and all(
            _misspelt(w, only_self) for w in only_other
        )


@dataclass(frozen=True)
class _UrlKey:
    group: int
    title: str
    own_url: bool  # came from a posting's url, not its apply_url


class Deduper:
    """Groups postings from any number of sources; feed it with ``add``."""

    def __init__(self) -> None:
        self._groups: list[list[DiscoveredPosting]] = []
        self._urls: dict[str, _UrlKey] = {}
        self._ids: dict[tuple[str, ...], int] = {}
        self._blocks: dict[tuple[str, frozenset[str]], _Block] = {}
        self._variants_of_group: list[set[tuple[str, str]]] = []
        self._locations_of_group: list[set[str]] = []

    def add(self, p: DiscoveredPosting) -> tuple[int, bool]:
        """Put ``p`` in its group: returns the group index and whether the group is new."""
        variant = _Variant.of(p)
        url_keys = _url_keys(p)
        id_key = _id_key(p)
        company = normalise_company(p.company)

        group = self._match_url(url_keys, variant.title)
        if group is None and id_key is not None:
            group = self._ids.get(id_key)
        if group is None and company and variant.title:
            block = self._blocks.get((company, variant.levels))
            group = block.match(variant, self._fits_group) if block is not None else None
        is_new = group is None
        if group is None:
            group = len(self._groups)
            self._groups.append([])
            self._variants_of_group.append(set())
            self._locations_of_group.append(set())
        self._groups[group].append(p)

        for key, own in url_keys:
            self._urls.setdefault(key, _UrlKey(group, variant.title, own))
        if id_key is not None:
            self._ids.setdefault(id_key, group)
        if company and variant.title:
            self._remember(company, _Variant.of(p, group))
        return group, is_new

    def groups(self) -> list[list[DiscoveredPosting]]:
        """Every group, in order of creation; a group's first posting represents it."""
        return [list(group) for group in self._groups]

    def __len__(self) -> int:
        return len(self._groups)

    def _match_url(self, keys: list[tuple[str, bool]], title: str) -> int | None:
        for key, own in keys:
            seen = self._urls.get(key)
            if seen is None:
                continue
            if own and seen.own_url:
                return seen.group
            if fuzz.token_set_ratio(title, seen.title) >= APPLY_URL_TITLE_MIN:
                return seen.group
        return None

    def _fits_group(self, posting: _Variant, group: int) -> bool:
        """The posting's place agrees with every place the group has been seen at (a variant
        without a location would otherwise let any place join its group)."""
        return all(_locations_agree(posting.location, at) for at in self._locations_of_group[group])

    def _remember(self, company: str, variant: _Variant) -> None:
        if variant.location:
            self._locations_of_group[variant.group].add(variant.location)
        known = self._variants_of_group[variant.group]
        key = (variant.title, variant.location)
        if key in known or len(known) >= _MAX_VARIANTS_PER_GROUP:
            return
        known.add(key)
        self._blocks.setdefault((company, variant.levels), _Block()).add(variant)


class _Block:
    """The known variants of one company at one level, with a word index over their titles.

    A variant that is the same job has every distinctive word of the new title, except one
    it may have misspelt, so only variants holding all but one of the new title's three
    rarest distinctive words are scored: a company with thousands of postings stays fast.
    """

    def __init__(self) -> None:
        self.variants: list[_Variant] = []
        self.titles: list[str] = []
        self.index: dict[str, list[int]] = {}

    def add(self, variant: _Variant) -> None:
        position = len(self.variants)
        self.variants.append(variant)
        self.titles.append(variant.title)
        for word in variant.words:
            self.index.setdefault(word, []).append(position)

    def match(self, posting: _Variant, fits: Callable[[_Variant, int], bool]) -> int | None:
        """The group of the best-scoring variant that is the same job, or None."""
        positions = self._candidates(posting)
        if not positions:
            return None
        scored = process.extract(
            posting.title,
            [self.titles[i] for i in positions],
            scorer=fuzz.token_set_ratio,
            score_cutoff=TITLE_SET_MIN,
            limit=None,
        )
        # Best title score first; on a tie, the older variant.
        for _, _, index in sorted(scored, key=lambda s: (-s[1], positions[s[2]])):
            known = self.variants[positions[index]]
            if posting.same_job(known) and fits(posting, known.group):
                return known.group
        return None

    def _candidates(self, posting: _Variant) -> list[int]:
        distinctive = posting.words - _FILLER_WORDS - posting.location_words
        lists = sorted((self.index[w] for w in distinctive if w in self.index), key=len)
        rarest = [set(positions) for positions in lists[:_RARE_WORDS]]
        if not rarest:
            return []
        if len(rarest) < _RARE_WORDS:
            found = set().union(*rarest)
        else:  # in at least two of the three lists
            a, b, c = rarest
            found = (a & b) | (a & c) | (b & c)
        return sorted(found)


def _url_keys(p: DiscoveredPosting) -> list[tuple[str, bool]]:
    """(canonical URL, is the posting's own url) for its url and apply URL."""
    keys: list[tuple[str, bool]] = []
    if p.url and p.extra.get("url_is_listing") != "true":
        keys.append((canonical_url(p.url), True))
    if p.apply_url and p.apply_url.lower().startswith(("http://", "https://")):
        key = canonical_url(p.apply_url)
        if all(key != known for known, _ in keys):
            keys.append((key, False))
    return keys


def _id_key(p: DiscoveredPosting) -> tuple[str, ...] | None:
    if not p.external_id:
        return None
    if p.source_kind in _LOCAL_ID_KINDS:
        return (p.source_kind, p.source_name, p.external_id)
    return (p.source_kind, p.external_id)


def _locations_agree(a: str, b: str) -> bool:
    """Places agree when either is missing, when one's place words contain the other's
    ("Berlin" and "Berlin, Germany"), or when they are close enough to be a misspelling.
    Work-mode words do not count as places, and short words (country codes) must match
    exactly: "Remote (ES)" and "Remote (IE)" score high as strings but are two countries."""
    if not a or not b:
        return True
    wa, wb = set(a.split()) - _FILLER_WORDS, set(b.split()) - _FILLER_WORDS
    if ("remote" in a.split()) != ("remote" in b.split()) and wa and wb and wa != wb:
        return False  # "Remote (NL)" is not "Amsterdam, NL": when in doubt, two jobs
    if not wa or not wb or wa <= wb or wb <= wa:
        return True
    if any(len(w) < 4 for w in wa ^ wb):
        return False
    return fuzz.token_set_ratio(" ".join(sorted(wa)), " ".join(sorted(wb))) >= LOCATION_MIN


def _misspelt(word: str, candidates: list[str]) -> bool:
    return any(fuzz.ratio(word, other) >= WORD_MIN for other in candidates)


def _levels(title_words: list[str]) -> frozenset[str]:
    """Seniority words, roman numerals and numbers: what tells two similar titles apart."""
    markers = {w for w in title_words if w in _ROMAN or w.isdigit()}
    return seniority_levels(title_words) | markers

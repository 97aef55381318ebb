"""Which discovered postings match the user's target search, and why the others do not.

``filter_posting`` returns None for a posting that passes, or one stable reason code. The
checks run in this order and the first failing one is reported:

1. ``title_excluded``: all words of some ``exclude_titles`` entry are in the title.
2. ``title_not_targeted``: no ``titles`` entry has all its words in the title.
3. ``seniority_not_targeted``: the title names a seniority (junior, mid, senior, staff,
   principal, lead, head, director, intern) and none of ``seniority``. A title naming no
   seniority passes: "Backend Engineer" is posted at every level.
4. ``not_remote`` (``remote_only``): the posting is known not to be remote (``remote`` is
   False, or it names a place and neither it nor the title says "remote").
5. ``location_not_targeted``: the posting names a place that contains none of
   ``locations``; "remote" among them also accepts any remote posting.
6. ``keyword_missing``: none of ``keywords`` is in the title or description. A posting
   without a description passes: the words may be in the text we have not read yet.

Missing data never rejects (no location, no description, unknown remote), since a wrongly
dropped posting is lost while a wrongly kept one is only scored low later. Matching is
case- and accent-insensitive on whole words; "Sr"/"Snr" count as "Senior" and "Jr" as
"Junior". An empty ``TargetSearch`` filters nothing.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from jobctrl.domain.profile import TargetSearch
from jobctrl.sources.base import DiscoveredPosting

__all__ = [
    "REASONS",
    "SENIORITY_WORDS",
    "filter_posting",
    "filter_postings",
    "seniority_levels",
    "words",
]

REASONS = (
    "title_excluded",
    "title_not_targeted",
    "seniority_not_targeted",
    "not_remote",
    "location_not_targeted",
    "keyword_missing",
)

# A word in a title -> the seniority level it names.
SENIORITY_WORDS = {
    "intern": "intern", "interns": "intern", "internship": "intern",
    "junior": "junior", "jr": "junior", "entry": "junior",
    "mid": "mid", "intermediate": "mid",
    "senior": "senior", "sr": "senior", "snr": "senior",
    "staff": "staff",
    "principal": "principal",
    "lead": "lead",
    "head": "head",
    "director": "director",
}  # fmt: skip
_ABBREVIATIONS = {"sr": "senior", "snr": "senior", "jr": "junior"}
# A word: letters/digits, keeping "c++", "c#" and "node.js" whole; a trailing "." is not kept.
_WORD_RE = re.compile(r"[^\W_][\w+#]*(?:\.[^\W_][\w+#]*)*")


def words(text: str | None) -> list[str]:
    """The lowercase, accent-free words of ``text``, with Sr/Snr/Jr spelled out."""
    if not text:
        return []
    folded = unicodedata.normalize("NFKD", text.casefold())
    folded = "".join(c for c in folded if not unicodedata.combining(c))
    return [_ABBREVIATIONS.get(w, w) for w in _WORD_RE.findall(folded)]


def seniority_levels(title_words: Iterable[str]) -> frozenset[str]:
    """The seniority levels a title's words name (empty when it names none)."""
    return frozenset(SENIORITY_WORDS[w] for w in title_words if w in SENIORITY_WORDS)


@dataclass(frozen=True)
class _Target:
    titles: tuple[frozenset[str], ...]
    exclude_titles: tuple[frozenset[str], ...]
    locations: tuple[str, ...]  # phrases as " w1 w2 "
    remote_location: bool
    remote_only: bool
    keywords: tuple[str, ...]
    seniority: frozenset[str]

    @classmethod
    def of(cls, target: TargetSearch) -> _Target:
        locations = [words(loc) for loc in target.locations]
        return cls(
            titles=tuple(frozenset(w) for t in target.titles if (w := words(t))),
            exclude_titles=tuple(frozenset(w) for t in target.exclude_titles if (w := words(t))),
            locations=tuple(_phrase(w) for w in locations if w and w != ["remote"]),
            remote_location=["remote"] in locations,
            remote_only=target.remote_only,
            keywords=tuple(_phrase(w) for k in target.keywords if (w := words(k))),
            seniority=frozenset(
                SENIORITY_WORDS.get(w, w) for s in target.seniority for w in words(s)
            ),
        )


def filter_posting(p: DiscoveredPosting, target: TargetSearch) -> str | None:
    """None when ``p`` matches ``target``, else the first failing reason (see REASONS)."""
    return _reason(p, _Target.of(target))


def filter_postings(
    postings: Iterable[DiscoveredPosting], target: TargetSearch
) -> tuple[list[DiscoveredPosting], dict[str, int]]:
    """The postings that match, in order, and how many were dropped for each reason."""
    compiled = _Target.of(target)
    accepted: list[DiscoveredPosting] = []
    dropped: Counter[str] = Counter()
    for posting in postings:
        reason = _reason(posting, compiled)
        if reason is None:
            accepted.append(posting)
        else:
            dropped[reason] += 1
    return accepted, dict(dropped)


def _reason(p: DiscoveredPosting, t: _Target) -> str | None:
    title = words(p.title)
    title_set = set(title)
    if any(excluded <= title_set for excluded in t.exclude_titles):
        return "title_excluded"
    if t.titles and not any(wanted <= title_set for wanted in t.titles):
        return "title_not_targeted"
    if t.seniority and not _seniority_ok(title, t.seniority):
        return "seniority_not_targeted"
    location = words(p.location)
    remote = _is_remote(p, title, location)
    if t.remote_only and remote is False:
        return "not_remote"
    if (t.locations or t.remote_location) and location:
        text = _phrase(location)
        in_place = any(phrase in text for phrase in t.locations)
        if not in_place and not (t.remote_location and remote):
            return "location_not_targeted"
    if t.keywords and p.description:
        text = _phrase(title + words(p.description))
        if not any(phrase in text for phrase in t.keywords):
            return "keyword_missing"
    return None


def _seniority_ok(title: list[str], wanted: frozenset[str]) -> bool:
    named = seniority_levels(title)
    if not named:
        return True  # the title does not say: do not guess
    # A level we do not know (say "vp") still matches when the title has that very word.
    return bool((named | set(title)) & wanted)


def _is_remote(p: DiscoveredPosting, title: list[str], location: list[str]) -> bool | None:
    """True/False when known; None when neither the flag nor a place tells."""
    if p.remote is not None:
        return p.remote or "remote" in title or "remote" in location
    if "remote" in location or "remote" in title:
        return True
    return False if location else None


def _phrase(ws: list[str]) -> str:
    return f" {' '.join(ws)} "

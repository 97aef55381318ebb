"""The comparisons behind the truth check's structured fields (``domain.truth.document``): when a
resume's name, entry, date or skill says what the profile says, in another spelling.

- ``person_name_key``: a person's name with case, whitespace and diacritics aside.
- ``changed_dates``: dates in any spelling (read by ``domain.truth.quantities``: "Mar 2021",
  "2021-03", "03/2021", "Present" = "" = "present"), a whole range in one field split
  first; a year alone may stand for its month (it says less), never the reverse.
- ``same_phrase``: a title, employer, school, degree or field by alias, word by word, where
  a run of words may stand for another spelling in the alias list (``domain.truth.aliases``,
  with config.yaml's ``aliases:``) and a plural for its singular.
- ``degree_changes``: an education entry's institution, degree and field against the
  profile's ("B.Sc." is "BSc"; a field left out is no claim).
- ``SkillEvidence``: whether a listed skill is a profile skill or named in some fact, by
  alias ("CI/CD pipelines" and "HTML5" rest on the skills CI/CD and HTML).

An alias equates spellings of one thing only: it never makes a broader or a narrower name
match.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from jobctrl.domain.materials import TailoredEducation
from jobctrl.domain.profile import Education
from jobctrl.domain.truth.aliases import AliasTable, fold, word_tokens
from jobctrl.domain.truth.quantities import PRESENT, DatePoint, parse_date, singular
from jobctrl.domain.truth.sentences import degree_of
from jobctrl.domain.vocabulary import term_for

__all__ = [
    "SkillEvidence",
    "changed_dates",
    "degree_changes",
    "person_name_key",
    "same_phrase",
]


def person_name_key(text: str) -> str:
    """A person's name as compared: case, whitespace and diacritics aside ("Sébastien" is
    "Sebastien"), every other character kept ("Priya R. Raman" is not "Priya Raman")."""
    return " ".join(fold(text).split())


_DEGREE_PUNCTUATION = re.compile(r"[.\s'’]+")


def degree_changes(
    edu: TailoredEducation, held: Education, table: AliasTable
) -> list[tuple[str, str]]:
    """The fields of ``edu`` that are not ``held``'s, by alias ("B.Sc." is "BSc", "CS" is
    Computer Science); a field left out is no claim."""
    changes: list[tuple[str, str]] = []
    for part in ("institution", "degree", "field"):
        said, real = getattr(edu, part), getattr(held, part)
        squeezed = {_DEGREE_PUNCTUATION.sub("", fold(x)) for x in (said, real)}
        if not said.strip() or len(squeezed) == 1:
            continue
        same = _same_degree(said, held, table) if part == "degree" else None
        if not (same if same is not None else same_phrase(said, real, table)):
            changes.append((part, said))
    return changes


_OF_IN = re.compile(r"^\s*(?:of|in)\s+", re.IGNORECASE)


def _same_degree(said: str, held: Education, table: AliasTable) -> bool | None:
    """``said`` names ``held``'s degree in the degree vocabulary ("Master of Science" and
    "M.S." are MS; "Master's degree" any master's; "Bachelor of Design" a Bachelor in
    Design), or says more ("BSc" for "Bachelor"): None when either is outside it."""
    a, b = degree_of(said), degree_of(held.degree)
    if a is None or b is None:
        return None
    (claimed, rest), (stated, stated_rest) = a, b
    if claimed.level != stated.level or claimed.which not in (None, stated.which):
        return False
    rest = _OF_IN.sub("", rest).strip()
    known = [x for x in (_OF_IN.sub("", stated_rest).strip(), held.field) if x.strip()]
    return not rest or any(same_phrase(rest, x, table) for x in known)


# -- dates -----------------------------------------------------------------------------------
# Read with domain.quantities: "2021-03", "03/2021", "Mar 2021", "March 2021", "2021",
# "Present" … A whole range written in one field ("Mar 2021 – Present") is split first.

_RANGE = re.compile(r"\s*[–—]\s*|\s+-\s+|\s+to\s+|(?<=\d)-(?=[^\W\d_])", re.IGNORECASE)

DateKey = DatePoint | str


def _date_key(text: str, *, blank_is_present: bool) -> DateKey:
    """A date point, or the folded text when it is no date we read."""
    if not text.strip():
        return PRESENT if blank_is_present else ""
    point = parse_date(text)
    return point if point is not None else " ".join(fold(text).split())


def _same_date(said: str, held: str, *, blank_is_present: bool) -> bool:
    """The same date in any spelling; a year alone may stand for a month of that year (it
    says less), a month where the profile has only the year is a new claim."""
    a = _date_key(said, blank_is_present=blank_is_present)
    b = _date_key(held, blank_is_present=blank_is_present)
    if a == b:
        return True
    if isinstance(a, tuple) and isinstance(b, tuple):
        return a[0] == b[0] and a[1] is None
    return False


def _split_range(start: str, end: str) -> tuple[str, str]:
    """A whole range written in ``start`` ("Mar 2021 – Present") read as start and end."""
    if end.strip():
        return start, end
    parts = _RANGE.split(start.strip(), maxsplit=1)
    return (parts[0], parts[1]) if len(parts) == 2 else (start, end)


def changed_dates(
    start: str, end: str, held_start: str, held_end: str, *, open_end: bool
) -> list[tuple[str, str]]:
    """Which of ``start``/``end`` differ from the profile's (dates left out are no claim).
    ``open_end``: an experience, whose blank end means present."""
    start, end = _split_range(start, end)
    if not start.strip() and not end.strip():
        return []
    changes: list[tuple[str, str]] = []
    if start.strip() and not _same_date(start, held_start, blank_is_present=False):
        changes.append(("start", start))
    checked_end = open_end or end.strip()  # an education's blank end says nothing
    if checked_end and not _same_date(end, held_end, blank_is_present=open_end):
        changes.append(("end", end.strip() or "present"))
    return changes


# -- names by alias --------------------------------------------------------------------------
# Two spellings of a title, an employer, a school or a skill compare word by word, where a
# run of words may stand for another by the alias list (domain.truth.aliases, with config.yaml's
# ``aliases:``) and a plural for its singular. An alias equates spellings of one thing only.


def _words(text: str) -> list[str]:
    return word_tokens(fold(text))


@functools.lru_cache(maxsize=16384)
def _singular(gram: str) -> str:
    return " ".join(singular(w) for w in gram.split(" "))


def _alias_spellings(gram: str, table: AliasTable) -> frozenset[str]:
    """Every other spelling of ``gram`` (or of its singular) the alias list knows."""
    found: set[str] = set()
    for key in {gram, _singular(gram)}:
        if table.known(key):
            found |= table.spellings(key)
    return frozenset(found)


def _aligns(a: Sequence[str], b: Sequence[str], table: AliasTable, *, prefix: bool) -> bool:
    """``a`` reads as ``b`` (or as a prefix of ``b``): word for word (a plural for its
    singular), or a run of words for another spelling of it in the alias list."""

    @functools.cache
    def step(i: int, j: int) -> bool:
        if i == len(a):
            return prefix or j == len(b)
        if j == len(b):
            return False
        if (a[i] == b[j] or _singular(a[i]) == _singular(b[j])) and step(i + 1, j + 1):
            return True
        for size in range(1, min(table.longest, len(a) - i) + 1):
            for spelling in _alias_spellings(" ".join(a[i : i + size]), table):
                n = spelling.count(" ") + 1
                got = " ".join(b[j : j + n])
                if j + n <= len(b) and spelling in (got, _singular(got)) and step(i + size, j + n):
                    return True
        return False

    return step(0, 0)


def same_phrase(said: str, held: str, table: AliasTable) -> bool:
    """The same name by alias ("Sr. Backend Eng." is "Senior Backend Engineer")."""
    a, b = _words(said), _words(held)
    return a == b or (bool(a) and bool(b) and _aligns(a, b, table, prefix=False))


def _first_words(phrase: Sequence[str], table: AliasTable) -> set[str]:
    """Every word a spelling of ``phrase`` may start with (where a search may begin), and
    the singular of each."""
    firsts = {phrase[0], _singular(phrase[0])}
    for size in range(1, min(table.longest, len(phrase)) + 1):
        for spelling in _alias_spellings(" ".join(phrase[:size]), table):
            first = spelling.split(" ")[0]
            firsts |= {first, _singular(first)}
    return firsts


# A one- or two-letter name ("Go", "R", "C", "IT") counts only where it is not an ordinary
# lowercase word ("go-to-market", "it"), and not inside a longer name ("C++", "R&D").
_SHORT_NAME = 2
_SHORT_LEFT = r"(?<![\w.+#&/-])"
_SHORT_RIGHT = r"(?![\w+#&/-])"


class SkillEvidence:
    """What a listed skill may rest on: the profile's skills, and every fact's text (indexed
    by word, so a check reads only the places a spelling of the skill could start)."""

    def __init__(self, skills: Sequence[str], texts: Sequence[str], table: AliasTable) -> None:
        self.table = table
        # A skill named only inside a hyphenated word ("Puppet-managed VMs") is named too.
        self.texts = list(texts) + [t.replace("-", " ") for t in texts if "-" in t]
        self.bodies = [_words(t) for t in self.texts]
        self.at: dict[str, list[tuple[int, int]]] = {}
        for t, body in enumerate(self.bodies):
            for j, word in enumerate(body):
                for key in {word, _singular(word)}:
                    self.at.setdefault(key, []).append((t, j))
        self.seen: dict[tuple[str, str], bool] = {}
        self.held: dict[str, list[list[str]]] = {}
        for skill in skills:
            words = _words(skill)
            for key in {words[0], _singular(words[0])} if words else ():
                self.held.setdefault(key, []).append(words)

    def supported(self, skill: str) -> bool:
        """A profile skill by name or alias, or named, by alias, in some fact's text."""
        words = _words(skill)
        if not words:
            return True  # punctuation only: nothing claimed
        key = (skill.strip(), " ".join(words))  # the written form counts for a short name
        if key not in self.seen:
            self.seen[key] = self._supported(words)
        return self.seen[key]

    def _supported(self, words: list[str]) -> bool:
        firsts = _first_words(words, self.table)
        if self.listed(words, firsts) or self.named(words, firsts):
            return True
        # "CI/CD pipelines" for the skill CI/CD, "HTML5" for HTML: a listed skill, or a tool
        # (the alias list's or the shared vocabulary's) a fact names, with a generic word or
        # a version after it.
        for head in _heads(words):
            firsts = _first_words(head, self.table)
            tool = self.table.is_tool(" ".join(head)) or term_for(" ".join(head)) is not None
            if self.listed(head, firsts) or (tool and self.named(head, firsts)):
                return True
        return False

    def listed(self, words: list[str], firsts: set[str]) -> bool:
        """``words`` is one of the profile's skills, by alias."""
        return any(
            words == held or _aligns(words, held, self.table, prefix=False)
            for first in firsts
            for held in self.held.get(first, ())
        )

    def named(self, words: list[str], firsts: set[str]) -> bool:
        if len(words) == 1 and len(words[0]) <= _SHORT_NAME:
            pattern = re.compile(_SHORT_LEFT + re.escape(words[0]) + _SHORT_RIGHT, re.IGNORECASE)
            for t in {t for t, _ in self.at.get(words[0], ())}:
                if any(not m.group().islower() for m in pattern.finditer(self.texts[t])):
                    return True
            longer = [s.split() for s in self.table.spellings(words[0]) if len(s) > _SHORT_NAME]
            return any(self.named(w, _first_words(w, self.table)) for w in longer)
        return any(
            _aligns(words, self.bodies[t][j:], self.table, prefix=True)
            for first in firsts
            for t, j in self.at.get(first, ())
        )


# Words after a skill that add no claim to it ("CI/CD pipelines", "Python development").
_GENERIC_TAIL = frozenset(
    """pipeline tooling tool development practice workflow ecosystem stack programming
    framework library platform service""".split()  # noqa: SIM905
)
_VERSIONED = re.compile(r"([^\W\d_][\w+#.]*?[^\W\d_+#.])\d+(?:\.\d+)*")


def _heads(words: list[str]) -> list[list[str]]:
    """``words`` without the generic words or the version number at their end."""
    heads: list[list[str]] = []
    head = list(words)
    while len(head) > 1 and _singular(head[-1]) in _GENERIC_TAIL:
        head.pop()
        heads.append(list(head))
    if len(head) > 1 and head[-1].replace(".", "").isdigit():  # "Python 3"
        heads.append(head[:-1])
    elif match := _VERSIONED.fullmatch(head[-1]):  # "HTML5", "CSS3"
        heads.append([*head[:-1], match[1]])
    return heads

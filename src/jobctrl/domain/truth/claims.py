"""The claim checker: one generated sentence against the profile facts it cites, and only
those (never against the whole profile).

Interface (shared by ``domain.truth``'s document walk and the Apply answers):

- ``check_sentence(text, cited, context)`` returns every claim in ``text`` that
  ``cited`` does not support, [] when the sentence is supported.
- ``cited`` are the facts the line cites plus their parents (a highlight's experience
  entry), resolved by the caller. A line that cites nothing must make no claim about the
  candidate: it may name only ``context.free_names`` (the employer applied to, the role)
  and words of politeness.

What a sentence claims, each compared with the cited facts:
- names: employers, titles, schools, degrees, certifications, awards — any proper noun or
  named entity, not a fixed vocabulary;
- technologies and tools (known or not), by alias (``domain.truth.aliases``);
- dates and durations, normalised ("Mar 2021", "March 2021", "2021-03", "03/2021",
  "Present", "2021–present"); years of experience computed from the cited dated entries;
- quantities with value, magnitude (k/M/B), unit (%, ×, currency, …), number words of any
  size, and what they count: a quantity must match the cited one that describes the
  same thing;
- claim words (won, award, patent, promoted, certified, …) a cited fact does not carry.

The rules (each claim against the cited facts; the modules that read claims say how):
- names: every entity (``domain.truth.sentences``) must be found, by alias, case, diacritics,
  possessive and plural aside, in one cited fact — a highlight counts together with its
  experience entry, so its employer and title may be named — or in one of
  ``context.free_names``. The parts of a multi-word name come from the same fact; a known
  tool inside it may come from any cited fact; a fact's "LCP" stands for "Largest
  Contentful Paint" and the reverse. A free name is not accepted where the sentence
  makes it the candidate's own: the role applied for as a title held (a bare headline
  "Staff Engineer", "as a Staff Engineer at <a cited employer>", "I am a Staff
  Engineer"; "the Staff Engineer role" is fine), or the employer applied to as a past
  one ("At Acme I built", "I worked at Acme").
- tools: a named tool by alias; a tool in lower case, or an area ("REST APIs"), by its
  vocabulary term; a lower-case word that is no English where a tool goes (``vitest`` in
  "Jest, vitest and Testing Library") as an unknown tool.
- degrees ("PhD" needs a doctorate; "Bachelor's" any bachelor's degree), claim
  words (by family: "award-winning" is carried by "received the … award"; "won" by "won"
  or an award, but not by an award a cited fact calls a finalist or a nomination) and
  versions must be in the cited facts.
- quantities (``domain.truth.quantities``) must equal a cited quantity in value (magnitude and
  unit factor applied), unit (a currency may be left out), rate, place in a "from X to Y"
  change, and what it counts when both say ("40 people" is not "40 services"; "people"
  covers "engineers"). A change stated "from A to B" also supports its percentage and
  ratio (900 ms → 180 ms is "80%" and "5x"), within a point. A number is not taken
  from another number's verb in the same fact ("promoted 14" for "hired 14 …; promoted
  4").
- dates: each point must be a cited date; a year alone matches a cited month of that
  year in a range, after "since", "from", "joined", … (an entry's "2021-03" backs
  "2021–present"), and otherwise only a year a cited fact states (so the entry's start
  year does not back "the award, 2021 and 2023"). "present" needs a cited current entry.
- durations: equal to a duration a cited fact states, or — when the duration reads as
  time worked — at most the time the cited dated experience entries cover (their union,
  up to ``context.today``; education entries only when no experience entry is cited),
  rounded to the nearest half year; "8+ years" needs at least 8, "nearly 8" at most 9.
- a line citing nothing may name only ``context.free_names``, and may state no quantity,
  date or duration unless it speaks only of the reader or the employer (no I/my/we, and
  "you" or a free name). It must make no first-person claim ("I have led", "I was a",
  "my team of", "we built"); an honest gap ("I have not yet worked with Rust", "I would
  welcome the chance to learn Rust") may name what it lacks.
- a sentence over ``MAX_SENTENCE_CHARS`` is reported whole rather than read.

Known limits — what this cannot see, by design of a checker with no language model:
- a pure change of meaning with no new name, number, tool, date or claim word: "led" for
  "contributed to", "from Airflow to cron" for "from cron to Airflow", a negation;
- a quantity matched to the right value but a different noun when neither side says
  what it counts ("cut costs by 38%" for a fact that cut time by 38%);
- names and tools written in lower case that are not in the vocabulary or the alias list
  are caught only where a tool goes — in a list beside a named tool ("PyTorch and
  fairseq") or right after "using", "with", "in", … — and only when the word is not
  English or common jargon (``domain.truth.lexicon``): "the flink job" passes;
- a paraphrase that names a tool the vocabulary ties to another ("containerized" is
  Docker) is read as that tool;
- a sentence-initial English word that is also a name ("Amazon engineer with …",
  "Square", "Notion") is read as a word; titles written in lower case ("as the lead
  engineer") are not names;
- durations that read as time worked are bounded by the cited entries, not tied to one
  ("five years at ING" passes when the cited entries together span five years); a
  range's two ends are each checked, not as a pair; a month named without a year is not
  a date;
- a bound a cited value meets passes, understating included ("over 30" for 40), and so
  does a number said to be approximate within a tenth ("about 40" for 38); a rounding
  not marked as one ("40" for 38) is refused;
- the uncited line rule reads English: in another language every capitalised noun is a
  name, and a greeting or thanks outside the short list is a name.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Literal

from jobctrl.domain.facts import Fact
from jobctrl.domain.truth.aliases import AliasTable, alias_table, fold, word_tokens
from jobctrl.domain.truth.quantities import (
    CURRENCY_CODES,
    PRESENT,
    DatePoint,
    Duration,
    Mentions,
    Quantity,
    counted_compatible,
    parse_date,
    scan,
    singular,
)
from jobctrl.domain.truth.sentences import (
    TITLE_WORDS,
    Entity,
    Part,
    Reading,
    claim_words,
    degrees_in,
    read_sentence,
)
from jobctrl.domain.vocabulary import TERMS

__all__ = ["MAX_SENTENCE_CHARS", "ClaimContext", "ClaimKind", "Unsupported", "check_sentence"]


def _words(text: str) -> list[str]:
    """A list of words written as text (reads better than a list of literals)."""
    return text.split()


MAX_SENTENCE_CHARS = 2_000  # longer input is reported, not scanned
_TERM_PATTERNS = {t.key: t.pattern for t in TERMS}

ClaimKind = Literal[
    "name",  # a proper noun / named entity (employer, title, school, award, …)
    "tool",  # a technology or tool
    "quantity",  # a number with its unit, magnitude and what it counts
    "date",
    "duration",  # "8 years", "a decade" — incl. years of experience
    "degree",
    "claim",  # a claim word (won, award, patent, promoted, certified, …)
    "uncited",  # a candidate claim in a line that cites nothing
    "unknown_fact",  # a cited id the profile does not have (set by the document walk)
]


@dataclass(frozen=True)
class Unsupported:
    kind: ClaimKind
    claim: str  # the sentence's own words that make the claim ("Microsoft", "40 people")


@dataclass(frozen=True)
class ClaimContext:
    """What a check needs besides the sentence and its facts."""

    extra_aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)  # config.yaml
    free_names: tuple[str, ...] = ()  # may appear uncited: the employer applied to, the role
    today: date | None = None  # what "present" means for durations (None: date.today())


# -- what a fact states ------------------------------------------------------------------------


@dataclass(frozen=True)
class _TextView:
    """A text read once: its words for names, its numbers, degrees and claim words."""

    words: frozenset[str]  # folded words, their pieces and singulars
    joined: str  # " word word … " for multi-word spellings
    folded: str
    mentions: Mentions
    derived: tuple[Quantity, ...]  # the percentage and ratio of each "from A to B"
    degrees: frozenset[tuple[str, str | None]]
    families: frozenset[str]
    initials: frozenset[str]  # the initials of each run of 2 to 6 words in a row


def _initials(tokens: Sequence[str]) -> frozenset[str]:
    letters = [p[0] for t in tokens for p in re.split(r"[-/]+", t) if p and p[0].isalpha()]
    return frozenset(
        "".join(letters[i : i + n]) for n in range(2, 7) for i in range(len(letters) - n + 1)
    )


def _pieces(word: str) -> Iterable[str]:
    yield word
    yield singular(word)
    if any(c in word for c in "-/.'&"):
        for piece in re.split(r"[-/.'&]+", word):
            if piece:
                yield piece
                yield singular(piece)


def _derived(quantities: Sequence[Quantity]) -> tuple[Quantity, ...]:
    out: list[Quantity] = []
    ordered = sorted(quantities, key=lambda q: q.start)
    for a, b in itertools.pairwise(ordered):
        if a.role != "from" or b.role != "to" or a.unit != b.unit or not a.value or not b.value:
            continue
        high, low = max(a.value, b.value), min(a.value, b.value)
        counted = a.counted or b.counted
        change = 100 * (high - low) / a.value
        forms: list[tuple[float, str | None]] = [(change, "%"), (high / low, "x")]
        # the difference: "from 91% to 99.5%" is 8.5 points, "from 47 to 18 minutes" 29
        forms.append((high - low, "pp" if a.unit == "%" else a.unit))
        for value, unit in forms:
            out.append(Quantity(f"{a.text} → {b.text}", value, unit, counted=counted, approx=True))
    return tuple(out)


@functools.lru_cache(maxsize=4096)
def _view(text: str) -> _TextView:
    folded = fold(text)
    tokens = word_tokens(folded)
    words = frozenset(p for t in tokens for p in _pieces(t))
    mentions = scan(text)
    return _TextView(
        words=words,
        joined=" " + " ".join(tokens) + " ",
        folded=folded,
        mentions=mentions,
        derived=_derived(mentions.quantities),
        degrees=frozenset((d.level, d.which) for d in degrees_in(text)),
        families=frozenset(w.family for w in claim_words(text)),
        initials=_initials(tokens),
    )


def _has(view: _TextView, spelling: str, caseless: bool = False) -> bool:
    if caseless:
        return spelling in view.folded
    if " " in spelling:
        at = view.joined.find(f" {spelling}")
        # the last word may end differently: "product design" in "product designer"
        return at >= 0 and view.joined.index(" ", at + len(spelling) + 1) - at - len(spelling) <= 4
    return spelling in view.words or singular(spelling) in view.words


def _has_acronym(view: _TextView, acronym: str) -> bool:
    """``acronym`` ("lcp") is the initials of words in a row of the fact ("Largest
    Contentful Paint")."""
    return acronym in view.initials


@dataclass
class _Cited:
    """The cited facts, read for one sentence."""

    facts: Sequence[Fact]
    views: list[_TextView]  # one per cited fact
    groups: list[_TextView | tuple[_TextView, ...]]  # where one name's parts must all be
    free: list[_TextView]
    points: set[tuple[int, int | None]] = field(default_factory=set)  # dates stated in text
    entry_points: set[tuple[int, int | None]] = field(default_factory=set)  # entries' dates
    present: bool = False
    worked_years: float | None = None


def _months(point: DatePoint, *, end: bool, today: date) -> int | None:
    if point == PRESENT:
        return today.year * 12 + today.month - 1
    year, month = point
    return year * 12 + ((month or (12 if end else 1)) - 1)


@functools.lru_cache(maxsize=1024)
def _covered_years(entries: tuple[Fact, ...], today: date) -> float | None:
    spans: list[tuple[int, int]] = []
    for fact in entries:
        start = parse_date(fact.start)
        end = parse_date(fact.end) if fact.end.strip() else PRESENT
        if start is None or start == PRESENT or end is None:
            continue
        a = _months(start, end=False, today=today)
        b = _months(end, end=True, today=today)
        if a is not None and b is not None and b >= a:
            spans.append((a, b + 1))
    if not spans:
        return None
    total = 0
    reach = -1
    for a, b in sorted(spans):
        a = max(a, reach)
        if b > a:
            total += b - a
        reach = max(reach, b)
    return total / 12


@functools.lru_cache(maxsize=4096)
def _dates_of(
    fact: Fact,
) -> tuple[frozenset[tuple[int, int | None]], frozenset[tuple[int, int | None]], bool]:
    """(dates its text states, its entry's start and end, whether it is current)."""
    points: set[tuple[int, int | None]] = set()
    entry: set[tuple[int, int | None]] = set()
    present = False
    if fact.kind in ("experience", "education"):
        for raw in (fact.start, fact.end):
            point = parse_date(raw)
            if point == PRESENT:
                present = True
            elif point is not None:
                entry.add(point)
        present = present or (
            fact.kind == "experience" and bool(fact.start.strip()) and not fact.end.strip()
        )
    else:
        for mention in _view(fact.text).mentions.dates:
            for point in (mention.start, mention.end):
                if point == PRESENT:
                    present = True
                elif point is not None:
                    points.add(point)
    return frozenset(points), frozenset(entry), present


def _read_cited(cited: Sequence[Fact], context: ClaimContext) -> _Cited:
    views = [_view(f.text) for f in cited]
    by_id = {f.id: v for f, v in zip(cited, views, strict=True)}
    groups: list[_TextView | tuple[_TextView, ...]] = list(views)
    for fact, view in zip(cited, views, strict=True):
        if fact.parent and fact.parent in by_id:
            groups.append((view, by_id[fact.parent]))
    out = _Cited(cited, views, groups, [_view(n) for n in context.free_names if n.strip()])
    today = context.today or date.today()
    for fact in cited:
        points, entry_points, present = _dates_of(fact)
        out.points |= points
        out.entry_points |= entry_points
        out.present = out.present or present
    experience = tuple(f for f in cited if f.kind == "experience")
    out.worked_years = _covered_years(
        experience or tuple(f for f in cited if f.kind == "education"), today
    )
    return out


# -- the checks --------------------------------------------------------------------------------

_ROLE_CLAIM_BEFORE = re.compile(
    r"\b(?:i\s+am|i'm|i\s+was|i've\s+been|i\s+have\s+been|i\s+had\s+been|worked\s+as|"
    r"working\s+as|work\s+as|served\s+as|serving\s+as|promoted\s+to|hired\s+as|joined\s+as|"
    r"title\s+of|(?:worked|working|employed|interned|spent\s+(?:\S+\s+){1,3})\s*(?:at|for|with))"
    r"\s+(?:(?:a|an|the)\s+)?$",
    re.IGNORECASE,
)
_AS_BEFORE = re.compile(r"\bas\s+(?:(?:a|an|the)\s+)?$", re.IGNORECASE)
_AT_AFTER = re.compile(r"\s+(?:at|for|with|in)\s+", re.IGNORECASE)
_AT_JOIN = re.compile(r",?\s+(?:at|@|for)\s+", re.IGNORECASE)
_AT_BEFORE = re.compile(r"\b(?:at|with|for|in)\s+$", re.IGNORECASE)
# "At Snowplow I built …": the employer applied to as the place of past work (but "At
# Snowplow I would …" looks ahead).
_SELF_AFTER = re.compile(
    r"(?:'s)?,?\s+(?:i|we)\s+(?!would|will|could|can|might|may|hope|want|wish|look|am\b)"
    r"(?:\w+\s+)?\w+",
    re.IGNORECASE,
)


def _part_in(view: _TextView, part: Part) -> bool:
    if any(_has(view, s, part.caseless) for s in part.spellings):
        return True
    word = part.text.strip(".")
    return (
        2 <= len(word) <= 6
        and word.isupper()
        and word.isalpha()
        and _has_acronym(view, word.casefold())
    )


def _group_has(group: _TextView | tuple[_TextView, ...], parts: Sequence[Part]) -> bool:
    members = group if isinstance(group, tuple) else (group,)
    if all(any(_part_in(v, p) for v in members) for p in parts):
        return True
    # "Largest Contentful Paint" for a fact's "LCP"
    initials = "".join(p.text[:1] for p in parts).casefold()
    return len(parts) >= 2 and initials.isalpha() and any(initials in v.words for v in members)


def _entity_support(entity: Entity, c: _Cited) -> Literal["cited", "free", "none"]:
    tools = [p for p in entity.parts if p.tool]
    others = [p for p in entity.parts if not p.tool]
    if entity.term is not None:  # a tool in lower case: its vocabulary term will do
        pattern = _TERM_PATTERNS[entity.term]
        if any(pattern.search(f.text) for f in c.facts):
            return "cited"
    tools_cited = all(any(_group_has(v, [p]) for v in c.views) for p in tools)
    if tools_cited and (not others or any(_group_has(g, others) for g in c.groups)):
        return "cited"
    tools_free = all(any(_group_has(v, [p]) for v in c.views + c.free) for p in tools)
    if tools_free and (not others or any(_group_has(v, others) for v in c.free)):
        return "free"
    return "none"


_TARGET_BEFORE = re.compile(
    r"(?:\b(?:apply|applying|application|applied|candidacy|interest|interested)\s+"
    r"(?:for|to|in)|\b(?:the|your|this|that|a|an)|\bfor|\bjoin|\bjoining)\s+$",
    re.IGNORECASE,
)
_TARGET_AFTER = re.compile(
    r"(?:'s)?\s*(?:,\s*\w+\s*)?\s+(?:role|position|opening|job|vacancy|post|opportunity|team)\b",
    re.IGNORECASE,
)


def _is_role(entity: Entity) -> bool:
    return any(w in TITLE_WORDS for p in entity.parts for w in p.text.casefold().split())


def _titled(text: str, entity: Entity) -> bool:
    """A title written as one held, not as the one applied for ("the Staff Engineer
    role", "to be a Staff Engineer")."""
    before = text[max(0, entity.start - 40) : entity.start]
    if _ROLE_CLAIM_BEFORE.search(before):
        return True
    return not (_TARGET_BEFORE.search(before) or _TARGET_AFTER.match(text, entity.end))


def _claimed_as_own(text: str, entity: Entity, others: Sequence[Entity], c: _Cited) -> bool:
    """A free name stated as the candidate's own: the role applied for as a title held
    ("Principal Engineer · Kubernetes", "as Staff Engineer at <a cited employer>"), or the
    employer applied to as a past one ("I worked at Acme", "At Acme I built", "Senior
    Engineer at Acme")."""
    before = text[max(0, entity.start - 40) : entity.start]
    if _ROLE_CLAIM_BEFORE.search(before):
        return True
    if _AT_BEFORE.search(before):
        if _SELF_AFTER.match(text, entity.end):
            return True
        title = None
        for e in others:
            if e.end <= entity.start and _is_role(e):
                title = e
        if title and _AT_JOIN.fullmatch(text, title.end, entity.start) and _titled(text, title):
            return True
    if _AS_BEFORE.search(before):
        after = _AT_AFTER.match(text, entity.end)
        nxt = next((e for e in others if e.start >= entity.end), None)
        if after and nxt and nxt.start == after.end() and _entity_support(nxt, c) == "cited":
            return True
    return _is_role(entity) and _titled(text, entity)


def _same(a: float, b: float, approx: bool) -> bool:
    if approx:
        return abs(a - b) <= max(1.0, 0.02 * abs(b)) if a > 10 else abs(a - b) <= 0.05 * abs(b)
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1.0)


def _within(claimed: float, stated: float, bound: str | None, approx: bool) -> bool:
    """``stated`` makes ``claimed`` true: equal, or inside its bound ("under 200 ms" for
    180 ms, "over 40" or "40+" for 45, "about 40" for 38)."""
    if _same(claimed, stated, approx):
        return True
    if bound == "below":
        return stated < claimed
    if bound == "about":  # "about 40" for 38: a round number within a tenth
        return abs(stated - claimed) <= 0.1 * abs(stated)
    return bound == "above" and stated > claimed


def _quantity_supported(q: Quantity, stated: Quantity) -> bool:
    if stated.vague_upto is not None:
        if q.vague_upto != stated.vague_upto or q.value != stated.value:
            return False
    elif q.vague_upto is not None:
        if not q.value <= stated.value < q.vague_upto:
            return False
    else:
        claimed_forms = ((q.value, q.unit), *q.forms)
        stated_forms = ((stated.value, stated.unit), *stated.forms)
        if not any(
            _within(a, b, q.bound, stated.approx)
            and (u == w or (u is None and w in CURRENCY_CODES))
            for a, u in claimed_forms
            for b, w in stated_forms
        ):
            return False
    if q.role is not None and q.role != stated.role:
        return False
    if q.per is not None and q.per != stated.per:
        return False
    return counted_compatible(q, stated)


def _quantity_in(q: Quantity, view: _TextView) -> bool:
    """``q`` is one of the quantities ``view`` states — and not one whose verb the fact
    gives to another of its numbers ("promoted 14" for "hired 14 …; promoted 4")."""
    stated = view.mentions.quantities
    for s in (*stated, *view.derived):
        if not _quantity_supported(q, s):
            continue
        if q.lead and s.lead and q.lead != s.lead and any(o.lead == q.lead for o in stated):
            continue
        return True
    return False


def _date_supported(point: DatePoint | None, anchored: bool, c: _Cited) -> bool:
    if point is None:
        return True
    if point == PRESENT:
        return c.present
    year, month = point
    if month is not None:
        return point in c.points or point in c.entry_points
    if any(y == year for y, _ in c.points):
        return True
    return any(y == year and (m is None or anchored) for y, m in c.entry_points)


def _duration_supported(d: Duration, c: _Cited) -> bool:
    for view in c.views:
        if any(abs(s.years - d.years) < 1e-6 for s in view.mentions.durations):
            return True
    if not d.worked or c.worked_years is None:
        return False
    if d.at_least:
        return c.worked_years >= d.years - 1 / 24
    if d.approx:
        return d.years <= c.worked_years + 1
    return d.years <= c.worked_years + 0.5


def _claim_supported(family: str, c: _Cited) -> bool:
    families = [v.families for v in c.views]
    if family in ("won", "award"):
        # "finalist for the best paper award" does not back "won the best paper award".
        carriers = [f for f in families if f & {"won", "award"}]
        if family == "won":
            return any("finalist" not in f for f in carriers)
        return bool(carriers) and any("finalist" not in f or "award" in f for f in carriers)
    return any(family in f for f in families)


def _degree_supported(level: str, which: str | None, c: _Cited) -> bool:
    stated = {d for v in c.views for d in v.degrees}
    if level == "any":
        return any(lvl != "any" for lvl, _ in stated) or ("any", None) in stated
    return any(lvl == level and (which is None or w == which) for lvl, w in stated)


def _in_gap(reading: Reading, start: int, end: int) -> bool:
    return any(a <= start and end <= b for a, b in reading.gaps)


@functools.lru_cache(maxsize=4096)
def _read(text: str, aliases: AliasTable) -> tuple[Mentions, Reading]:
    """A sentence's numbers and what else it claims: pure functions of its text and the
    alias table (one object per distinct config, kept alive by this cache's key), read
    once per process. Most of a check's time; the same lines come back job after job (a
    profile's bullets, the offline writers' sentences, a letter's greeting and close)."""
    mentions = scan(text)
    return mentions, read_sentence(text, aliases, mentions.spans)


def check_sentence(text: str, cited: Sequence[Fact], context: ClaimContext) -> list[Unsupported]:
    """Every claim in ``text`` that ``cited`` does not support ([] when supported)."""
    if len(text) > MAX_SENTENCE_CHARS:
        return [
            Unsupported(
                "claim", f"a sentence of {len(text):,} characters (at most {MAX_SENTENCE_CHARS:,})"
            )
        ]
    mentions, reading = _read(text, alias_table(context.extra_aliases))
    c = _read_cited(cited, context)
    found: list[tuple[int, Unsupported]] = []
    support: dict[Entity, Literal["cited", "free", "none"]] = {}
    for entity in reading.entities:
        if _in_gap(reading, entity.start, entity.end):
            continue
        support[entity] = _entity_support(entity, c)
        if support[entity] == "free" and _claimed_as_own(text, entity, reading.entities, c):
            support[entity] = "none"
    free_named = "free" in support.values()
    # A line that cites nothing and claims nothing in the first person may say what the
    # employer or the reader uses ("how Mollie runs Kubernetes", "your payments stack").
    about_employer = not cited and not reading.first_person
    for entity, found_in in support.items():
        lower_case = entity.term is not None or entity.unknown
        if about_employer and (lower_case or (entity.kind == "tool" and free_named)):
            continue
        if found_in == "none":
            found.append((entity.start, Unsupported(entity.kind, entity.text)))

    for degree in reading.degrees:
        if not _degree_supported(degree.level, degree.which, c):
            found.append((degree.start, Unsupported("degree", degree.text)))
    for word in reading.claim_words:
        if not _claim_supported(word.family, c):
            found.append((word.start, Unsupported("claim", word.text)))

    # Numbers in a line that cites nothing are the candidate's only when the line speaks
    # of the candidate ("my team of 40"), not of the reader or the employer.
    about_others = not cited and (
        (reading.addresses_reader and not reading.speaks_of_self)
        or (free_named and not reading.names_self)
    )
    if not about_others:
        for q in mentions.quantities:
            if not any(_quantity_in(q, v) for v in c.views):
                found.append((q.start, Unsupported("quantity", q.text)))
        versions = {v for view in c.views for v in view.mentions.versions}
        for version in mentions.versions:
            if version not in versions:
                found.append((text.casefold().find(version), Unsupported("quantity", version)))
        for mention in mentions.dates:
            if not (
                _date_supported(mention.start, mention.anchored, c)
                and _date_supported(mention.end, True, c)
            ):
                found.append((mention.pos, Unsupported("date", mention.text)))
        for duration in mentions.durations:
            if not _duration_supported(duration, c):
                found.append((duration.start, Unsupported("duration", duration.text)))

    if not cited:
        for phrase in reading.first_person:
            found.append((max(text.find(phrase), 0), Unsupported("uncited", phrase)))

    seen: set[Unsupported] = set()
    out: list[Unsupported] = []
    for _, item in sorted(found, key=lambda pair: pair[0]):
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out

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
  rounded to the nearest half year; "8+ years" needs at least 8; "about"/"nearly N" may
  be over by half a unit or a tenth of N ("about a year" for 13 months, not "about two
  years"). A duration that names an entry ("four years at VinAI", "five years as a
  product designer at RD") is held to that entry's dates alone (every cited entry it
  names), never to the sum of the cited ones.
- what each clause rests on (issue 27; ``domain.truth.clauses`` cuts a sentence into
  clauses and tells which cited fact a clause restates by its words):
  - fusion: a number's clause must not say what another cited fact does and the
    number's own fact does not ("a fraud detection pipeline serving 100K+ QPS", the QPS
    being the gateway's);
  - entry names: an employer, title or place that only a cited entry carries, named in
    a clause whose work is another entry's highlight ("At Zalando I built bidding
    services" for a Criteo highlight), unless the clause also names that highlight's
    own entry, or the name comes after "before", "after", "joined", "from", … (another
    time);
  - grades: a role verb (``domain.truth.grades``: contributed < built < led < founded)
    may not exceed the grade of the facts its clause restates (2 when a fact states work
    with no role verb); a sentence citing only entries is held to their titles;
  - invented words: every content word (``domain.truth.content``: not a function word,
    an ordinary verb of doing, resume or letter vocabulary, or a paraphrase of a word
    there) must be said by a cited fact or anywhere in the profile
    (``context.profile``, set by the document walk); clauses about the reader, the
    employer or the future ("I would love to bring that to your payroll team") are not
    held to it.
- a line citing nothing may name only ``context.free_names``, and may state no quantity,
  date or duration unless it speaks only of the reader or the employer (no I/my/we, and
  "you" or a free name). It must make no first-person claim ("I have led", "I was a",
  "my team of", "we built"); an honest gap ("I have not yet worked with Rust", "I would
  welcome the chance to learn Rust") may name what it lacks.
- a sentence over ``MAX_SENTENCE_CHARS`` is reported whole rather than read.

Known limits — what this cannot see, by design of a checker with no language model:
- a pure change of meaning with no new name, number, tool, date, claim word, role verb or
  content word: "from Airflow to cron" for "from cron to Airflow", a negation; a role
  verb the grades do not list ("coordinated", "championed");
- a content word the profile says elsewhere is accepted in any sentence ("payments" in a
  bullet of a role that had none), and words sharing their first five letters count as
  one ("product" and "production");
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
- durations that read as time worked and name no entry are bounded by the cited
  entries together ("eight years in data" passes when they span eight); a range's two
  ends are each checked, not as a pair; a month named without a year is not a date;
- a bound a cited value meets passes, understating included ("over 30" for 40), and so
  does a number said to be approximate that rounds the cited value to fewer figures, up
  by a twentieth at most ("about 40" for 39 or 42, not for 37; not "about 55M" for 50M+
  nor "about 42" for 40); a rounding not marked as one ("40" for 39) is refused;
- the uncited line rule reads English: in another language every capitalised noun is a
  name, and a greeting or thanks outside the short list is a name.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Literal

from jobctrl.domain.facts import Fact
from jobctrl.domain.truth.aliases import AliasTable, alias_table, fold, spelling_key, word_tokens
from jobctrl.domain.truth.clauses import clause_spans, word_keys
from jobctrl.domain.truth.content import (
    CLAIM_FREE_KEYS,
    content_words,
    profile_keys,
    supported,
)
from jobctrl.domain.truth.grades import fact_grade, graded_verbs, title_grade
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
from jobctrl.domain.vocabulary import GENERIC_TERMS, TERMS

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
    "fusion",  # a number put with what another cited fact's words say (not its own fact's)
    "entry_name",  # an employer, title or place of another entry than the work it names
    "grade",  # a role verb above the cited fact's ("led" for "contributed to")
    "invented",  # content words (duties, domains) neither the cited facts nor the profile say
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
    # The profile's facts' texts (set by the document walk): words a sentence may use
    # without citing their fact ("invented" holds content words to these and the cited).
    profile: tuple[str, ...] = ()


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


def _figures(value: float) -> int:
    """The significant figures ``value`` is written with (55,000,000: 2; 0.05: 1)."""
    digits = f"{abs(value):.10g}".split("e")[0].replace(".", "").strip("0")
    return max(1, len(digits))


def _rounded(value: float, figures: int) -> float:
    """``value`` rounded half up to ``figures`` significant figures (45 to one: 50)."""
    if value == 0:
        return 0.0
    step = 10.0 ** (math.floor(math.log10(abs(value))) - figures + 1)
    return math.floor(abs(value) / step + 0.5) * step * (1 if value > 0 else -1)


def _within(claimed: float, stated: float, bound: str | None, approx: bool) -> bool:
    """``stated`` makes ``claimed`` true: equal, or inside its bound ("under 200 ms" for
    180 ms, "over 40" or "40+" for 45, "about 40" for 38)."""
    if _same(claimed, stated, approx):
        return True
    if bound == "below":
        return stated < claimed
    if bound == "about":  # "about 40" for 39: the stated value rounded, to fewer figures,
        # and up by a twentieth at most ("about 40 million" is not 37 million, nor "about
        # 100%" 95%; rounding down understates)
        return (
            _same(_rounded(stated, _figures(claimed)), claimed, approx)
            and abs(claimed) <= abs(stated) * 1.05
        )
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
        if (
            q.lead
            and s.lead
            and q.lead != s.lead
            and any(o.lead == q.lead and counted_compatible(q, o) for o in stated)
        ):
            continue  # (another verb's number counting the same thing; "manage 22
            # engineers" for "manage three teams (22 engineers)" reorders, it does not move)
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


def _duration_supported(
    d: Duration, c: _Cited, named: Sequence[Fact] = (), today: date | None = None
) -> bool:
    """``d`` is a duration a cited fact states, or time worked the cited entries cover —
    the entries ``named`` ("four years at VinAI") when the sentence names any, never the
    sum of every cited entry then."""
    worked = c.worked_years
    views = c.views
    if named:
        ids = {f.id for f in named}
        views = [v for f, v in zip(c.facts, c.views, strict=True) if f.parent in ids]
        worked = _covered_years(tuple(named), today or date.today())
    for view in views:
        if any(abs(s.years - d.years) < 1e-6 for s in view.mentions.durations):
            return True
    if not (d.worked or named) or worked is None:  # "after three years at RD" is time worked
        return False
    if d.at_least:
        return worked >= d.years - 1 / 24
    if d.approx:  # "about two years" is not 13 months: over by half a unit or a tenth at most
        unit = 10.0 if "decade" in d.text.casefold() else 1 / 12 if "mo" in d.text else 1.0
        return (d.years - worked) / unit <= max(0.5, 0.1 * d.years / unit)
    return d.years <= worked + 0.5


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


def _names_free(text: str, free_names: Sequence[str]) -> bool:
    """``text`` names the employer applied to or the role, maybe inside a longer name
    ("Acme's Kafka platform")."""
    words = f" {spelling_key(text)} "
    return any(f" {key} " in words for key in map(spelling_key, free_names) if key)


# -- what each clause rests on: fusion, entry names, grades, invented words (issue 27) ----------

# Facts that frame others (a role, a school, a project, a volunteer role): their name,
# title and place are what a sentence may name; their highlights state the work.
_ENTRIES = ("experience", "education", "project", "volunteer")
_RELATIVE = re.compile(r"(?:which|that)\b", re.IGNORECASE)


def _sources(c: _Cited) -> list[int]:
    """The cited facts a clause draws its words from: all but the frames of work (a role,
    a school, a volunteer role: their highlights state the work) and what goes with any
    work (a skill, a language). A project's own text describes work: it is one."""
    frames = ("experience", "education", "volunteer", "skill", "language")
    return [i for i, f in enumerate(c.facts) if f.kind not in frames]


# A highlight that says what its entry itself is or does ("Serves hundreds of billions of
# requests a month …", "The project has over 3000 stars …"), not a piece of work done there.
_OF_ENTRY = re.compile(
    r"(?:serves|has|is|hosts|handles|powers|contains|processes|supports|reaches|counts|"
    r"(?:the|this|our)\s+(?:project|company|product|app|site|platform|library|service|"
    r"standard|network|community)|it)\b",
    re.IGNORECASE,
)


def _keys_with_entry(c: _Cited, i: int) -> frozenset[str]:
    """The words a number of fact ``i`` may sit beside: its own and its entry's; for a
    fact about the entry itself, also its cited siblings' ("cdnjs, an open-source CDN that
    serves …": the CDN is what another highlight calls the entry)."""
    fact = c.facts[i]
    parent = next((f for f in c.facts if fact.parent and f.id == fact.parent), None)
    keys = word_keys(fact.text) | (word_keys(parent.text) if parent else frozenset())
    if parent and _OF_ENTRY.match(fact.text):
        for sibling in c.facts:
            if sibling.parent == parent.id:
                keys |= word_keys(sibling.text)
    return keys


def _clause_keys(
    text: str, pos: int, *spans: tuple[int, int], joined: bool = False
) -> frozenset[str]:
    """The distinctive word keys of the clause at ``pos``, the ``spans`` left out;
    ``joined``: with the clause a short opening phrase leads into ("At Hooli, I built
    …") or a relative clause hangs on ("the gateway, which flags 2M …")."""
    clauses = [s for s in clause_spans(text) if any(ch.isalnum() for ch in text[s[0] : s[1]])]
    at = next((i for i, (a, b) in enumerate(clauses) if a <= pos < b), None)
    if at is None:
        return frozenset()
    chosen = [clauses[at]]
    if joined:
        a, b = clauses[at]
        if at + 1 < len(clauses) and len(text[a:b].split()) <= 5:
            chosen.append(clauses[at + 1])
        if at > 0 and _RELATIVE.match(text, a):
            chosen.append(clauses[at - 1])
    chars = [" "] * len(text)
    for a, b in chosen:
        chars[a:b] = text[a:b]
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return word_keys("".join(chars)) - CLAIM_FREE_KEYS


def _fusions(text: str, mentions: Mentions, c: _Cited) -> list[tuple[int, Unsupported]]:
    """A number whose clause says what another cited fact says and its own fact does not
    ("a fraud detection pipeline serving 100K+ QPS": the QPS are another system's)."""
    sources = _sources(c)
    if len(sources) < 2:
        return []
    out: list[tuple[int, Unsupported]] = []
    for q in mentions.quantities:
        # a fact stating the same value backs it even when it reads what it counts
        # otherwise ("a team of six building …")
        backers = [
            i
            for i in sources
            if _quantity_in(q, c.views[i])
            or any(_same(q.value, s.value, False) for s in c.views[i].mentions.quantities)
        ]
        if not backers or len(backers) == len(sources):
            continue
        keys = _clause_keys(text, q.start, (q.start, q.end), joined=True)
        others = frozenset().union(
            *(word_keys(c.facts[i].text) for i in sources if i not in backers)
        )
        if all((keys & others) - _keys_with_entry(c, i) for i in backers):
            out.append((q.start, Unsupported("fusion", q.text)))
    return out


# Words before a name that place the work elsewhere ("before Zalando", "joined Allegro").
_ELSEWHERE_BEFORE = re.compile(
    r"\b(?:before|after|prior\s+to|since|until|till|left|leaving|leave|joined|joining|join|"
    r"moved|moving|move|from|to|then|than|into|following|following\s+my\s+time\s+at)\s+"
    r"(?:(?:the|my|a|an)\s+)?(?:\w+\s+)?$",
    re.IGNORECASE,
)


def _entry_names(
    text: str, support: dict[Entity, Literal["cited", "free", "none"]], c: _Cited
) -> list[tuple[int, Unsupported]]:
    """An employer, title or place only an entry carries, named in a clause that states
    the work of another entry's highlight ("At Zalando I built bidding services …" for
    a Criteo highlight)."""
    highlights = [i for i, f in enumerate(c.facts) if f.kind == "highlight"]
    if not highlights:
        return []
    # the entries the sentence names ("… at Criteo to … at Zalando"): work of any of them
    # may sit beside the others' names
    holders: dict[Entity, list[int]] = {}
    for entity, found_in in support.items():
        held = [i for i, v in enumerate(c.views) if _group_has(v, entity.parts)]
        # only an entry's own name: not one a highlight or the summary also says
        if found_in == "cited" and held and all(c.facts[i].kind in _ENTRIES for i in held):
            holders[entity] = held
    named = {c.facts[i].id for held in holders.values() for i in held}
    # the clause is known by its words and its other names and tools ("… from Heroku to
    # AWS"), not by the entries' own names
    spans = [(e.start, e.end) for e in holders]
    out: list[tuple[int, Unsupported]] = []
    for entity, held in holders.items():
        if _ELSEWHERE_BEFORE.search(text[max(0, entity.start - 30) : entity.start]):
            continue
        entries = {c.facts[i].id for i in held}
        keys = _clause_keys(text, entity.start, *spans, joined=True)
        scores = {i: len(keys & word_keys(c.facts[i].text)) for i in highlights}
        best = max(scores.values())
        if best < 2 or any(
            (scores[i] == best and c.facts[i].parent in named)
            or (scores[i] and c.facts[i].parent in entries)
            for i in highlights
        ):
            continue
        out.append((entity.start, Unsupported("entry_name", entity.text)))
    return out


# "four years at VinAI", "five years as a product designer at RD", "two years with Monzo"
_DURATION_AT = re.compile(
    r"\s+(?:as\s+(?:an?\s+)?(?:[a-z-]+\s+){0,3}?(?:at|with|for|in)\s+|(?:at|with|for|in|as)\s+)"
    r"(?:(?:a|an|the)\s+)?",
    re.IGNORECASE,
)
_NAME_JOIN = re.compile(r"\s*(?:,|and|&|/)\s*(?:(?:and|the)\s+)?", re.IGNORECASE)
_NAME_BEFORE_DURATION = re.compile(
    r"\s+(?:for|over)\s+(?:(?:the|my)\s+)?(?:(?:past|last|first)\s+)?$", re.IGNORECASE
)


def _named_entries(text: str, d: Duration, reading: Reading, c: _Cited) -> tuple[Fact, ...]:
    """The cited entries a duration names: "four years at VinAI Research", "my two years
    with Monzo and Paystack", "at Criteo for three years"."""
    names: list[Entity] = []
    at = d.end
    for entity in reading.entities:
        if entity.start >= at and _DURATION_AT.fullmatch(text, at, entity.start):
            names.append(entity)
            joined = _NAME_JOIN.match(text, entity.end)
            at = joined.end() if joined else len(text)
        elif _NAME_BEFORE_DURATION.fullmatch(text, entity.end, d.start):
            names.append(entity)
    dated = [f for f in c.facts if f.kind in _ENTRIES and f.start.strip()]
    return tuple(f for f in dated if any(_group_has(_view(f.text), e.parts) for e in names))


def _grades(text: str, c: _Cited) -> list[tuple[int, Unsupported]]:
    """A role verb above what the facts its clause draws on say ("Led" for "Contributed
    to"); a sentence citing only entries is held to their titles."""
    verbs = [v for v in graded_verbs(text) if v.grade >= 2]
    if not verbs:
        return []
    sources = _sources(c)
    out: list[tuple[int, Unsupported]] = []
    for verb in verbs:
        if sources:
            # held to the facts whose words the verb's clause restates (a clause that
            # restates none, "that is how I run teams", claims no particular work)
            keys = _clause_keys(text, verb.start, (verb.start, verb.end))
            near = [i for i in sources if keys & word_keys(c.facts[i].text)]
            if not near:
                continue
            allowed = max(fact_grade(c.facts[i].text) for i in near)
        else:  # held to the cited entries' titles ("Engineering Manager at Zalando")
            titles = [f.text.split(" at ")[0] for f in c.facts if f.kind in _ENTRIES]
            if not titles:
                continue
            allowed = max(title_grade(t) for t in titles)
        if verb.grade > allowed:
            out.append((verb.start, Unsupported("grade", verb.text)))
    return out


_ABOUT_OTHERS = re.compile(
    r"\b(?:you|your|yours|would|will|could|can|hope|hoping|eager|keen|excite[sd]?|exciting|"
    r"look\s+forward|looking\s+forward|love\s+to|like\s+to)\b|'(?:d|ll)\b",
    re.IGNORECASE,
)


def _invented(
    text: str, aliases: AliasTable, c: _Cited, context: ClaimContext
) -> list[tuple[int, Unsupported]]:
    """Content words (duties, domains) that neither the cited facts nor the profile say:
    a bullet invented under a real role. Clauses about the reader or the employer, or
    about what the candidate would do, claim nothing of the past."""
    texts = context.profile or tuple(f.text for f in c.facts)
    held = (
        profile_keys((*context.profile, *context.free_names)),
        profile_keys(tuple(f.text for f in c.facts)),
    )
    words = [
        (word, at)
        for word, key, at, area in _content_words(text, aliases, context.free_names)
        if not any(supported(key, keys) for keys in held)
        and not (area >= 0 and _area_in(_AREA_PATTERNS[area], texts))
    ]
    if not words:
        return []
    return [(words[0][1], Unsupported("invented", ", ".join(w for w, _ in words)))]


@functools.lru_cache(maxsize=4096)
def _content_words(
    text: str, aliases: AliasTable, free_names: tuple[str, ...]
) -> tuple[tuple[str, str, int, int], ...]:
    """The sentence's content words outside its names, numbers, degrees, claim words and
    gap objects, and outside clauses about the reader, the employer or the future: (word,
    key, offset, the area of the vocabulary it is part of or -1). A pure function of the
    sentence, read once."""
    mentions, reading = _read(text, aliases)
    skip = [*mentions.spans, *((e.start, e.end) for e in reading.entities)]
    skip += [(d.start, d.end) for d in reading.degrees]
    skip += [(w.start, w.end) for w in reading.claim_words]
    skip += list(reading.gaps)
    free = [_view(n) for n in free_names if n.strip()]
    named_free = [e for e in reading.entities if any(_group_has(v, e.parts) for v in free)]
    for a, b in clause_spans(text):
        if _ABOUT_OTHERS.search(text, a, b) or any(a <= e.start < b for e in named_free):
            skip.append((a, b))
    areas = [(m.start(), m.end(), i) for i, m in _area_matches(text)]
    out = []
    for word, key, at in content_words(text, skip):
        area = next((i for a, b, i in areas if a <= at < b), -1)
        out.append((word, key, at, area))
    return tuple(out)


_AREA_PATTERNS = tuple(_TERM_PATTERNS[k] for k in sorted(GENERIC_TERMS))
_AREAS = re.compile(
    "|".join(f"(?P<a{i}>{p.pattern})" for i, p in enumerate(_AREA_PATTERNS)), re.IGNORECASE
)


def _area_matches(text: str) -> list[tuple[int, re.Match[str]]]:
    """Areas of the shared vocabulary ("data analysis", "distributed systems") in
    ``text``, with their index in ``_AREA_PATTERNS``."""
    return [(int(m.lastgroup[1:]), m) for m in _AREAS.finditer(text) if m.lastgroup]


@functools.lru_cache(maxsize=1024)
def _area_in(pattern: re.Pattern[str], texts: tuple[str, ...]) -> bool:
    """The profile names the area in some spelling: a rewrite may name it in its own."""
    return any(pattern.search(t) for t in texts)


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


_YOU = re.compile(r"\byou(?:r|rs)?\b", re.IGNORECASE)
_SELF = re.compile(r"\b(?:i|i'm|i've|i'd|me|my|mine|myself|we|our|us)\b", re.IGNORECASE)


@functools.lru_cache(maxsize=4096)
def _reader_clauses(text: str) -> tuple[tuple[int, int], ...]:
    """The clauses that speak of the reader ("you", "your") and not of the writer."""
    return tuple(
        (a, b)
        for a, b in clause_spans(text)
        if _YOU.search(text, a, b) and not _SELF.search(text, a, b)
    )


def _in_spans(pos: int, spans: Sequence[tuple[int, int]]) -> bool:
    return any(a <= pos < b for a, b in spans)


_AS_WRITER = re.compile(r"(?:^|[,;:—(]\s*)as\s+(?:an?|the|someone|somebody|one)\b", re.IGNORECASE)


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
    claimed_own: set[Entity] = set()
    for entity in reading.entities:
        if _in_gap(reading, entity.start, entity.end):
            continue
        support[entity] = _entity_support(entity, c)
        if support[entity] == "free" and _claimed_as_own(text, entity, reading.entities, c):
            support[entity] = "none"
            claimed_own.add(entity)
    free_named = "free" in support.values()
    # a clause of a cited line about the reader's needs ("You ask for AWS and GCP: at
    # Listium I …") names what the posting asks for, not what the writer has done
    reader = _reader_clauses(text) if cited else ()
    # "Dear Acme team, as a Google veteran, …": an opening "as a …" says who the writer is,
    # as "I am a Google veteran" does, though no "I" is written.
    describes_writer = not cited and bool(_AS_WRITER.search(text))
    # A line that cites nothing and claims nothing in the first person may say what the
    # employer or the reader uses ("how Mollie runs Kubernetes", "your payments stack").
    about_employer = not cited and not reading.first_person and not describes_writer
    # … and a line about the job — the posting's needs, the role, the company, the reader —
    # in which the writer appears only in frames that claim nothing makes no claim at all
    # ("Your posting asks for infrastructure as code", "The role calls for a Master's
    # degree"; not "…, which I have practised for years").
    about_job = (
        about_employer
        and reading.self_neutral
        and (
            reading.addresses_reader
            or reading.names_job
            or free_named
            or _names_free(text, context.free_names)
        )
    )
    for entity, found_in in support.items():
        lower_case = entity.term is not None or entity.unknown
        if about_employer and (lower_case or (entity.kind == "tool" and free_named)):
            continue
        if about_job and entity not in claimed_own:
            continue
        if found_in == "none" and not _in_spans(entity.start, reader):
            found.append((entity.start, Unsupported(entity.kind, entity.text)))

    for degree in () if about_job else reading.degrees:
        if not _degree_supported(degree.level, degree.which, c):
            found.append((degree.start, Unsupported("degree", degree.text)))
    for word in () if about_job else reading.claim_words:
        if not _claim_supported(word.family, c):
            found.append((word.start, Unsupported("claim", word.text)))

    # Numbers in a line that cites nothing are the candidate's only when the line speaks
    # of the candidate ("my team of 40"), not of the reader or the employer.
    about_others = about_job or (
        not cited
        and not describes_writer
        and (
            (reading.addresses_reader and not reading.speaks_of_self)
            or (free_named and not reading.names_self)
        )
    )
    if not about_others:
        for q in mentions.quantities:
            if not any(_quantity_in(q, v) for v in c.views) and not _in_spans(q.start, reader):
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
            named = _named_entries(text, duration, reading, c)
            if not _duration_supported(duration, c, named, context.today):
                found.append((duration.start, Unsupported("duration", duration.text)))

    if cited:
        found += _fusions(text, mentions, c)
        found += _entry_names(text, support, c)
        found += _grades(text, c)
        found += _invented(text, alias_table(context.extra_aliases), c, context)

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

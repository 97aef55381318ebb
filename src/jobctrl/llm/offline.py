"""The built-in offline scoring provider: extractive requirement fit, no network, no model.

It reads the requirement bullets out of a posting's plain-text description, looks for the
skills and tools each one asks for (the shared vocabulary of ``domain.vocabulary``, with
aliases, plus the profile's own skills), years of experience and degrees, and quotes the
profile lines that meet them.
Everything is deterministic: the only clock is the optional ``today`` argument.

Thresholds, in one place (reading the requirements: ``llm.requirements``):
- a requirement is ``matched`` when every kind of check it contains passes: its terms (each
  list of alternatives — "A or B", "A/B", "such as A, B, C" — by any one of it, the terms
  named on their own at least half; anything at all with "or similar"; broad areas like
  "backend" or "cloud" only count when it names nothing more specific; a soft word such as
  "agile" may support a hard requirement, never fail it), a role held ("experience as a
  backend developer"), its years ("5+ years", the largest number given, against the merged
  span of the profile's experience dates; years of a kind of work — a job family, an
  industry, or the words naming it — only from the roles of that kind), managing people
  (management evidence only) and its degree (the profile's highest degree level, or >= 4
  years of experience when the posting accepts "equivalent experience");
- a requirement with none of those checks matches a single profile line when they share at
  least half of the requirement's significant words (stopwords removed, light stemming), and
  at least two of them, or all of them when it has fewer than three;
- a requirement is soft when nothing in it can be checked, it names soft skills only
  ("strong communication"), a trait ("a self-starter") or a place ("based in Poland"): it
  weighs once and never caps;
- score = 70% the weighted share of matched requirements (hard must x3, soft must and nice
  x1; with fewer than three hard must-haves the posting's named skills weigh in) + 30% the
  role (the posting's job family among the profile's roles: 1, a neighbouring one: 0.5,
  family unknown: the title's words shared) + up to 5 points for title words shared,
  capped at 100, minus the level and family factors' points (``domain.fit_factors``: two
  levels away, or another field, is never a Strong fit);
- with no requirements found, score = 80 x the share of the posting's known skills that the
  profile has (never "Strong fit": without a requirement list the evidence is thin);
- verdicts: >= 75 "Strong fit", >= 55 "Good fit", >= 35 "Partial fit", else "Weak fit",
  settled by ``domain.fit_verdict.settle`` (an unmet must-have keeps the score below
  ``min_fit_score`` and is named in the verdict).
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from datetime import date

from jobctrl.domain.fit_factors import (
    MANAGEMENT_ASK,
    MANAGEMENT_EVIDENCE,
    fit_factors,
    profile_years,
)
from jobctrl.domain.fit_verdict import FitRules, requirement_weight, settle, verdict_for
from jobctrl.domain.job_family import (
    FAMILY_LABELS,
    families_counting_for,
    family_of,
    neighbouring,
)
from jobctrl.domain.profile import Profile
from jobctrl.domain.scoring import Evidence, RequirementFit, ScoreReport
from jobctrl.domain.vocabulary import (
    GENERIC_TERMS,
    IMPLIES,
    NUMBER_WORDS,
    SOFT_TERMS,
    STOPWORDS,
    TERMS,
    VOCABULARY,
    WORD_LEFT,
    WORD_RIGHT,
    Term,
    significant_words,
)
from jobctrl.llm.requirements import SENTENCE_SPLIT, extract_requirements

__all__ = [
    "IMPLIES",
    "MODEL",
    "PROVIDER",
    "extract_requirements",
    "score_offline",
    "verdict_for",
]

PROVIDER = "offline"
MODEL = "offline-extractive-v1"
MAX_EVIDENCE = 4

# -- years, degrees and alternatives ---------------------------------------------------------

_YEARS = re.compile(
    r"(?<![\w.])(\d{1,2}|" + "|".join(NUMBER_WORDS) + r")\s*(?:\+|plus)?\s*"
    r"(?:(?:-|–|to)\s*\d{1,2}\s*)?(?:\+\s*)?(?:or more\s+)?(?:years?|yrs?)\b",
    re.IGNORECASE,
)
_DEGREE_REQ = re.compile(
    r"\bdegree\b|\bbachelor|\bmaster'?s\b|\bmasters\b|\bph\.?\s?d\b|\bdoctora|\bmba\b|"
    r"(?-i:\b(?:BS|BA|MS|MA|BSc|MSc|BEng|MEng|B\.S\.|M\.S\.)(?![\w.]))",
    re.IGNORECASE,
)
_EQUIVALENT = re.compile(r"equivalent (?:practical |work |professional )?experience", re.I)
_LEVEL_PATTERNS: tuple[tuple[int, re.Pattern[str]], ...] = (
    (3, re.compile(r"ph\.?\s?d|dphil|doctor", re.I)),
    (2, re.compile(r"\bm\.?\s?(?:sc|s|a|eng|phil|res|tech)\b\.?|master|\bmba\b", re.I)),
    (1, re.compile(r"\bb\.?\s?(?:sc|s|a|eng|tech|comp)\b\.?|bachelor|undergraduate|degree", re.I)),
)


def _degree_level(text: str) -> int:
    """3 for a doctorate, 2 for a master's, 1 for a bachelor's or plain degree, else 0."""
    return next((level for level, pattern in _LEVEL_PATTERNS if pattern.search(text)), 0)


_LEVEL_LABELS = {1: "bachelor's degree", 2: "master's degree", 3: "PhD"}
_ALTERNATIVES = re.compile(
    r"\bor\b|\bone of\b|\bany of\b|such as|e\.g\.|for example|\bsimilar\b|\w\s*/\s*\w", re.I
)
_NOT_ALTERNATIVES = re.compile(r"ci\s*/\s*cd|a/b", re.I)  # slashes that are not "or"
# "Elixir and Postgres (or similar technologies)": anything comparable will do.
_ANY_COMPARABLE = re.compile(
    r"\bor (?:similar|equivalent|comparable|related|other)\b|\bone of\b|\bany of\b|"
    r"\bat least one\b|\bone or more\b",
    re.I,
)
# Between two terms of one list: commas, "or", "/", "and/or", "and".
_LIST_GAP = re.compile(r"^[\s,;]*(?:(?:and\s*/\s*)?or\b|/|and\b)?[\s,;]*$", re.I)
_OR_GAP = re.compile(r"\bor\b|/", re.I)
# Before a list of examples: "such as", "e.g.", "like", "(".
_EXAMPLES_LEAD = re.compile(
    r"(?:such as|e\.g\.?,?|for example|for instance|\blike|including|\()\s*$", re.I
)


def _terms_met(text: str, judged: list[Term], index: _ProfileIndex) -> bool:
    """Whether the profile meets a requirement's terms: each list of alternatives ("A or
    B", "A/B", "such as A, B, C") by any one of it; the terms named on their own, at least
    half of them; anything comparable allowed ("or similar"), any one at all."""
    if _ANY_COMPARABLE.search(text):
        return any(t.key in index.terms for t in judged)
    spans = sorted(
        (m.start(), m.end(), t) for t in judged if (m := t.pattern.search(text)) is not None
    )
    lists: list[tuple[list[Term], bool]] = []  # (terms, alternatives?)
    last_end = -1
    for start, end, term in spans:
        gap = text[last_end:start] if last_end >= 0 else ""
        if lists and len(gap) <= 12 and _LIST_GAP.match(gap):
            terms, alternatives = lists[-1]
            lists[-1] = ([*terms, term], alternatives or bool(_OR_GAP.search(gap)))
        else:
            lists.append(([term], bool(_EXAMPLES_LEAD.search(text[max(0, start - 25) : start]))))
        last_end = end
    alone: list[Term] = []
    for terms, alternatives in lists:
        if alternatives:
            if not any(t.key in index.terms for t in terms):
                return False
        else:
            alone.extend(terms)
    met = sum(t.key in index.terms for t in alone)
    return met >= math.ceil(len(alone) / 2)


_SENIORITY = frozenset(
    ["senior", "junior", "lead", "staff", "principal", "head", "sr", "jr", "ii", "iii", "iv", "mid"]
)


def _parse_month(value: str, today: date, *, end: bool) -> int | None:
    """Months since year 0 for "YYYY-MM" / "YYYY"; "", "present", "now" mean today."""
    value = value.strip().lower()
    if end and value in ("", "present", "current", "now", "today", "ongoing"):
        return today.year * 12 + today.month - 1
    match = re.match(r"^(\d{4})(?:[-/.](\d{1,2}))?", value)
    if not match:
        return None
    year = int(match.group(1))
    month = int(match.group(2)) if match.group(2) else (12 if end else 1)
    return year * 12 + min(max(month, 1), 12) - 1


# -- the profile, indexed --------------------------------------------------------------------


@dataclass(frozen=True)
class _Source:
    source: str  # "skills" | "experience" | "summary" | "education"
    ref: str
    text: str
    rank: int  # lower is stronger evidence


@dataclass(frozen=True)
class _Role:
    start: int  # months since year 0
    end: int  # exclusive
    words: frozenset[str]  # significant words of its title, employer and lines
    text: str  # its title, employer and lines
    source: _Source


def _months(intervals: list[tuple[int, int]]) -> int:
    """The months the intervals cover, overlaps counted once."""
    months = 0
    current_start, current_end = -1, -1
    for start, end in sorted(intervals):
        if start > current_end:
            months += max(0, current_end - current_start)
            current_start, current_end = start, end
        else:
            current_end = max(current_end, end)
    return months + max(0, current_end - current_start)


@dataclass
class _ProfileIndex:
    sources: list[_Source]
    terms: dict[str, list[_Source]]  # term key -> sources that show it (directly or implied)
    labels: dict[str, str]
    extra_terms: list[Term]  # the profile's own skills that are not in the vocabulary
    years: float
    degree_level: int
    education: list[_Source]
    experience: list[_Source]
    title_words: set[str]
    family_years: dict[str, float]  # years of each family's work (roles counted as it says)
    family_roles: dict[str, list[_Source]]  # the roles that count for each family
    management: list[_Source]  # lines that show managing people (reports, hiring, a team)
    roles: list[_Role]  # the dated roles with their words, for years of a kind of work
    role_families: frozenset[str]  # the job families of the profile's roles
    technical: list[_Source]  # technical role titles and fields of study


def _summary_sentence(summary: str, pattern: re.Pattern[str]) -> str:
    for sentence in SENTENCE_SPLIT.split(summary):
        if pattern.search(sentence):
            return sentence.strip()
    return summary.strip()


@functools.lru_cache(maxsize=8)
def _index_profile_json(profile_json: str, today: date) -> _ProfileIndex:
    # Scoring many postings against one profile re-uses its index (read-only from here on).
    return _index_profile(Profile.model_validate_json(profile_json), today)


_ENGLISH_GLUE = frozenset(
    ["the", "and", "of", "to", "in", "a", "for", "with", "on", "as", "by", "at", "from", "an"]
)


def _written_in_english(sources: list[_Source]) -> bool:
    words = [w for s in sources if s.rank <= 2 for w in re.findall(r"[a-z]+", s.text.lower())]
    return len(words) >= 20 and sum(w in _ENGLISH_GLUE for w in words) >= 0.06 * len(words)


def _index_profile(profile: Profile, today: date) -> _ProfileIndex:
    sources: list[_Source] = []
    for i, exp in enumerate(profile.experience):
        for j, bullet in enumerate(exp.bullets):
            sources.append(_Source("experience", f"experience[{i}].bullets[{j}]", bullet, 0))
        sources.append(_Source("experience", f"experience[{i}].title", exp.title, 1))
    if profile.summary.strip():
        sources.append(_Source("summary", "summary", profile.summary, 2))
    for i, skill in enumerate(profile.skills):
        sources.append(_Source("skills", f"skills[{i}]", skill, 3))
    for i, project in enumerate(profile.projects):
        for j, line in enumerate((project.description, *project.bullets)):
            if line.strip():
                ref = f"projects[{i}]." + ("description" if j == 0 else f"bullets[{j - 1}]")
                sources.append(_Source("projects", ref, line, 3))
    for i, cert in enumerate(profile.certifications):
        sources.append(_Source("certifications", f"certifications[{i}]", cert.name, 3))
    for i, lang in enumerate(profile.languages):
        text = f"{lang.language} ({lang.fluency})" if lang.fluency.strip() else lang.language
        sources.append(_Source("languages", f"languages[{i}]", text, 3))
    education: list[_Source] = []
    level = 0
    for i, edu in enumerate(profile.education):
        text = ", ".join(p for p in (edu.degree, edu.field, edu.institution) if p.strip())
        education.append(_Source("education", f"education[{i}]", text, 4))
        level = max(level, _degree_level(edu.degree) or (1 if edu.degree.strip() else 0))
    sources.extend(education)
    for i, exp in enumerate(profile.experience):
        if exp.company.strip():
            sources.append(_Source("experience", f"experience[{i}].company", exp.company, 5))

    known = {t.key for t in TERMS}
    extra: list[Term] = []
    for skill in profile.skills:
        name = skill.strip()
        if len(name) < 2 or name.lower() in STOPWORDS or name.lower() in known:
            continue
        if any(t.pattern.search(name) for t in TERMS):
            continue
        pattern = re.compile(WORD_LEFT + re.escape(name) + WORD_RIGHT, re.IGNORECASE)
        extra.append(Term(f"skill:{name.lower()}", name, pattern))

    terms: dict[str, list[_Source]] = {}
    everything = "\n".join(s.text for s in sources)
    for term in (*TERMS, *extra):
        if not term.pattern.search(everything):  # one search rules out most terms
            continue
        hits = [s for s in sources if term.pattern.search(s.text)]
        if not hits:
            continue
        terms.setdefault(term.key, []).extend(hits)
        frontier = list(IMPLIES.get(term.key, ()))
        while frontier:  # implications are shallow; walk them to a fixed point
            implied = frontier.pop()
            bucket = terms.setdefault(implied, [])
            present = {h.ref for h in bucket}  # a set: a big profile has many sources
            new = [h for h in hits if h.ref not in present]
            if new:
                bucket.extend(new)
                frontier.extend(IMPLIES.get(implied, ()))
    if not profile.languages and _written_in_english(sources):
        # A profile in English that lists no languages shows English by being written in it.
        terms.setdefault("english", []).append(next(s for s in sources if s.rank <= 2))
    order = {source.ref: i for i, source in enumerate(sources)}
    for key, hits in terms.items():
        terms[key] = sorted(set(hits), key=lambda s: (s.rank, order[s.ref]))

    intervals: list[tuple[int, int]] = []
    experience: list[_Source] = []
    roles: list[_Role] = []
    dated = []  # the profile's roles that have dates, in step with ``experience``
    for i, exp in enumerate(profile.experience):
        start = _parse_month(exp.start, today, end=False)
        end = _parse_month(exp.end, today, end=True)
        if start is None or end is None or end < start:
            continue
        dated.append(exp)
        intervals.append((start, end + 1))
        span = f"{exp.start} – {exp.end or 'present'}"
        source = _Source("experience", f"experience[{i}]", f"{exp.title}, {span}", 1)
        experience.append(source)
        text = " ".join((exp.title, exp.company, *exp.bullets))
        roles.append(_Role(start, end + 1, frozenset(significant_words(text)), text, source))
    months = _months(intervals)

    title_words = {w for e in profile.experience for w in significant_words(e.title)}
    labels = {t.key: t.label for t in (*TERMS, *extra)}
    return _ProfileIndex(
        sources=sources,
        terms=terms,
        labels=labels,
        extra_terms=extra,
        years=months / 12,
        degree_level=level,
        education=education,
        experience=experience,
        title_words=title_words - _SENIORITY,
        family_years={
            f: profile_years(profile, today, families_counting_for(f)) for f in FAMILY_LABELS
        },
        family_roles={
            f: [
                e
                for e, exp in zip(experience, dated, strict=True)
                if family_of(exp.title) in families_counting_for(f)
            ]
            for f in FAMILY_LABELS
        },
        roles=roles,
        role_families=frozenset(f for e in profile.experience if (f := family_of(e.title))),
        technical=[
            s
            for s in sources
            if (s.ref.endswith("].title") and family_of(s.text) in _TECHNICAL_FAMILIES)
            or (s.source == "education" and _TECHNICAL_FIELD.search(s.text))
        ],
        management=[
            s
            for s in sources
            if (s.source == "summary" or s.ref.endswith(("].title",)) or ".bullets[" in s.ref)
            and (
                MANAGEMENT_EVIDENCE.search(s.text)
                or (s.ref.endswith("].title") and family_of(s.text) == "management")
            )
        ],
    )


# -- checking one requirement ----------------------------------------------------------------


@dataclass
class _Check:
    fit: RequirementFit
    missing: list[str]  # short labels for the summary


_LITERAL = re.compile(r"[a-z0-9 ]+")


def _needle(alias: str) -> str | None:
    """The lowercase literal every match of ``alias`` starts with, or None when it has no
    safe one (a class, an escape or an alternation first)."""
    lowered = alias.lower().removeprefix("(?-i:")
    match = _LITERAL.match(lowered)
    if "|" in alias or not match:
        return None
    literal = match.group(0)
    if lowered[match.end() : match.end() + 1] in ("?", "*", "{"):
        literal = literal[:-1]  # "colou?r": the "u" is optional
    return literal if len(literal) >= 2 else None


def _needles(aliases: tuple[str, ...]) -> tuple[str, ...] | None:
    found = [_needle(a) for a in aliases]
    return None if None in found else tuple(n for n in found if n)


# A regex search per term over a whole posting is slow; a plain substring test rules most
# terms out first (None: no safe literal, always searched).
_TERM_NEEDLES: dict[str, tuple[str, ...] | None] = {
    key: _needles(aliases) for key, (_label, aliases) in VOCABULARY.items()
}


def _terms_in(text: str, index: _ProfileIndex) -> list[Term]:
    found: list[tuple[int, Term]] = []
    lowered = text.lower()
    for term in (*TERMS, *index.extra_terms):
        needles = _TERM_NEEDLES.get(term.key, (term.label.lower(),))
        if needles is not None and not any(n in lowered for n in needles):
            continue
        match = term.pattern.search(text)
        if match:
            found.append((match.start(), term))
    found.sort(key=lambda pair: pair[0])
    return [term for _, term in found]


def _evidence(source: _Source, term: Term | None) -> Evidence:
    text = source.text
    if source.source == "summary" and term is not None:
        text = _summary_sentence(text, term.pattern)
    return Evidence(source=source.source, text=text, ref=source.ref)


# Where the person lives or may work is not a skill a profile shows: the target places
# in the settings decide it, so such an ask is not judged here (never caps the score).
_LOCATION_ASK = re.compile(
    r"\b(?:(?:currently |must be |be )?(?:based|located|residing|resident) in|reside in|"
    r"live in|relocat\w*|time ?zones?|work(?:ing)? hours|authori[sz](?:ed|ation) to work|"
    r"work authori[sz]ation|right to work|visa|sponsorship|on[- ]site|in[- ]office|hybrid|"
    r"commut\w+|travel)\b",
    re.IGNORECASE,
)
# Traits of character a resume cannot show line by line ("strong work ethic", "a
# self-starter", "meticulous"): judged from the whole profile, never capping the score.
_TRAIT = re.compile(
    r"\b(?:work ethic|self[- ](?:starter|motivated|driven|directed)|motivated|driven|"
    r"proactive|passion\w*|curio\w+|enthusias\w+|attention to detail|detail[- ]oriented|"
    r"meticulous|ownership|team player|growth mindset|mindset|empathy|empathetic|humble|"
    r"humility|pragmatic|independent\w*|autonom\w+|track record|eq|emotional intelligence|"
    r"integrity|adaptab\w+|resilien\w+|creative|creativity|fast learner|quick learner|"
    r"bias (?:for|towards) action|sense of urgency|thrive\w*|love\w*|excited|care\w*|"
    r"values?|culture)\b",
    re.IGNORECASE,
)
_TECHNICAL_BACKGROUND = re.compile(
    r"\btechnical (?:background|experience|foundation|acumen|profile|mindset)|"
    r"\b(?:engineering|software|computer science|stem) background|\btechnically minded",
    re.IGNORECASE,
)
_TECHNICAL_FIELD = re.compile(
    r"computer|software|engineering|mathemat|physics|statistic|informatics|data science",
    re.IGNORECASE,
)
_TECHNICAL_FAMILIES = frozenset({"engineering", "data", "ml", "management"})
_MANAGEMENT_TERMS = frozenset({"people management", "hiring", "leadership", "mentoring"})


# Words that say "experience" without saying of what kind.
_ANY_KIND = frozenset(
    significant_words(
        "experience experiences professional work working relevant related similar total "
        "overall industry hands-on full-time post-graduate proven demonstrable practical "
        "combined role roles position setting environment capacity field company companies "
        "least minimum plus years year commercial production career crafting building "
        "developing designing delivering shipping maintaining high-quality quality modern "
        "complex large-scale scalable robust successful strong deep solid"
    )
)
# Work that is building software though no job title says so ("3 years of crafting web
# applications", "of programming"): engineering years.
_BUILDING = re.compile(
    r"\bweb\b|\bapp(?:lication)?s\b|\bcoding\b|\bprogramming\b|\bsoftware\b", re.IGNORECASE
)


def _years_asked(text: str) -> list[tuple[int, str | None, tuple[str, ...]]]:
    """Each "N+ years …" in a requirement: N, the family of work it names, if any ("5+
    years as an engineering manager": management), and else the words naming its kind
    ("8+ years in a certification development role": certification, development);
    "5+ years of experience" names neither."""
    found = []
    for m in _YEARS.finditer(text):
        n = int(m.group(1)) if m.group(1).isdigit() else NUMBER_WORDS[m.group(1).lower()]
        phrase = re.split(
            r"[.;:()]|,(?!\s*or\b)|\band\b|\bincluding\b|\bwith at least\b",
            text[m.end() : m.end() + 80],
        )[0]
        # "either in tech support, or software development": either family's years.
        families = dict.fromkeys(
            f
            for part in re.split(r"\bor\b|/", phrase)
            if (f := family_of(part) or ("engineering" if _BUILDING.search(part) else None))
        )
        family = "|".join(families) or None
        kind: tuple[str, ...] = ()
        if family is None:
            rest = phrase  # "of technical writing experience": technical, writing
            # Years with a skill ("3+ years of Python") are the skill's check plus the
            # career's years: a skills list has no dates to count.
            named = [t for t in TERMS if t.pattern.search(rest)]
            if named and all(t.key in _INDUSTRIES for t in named):
                kind = tuple(f"term:{t.key}" for t in named)  # "in fintech": that industry
            elif not named:
                kind = tuple(w for w in significant_words(rest) if w not in _ANY_KIND)
        found.append((n, family, kind))
    best: dict[tuple[str | None, tuple[str, ...]], int] = {}
    for n, family, kind in found:  # the largest number asked of each kind
        best[(family, kind)] = max(n, best.get((family, kind), 0))
    return [(n, family, kind) for (family, kind), n in best.items()]


_INDUSTRIES = frozenset({"payments", "e-commerce", "logistics"})
_TERM_BY_KEY = {t.key: t for t in TERMS}


def _kind_years(index: _ProfileIndex, kind: tuple[str, ...]) -> tuple[float, list[_Source]]:
    """Years (overlaps counted once) of the roles whose lines name at least half of
    ``kind``'s words (or, ``term:<key>``, an industry the vocabulary knows), and those
    roles."""
    need = max(1, math.ceil(len(kind) / 2))

    def shown(role: _Role, word: str) -> bool:
        if word.startswith("term:"):
            return bool(_TERM_BY_KEY[word[5:]].pattern.search(role.text))
        return word in role.words

    roles = [r for r in index.roles if sum(shown(r, w) for w in kind) >= need]
    return _months([(r.start, r.end) for r in roles]) / 12, [r.source for r in roles]


# A capitalised word after the first (a product, language or certificate the vocabulary
# does not know: "Experience with Elixir") makes a requirement checkable, so not soft.
_NAMED_THING = re.compile(r"(?<=\s)(?!I\b|You\b|We\b)[A-Z][\w+#.-]*[a-zA-Z0-9+#]")


_SOFT_TERMS = SOFT_TERMS


def _only_soft(terms: list[Term]) -> bool:
    return all(t.key in _SOFT_TERMS for t in terms)


# "Experience as a backend developer (Java, Kotlin)": a kind of role, met by having held
# one (the parenthesised tools are its examples, not further asks).
_AS_ROLE = re.compile(
    r"\bas an? ((?:[\w+#-]+ ){0,3}?(?:engineer|developer|programmer|architect|scientist|"
    r"researcher|designer|analyst|manager|consultant))\b",
    re.IGNORECASE,
)
_ASIDE = re.compile(r"\([^)]*\)")


def _role_held(text: str, index: _ProfileIndex) -> str | None:
    """The role a requirement asks to have held ("as a Backend Engineer"), if the profile
    holds one of its family; else None."""
    match = _AS_ROLE.search(text)
    family = family_of(match.group(1)) if match else None
    if match is None or family is None:
        return None
    return match.group(1) if families_counting_for(family) & index.role_families else None


def _check(text: str, kind: str, index: _ProfileIndex) -> _Check:
    evidence: list[Evidence] = []
    matched_terms: list[str] = []
    missing: list[str] = []
    groups: list[bool] = []

    def add(ev: Evidence) -> None:
        if len(evidence) < MAX_EVIDENCE and all(e.ref != ev.ref for e in evidence):
            evidence.append(ev)

    terms = _terms_in(text, index)
    # Managing people needs evidence of managing people, not of leading a redesign or
    # mentoring: the management words are judged by the management check below.
    management = bool(MANAGEMENT_ASK.search(text))
    if management:
        terms = [t for t in terms if t.key not in _MANAGEMENT_TERMS]
    degree = [m.group(0) for m in _DEGREE_REQ.finditer(text)]
    years = _years_asked(text)
    role = None if years else _role_held(text, index)  # years "as a …" are judged below
    if role is not None:
        # The role held is the evidence; tools in an aside or the role's own words
        # ("Backend" of "Backend Engineer") are examples, not further asks.
        role_words = set(significant_words(role))
        bare = _ASIDE.sub(" ", text)
        terms = [
            t
            for t in terms
            if t.pattern.search(bare) and not set(significant_words(t.label)) & role_words
        ]
        groups.append(True)
        matched_terms.append(f"experience as a {role}")
        role_source = next(
            (r.source for r in index.roles if family_of(r.source.text) == family_of(role)),
            index.experience[0] if index.experience else None,
        )
        if role_source is not None:
            add(_evidence(role_source, None))
    if any(t.key not in _SOFT_TERMS for t in terms) or years or degree or management:
        # A soft word ("agile", "communication") may support a hard requirement, never
        # fail it.
        terms = [t for t in terms if t.key not in _SOFT_TERMS or t.key in index.terms]
    if terms and degree:  # "PhD in machine learning": the terms name the degree's field
        matched_terms.extend(t.label for t in terms if t.key in index.terms)
    elif terms:
        met = [t for t in terms if t.key in index.terms]
        for term in met:
            matched_terms.append(term.label)
            add(_evidence(index.terms[term.key][0], term))
        # Judge on the specific terms when there are any; broad areas only support them.
        judged = [t for t in terms if t.key not in GENERIC_TERMS] or terms
        ok = _terms_met(_NOT_ALTERNATIVES.sub(" ", text), judged, index)
        groups.append(ok)
        if not ok:
            missing.extend(t.label for t in judged if t.key not in index.terms)

    for wanted, family, work in years:
        # Years of a kind of work ("5+ years as an engineering manager", "3+ years in
        # fintech") count only the roles of that kind; plain years the whole career.
        if family is not None:  # "support|engineering": either will do
            either = family.split("|")
            have = max(index.family_years.get(f, 0.0) for f in either)
            shown = [r for f in either for r in index.family_roles[f]]
            kind_words = f" of {' or '.join(FAMILY_LABELS[f] for f in either)} work"
        elif work:
            have, shown = _kind_years(index, work)
            words = [_TERM_BY_KEY[w[5:]].label if w.startswith("term:") else w for w in work]
            kind_words = f" of {' '.join(words[:3])} work"
        else:
            have, shown, kind_words = index.years, index.experience, ""
        ok = have >= wanted
        groups.append(ok)
        if ok:
            matched_terms.append(f"{wanted}+ years{kind_words}")
            for source in shown[:2]:
                add(Evidence(source=source.source, text=source.text, ref=source.ref))
        else:
            missing.append(f"{wanted}+ years{kind_words} (profile shows {have:.1f})")

    if management:
        groups.append(bool(index.management))
        if index.management:
            matched_terms.append("people management")
            add(_evidence(index.management[0], None))
        else:
            missing.append("people management (no team managed, reports or hiring shown)")

    if degree:
        # "BS or MS" asks for the lower level; a bare "degree" means any degree at all.
        named = [_degree_level(d) for d in degree if d.lower() != "degree"]
        wanted_level = min((lvl for lvl in named if lvl), default=1)
        ok = index.degree_level >= wanted_level
        if ok:
            matched_terms.append(_LEVEL_LABELS[wanted_level])
            for source in index.education[:1]:
                add(Evidence(source=source.source, text=source.text, ref=source.ref))
        elif _EQUIVALENT.search(text) and index.years >= 4:
            ok = True
            matched_terms.append("equivalent experience")
            for source in index.experience[:1]:
                add(Evidence(source=source.source, text=source.text, ref=source.ref))
        else:
            missing.append(_LEVEL_LABELS[wanted_level])
        groups.append(ok)

    # "A technical background" is judged from the whole profile: a technical role or field.
    background = not groups and bool(_TECHNICAL_BACKGROUND.search(text))
    if background:
        groups.append(bool(index.technical))
        if index.technical:
            matched_terms.append("technical background")
            add(_evidence(index.technical[0], None))
        else:
            missing.append("a technical background")

    # Soft: nothing checkable (no skill, years or degree: words matched against the
    # profile), or only soft skills ("strong communication"); it never caps the score.
    plain = not degree and not years and not management
    soft = (
        background
        or (not groups and not _NAMED_THING.search(text))
        or bool(terms and plain and _only_soft(terms))
        # A trait or a place with no skill named: judged from the whole profile.
        or bool(
            plain
            and all(t.key in _SOFT_TERMS or t.key in GENERIC_TERMS for t in terms)
            and (_TRAIT.search(text) or _LOCATION_ASK.search(text))
        )
    )
    if not groups:
        words = significant_words(text)
        best: tuple[int, _Source | None, list[str]] = (0, None, [])
        for source in index.sources:
            source_words = set(significant_words(source.text))
            common = [w for w in words if w in source_words]
            if len(common) > best[0]:
                best = (len(common), source, common)
        need = len(words) if len(words) < 3 else max(2, math.ceil(len(words) / 2))
        ok = bool(words) and best[0] >= need and best[1] is not None
        groups.append(ok)
        if ok and best[1] is not None:
            matched_terms.extend(best[2])
            add(_evidence(best[1], None))
        else:
            short = " ".join(text.split()[:6]).rstrip(".,;:")
            missing.append(short + ("…" if len(text.split()) > 6 else ""))

    matched = all(groups)
    fit = RequirementFit(
        requirement=text,
        kind="nice" if kind == "nice" else "must",
        matched=matched,
        matched_terms=matched_terms,
        evidence=evidence,
        soft=soft,
    )
    return _Check(fit, [] if matched else missing)


# -- the report ------------------------------------------------------------------------------


def _missing_phrase(missing: list[str], limit: int = 5) -> str:
    unique = list(dict.fromkeys(missing))
    if not unique:
        return ""
    shown = ", ".join(unique[:limit])
    more = len(unique) - limit
    return shown + (f" and {more} more" if more > 0 else "")


_ROLE_SHARE = 0.3  # of the score: the posting's job family against the profile's roles
_ENOUGH_HARD = 3  # checkable requirements a score rests on before the vocabulary weighs in


def _vocabulary_share(description: str, index: _ProfileIndex) -> float | None:
    """The share (0-100) of the specific skills the whole description names that the
    profile shows, or None when it names none."""
    terms = [t for t in _terms_in(description, index) if t.key not in GENERIC_TERMS]
    if not terms:
        return None
    return 100 * sum(t.key in index.terms for t in terms) / len(terms)


def _too_little_report(checks: list[_Check]) -> ScoreReport:
    return ScoreReport(
        score=0,
        verdict=verdict_for(0),
        requirements=[c.fit for c in checks],
        provider=PROVIDER,
        model=MODEL,
        summary="Too little to judge: the posting names no skill, years or degree to check "
        "against the profile.",
    )


def _vocabulary_report(description: str, index: _ProfileIndex) -> ScoreReport:
    if not description.strip():
        return ScoreReport(
            score=0,
            verdict=verdict_for(0),
            requirements=[],
            provider=PROVIDER,
            model=MODEL,
            summary="The posting has no description, so no requirements could be checked.",
        )
    terms = _terms_in(description, index)
    if not terms:
        return ScoreReport(
            score=0,
            verdict=verdict_for(0),
            requirements=[],
            provider=PROVIDER,
            model=MODEL,
            summary="No requirement list and no recognised skills in the posting; "
            "nothing to compare against the profile.",
        )
    met = [t for t in terms if t.key in index.terms]
    score = round(80 * len(met) / len(terms))
    missing = _missing_phrase([t.label for t in terms if t.key not in index.terms])
    summary = (
        "No requirement list found; score is based on vocabulary overlap only: the profile "
        f"covers {len(met)} of {len(terms)} skills the posting mentions"
        + (f" (missing: {missing})." if missing else ".")
    )
    return ScoreReport(
        score=score,
        verdict=verdict_for(score),
        requirements=[],
        provider=PROVIDER,
        model=MODEL,
        summary=summary,
    )


def score_offline(
    title: str | None,
    description: str,
    profile: Profile,
    today: date | None = None,
    rules: FitRules | None = None,
) -> ScoreReport:
    """Score how well ``profile`` meets the posting's requirements, with quoted evidence;
    the verdict is settled by ``domain.fit_verdict`` under ``rules`` (default settings)."""
    today = today or date.today()
    index = _index_profile_json(profile.model_dump_json(), today)
    requirements = extract_requirements(description)
    if not requirements:
        report = _with_factors(
            _vocabulary_report(description, index), title, description, profile, today
        )
        return settle(report, rules or FitRules())
    checks = [_check(text, kind, index) for text, kind in requirements]
    weights = [requirement_weight(c.fit) for c in checks]
    earned = sum(w for w, c in zip(weights, checks, strict=True) if c.fit.matched)
    hard = sum(1 for c in checks if not c.fit.soft and c.fit.kind == "must")
    # Only read when it weighs in: a whole description is slow to search term by term.
    vocabulary = _vocabulary_share(description, index) if hard < _ENOUGH_HARD else None
    if not hard and vocabulary is None:
        report = _with_factors(_too_little_report(checks), title, description, profile, today)
        return settle(report, rules or FitRules())
    # Few checkable requirements: the whole description's skills weigh in too, so that
    # one stray sentence never decides a 0 or a 100.
    share = 100 * earned / sum(weights) if sum(weights) else 0.0
    if hard < _ENOUGH_HARD and vocabulary is not None:
        share = (share * hard + vocabulary * (_ENOUGH_HARD - hard)) / _ENOUGH_HARD
    # The role itself weighs in beside the requirement list: a posting in the person's own
    # job family (or, half, a neighbouring one) or, family unknown, sharing the title's words.
    role = 0.0
    title_words: set[str] = set()
    if title:
        title_words = set(significant_words(title)) - _SENIORITY
        family = family_of(title)
        if family is not None and family in index.role_families:
            role = 1.0
        elif family is not None and any(neighbouring(family, f) for f in index.role_families):
            role = 0.5
        elif family is None and title_words:
            role = len(title_words & index.title_words) / len(title_words)
    score = (1 - _ROLE_SHARE) * share + _ROLE_SHARE * 100 * role
    if title_words:
        score += 5 * len(title_words & index.title_words) / len(title_words)
    final = max(0, min(100, round(score)))

    met = sum(c.fit.matched for c in checks)
    musts = [c for c in checks if c.fit.kind == "must"]
    summary = f"Meets {met} of {len(checks)} requirement{'s' if len(checks) > 1 else ''}"
    if musts and len(musts) < len(checks):
        summary += f" ({sum(c.fit.matched for c in musts)} of {len(musts)} must-haves)"
    ordered = musts + [c for c in checks if c.fit.kind == "nice"]
    missing = _missing_phrase([m for c in ordered for m in c.missing])
    summary += f"; missing: {missing}." if missing else "."
    report = ScoreReport(
        score=final,
        verdict=verdict_for(final),
        requirements=[c.fit for c in checks],
        provider=PROVIDER,
        model=MODEL,
        summary=summary,
    )
    report = _with_factors(report, title, description, profile, today)
    return settle(report, rules or FitRules())


def _with_factors(
    report: ScoreReport, title: str | None, description: str, profile: Profile, today: date
) -> ScoreReport:
    """The report with the posting's level and family weighed in (``domain.fit_factors``)."""
    factors = fit_factors(title, description, profile, today, report.score)
    score = max(0, report.score - sum(f.points for f in factors))
    return report.model_copy(update={"score": score, "factors": factors})

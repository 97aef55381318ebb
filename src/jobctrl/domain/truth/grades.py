"""Role and ownership verbs, graded: how much of a piece of work a sentence says was the
candidate's.

    1  contributed, helped, assisted, supported, participated
    2  built, implemented, developed, designed, architected, engineered, wrote, created
    3  led, co-led, owned, managed, headed, drove, directed, oversaw, ran, spearheaded,
       supervised, "in charge of"
    4  founded, co-founded; established, created, started, launched, set up or formed a
       company, startup, team, guild, community, consultancy, programme …

"co-led" is "led" and "co-founded" is "founded": the grade is the role, not whether it was
shared. A verb a lower one governs is that lower one ("helped build", "contributed to
designing" are 1). "drove" with an outcome ("drove a 4% lift in conversion") claims the
outcome, not the lead; "running on Kubernetes" is where a thing runs. Ambiguous words
("lead", "run", "own", "design", "build", "support") count only as verbs: first in their
clause, or after "I", "we", "to", "and".

``graded_verbs(text)`` lists the sentence's graded verbs; ``fact_grade(text)`` is what a
fact allows: its highest verb that no lower one governs, 2 when it states work with no
graded verb (doing the work is building it; leading it is a further claim), 1 when all it
says is that the candidate helped. ``title_grade(title)``: a title's (a lead, manager,
head, director, chief, VP: 3; a founder: 4; else 2) for a sentence that cites only the
entry.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

__all__ = ["GradedVerb", "fact_grade", "graded_verbs", "title_grade"]


@dataclass(frozen=True)
class GradedVerb:
    grade: int
    text: str
    start: int
    end: int


def _alts(text: str) -> str:
    return "|".join(text.split())


_ALWAYS: tuple[tuple[int, str], ...] = (
    (1, _alts("contributed contributing contributes helped helping assisted assisting "
              "participated participating")),
    (2, _alts("built implemented implementing developed developing designed architected "
              "architecting engineered wrote written authored created")),
    (3, _alts("led leading co-led co-leading co-lead owned owning managed managing manages headed "
              "heading oversaw oversee oversees overseeing overseen spearheaded spearheading "
              "supervised supervising directed directing ran drove driving")),
    (4, _alts("founded co-founded cofounded founding")),
)  # fmt: skip
# Words that are verbs only where a verb goes (first in a clause, after I / we / to / and).
_AS_VERB: tuple[tuple[int, str], ...] = (
    (1, _alts("contribute help helps assist assists support supports supported supporting")),
    (2, _alts("build builds building implement implements develop develops design designs "
              "designing architect write writes create creates")),
    (3, _alts("lead leads own owns manage run runs running drive drives head heads "
              "supervise direct directs")),
)  # fmt: skip
_WORD = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)?")
_GRADE_OF: dict[str, int] = {w: g for g, alts in _ALWAYS for w in alts.split("|")}
_VERB_GRADE_OF: dict[str, int] = {w: g for g, alts in _AS_VERB for w in alts.split("|")}
_VERB_BEFORE = frozenset(_alts("i we to and or also then now jointly currently").split("|"))
_CLAUSE_START = re.compile(r"(?:^|[;:·|•—(]|\s[–-]\s|[.!?]\s|,\s)\s*$")
_DETERMINER = re.compile(
    r"\s+(?:the|a|an|my|our|its|their|his|her|this|these|two|three|four|five|six|seven|"
    r"eight|nine|ten|\d)",
    re.IGNORECASE,
)
_OUTCOME = re.compile(
    r"(?:\s+\S+){0,3}?\s+(?:increase|lift|growth|reduction|improvement|adoption|conversion|"
    r"revenue|savings|uplift|decrease|gains?|engagement|retention|down|up)\b|\s+(?:\S+\s+)?\d",
    re.IGNORECASE,
)
_ORG_AFTER = re.compile(
    r"\s+(?:(?:the|a|an|our|my|its|their|first|new|own)\s+)*(?:[\w-]+\s+){0,2}?"
    r"(?:company|startup|start-up|business|guild|community|chapter|programme|program|"
    r"function|department|practice|lab|studio|agency|meetup|team|organisation|organization|"
    r"consultancy|consultancies|firm|venture|nonprofit|non-profit|charity|foundation)s?\b",
    re.IGNORECASE,
)
_FOUND_VERBS = frozenset(
    _alts("created started launched set formed co-created established establish").split("|")
)
_NOT_LEAD_BEFORE = frozenset(_alts("industry market world category thought").split("|"))
_NOT_LEAD_AFTER = re.compile(r"\s+(?:to|up|into|edge)\b", re.IGNORECASE)
_RAN_WHERE = re.compile(r"\s+(?:on|in|at|across|every|nightly|daily)\b", re.IGNORECASE)
_IN_CHARGE = re.compile(r"\bin\s+charge\s+of\b", re.IGNORECASE)
_TITLE_LEAD = re.compile(
    r"\b(?:lead|leader|manager|head|director|chief|vp|vice\s+president|cto|ceo|coo|cpo|"
    r"owner)\b",
    re.IGNORECASE,
)
_TITLE_FOUNDER = re.compile(r"\b(?:co-?)?founder\b", re.IGNORECASE)


def _verb_place(text: str, start: int, before: str) -> bool:
    return before in _VERB_BEFORE or bool(_CLAUSE_START.search(text[max(0, start - 4) : start]))


@functools.lru_cache(maxsize=8192)
def graded_verbs(text: str) -> tuple[GradedVerb, ...]:
    """The graded verbs of ``text`` that no lower one governs."""
    found: list[GradedVerb] = []
    before = ""
    for m in _WORD.finditer(text):
        word = m.group().casefold()
        grade = _GRADE_OF.get(word)
        if grade is None and word in _VERB_GRADE_OF and _verb_place(text, m.start(), before):
            grade = _VERB_GRADE_OF[word]
        if word in _FOUND_VERBS or (word == "set" and text[m.end() : m.end() + 3] == " up"):
            after = m.end() + (3 if word == "set" else 0)
            if _ORG_AFTER.match(text, after):
                grade = 4
        if grade is not None and not _plain_use(text, m, word, before, grade):
            found.append(GradedVerb(grade, m.group(), m.start(), m.end()))
        before = word
    for m in _IN_CHARGE.finditer(text):
        found.append(GradedVerb(3, m.group(), m.start(), m.end()))
    found.sort(key=lambda v: v.start)
    return tuple(_ungoverned(text, found))


# A verb in a list of others that are no role verbs, after "for", "of" or "used to": what
# a thing is for ("a wallet for issuing, managing and trading digital tokens", "used to
# issue, manage and trade tokens"), not a role ("responsible for managing" is one).
_LIST_OPENS = re.compile(
    r"(?:(?<!responsible\s)(?<!accountable\s)(?<!charge\s)\b(?:for|of)\s+"
    r"(?:[a-z]+ing,?\s+(?:(?:and|or)\s+)?)*"  # gerunds after "for", "of"
    r"|(?<!\bi\s)(?<!we\s)(?<!he\s)(?<!they\s)\bused\s+to\s+"  # not "I used to manage"
    r"(?:[a-z]+,?\s+(?:(?:and|or)\s+)?)*)$",
    re.IGNORECASE,
)
_LISTED_AFTER = re.compile(r",?\s+(?:(?:and|or)\s+)?([a-z]+)\b", re.IGNORECASE)
_LISTED_BEFORE = re.compile(r"\b([a-z]+),?\s+(?:(?:and|or)\s+)?$", re.IGNORECASE)
_NOT_LISTED = frozenset(
    _alts("the a an my our their its his her this that to for of used").split("|")
)


def _in_verb_list(text: str, m: re.Match[str]) -> bool:
    opens = _LIST_OPENS.search(text[max(0, m.start() - 60) : m.start()])
    if not opens:
        return False
    gerunds = not opens.group().casefold().startswith("used")
    if gerunds and not m.group().casefold().endswith("ing"):
        return False
    near = (
        _LISTED_BEFORE.search(text[max(0, m.start() - 30) : m.start()]),
        _LISTED_AFTER.match(text, m.end()),
    )
    return any(
        g is not None
        and (w := g.group(1).casefold()) not in _NOT_LISTED
        and (w.endswith("ing") or not gerunds)
        and w not in _GRADE_OF
        and w not in _VERB_GRADE_OF
        for g in near
    )


def _plain_use(text: str, m: re.Match[str], word: str, before: str, grade: int) -> bool:
    """``word`` is not used as a role verb here."""
    if _in_verb_list(text, m):
        return True
    if word in ("drove", "driving", "drive", "drives"):
        return bool(_OUTCOME.match(text, m.end()))
    if word in ("leading", "lead", "leads"):
        return before in _NOT_LEAD_BEFORE or bool(_NOT_LEAD_AFTER.match(text, m.end()))
    if word in ("running", "heading", "owning", "managing"):
        nxt = text[m.end() : m.end() + 12].casefold()
        if word == "managing" and re.match(r"\s+(?:director|partner|editor)", nxt):
            return True
        return not _DETERMINER.match(text, m.end()) and not re.match(r"\s+[a-z]", nxt)
    return word == "ran" and bool(_RAN_WHERE.match(text, m.end()))


def _ungoverned(text: str, verbs: list[GradedVerb]) -> list[GradedVerb]:
    """Drop a verb a grade-1 verb governs: "helped build", "contributed to designing"."""
    out: list[GradedVerb] = []
    helper: GradedVerb | None = None
    for verb in verbs:
        if helper is not None and verb.grade > 1:
            between = text[helper.end : verb.start]
            if len(between.split()) <= 3 and not re.search(r"[;:,.()]", between):
                continue
        helper = verb if verb.grade == 1 else None
        out.append(verb)
    return out


@functools.lru_cache(maxsize=8192)
def fact_grade(text: str) -> int:
    """The highest grade ``text`` states (2 when it states no graded verb)."""
    grades = [v.grade for v in graded_verbs(text)]
    if _TITLE_FOUNDER.search(text):
        grades.append(4)
    if not grades:
        return 2
    return max(grades)


def title_grade(title: str) -> int:
    if _TITLE_FOUNDER.search(title):
        return 4
    return 3 if _TITLE_LEAD.search(title) else 2

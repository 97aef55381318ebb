"""Level and job family: the fit factors besides the requirement list (issue 29).

The posting's level is read from its title (intern … VP/executive), or, when the title names
none, from the years of experience it asks for. The profile's level is its latest role's
title level, raised by its years (merged over overlapping roles, never double counted) when
that title names none. Levels, one scale for both tracks:
  intern 0, junior 1, mid 2, senior 3, staff/lead 4, principal 5, distinguished 6;
  manager 4, senior manager 5, director/head 6, VP 7, C-level 8.
A posting two or more levels away either way costs points and says why ("posting is junior;
you have 9 years"), so that it is never a Strong fit; one level above costs a little
("posting is staff/lead, one level above you"); one below costs nothing.

The family (engineering, data, ML/research, product, design, management, sales, marketing,
support, operations, legal, finance, healthcare) is read from the posting's title and from
every role title of the profile. A family the person has worked in matches; a neighbouring
one (engineering and data, product and design…) costs a little; any other costs enough
that the job is never a Good fit on its bullets alone.
"""

from __future__ import annotations

import re
from datetime import date

from jobctrl.domain.job_family import FAMILY_LABELS, NEIGHBOURS, family_of
from jobctrl.domain.profile import Profile
from jobctrl.domain.scoring import FitFactor

__all__ = [
    "LEVEL_NAMES",
    "MANAGEMENT_ASK",
    "MANAGEMENT_EVIDENCE",
    "fit_factors",
    "has_managed",
    "level_of_title",
    "level_of_years",
    "profile_years",
]

LEVEL_NAMES = {
    0: "intern",
    1: "junior",
    2: "mid-level",
    3: "senior",
    4: "staff/lead",
    5: "principal",
    6: "director",
    7: "VP",
    8: "executive",
}


# Most specific first: the first pattern that matches a title decides its level. A
# "manager" is a level only on the management track (a product manager is not a staff one).
def _patterns(*pairs: tuple[int, str]) -> tuple[tuple[int, re.Pattern[str]], ...]:
    return tuple((level, re.compile(pattern, re.IGNORECASE)) for level, pattern in pairs)


_TOP_LEVELS = _patterns(
    # "Chief of Staff" is a role, not the C-suite; a "Vice President" is no president.
    (8, r"\bchief\b(?! of staff)|\bc[teoi]o\b|(?<!vice )(?<!vice-)\bpresident\b"),
    (7, r"\bvp\b|\bvice[\s-]president\b|\bsvp\b|\bevp\b"),
    (6, r"\bdirector\b|\bhead of\b|\bdistinguished\b"),
)
_SENIOR_MANAGER = re.compile(r"\bsenior\b|\bsr\b|\bgroup\b|\bmanager of managers\b", re.I)
_IC_LEVELS = _patterns(
    (5, r"\bprincipal\b|\bgroup\b"),
    (4, r"\bstaff\b|\blead\b|\barchitect\b|\biv\b"),
    (0, r"\bintern(?:ship)?\b|\bworking student\b|\bapprentice|\btrainee\b|\bco-?op\b"),
    (1, r"\bjunior\b|\bjr\b|\bentry[\s-]level\b|\bgraduate\b|\bnew grad|\bassociate\b"),
    (1, r"(?:engineer|developer|analyst|scientist)\s+(?:i|1)\b"),
    (3, r"\bsenior\b|\bsr\b|\biii\b|(?:engineer|developer)\s+3\b"),
    (2, r"\bmid[\s-]?(?:level|senior)?\b|\bintermediate\b|\bii\b|(?:engineer|developer)\s+2\b"),
)
_MID = 2


def level_of_title(title: str) -> int | None:
    """The level a title names, or None when it names none ("Backend Engineer")."""
    for level, pattern in _TOP_LEVELS:
        if pattern.search(title):
            return level
    if family_of(title) == "management":
        return 5 if _SENIOR_MANAGER.search(title) else 4
    for level, pattern in _IC_LEVELS:
        if pattern.search(title):
            return level
    return None


def level_of_years(years: float) -> int:
    """The level years of experience usually mean: < 2 junior, < 5 mid, else senior."""
    if years < 2:
        return 1
    if years < 5:
        return _MID
    return 3


_YEARS_ASKED = re.compile(
    r"(?<![\w.])(\d{1,2})\s*(?:\+|plus)?\s*(?:(?:-|–|to)\s*\d{1,2}\s*)?(?:\+\s*)?"
    r"(?:or more\s+)?(?:years?|yrs?)\b",
    re.IGNORECASE,
)


def _years_asked(description: str) -> int | None:
    """The years of experience a posting asks for at least (its smallest "N+ years" of
    experience; ranges count their low end), or None."""
    found = [
        int(m.group(1))
        for m in _YEARS_ASKED.finditer(description)
        if "experience" in description[m.end() : m.end() + 60].lower()
        or "experience" in description[max(0, m.start() - 40) : m.start()].lower()
    ]
    found = [n for n in found if 0 < n <= 25]
    return min(found) if found else None


def _month(value: str, today: date, *, end: bool) -> int | None:
    value = value.strip().lower()
    if end and value in ("", "present", "current", "now", "today", "ongoing"):
        return today.year * 12 + today.month - 1
    match = re.match(r"^(\d{4})(?:[-/.](\d{1,2}))?", value)
    if not match:
        return None
    month = int(match.group(2)) if match.group(2) else (12 if end else 1)
    return int(match.group(1)) * 12 + min(max(month, 1), 12) - 1


def profile_years(profile: Profile, today: date, families: frozenset[str] | None = None) -> float:
    """Years of work the profile's roles span, overlapping roles merged (not counted twice);
    with ``families``, only the roles whose title is of one of them."""
    spans = []
    for exp in profile.experience:
        if families is not None and family_of(exp.title) not in families:
            continue
        start, end = _month(exp.start, today, end=False), _month(exp.end, today, end=True)
        if start is not None and end is not None and end >= start:
            spans.append((start, end + 1))
    months, current = 0, (-1, -1)
    for start, end in sorted(spans):
        if start > current[1]:
            months += current[1] - current[0]
            current = (start, end)
        else:
            current = (current[0], max(current[1], end))
    months += current[1] - current[0]
    return months / 12


_RECENT_MONTHS = 60


def _recent_levels(profile: Profile, today: date) -> list[int]:
    """The title levels of the roles that ended in the last five years (or go on)."""
    now = today.year * 12 + today.month - 1
    levels = []
    for exp in profile.experience:
        end = _month(exp.end, today, end=True)
        level = level_of_title(exp.title)
        if end is not None and now - end <= _RECENT_MONTHS and level is not None:
            levels.append(level)
    return levels


def _latest_role_title(profile: Profile, today: date) -> str:
    dated = [
        (_month(e.end, today, end=True) or 0, _month(e.start, today, end=False) or 0, e.title)
        for e in profile.experience
        if e.title.strip()
    ]
    return max(dated)[2] if dated else ""


# What shows a person managed people: a team managed, reports, hiring, reviews, a team grown
# (mentoring, leading a redesign or working with managers is not it).
MANAGEMENT_EVIDENCE = re.compile(
    r"\bmanag(?:e|es|ed|ing) (?:a |the )?(?:team|teams|group|\d+|(?:\w+ ){0,2}(?:engineers|"
    r"people|developers|reports|managers|analysts|designers))\b|\bdirect reports?\b|"
    r"\bhired\b|\bhiring\b|\brecruited\b|\bperformance reviews?\b|\bline manag|"
    r"\b(?:grew|built|scaled|hired) (?:the |a |an )?(?:\w+ )?team\b|\bheadcount\b|"
    r"\bpromot(?:ed|ions)\b",
    re.IGNORECASE,
)


# What asks a person to manage people (a requirement, not a profile line): managing a team
# or engineers, reports, hiring, reviews, leading or building teams.
MANAGEMENT_ASK = re.compile(
    r"\bmanag(?:e|es|ed|ing) (?:and \w+ )?(?:a |the |your )?(?:[\w-]+ ){0,4}(?:team|teams|"
    r"engineers|people|developers|managers|reports)\b|\bpeople manage|\bline manage|"
    r"\bdirect reports|"
    r"\bperformance (?:reviews|management)|\bhiring\b|\bteam lead(?:er)?\b|"
    r"\blead(?:ing)? (?:a |the )?(?:team|teams) of\b|\bengineering manag|\bmanagerial\b|"
    r"\bbuild(?:ing)? (?:and grow\w* )?(?:a |the |high-performing )?teams?\b",
    re.IGNORECASE,
)


def has_managed(profile: Profile) -> bool:
    """Whether the profile shows managing people: a management title or such a line."""
    lines = [profile.summary, *(b for e in profile.experience for b in e.bullets)]
    return any(family_of(e.title) == "management" for e in profile.experience) or any(
        MANAGEMENT_EVIDENCE.search(line) for line in lines
    )


# -- the factors -----------------------------------------------------------------------------

# Points off for a posting this many levels above the person (4 stands for 4 or more),
# and below (from 2 on): two levels away is never a Strong fit, four above never a Good one.
_ABOVE_POINTS = {1: 8, 2: 30, 3: 45, 4: 60}
_BELOW_POINTS = {2: 30, 3: 50, 4: 60}
_LONG_CAREER = 12  # years
_FAR_SHORT = 0.6  # under this share of the years a posting asks is far short of them


def _level_factor(title: str, description: str, profile: Profile, today: date) -> FitFactor:
    years = profile_years(profile, today)
    latest = _latest_role_title(profile, today)
    titled = level_of_title(latest) if latest else None
    # The highest level held in the last five years: a staff engineer who took a senior
    # title at a new employer is still staff-level.
    recent = _recent_levels(profile, today)
    if titled is not None and recent:
        titled = max(titled, *recent)
    mine = titled if titled is not None else level_of_years(years)
    if titled is not None and titled <= 3 and years >= 5:
        mine = max(mine, 3)  # five years in, a plain or junior title is still senior work
    if years >= _LONG_CAREER:
        mine = max(mine, 4)  # a long career reaches staff-level work whatever the titles
    managed = latest and family_of(latest) == "management"
    if managed and family_of(title) not in ("management", None) and mine >= 4:
        # A manager's rung is one above the individual work it leads: an engineering
        # manager moving to individual work is a senior or staff one, not a principal.
        mine -= 1
    asked_years = _years_asked(description)
    posting = level_of_title(title)
    from_years = posting is None
    if posting is None:
        posting = level_of_years(asked_years) if asked_years is not None else None
    if posting is None:
        return FitFactor(kind="level", matched=True, note="")
    gap = posting - mine
    if from_years and gap < 0 and posting >= _MID:
        # "5+ years" is a floor, not a ceiling: more years than asked is no gap (a posting
        # asking one year is still a junior one).
        return FitFactor(kind="level", matched=True, note="level matches")
    you = f"you have {years:.0f} year{'s' if round(years) != 1 else ''}"
    name = LEVEL_NAMES[posting]
    if family_of(title) == "management" and posting in (4, 5):
        name = "senior manager" if posting == 5 else "manager"
    if asked_years is not None and years < _FAR_SHORT * asked_years and gap < 2:
        # Far fewer years than the posting asks ("8+ years"; you have 4) is two levels'
        # distance whatever the title says.
        return FitFactor(
            kind="level",
            matched=False,
            note=f"posting asks {asked_years}+ years; {you}",
            points=_ABOVE_POINTS[2],
        )
    if gap in (0, -1):
        return FitFactor(kind="level", matched=True, note="level matches")
    if gap > 0:
        points = _ABOVE_POINTS[min(gap, 4)]
        above = "one level" if gap == 1 else f"{gap} levels"
        return FitFactor(
            kind="level",
            matched=gap == 1,
            note=f"posting is {name}, {above} above you; {you}",
            points=points,
        )
    points = _BELOW_POINTS[min(-gap, 4)]
    return FitFactor(kind="level", matched=False, note=f"posting is {name}; {you}", points=points)


def _family_factor(title: str, profile: Profile, score: int) -> FitFactor:
    posting = family_of(title)
    roles = [f for e in profile.experience if (f := family_of(e.title))]
    if posting is None or not roles:
        return FitFactor(kind="family", matched=True, note="")
    if posting in roles:
        return FitFactor(kind="family", matched=True, note="")
    label = FAMILY_LABELS[posting]
    yours = FAMILY_LABELS[roles[0]]
    # Managing people is its own career: a neighbour only for someone who has managed.
    neighbour = posting != "management" or has_managed(profile)
    if neighbour and any(frozenset((posting, r)) in NEIGHBOURS for r in roles):
        return FitFactor(
            kind="family",
            matched=False,
            note=f"a neighbouring field: posting is {label}, your roles are {yours}",
            points=10,
        )
    # A different career: never more than a Partial fit on shared words alone.
    return FitFactor(
        kind="family",
        matched=False,
        note=f"a different field: posting is {label}, your roles are {yours}",
        points=max(30, score - 40),
    )


def fit_factors(
    title: str | None, description: str, profile: Profile, today: date, score: int
) -> list[FitFactor]:
    """The level and family factors of a posting for a profile, with their points, for a
    report whose requirements earned ``score``; factors with nothing to say are left out."""
    if not title:
        return []
    factors = [
        _level_factor(title, description, profile, today),
        _family_factor(title, profile, score),
    ]
    return [f for f in factors if f.note]

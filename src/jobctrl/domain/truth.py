"""The fabrication check every tailored resume must pass, whichever provider wrote it.

A tailored resume may select, order and rephrase the profile's facts, never add to them.
``check_resume`` compares a resume with the profile and lists what it cannot support:

- ``wrong_name``: the name differs (case and whitespace aside);
- ``unknown_employer``: an experience's company is not one of the profile's;
- ``unknown_title``: the title was not held at that company (case and whitespace aside);
- ``changed_dates``: start/end differ from the profile's entry for that company and title
  ("", "present", "current" and "now" are the same end); also for education entries;
- ``unknown_degree``: an education entry's (institution, degree, field) is not the profile's;
- ``unknown_skill``: a listed skill is not one of the profile's skills and does not occur in
  the profile's own text (summary, titles, bullets, skills, degrees). Matching is on word
  boundaries; a skill the shared vocabulary (``domain.vocabulary``) knows also matches its
  aliases ("K8s" is supported by "Kubernetes", "Go" needs its capital letter);
- ``invented_fact``: a bullet (or the summary or headline) says more than the profile:
  1. every number in a bullet (digits, or the words two..fifteen) must occur in the profile's
     bullets for that company or in the profile summary; numbers in the summary or headline
     may come from anywhere in the profile;
  2. every vocabulary term in it (a skill or tool, by alias: "EKS" is Kubernetes) must occur
     in that company's titles and bullets, the summary or the skills list; soft-skill words
     a rephrase adds naturally ("collaborated", "communicated") are not checked;
  3. at least half of a bullet's significant words (stopwords dropped, lightly stemmed)
     must occur in one profile bullet of that role, or at least three quarters of them across
     the role's bullets together (a bullet that merges two facts). The role is the company +
     title entry, or the whole company when the title is unknown. Bullets under an unknown
     employer are not checked one by one: the employer is already reported.

Contact details and bullet order are not checked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from jobctrl.domain.errors import TAILOR_FABRICATION, StageError
from jobctrl.domain.materials import TailoredResume, texts
from jobctrl.domain.profile import Experience, Profile
from jobctrl.domain.vocabulary import (
    NUMBER_WORDS,
    TERMS,
    WORD_LEFT,
    WORD_RIGHT,
    significant_words,
    term_for,
)

__all__ = [
    "FabricationError",
    "Violation",
    "ViolationKind",
    "assert_truthful",
    "check_resume",
    "numbers_in",
    "profile_text",
]

ViolationKind = Literal[
    "wrong_name",
    "unknown_employer",
    "unknown_title",
    "changed_dates",
    "unknown_degree",
    "unknown_skill",
    "invented_fact",
]

SINGLE_BULLET_SHARE = 0.5  # of a bullet's significant words found in one profile bullet
MERGED_BULLET_SHARE = 0.75  # ... or found across the role's bullets together
_SOFT_TERMS = frozenset({"collaboration", "communication", "stakeholder management"})
_PRESENT = frozenset({"", "present", "current", "now", "today", "ongoing"})
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_NUMBER_WORD = re.compile(
    r"\b(" + "|".join(w for w in NUMBER_WORDS if w != "one") + r")\b", re.IGNORECASE
)


@dataclass(frozen=True)
class Violation:
    kind: ViolationKind
    detail: str  # where, and the offending term only


class FabricationError(StageError):
    """A tailored resume claims something the profile does not support (never retried)."""

    def __init__(self, violations: list[Violation]) -> None:
        kinds = list(dict.fromkeys(v.kind for v in violations))
        shown = ", ".join(kinds[:3]) + (" and more" if len(kinds) > 3 else "")
        count = f"{len(violations)} violation{'s' if len(violations) != 1 else ''}"
        super().__init__(
            TAILOR_FABRICATION,
            f"tailored resume is not supported by the profile: {shown} ({count})",
            retryable=False,
        )
        self.violations = tuple(violations)


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _norm_end(text: str) -> str:
    value = _norm(text)
    return "present" if value in _PRESENT else value


def numbers_in(text: str) -> set[str]:
    """The numbers a text states: "1,000" is "1000", "04" is "4", "four" is "4"."""
    out: set[str] = set()
    for raw in _NUMBER.findall(text):
        value = raw.replace(",", "")
        out.add(value if "." in value else str(int(value)))
    out.update(str(NUMBER_WORDS[w.lower()]) for w in _NUMBER_WORD.findall(text))
    return out


def profile_text(profile: Profile) -> str:
    """The profile's own words a skill may be found in (not company names or contact)."""
    parts = [profile.summary, *profile.skills]
    for exp in profile.experience:
        parts.extend([exp.title, *exp.bullets])
    for edu in profile.education:
        parts.extend([edu.degree, edu.field])
    return "\n".join(p for p in parts if p.strip())


def _skill_supported(skill: str, profile: Profile, corpus: str) -> bool:
    if _norm(skill) in {_norm(s) for s in profile.skills}:
        return True
    term = term_for(skill)
    if term is not None:
        return bool(term.pattern.search(corpus))
    literal = re.compile(WORD_LEFT + re.escape(skill.strip()) + WORD_RIGHT, re.IGNORECASE)
    return bool(skill.strip()) and bool(literal.search(corpus))


def _unsupported_terms(text: str, allowed: str) -> list[str]:
    return [
        t.label
        for t in TERMS
        if t.key not in _SOFT_TERMS and t.pattern.search(text) and not t.pattern.search(allowed)
    ]


def _claims(where: str, text: str, numbers: set[str], allowed: str) -> list[Violation]:
    """Numbers and vocabulary terms in ``text`` that ``numbers`` / ``allowed`` lack."""
    found = [
        Violation("invented_fact", f"{where}: number {n}")
        for n in sorted(numbers_in(text))
        if n not in numbers
    ]
    found += [
        Violation("invented_fact", f"{where}: term {label}")
        for label in _unsupported_terms(text, allowed)
    ]
    return found


def _overlaps(bullet: str, role_bullets: list[str]) -> bool:
    words = significant_words(bullet)
    if not words:
        return True  # nothing but numbers and terms, which are checked on their own
    sets = [set(significant_words(b)) for b in role_bullets]
    best = max((sum(w in s for w in words) for s in sets), default=0)
    merged = sum(any(w in s for s in sets) for w in words)
    return best >= SINGLE_BULLET_SHARE * len(words) or merged >= MERGED_BULLET_SHARE * len(words)


def _check_experience(resume: TailoredResume, profile: Profile) -> list[Violation]:
    found: list[Violation] = []
    for i, exp in enumerate(resume.experience):
        where = f"experience[{i}]"
        at_company = [p for p in profile.experience if _norm(p.company) == _norm(exp.company)]
        if not at_company:
            found.append(Violation("unknown_employer", f"{where}.company: {exp.company}"))
            continue
        roles = [p for p in at_company if _norm(p.title) == _norm(exp.title)]
        if not roles:
            found.append(Violation("unknown_title", f"{where}.title: {exp.title}"))
        elif not any(_same_dates(p, exp.start, exp.end) for p in roles):
            found.append(Violation("changed_dates", f"{where}: {exp.start} – {exp.end}"))
        company_text = "\n".join(t for p in at_company for t in (p.title, *p.bullets))
        numbers = numbers_in(company_text + "\n" + profile.summary)
        allowed = "\n".join([company_text, profile.summary, *profile.skills])
        role_bullets = [b for p in (roles or at_company) for b in p.bullets]
        for j, bullet in enumerate(texts(exp.bullets)):
            spot = f"{where}.bullets[{j}]"
            found += _claims(spot, bullet, numbers, allowed)
            if not _overlaps(bullet, role_bullets):
                found.append(Violation("invented_fact", f"{spot}: not found in the profile"))
    return found


def _same_dates(entry: Experience, start: str, end: str) -> bool:
    return _norm(entry.start) == _norm(start) and _norm_end(entry.end) == _norm_end(end)


def check_resume(resume: TailoredResume, profile: Profile) -> list[Violation]:
    """Everything in ``resume`` the profile does not support; [] when it is truthful."""
    found: list[Violation] = []
    if _norm(resume.name) != _norm(profile.name):
        found.append(Violation("wrong_name", f"name: {resume.name}"))
    found += _check_experience(resume, profile)
    for i, edu in enumerate(resume.education):
        key = (_norm(edu.institution), _norm(edu.degree), _norm(edu.field))
        same = [
            p
            for p in profile.education
            if (_norm(p.institution), _norm(p.degree), _norm(p.field)) == key
        ]
        if not same:
            detail = ", ".join(x for x in (edu.degree, edu.field, edu.institution) if x)
            found.append(Violation("unknown_degree", f"education[{i}]: {detail}"))
        elif not any(
            _norm(p.start) == _norm(edu.start) and _norm(p.end) == _norm(edu.end) for p in same
        ):
            found.append(Violation("changed_dates", f"education[{i}]: {edu.start} – {edu.end}"))
    corpus = profile_text(profile)
    for i, skill in enumerate(resume.skills):
        if not _skill_supported(skill, profile, corpus):
            found.append(Violation("unknown_skill", f"skills[{i}]: {skill}"))
    everything = numbers_in(corpus)
    found += _claims("summary", resume.summary_text(), everything, corpus)
    found += _claims("headline", resume.headline.text, everything, corpus)
    return found


def assert_truthful(resume: TailoredResume, profile: Profile) -> None:
    """Raise ``FabricationError`` (``TAILOR_FABRICATION``) unless ``resume`` is truthful."""
    violations = check_resume(resume, profile)
    if violations:
        raise FabricationError(violations)

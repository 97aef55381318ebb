"""The profile's facts, each with a stable id that generated text cites.

A fact is one thing the profile states: the person's name, a summary sentence, a skill,
an experience entry (employer, title, dates, place), one highlight of an entry, an
education entry, a language (``language``: "German (fluent)"), a certification
(``certification``: "CKA, The Linux Foundation, 2022"), a project (``project``: its name,
dates and description; each bullet a ``highlight`` of it), an award (``award``), a
volunteer role (``volunteer``: "Mentor at Code Club (volunteer), 2019 – present"; each
bullet a ``highlight`` of it), a saved application answer (``answer``: "Notice period: 3
months"; a saved question's fact is its answer alone, so the question's words support
nothing). Its
id is derived from its content (kind + the words that identify it), so the same profile
imported twice gives the same ids, reordering entries keeps them, and an edited fact gets
a new id (a citation of the old wording no longer resolves).

A highlight's ``parent`` is its experience entry (or project, or volunteer role): a
sentence citing a highlight may also name that entry's employer, title and dates. Only
``experience`` and ``education`` are entries to the truth check (their dates are fields,
and an experience entry's years count as years worked); the others are read as text,
dates included, like a highlight.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Literal

from jobctrl.domain.profile import (
    Answers,
    Award,
    Certification,
    Education,
    Experience,
    Language,
    Profile,
    Project,
)

__all__ = [
    "ANSWER_LABELS",
    "Fact",
    "FactKind",
    "answer_facts",
    "award_fact_id",
    "certification_fact_id",
    "education_fact_id",
    "experience_fact_id",
    "fact_index",
    "language_fact_id",
    "profile_facts",
    "project_fact_id",
    "summary_sentences",
    "volunteer_fact_id",
]

FactKind = Literal[
    "name",
    "summary",
    "skill",
    "experience",
    "highlight",
    "education",
    "language",
    "certification",
    "project",
    "award",
    "volunteer",
    "answer",
]

_PREFIX: dict[str, str] = {
    "name": "name",
    "summary": "sum",
    "skill": "sk",
    "experience": "exp",
    "highlight": "hl",
    "education": "edu",
    "language": "lang",
    "certification": "cert",
    "project": "proj",
    "award": "award",
    "volunteer": "vol",
    "answer": "ans",
}
# A sentence ends at . ! ? followed by space and a capital, digit or quote; "e.g. x",
# "4.2.1" and "Sr. Engineer" stay whole because a lowercase word or no space follows.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'“(\[]?[A-Z0-9À-ÖØ-Þ])")

# What a fact id looks like (``kind-`` and a hex digest): a reference, not a quotation.
FACT_ID = re.compile(r"^[a-z]+-[0-9a-f]{6,}$")


@dataclass(frozen=True)
class Fact:
    id: str
    kind: FactKind
    text: str  # the fact as a sentence the checker reads
    start: str = ""  # experience / education: as written in the profile
    end: str = ""
    parent: str | None = None  # a highlight's experience entry


# A saved answer's field → how its fact reads ("<label>: <answer>").
ANSWER_LABELS: dict[str, str] = {
    "work_authorised": "Authorised to work",
    "work_authorisation": "Work authorisation",
    "needs_sponsorship": "Needs visa sponsorship",
    "willing_to_relocate": "Willing to relocate",
    "notice_period": "Notice period",
    "salary_expectation": "Salary expectation",
    "pronouns": "Pronouns",
    "how_did_you_hear": "Heard of the job through",
    "linkedin": "LinkedIn",
    "github": "GitHub",
    "portfolio": "Portfolio",
}


def _key(*parts: str) -> str:
    return "\x1f".join(" ".join(p.split()).casefold() for p in parts)


def _fact_id(kind: FactKind, *parts: str) -> str:
    digest = hashlib.sha256(_key(kind, *parts).encode()).hexdigest()[:10]
    return f"{_PREFIX[kind]}-{digest}"


def summary_sentences(summary: str) -> list[str]:
    """The summary split into sentences (each one fact)."""
    return [s.strip() for s in _SENTENCE_END.split(summary.strip()) if s.strip()]


def _experience_text(exp: Experience) -> str:
    when = " – ".join(x for x in (exp.start, exp.end or ("present" if exp.start else "")) if x)
    text = f"{exp.title} at {exp.company}"
    if when:
        text += f", {when}"
    if exp.location:
        text += f", {exp.location}"
    return text


def _education_text(edu: Education) -> str:
    what = " in ".join(x for x in (edu.degree, edu.field) if x)
    text = f"{what} at {edu.institution}" if what else edu.institution
    when = " – ".join(x for x in (edu.start, edu.end) if x)
    return f"{text}, {when}" if when else text


def _language_text(lang: Language) -> str:
    fluency = lang.fluency.strip()
    return f"{lang.language.strip()} ({fluency})" if fluency else lang.language.strip()


def _certification_text(cert: Certification) -> str:
    return ", ".join(x.strip() for x in (cert.name, cert.issuer, cert.date) if x.strip())


def _project_text(project: Project) -> str:
    when = " – ".join(x for x in (project.start, project.end) if x.strip())
    text = f"{project.name.strip()}, {when}" if when else project.name.strip()
    return f"{text}: {project.description.strip()}" if project.description.strip() else text


def _award_text(award: Award) -> str:
    text = ", ".join(x.strip() for x in (award.title, award.awarder, award.date) if x.strip())
    return f"{text}. {award.summary.strip()}" if award.summary.strip() else text


def _volunteer_text(role: Experience) -> str:
    when = " – ".join(x for x in (role.start, role.end or ("present" if role.start else "")) if x)
    text = f"{role.title} at {role.company} (volunteer)"
    if when:
        text += f", {when}"
    if role.location:
        text += f", {role.location}"
    return text


def _highlights(parent: str, key: tuple[str, ...], bullets: list[str]) -> list[Fact]:
    return [
        Fact(_fact_id("highlight", *key, b), "highlight", b.strip(), parent=parent)
        for b in bullets
        if b.strip()
    ]


def _more_facts(profile: Profile) -> list[Fact]:
    """The facts of what a resume lists beside roles and education."""
    facts: list[Fact] = []
    for lang in profile.languages:
        if lang.language.strip():
            facts.append(Fact(language_fact_id(lang), "language", _language_text(lang)))
    for cert in profile.certifications:
        if cert.name.strip():
            facts.append(
                Fact(certification_fact_id(cert), "certification", _certification_text(cert))
            )
    for project in profile.projects:
        entry = project_fact_id(project)
        facts.append(Fact(entry, "project", _project_text(project)))
        facts += _highlights(entry, ("project", project.name), project.bullets)
    for award in profile.awards:
        if award.title.strip():
            facts.append(Fact(award_fact_id(award), "award", _award_text(award)))
    for role in profile.volunteer:
        entry = volunteer_fact_id(role)
        facts.append(Fact(entry, "volunteer", _volunteer_text(role)))
        key = ("volunteer", role.company, role.title, role.start)
        facts += _highlights(entry, key, role.bullets)
    return facts


def profile_facts(profile: Profile) -> list[Fact]:
    """Every fact of ``profile`` in profile order (ids unique; a repeated fact once)."""
    facts: list[Fact] = []
    if profile.name.strip():
        facts.append(Fact(_fact_id("name", profile.name), "name", profile.name.strip()))
    for sentence in summary_sentences(profile.summary):
        facts.append(Fact(_fact_id("summary", sentence), "summary", sentence))
    for skill in profile.skills:
        if skill.strip():
            facts.append(Fact(_fact_id("skill", skill), "skill", skill.strip()))
    for exp in profile.experience:
        entry = _fact_id("experience", exp.company, exp.title, exp.start)
        facts.append(Fact(entry, "experience", _experience_text(exp), start=exp.start, end=exp.end))
        for bullet in exp.bullets:
            if bullet.strip():
                facts.append(
                    Fact(
                        _fact_id("highlight", exp.company, exp.title, exp.start, bullet),
                        "highlight",
                        bullet.strip(),
                        parent=entry,
                    )
                )
    for edu in profile.education:
        facts.append(
            Fact(
                _fact_id("education", edu.institution, edu.degree, edu.field, edu.start),
                "education",
                _education_text(edu),
                start=edu.start,
                end=edu.end,
            )
        )
    facts += _more_facts(profile)
    facts += answer_facts(profile.answers)
    unique: dict[str, Fact] = {}
    for fact in facts:
        unique.setdefault(fact.id, fact)
    return list(unique.values())


def answer_facts(answers: Answers) -> list[Fact]:
    """A fact per saved answer given (an unanswered yes/no or empty text is none)."""
    facts: list[Fact] = []
    for field, label in ANSWER_LABELS.items():
        value = getattr(answers, field)
        if isinstance(value, bool):
            value = "yes" if value else "no"
        if value and value.strip():
            text = f"{label}: {value.strip()}"
            facts.append(Fact(_fact_id("answer", field, value), "answer", text))
    for saved in answers.questions:
        if saved.answer.strip():
            fact_id = _fact_id("answer", "question", saved.question, saved.answer)
            facts.append(Fact(fact_id, "answer", saved.answer.strip()))
    return facts


def fact_index(profile: Profile) -> dict[str, Fact]:
    """Fact id → fact."""
    return {fact.id: fact for fact in profile_facts(profile)}


def experience_fact_id(exp: Experience) -> str:
    return _fact_id("experience", exp.company, exp.title, exp.start)


def education_fact_id(edu: Education) -> str:
    return _fact_id("education", edu.institution, edu.degree, edu.field, edu.start)


def language_fact_id(lang: Language) -> str:
    return _fact_id("language", lang.language, lang.fluency)


def certification_fact_id(cert: Certification) -> str:
    return _fact_id("certification", cert.name, cert.issuer, cert.date)


def project_fact_id(project: Project) -> str:
    return _fact_id("project", project.name, project.start)


def award_fact_id(award: Award) -> str:
    return _fact_id("award", award.title, award.awarder, award.date)


def volunteer_fact_id(role: Experience) -> str:
    return _fact_id("volunteer", role.company, role.title, role.start)

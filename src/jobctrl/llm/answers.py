"""What a model is asked to answer, and the documents code makes of it (issue 31).

A model answers only what it must judge or write: the Score lane each requirement, whether
the profile meets it and the ids of the profile facts that show it; the Tailor lane the
order and wording of the resume's lines and which entries to show; the Cover lane the
letter's paragraphs. Every line cites fact ids, never re-quotes the profile. Whatever code
knows already — the provider and model, the verdict, the person's name and contact
details, an entry's title, employer, school and dates, the letter's greeting, closing and
signature — is filled in by code from the profile, so the model neither pays to retype it
nor can get it wrong.

``to_report``, ``to_resume`` and ``to_letter`` turn an answer into the ``ScoreReport``,
``TailoredResume`` and ``CoverLetter`` the stages check, store and render, exactly as the
offline writers' documents are shaped. A fact id the profile does not have stays in the
document (the truth check finds the line unsupported); in a score, evidence is only what
the cited facts say, so a requirement "met" on no real fact is unmet once settled.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from jobctrl.domain.facts import (
    FACT_ID,
    Fact,
    education_fact_id,
    experience_fact_id,
    profile_facts,
)
from jobctrl.domain.materials import (
    Cited,
    CoverLetter,
    Paragraph,
    TailoredEducation,
    TailoredExperience,
    TailoredResume,
)
from jobctrl.domain.profile import Profile
from jobctrl.domain.scoring import Evidence, RequirementFit, ScoreReport

__all__ = [
    "FactFinder",
    "LetterAnswer",
    "ResumeAnswer",
    "ScoreAnswer",
    "answer_from_letter",
    "answer_from_report",
    "answer_from_resume",
    "to_letter",
    "to_report",
    "to_resume",
]


class _Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RequirementAnswer(_Answer):
    requirement: str
    kind: Literal["must", "nice"] = "must"
    soft: bool = False  # one a resume cannot show (communication, curiosity)
    matched: bool
    facts: list[str] = Field(default_factory=list)  # ids of the facts that show it


class ScoreAnswer(_Answer):
    requirements: list[RequirementAnswer]
    score: int  # 0-100: it may lower what the requirements support, never raise it
    # Not asked for (not in the schema): the report's summary is written by code from the
    # requirements as settled (``fit_verdict.settle_model_report``). An answer stored
    # before that may carry the model's sentence, which is kept.
    summary: SkipJsonSchema[str] = ""


class EntryAnswer(_Answer):
    fact: str  # the id of the profile's experience entry
    bullets: list[Cited] = Field(default_factory=list)


class SchoolAnswer(_Answer):
    fact: str  # the id of the profile's education entry


class ResumeAnswer(_Answer):
    headline: Cited
    summary: list[Cited] = Field(default_factory=list)
    skills: list[str] = Field(default_factory=list)
    experience: list[EntryAnswer] = Field(default_factory=list)
    education: list[SchoolAnswer] = Field(default_factory=list)
    extras: list[Cited] = Field(default_factory=list)  # awards, certifications, languages


class LetterAnswer(_Answer):
    paragraphs: list[Paragraph]


# -- a score ---------------------------------------------------------------------------------

_SOURCE = {  # a fact's kind -> the evidence source the report names
    "summary": "summary",
    "skill": "skills",
    "education": "education",
    "certification": "certifications",
    "language": "languages",
    "project": "projects",
}


def _facts(profile: Profile) -> dict[str, Fact]:
    return {fact.id: fact for fact in profile_facts(profile)}


def to_report(answer: ScoreAnswer, profile: Profile, *, provider: str, model: str) -> ScoreReport:
    """The score report of a model's answer: each requirement's evidence is the text of the
    facts it cites (unknown ids cite nothing); the verdict is left to ``fit_verdict``."""
    facts = _facts(profile)
    requirements = [
        RequirementFit(
            requirement=r.requirement,
            kind=r.kind,
            soft=r.soft,
            matched=r.matched,
            evidence=[
                Evidence(source=_SOURCE.get(f.kind, "experience"), text=f.text, ref=f.id)
                for f in (facts[i] for i in dict.fromkeys(r.facts) if i in facts)
            ],
        )
        for r in answer.requirements
    ]
    return ScoreReport(
        score=max(0, min(100, answer.score)),
        verdict="",
        requirements=requirements,
        provider=provider,
        model=model,
        summary=answer.summary,  # none asked for: settling writes it from what stands
    )


_POSITION = re.compile(r"^(experience|education)\[(\d+)\]$")


class FactFinder:
    """The ids of the profile facts a report's evidence is: its own ref (a model's), the
    fact with its very words (the offline scorer quotes bullets, skills and summary
    sentences), or the entry its position names (``experience[1]``)."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.by_text = {" ".join(f.text.split()): f.id for f in profile_facts(profile)}

    def ids(self, evidence: list[Evidence]) -> list[str]:
        return list(dict.fromkeys(i for e in evidence if (i := self._id(e))))

    def _id(self, evidence: Evidence) -> str | None:
        if FACT_ID.match(evidence.ref):
            return evidence.ref
        if found := self.by_text.get(" ".join(evidence.text.split())):
            return found
        match = _POSITION.match(evidence.ref)
        if match is None:
            return None
        i = int(match.group(2))
        if match.group(1) == "experience" and i < len(self.profile.experience):
            return experience_fact_id(self.profile.experience[i])
        if match.group(1) == "education" and i < len(self.profile.education):
            return education_fact_id(self.profile.education[i])
        return None


def answer_from_report(report: ScoreReport, profile: Profile) -> ScoreAnswer:
    """A score report as the Score lane's answer (a careful model's, for the cost bench)."""
    finder = FactFinder(profile)
    return ScoreAnswer(
        requirements=[
            RequirementAnswer(
                requirement=r.requirement,
                kind=r.kind,
                soft=r.soft,
                matched=r.matched,
                facts=finder.ids(r.evidence),
            )
            for r in report.requirements
        ],
        score=report.score,
    )


# -- a resume --------------------------------------------------------------------------------


def to_resume(answer: ResumeAnswer, profile: Profile) -> TailoredResume:
    """The tailored resume of a model's answer: the name and contact details, and each
    entry's title, employer, school and dates, from the profile entry it names."""
    jobs = {experience_fact_id(e): e for e in profile.experience}
    schools = {education_fact_id(e): e for e in profile.education}
    experience = []
    for entry in answer.experience:
        role = jobs.get(entry.fact)
        experience.append(
            TailoredExperience(
                fact=entry.fact,
                title=role.title if role else "",
                company=role.company if role else "",
                start=role.start if role else "",
                end=role.end if role else "",
                location=role.location if role else "",
                bullets=entry.bullets,
            )
        )
    education = [
        TailoredEducation(fact=s.fact, **schools[s.fact].model_dump())
        for s in answer.education
        if s.fact in schools  # an entry the profile does not have is not shown
    ]
    return TailoredResume(
        name=profile.name,
        contact=profile.contact,
        headline=answer.headline,
        summary=answer.summary,
        skills=answer.skills,
        experience=experience,
        education=education,
        extras=answer.extras,
    )


def answer_from_resume(resume: TailoredResume) -> ResumeAnswer:
    """A tailored resume as the Tailor lane's answer (for the cost bench)."""
    return ResumeAnswer(
        headline=resume.headline,
        summary=resume.summary,
        skills=resume.skills,
        experience=[EntryAnswer(fact=e.fact, bullets=e.bullets) for e in resume.experience],
        education=[SchoolAnswer(fact=e.fact) for e in resume.education],
        extras=resume.extras,
    )


# -- a letter --------------------------------------------------------------------------------


def to_letter(
    answer: LetterAnswer, profile: Profile, *, company: str | None, role: str | None
) -> CoverLetter:
    """The cover letter of a model's answer: greeting, closing and signature by code."""
    name = (company or "").strip()
    return CoverLetter(
        company=name,
        role=(role or "").strip(),
        greeting=f"Dear Hiring Team at {name}," if name else "Dear Hiring Team,",
        paragraphs=answer.paragraphs,
        signature=profile.name,
    )


def answer_from_letter(letter: CoverLetter) -> LetterAnswer:
    """A cover letter as the Cover lane's answer (for the cost bench)."""
    return LetterAnswer(paragraphs=letter.paragraphs)

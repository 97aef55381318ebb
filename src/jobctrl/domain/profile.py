"""The candidate profile and target search, as read from config.yaml.

It also holds the person's saved application answers (``Answers``): what an application
form asks beyond the resume — work authorisation, sponsorship, notice period, salary,
pronouns, how they heard of the job, profile links — and their own question → answer
pairs. Apply's browser prefill answers form questions from them, and they are profile
facts (kind ``answer``) a generated answer may cite.

Besides roles, education and skills a profile keeps what a resume lists beside them:
``languages`` (language, fluency), ``certifications`` (name, issuer, date, url),
``projects`` (name, description, url, bullets, dates), ``awards`` (title, awarder, date,
summary) and ``volunteer`` roles. Volunteer roles have the shape of an ``Experience`` (an
organisation, a position, dates, bullets) but are their own list: the scorer counts years
of experience from ``experience`` and the truth check counts a cited entry's years as
years worked, and unpaid roles are neither employment nor what a form's "employment
history" asks for; a resume may still name them (their facts are citable). All of them
default to empty, so an older config.yaml loads unchanged.

A profile has limits, generous for any real career and small enough that every stage's
work on it stays bounded (a 5 MB profile once made each Score take 90 s): they are
checked wherever a profile is read (config.yaml, an import, the store).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)

from jobctrl.domain.errors import PROFILE_EMPTY, StageError

# The limits (also in the README). A line: a name, a title, a skill, a link.
MAX_LINE = 300
MAX_TEXT = 1_000  # a bullet, a location
MAX_SUMMARY = 5_000
MAX_SKILLS = 300
MAX_ROLES = 50
MAX_BULLETS = 30  # per role
MAX_EDUCATION = 20
MAX_LINKS = 20
MAX_LANGUAGES = 30
MAX_CERTIFICATIONS = 50
MAX_PROJECTS = 50
MAX_AWARDS = 50
MAX_VOLUNTEER = 30
MAX_ANSWERS = 50  # saved question → answer pairs
MAX_TARGETS = 100  # entries in each target-search list
MAX_PROFILE_CHARS = 100_000  # all of the profile's text together (about 25 pages)

Line = Annotated[str, StringConstraints(max_length=MAX_LINE)]
Text = Annotated[str, StringConstraints(max_length=MAX_TEXT)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Contact(_Model):
    email: Line = ""
    phone: Line = ""
    location: Text = ""
    links: list[Line] = Field(default_factory=list, max_length=MAX_LINKS)


class Experience(_Model):
    title: Line
    company: Line
    start: Line = ""  # "YYYY-MM" or "YYYY"
    end: Line = ""  # "" or "present" means current
    location: Text = ""
    bullets: list[Text] = Field(default_factory=list, max_length=MAX_BULLETS)


class Education(_Model):
    institution: Line
    degree: Line = ""
    field: Line = ""
    start: Line = ""
    end: Line = ""


class Language(_Model):
    language: Line
    fluency: Line = ""  # as written: "native", "C1", "professional working proficiency"


class Certification(_Model):
    name: Line
    issuer: Line = ""
    date: Line = ""  # "YYYY-MM" or "YYYY"
    url: Line = ""


class Project(_Model):
    name: Line
    description: Text = ""
    url: Line = ""
    bullets: list[Text] = Field(default_factory=list, max_length=MAX_BULLETS)
    start: Line = ""
    end: Line = ""


class Award(_Model):
    title: Line
    awarder: Line = ""
    date: Line = ""
    summary: Text = ""


class _AnswerModel(_Model):
    # config.yaml says `notice_period: 90` or `answer: yes` as readily as in quotes.
    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)


class SavedAnswer(_AnswerModel):
    """One question the person answers the same way on every form (matched by its words)."""

    question: Line
    answer: Text

    @field_validator("answer", mode="before")
    @classmethod
    def _yes_no(cls, value: object) -> object:
        return ("Yes" if value else "No") if isinstance(value, bool) else value


class Answers(_AnswerModel):
    """Saved answers to the questions application forms ask. A yes/no left ``None`` is not
    answered: the form's question is left for the person."""

    work_authorised: bool | None = None  # "are you legally authorised to work in …?"
    work_authorisation: Text = ""  # in words, e.g. "EU citizen, no restrictions"
    needs_sponsorship: bool | None = None  # "will you require visa sponsorship?"
    willing_to_relocate: bool | None = None
    notice_period: Line = ""  # e.g. "3 months"
    salary_expectation: Line = ""  # e.g. "EUR 85,000"
    pronouns: Line = ""
    how_did_you_hear: Line = ""  # e.g. "Company website"
    linkedin: Line = ""
    github: Line = ""
    portfolio: Line = ""  # a personal site or portfolio
    questions: list[SavedAnswer] = Field(default_factory=list, max_length=MAX_ANSWERS)

    def is_empty(self) -> bool:
        return self == Answers()

    def text_size(self) -> int:
        """Characters of text held (counted toward the profile's total)."""
        fixed = sum(
            len(v) for v in self.model_dump(exclude={"questions"}).values() if isinstance(v, str)
        )
        return fixed + sum(len(q.question) + len(q.answer) for q in self.questions)


class Profile(_Model):
    name: Line = ""
    contact: Contact = Field(default_factory=Contact)
    summary: Annotated[str, StringConstraints(max_length=MAX_SUMMARY)] = ""
    skills: list[Line] = Field(default_factory=list, max_length=MAX_SKILLS)
    experience: list[Experience] = Field(default_factory=list, max_length=MAX_ROLES)
    education: list[Education] = Field(default_factory=list, max_length=MAX_EDUCATION)
    languages: list[Language] = Field(default_factory=list, max_length=MAX_LANGUAGES)
    certifications: list[Certification] = Field(default_factory=list, max_length=MAX_CERTIFICATIONS)
    projects: list[Project] = Field(default_factory=list, max_length=MAX_PROJECTS)
    awards: list[Award] = Field(default_factory=list, max_length=MAX_AWARDS)
    volunteer: list[Experience] = Field(default_factory=list, max_length=MAX_VOLUNTEER)
    answers: Answers = Field(default_factory=Answers)

    @model_validator(mode="after")
    def _bounded(self) -> Profile:
        size = len(self.summary) + sum(len(s) for s in self.skills)
        for e in (*self.experience, *self.volunteer):
            size += len(e.title) + sum(map(len, e.bullets))
        for p in self.projects:
            size += len(p.name) + len(p.description) + sum(map(len, p.bullets))
        size += sum(len(a.title) + len(a.summary) for a in self.awards)
        size += sum(len(c.name) + len(c.issuer) for c in self.certifications)
        size += sum(len(x.language) + len(x.fluency) for x in self.languages)
        size += self.answers.text_size()
        if size > MAX_PROFILE_CHARS:
            raise ValueError(
                f"the profile holds {size:,} characters of text; at most "
                f"{MAX_PROFILE_CHARS:,} (about 25 pages) can be scored and checked"
            )
        return self


class TargetSearch(_Model):
    titles: list[Line] = Field(default_factory=list, max_length=MAX_TARGETS)
    exclude_titles: list[Line] = Field(default_factory=list, max_length=MAX_TARGETS)
    locations: list[Line] = Field(default_factory=list, max_length=MAX_TARGETS)
    remote_only: bool = False
    keywords: list[Line] = Field(default_factory=list, max_length=MAX_TARGETS)
    seniority: list[Line] = Field(default_factory=list, max_length=MAX_TARGETS)


def require_material_facts(profile: Profile, job_id: str) -> None:
    """Refuse (``PROFILE_EMPTY``, not retried) to write a resume or letter from a profile
    with no role and no summary: neither could say anything of the person, and what it
    said would be refused as empty, never a fabrication (a fresh home, before an import).
    A retry runs the stage on the current profile (a rescore leaves a failed Tailor be)."""
    if profile.experience or profile.summary.strip():
        return
    has_some = profile.skills or profile.education or profile.projects or profile.volunteer
    what = "has no role and no summary yet" if has_some else "is empty"
    raise StageError(
        PROFILE_EMPTY,
        f"Your profile {what}: import your resume (jobctrl profile import FILE) before "
        f"resumes and letters can be written, then jobctrl retry {job_id}",
        retryable=False,
    )

"""The application materials a job gets: a tailored resume and a cover letter.

Both are validated pydantic models; a provider (offline or an LLM) must return exactly
these shapes. A tailored resume may select, order and rephrase the profile's facts; it
may never add an employer, title, date, degree or skill the profile does not have.

Provenance is part of the shape: every sentence or bullet about the candidate is a
``Cited`` line that names the ids of the profile facts it rests on (``domain.facts``), and
each experience and education entry names the entry it is. A line citing nothing makes no
claim about the candidate (politeness, the employer, the role); the truth check holds it
to that. Generations stored before citations existed read as lines citing nothing (and
entries naming no fact): ``facts`` and ``fact`` are required of a provider, not of them.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from jobctrl.domain.profile import Contact, Education

__all__ = [
    "EDIT_PROVIDER",
    "EDIT_RUN_PREFIX",
    "Cited",
    "CoverLetter",
    "MaterialKind",
    "MaterialState",
    "Paragraph",
    "TailoredEducation",
    "TailoredExperience",
    "TailoredResume",
    "texts",
]


EDIT_PROVIDER = "person"  # a materials row's provider when a person edited it
EDIT_RUN_PREFIX = "edit-"  # an edit's run id: its generation's owner and its check's run


class MaterialKind(StrEnum):
    RESUME = "resume"
    COVER = "cover"


class MaterialState(StrEnum):
    """A generation's approval: a draft until decided; approving a newer generation
    supersedes the approved one."""

    DRAFT = "draft"
    APPROVED = "approved"
    REJECTED = "rejected"
    SUPERSEDED = "superseded"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _with_default(value: Any, key: str, default: Any) -> Any:
    """An old stored shape lacking ``key`` (required of a provider) reads with ``default``."""
    if isinstance(value, dict) and key not in value:
        return {**value, key: default}
    return value


class Cited(_Model):
    """A sentence or bullet and the ids of the profile facts it rests on ([] = it makes no
    claim about the candidate)."""

    text: str
    facts: list[str]

    @model_validator(mode="before")
    @classmethod
    def _old_line(cls, value: Any) -> Any:
        if isinstance(value, str):  # stored before citations: a line citing nothing
            return {"text": value, "facts": []}
        return value  # a line in the new shape must say what it cites, even []


def _lines(value: Any) -> Any:
    """An old single-text field (the summary) is one line citing nothing, or none."""
    if isinstance(value, str):
        return [value] if value.strip() else []
    return value


def texts(lines: list[Cited]) -> list[str]:
    return [line.text for line in lines]


class TailoredExperience(_Model):
    fact: str  # the id of the profile's experience entry this is
    title: str
    company: str
    start: str = ""
    end: str = ""
    location: str = ""
    bullets: list[Cited] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _old_entry(cls, value: Any) -> Any:
        return _with_default(value, "fact", "")


class TailoredEducation(Education):
    fact: str  # the id of the profile's education entry this is

    @model_validator(mode="before")
    @classmethod
    def _old_entry(cls, value: Any) -> Any:
        return _with_default(value, "fact", "")


def _headline() -> Cited:
    return Cited(text="", facts=[])


class TailoredResume(_Model):
    name: str
    contact: Contact = Field(default_factory=Contact)
    headline: Cited = Field(default_factory=_headline)  # one line under the name
    summary: list[Cited] = Field(default_factory=list)  # sentences
    skills: list[str] = Field(default_factory=list)
    experience: list[TailoredExperience] = Field(default_factory=list)
    education: list[TailoredEducation] = Field(default_factory=list)
    extras: list[Cited] = Field(default_factory=list)  # awards, certifications, languages …

    _old_summary = field_validator("summary", mode="before")(_lines)

    def summary_text(self) -> str:
        return " ".join(texts(self.summary))


class Paragraph(_Model):
    sentences: list[Cited]

    def text(self) -> str:
        return " ".join(texts(self.sentences))


def _paragraphs(value: Any) -> Any:
    if not isinstance(value, list):
        return value
    # an old paragraph (a string) is one line citing nothing
    return [{"sentences": [p]} if isinstance(p, str) else p for p in value]


class CoverLetter(_Model):
    company: str
    role: str
    greeting: str  # "Dear Hiring Team at Acme,"
    paragraphs: list[Paragraph]
    closing: str = "Kind regards,"
    signature: str  # the candidate's name

    _old_paragraphs = field_validator("paragraphs", mode="before")(_paragraphs)

    def paragraph_texts(self) -> list[str]:
        return [p.text() for p in self.paragraphs]

    def word_count(self) -> int:
        return sum(len(p.split()) for p in [self.greeting, *self.paragraph_texts(), self.closing])

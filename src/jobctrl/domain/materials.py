"""The application materials a job gets: a tailored resume and a cover letter.

Both are validated pydantic models; a provider (offline or an LLM) must return exactly
these shapes. A tailored resume may select, order and rephrase the profile's facts; it
may never add an employer, title, date, degree or skill the profile does not have.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from jobctrl.domain.profile import Contact, Education


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


class TailoredExperience(_Model):
    title: str
    company: str
    start: str = ""
    end: str = ""
    location: str = ""
    bullets: list[str] = Field(default_factory=list)


class TailoredResume(_Model):
    name: str
    contact: Contact = Field(default_factory=Contact)
    headline: str = ""  # one line under the name, e.g. "Senior Backend Engineer"
    summary: str = ""
    skills: list[str] = Field(default_factory=list)
    experience: list[TailoredExperience] = Field(default_factory=list)
    education: list[Education] = Field(default_factory=list)


class CoverLetter(_Model):
    company: str
    role: str
    greeting: str  # "Dear Hiring Team at Acme,"
    paragraphs: list[str]
    closing: str = "Kind regards,"
    signature: str  # the candidate's name

    def word_count(self) -> int:
        return sum(len(p.split()) for p in [self.greeting, *self.paragraphs, self.closing])

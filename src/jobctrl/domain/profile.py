"""The candidate profile and target search, as read from config.yaml.

A profile has limits, generous for any real career and small enough that every stage's
work on it stays bounded (a 5 MB profile once made each Score take 90 s): they are
checked wherever a profile is read (config.yaml, an import, the store).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

# The limits (also in the README). A line: a name, a title, a skill, a link.
MAX_LINE = 300
MAX_TEXT = 1_000  # a bullet, a location
MAX_SUMMARY = 5_000
MAX_SKILLS = 300
MAX_ROLES = 50
MAX_BULLETS = 30  # per role
MAX_EDUCATION = 20
MAX_LINKS = 20
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


class Profile(_Model):
    name: Line = ""
    contact: Contact = Field(default_factory=Contact)
    summary: Annotated[str, StringConstraints(max_length=MAX_SUMMARY)] = ""
    skills: list[Line] = Field(default_factory=list, max_length=MAX_SKILLS)
    experience: list[Experience] = Field(default_factory=list, max_length=MAX_ROLES)
    education: list[Education] = Field(default_factory=list, max_length=MAX_EDUCATION)

    @model_validator(mode="after")
    def _bounded(self) -> Profile:
        size = len(self.summary) + sum(len(s) for s in self.skills)
        size += sum(len(e.title) + sum(map(len, e.bullets)) for e in self.experience)
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

"""The candidate profile and target search, as read from config.yaml."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Contact(_Model):
    email: str = ""
    phone: str = ""
    location: str = ""
    links: list[str] = Field(default_factory=list)


class Experience(_Model):
    title: str
    company: str
    start: str = ""  # "YYYY-MM" or "YYYY"
    end: str = ""  # "" or "present" means current
    location: str = ""
    bullets: list[str] = Field(default_factory=list)


class Education(_Model):
    institution: str
    degree: str = ""
    field: str = ""
    start: str = ""
    end: str = ""


class Profile(_Model):
    name: str = ""
    contact: Contact = Field(default_factory=Contact)
    summary: str = ""
    skills: list[str] = Field(default_factory=list)
    experience: list[Experience] = Field(default_factory=list)
    education: list[Education] = Field(default_factory=list)


class TargetSearch(_Model):
    titles: list[str] = Field(default_factory=list)
    exclude_titles: list[str] = Field(default_factory=list)
    locations: list[str] = Field(default_factory=list)
    remote_only: bool = False
    keywords: list[str] = Field(default_factory=list)
    seniority: list[str] = Field(default_factory=list)

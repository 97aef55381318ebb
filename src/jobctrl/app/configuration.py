"""What is configured: every setting with its value and help, the profile (with its
version), the sources and the lanes — reads of config.yaml and the settings table that
change nothing, as models."""

from __future__ import annotations

import os
from typing import Any

from pydantic import Field, RootModel

from jobctrl import config as config_file
from jobctrl.app.models import View
from jobctrl.config import LANES, LaneProvider
from jobctrl.domain.errors import JobctrlError
from jobctrl.domain.profile import (
    Award,
    Certification,
    Experience,
    Language,
    Profile,
    Project,
)
from jobctrl.home import Home
from jobctrl.store import profiles
from jobctrl.store.settings import SPECS, Settings
from jobctrl.store.store import Store

__all__ = [
    "EducationView",
    "LaneView",
    "ProfileView",
    "RoleView",
    "Setting",
    "SettingValue",
    "SettingsValues",
    "SourceView",
    "list_lanes",
    "list_sources",
    "profile_is_empty",
    "profile_view",
    "settings_catalogue",
    "settings_values",
    "show_profile",
]


# -- settings, profile, sources, lanes -------------------------------------------------------


class SettingsValues(RootModel[dict[str, Any]]):
    """Settings by name (``min_fit_score``, ``fetch.allow_hosts``…) and their values: the
    names are the keys, as they are written (`jobctrl settings set NAME VALUE`)."""


class SettingValue(View):
    """One setting's name and current value (`jobctrl settings get NAME --json`)."""

    key: str
    value: Any


class Setting(View):
    """One setting: its name, current value, default and what it does."""

    key: str
    value: Any
    default: Any
    help: str


def settings_values(home: Home, key: str | None = None) -> SettingsValues:
    """Every setting's current value, or just ``key``'s (an unknown key is refused)."""
    settings = Settings(Store.open(home))
    return SettingsValues({key: settings.get(key)} if key else settings.all())


def settings_catalogue(home: Home) -> list[Setting]:
    """Each setting: key, current value, default and what it does."""
    return [
        Setting(key=key, value=value, default=SPECS[key].default, help=SPECS[key].help)
        for key, value in Settings(Store.open(home)).all().items()
    ]


class RoleView(View):
    """One role as `profile show --json` prints it (``employer`` is config.yaml's
    ``company``)."""

    employer: str
    title: str
    start: str
    end: str
    location: str
    bullets: list[str]


class EducationView(View):
    """One education entry (``area`` is config.yaml's ``field``)."""

    institution: str
    degree: str
    area: str
    start: str
    end: str


class ProfileView(View):
    """The candidate profile and its version: ``profile`` as config.yaml holds it, and
    each part by name (``name``, ``email``, ``phone``, ``location``, ``links``, ``roles``,
    ``education``, ``skills``, ``languages``, ``certifications``, ``projects``, …)."""

    version: int
    profile: Profile
    name: str
    email: str
    phone: str
    location: str
    links: list[str]
    summary: str
    roles: list[RoleView]
    education: list[EducationView]
    skills: list[str]
    languages: list[Language]
    certifications: list[Certification]
    projects: list[Project]
    awards: list[Award]
    volunteer: list[RoleView]


def _roles(entries: list[Experience]) -> list[RoleView]:
    return [
        RoleView(
            employer=e.company,
            title=e.title,
            start=e.start,
            end=e.end,
            location=e.location,
            bullets=list(e.bullets),
        )
        for e in entries
    ]


def profile_view(version: int, profile: Profile) -> ProfileView:
    contact = profile.contact
    return ProfileView(
        version=version,
        profile=profile,
        name=profile.name,
        email=contact.email,
        phone=contact.phone,
        location=contact.location,
        links=list(contact.links),
        summary=profile.summary,
        roles=_roles(profile.experience),
        education=[
            EducationView(
                institution=e.institution, degree=e.degree, area=e.field, start=e.start, end=e.end
            )
            for e in profile.education
        ],
        skills=list(profile.skills),
        languages=list(profile.languages),
        certifications=list(profile.certifications),
        projects=list(profile.projects),
        awards=list(profile.awards),
        volunteer=_roles(profile.volunteer),
    )


def show_profile(home: Home) -> ProfileView:
    """The current profile, whole, with its version."""
    profile = config_file.load_config(home).profile
    return profile_view(profiles.version_of(Store.open(home), profile), profile)


def profile_is_empty(home: Home) -> bool:
    """True when the profile has no skills and no experience yet (scores mean little);
    False also when config.yaml cannot be read (that is reported where it matters)."""
    try:
        profile = config_file.load_config(home).profile
    except JobctrlError:
        return False
    return not profile.skills and not profile.experience


class SourceView(View):
    """A configured source, with the keys of config.yaml's ``sources:`` (``base_url``)."""

    kind: str
    name: str
    base_url: str | None = Field(alias="base_url")
    enabled: bool


def list_sources(home: Home) -> list[SourceView]:
    return [
        SourceView(kind=s.kind, name=s.name, base_url=s.base_url, enabled=s.enabled)
        for s in config_file.load_config(home).sources
    ]


class LaneView(View):
    """A lane's provider and model, and whether its key variable is set (never its value)."""

    lane: str
    provider: str
    model: str
    base_url: str | None
    api_key_env: str | None
    api_key_set: bool
    # How structured output is asked for: tool | json | prompted (``llm set --output``).
    output: str


def list_lanes(home: Home) -> list[LaneView]:
    """Each lane's provider and model, and whether its key variable is set (never its value)."""
    providers = config_file.load_config(home).providers
    rows = []
    for lane in LANES:
        lp = providers.get(lane) or LaneProvider()
        key_env = lp.key_env()
        rows.append(
            LaneView(
                lane=lane,
                provider=lp.provider,
                model=lp.model,
                base_url=lp.base_url,
                api_key_env=key_env,
                api_key_set=bool(key_env and os.environ.get(key_env)),
                output=lp.output,
            )
        )
    return rows

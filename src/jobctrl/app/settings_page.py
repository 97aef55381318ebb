"""The Settings page's reading of the settings: what a job seeker sets first, in plain
words (your search, your email account, the models), and every other setting under
"Advanced" with its key and its one-line description (issue 30: the page listed 36
operator keys alphabetically).
"""

from __future__ import annotations

from typing import Any

from jobctrl import config as config_file
from jobctrl.app.configuration import LaneView, list_lanes, settings_catalogue
from jobctrl.app.models import View
from jobctrl.app.target_search import TargetSearchView
from jobctrl.home import Home

__all__ = ["SettingField", "SettingsPage", "settings_page"]

# key -> (label, help): the settings a job seeker sets, in the order the page shows them.
SEARCH: dict[str, tuple[str, str]] = {
    "min_fit_score": (
        "Minimum fit score",
        "Jobs that fit you less than this (0 to 100) are not prepared: no resume or letter "
        "is written for them, and they wait under “Not a fit”.",
    ),
    "followup.after_days": (
        "Follow up after (days)",
        "How long after you apply, with no answer yet, the inbox suggests a follow-up.",
    ),
    "followup.max_count": (
        "Follow-ups per application",
        "How many follow-up emails jobctrl offers for one application, each the same number "
        "of days after the last (0: none).",
    ),
    "outreach.max_per_day": (
        "Emails to contacts per day",
        "The most emails to contacts jobctrl sends in a day, so nothing goes out in a burst "
        "from your account by accident (0: none).",
    ),
    "daily_budget_usd": (
        "Daily spending limit (US dollars)",
        "The most the AI models may cost in a day (0: no limit). Never gone over; the free "
        "offline models cost nothing.",
    ),
}
EMAIL: dict[str, tuple[str, str]] = {
    "smtp.from": ("Your email address", "Applications are sent from this address."),
    "smtp.host": ("Mail server", "Your provider's SMTP server, e.g. smtp.gmail.com."),
    "smtp.port": ("Port", "587 with STARTTLS, 465 with TLS."),
    "smtp.security": ("Encryption", "starttls (port 587) or tls (port 465)."),
    "smtp.username": ("User name", "The name you log in with, often your address."),
    "smtp.password_env": (
        "Password variable",
        "Your password is never stored: jobctrl reads it from this environment variable "
        "where it runs.",
    ),
}
# What each model lane does for the person.
LANE_WORDS: dict[str, str] = {
    "score": "Judging how well a job fits you",
    "tailor": "Tailoring your resume",
    "cover": "Writing cover letters",
    "contact_research": "Finding the people behind a posting",
    "apply": "Filling in application forms",
    "profile": "Reading your resume",
}


class SettingField(View):
    """One setting as the page edits it: ``kind`` says which input and which JSON type
    the page sends back (bool, int, number, list, map, text)."""

    key: str
    label: str
    help: str
    value: Any
    default: Any
    kind: str


class LaneWords(View):
    """A model lane with what it does, in plain words."""

    lane: LaneView
    does: str


class SettingsPage(View):
    """The Settings page: the job seeker's settings first, the rest as ``advanced``."""

    profile_name: str
    target: TargetSearchView
    search: list[SettingField]
    email: list[SettingField]
    lanes: list[LaneWords]
    advanced: list[SettingField]


def setting_kind(default: Any) -> str:
    """How the page edits a value and which JSON type it sends back."""
    for kind, types in (("bool", bool), ("int", int), ("number", float), ("list", list)):
        if isinstance(default, types):
            return kind
    return "map" if isinstance(default, dict) else "text"


def settings_page(home: Home) -> SettingsPage:
    """Every setting, sorted for a job seeker; a key a section names but this version does
    not have is left out."""
    catalogue = {item.key: item for item in settings_catalogue(home)}

    def fields(words: dict[str, tuple[str, str]]) -> list[SettingField]:
        return [
            SettingField(
                key=key,
                label=label,
                help=help_text,
                value=catalogue[key].value,
                default=catalogue[key].default,
                kind=setting_kind(catalogue[key].default),
            )
            for key, (label, help_text) in words.items()
            if key in catalogue
        ]

    config = config_file.load_config(home)
    named = {*SEARCH, *EMAIL}
    return SettingsPage(
        profile_name=config.profile.name,
        target=TargetSearchView.of(config.target_search),
        search=fields(SEARCH),
        email=fields(EMAIL),
        lanes=[
            LaneWords(lane=lane, does=LANE_WORDS.get(lane.lane, "")) for lane in list_lanes(home)
        ],
        advanced=[
            SettingField(
                key=item.key,
                label=item.key,
                help=item.help,
                value=item.value,
                default=item.default,
                kind=setting_kind(item.default),
            )
            for key, item in sorted(catalogue.items())
            if key not in named
        ],
    )

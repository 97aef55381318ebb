"""Profile links: a network + username → its URL, and the LinkedIn / GitHub / personal
site a resume names copied into the saved answers application forms ask for."""

from __future__ import annotations

import re
from typing import Any

from jobctrl.domain.profile import Answers
from jobctrl.profile_import.values import as_text

__all__ = ["answers_from_links", "network_url"]

# Social networks by lower-cased name without spaces → profile URL (RenderCV's names,
# which JSON Resume's ``profiles[].network`` mostly shares).
_NETWORK_URLS = {
    "linkedin": "https://linkedin.com/in/{}",
    "github": "https://github.com/{}",
    "gitlab": "https://gitlab.com/{}",
    "x": "https://x.com/{}",
    "twitter": "https://twitter.com/{}",
    "instagram": "https://instagram.com/{}",
    "orcid": "https://orcid.org/{}",
    "stackoverflow": "https://stackoverflow.com/users/{}",
    "researchgate": "https://researchgate.net/profile/{}",
    "youtube": "https://youtube.com/@{}",
    "googlescholar": "https://scholar.google.com/citations?user={}",
    "telegram": "https://t.me/{}",
}
_LINKEDIN = re.compile(r"^(?:https?://)?(?:[\w-]+\.)?linkedin\.com/(?:in|pub)/[^/?#\s]+", re.I)
_GITHUB = re.compile(r"^(?:https?://)?(?:www\.)?github\.com/[\w.-]+/?$", re.I)


def network_url(network: Any, username: Any) -> str:
    user = as_text(username)
    if user.startswith(("http://", "https://")):
        return user
    key = re.sub(r"\s+", "", as_text(network).lower())
    if key == "mastodon" and user.count("@") == 2:
        name, host = user.lstrip("@").split("@")
        return f"https://{host}/@{name}"
    pattern = _NETWORK_URLS.get(key)
    return pattern.format(user.lstrip("@")) if pattern and user else ""


def _full(url: str) -> str:
    return url if url.lower().startswith(("http://", "https://")) else f"https://{url}"


def answers_from_links(links: list[str]) -> Answers:
    """The saved answers a resume's links give: the first LinkedIn profile, the first
    GitHub profile (a user, not a repository)."""
    linkedin = next((_full(u) for u in links if _LINKEDIN.match(u)), "")
    github = next((_full(u).rstrip("/") for u in links if _GITHUB.match(u)), "")
    return Answers(linkedin=linkedin, github=github)

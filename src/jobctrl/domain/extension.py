"""The browser extension's rules (issue 32): what its token may reach, how long a pairing
code lives, how large a capture may be, which Enrich refusals mean "the site needs the
person's own browser", and which apply pages are the site's own ("apply on the site").

Pure: no I/O. Codes and tokens are made by the app layer with ``secrets``; here only
their shape and what the store keeps of them (a sha256).
"""

from __future__ import annotations

import hashlib
from datetime import timedelta
from urllib.parse import urlsplit

from jobctrl.domain import errors as e

__all__ = [
    "APPLY_ON_SITE",
    "BROWSER_CAPTURE_NEEDED",
    "BROWSER_CODES",
    "CAPTURE_BODY_LIMIT",
    "CAPTURE_DESCRIPTION_LIMIT",
    "CAPTURE_HTML_LIMIT",
    "CAPTURE_SOURCE",
    "CODE_ALPHABET",
    "CODE_LENGTH",
    "CODE_TTL",
    "EXTENSION_ORIGIN_SCHEMES",
    "EXTENSION_PATHS",
    "PAIR_PATH",
    "apply_on_site",
    "browser_condition",
    "extension_origin",
    "normal_code",
    "secret_sha256",
]

# The condition a blocked Enrich carries: the site answers only the person's own browser.
BROWSER_CAPTURE_NEEDED = "browser_capture_needed"
# The terminal target-readiness outcome of a posting applied to on its own site.
APPLY_ON_SITE = "apply_on_site"
# Where a job (or its snapshot) came from when the person's browser sent it.
CAPTURE_SOURCE = "browser_capture"

# Enrich refusals a person's browser gets past: robots.txt asks robots not to read the
# page; the site answered 401/403 (a login or bot wall) or LinkedIn's 999; or the page it
# served held no posting (a login wall served as 200). A posting that is gone, unsafe or
# too large is not among them.
BROWSER_CODES = frozenset(
    {
        e.ENRICH_ROBOTS_DISALLOWED,
        e.ENRICH_LOGIN_WALL,
        e.ENRICH_NO_CONTENT,
    }
)

CODE_TTL = timedelta(minutes=10)
# Eight letters without look-alikes (no 0/O, 1/I/L): ~40 bits, one use, ten minutes.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8

# A capture: the whole request body, the page's HTML and the description (characters).
CAPTURE_BODY_LIMIT = 2 * 1024 * 1024
CAPTURE_HTML_LIMIT = 1_500_000
CAPTURE_DESCRIPTION_LIMIT = 100_000

PAIR_PATH = "/v1/extension/pair"
# The only paths an extension token opens (and the only ones an extension origin may call).
EXTENSION_PATHS = frozenset({"/v1/captures", "/v1/captures/status", "/v1/extension/tasks"})
EXTENSION_ORIGIN_SCHEMES = ("chrome-extension://", "moz-extension://")

# Hosts whose "apply" is a form of the site itself (LinkedIn Easy Apply, Indeed's own).
_ON_SITE_HOSTS = ("linkedin.com", "indeed.com")


def secret_sha256(secret: str) -> str:
    """What the store keeps of a code or token: its sha256 (hex)."""
    return hashlib.sha256(secret.strip().encode()).hexdigest()


def normal_code(code: str) -> str:
    """A pairing code as typed (any case, spaces or dashes) in its one spelling."""
    return "".join(ch for ch in code.upper() if ch.isalnum())


def extension_origin(origin: str | None) -> bool:
    """Whether ``Origin`` names a browser extension (``chrome-extension://ID``)."""
    return origin is not None and origin.lower().startswith(EXTENSION_ORIGIN_SCHEMES)


def browser_condition(stage: str, state: str, error_code: str | None) -> str | None:
    """The typed condition of a stage row: ``browser_capture_needed`` for an Enrich the
    site refused to a robot (the person's browser can read it), else None."""
    if stage == "enrich" and state == "failed" and error_code in BROWSER_CODES:
        return BROWSER_CAPTURE_NEEDED
    return None


def apply_on_site(url: str | None) -> bool:
    """Whether applying happens on the job site's own form (LinkedIn Easy Apply, an
    Indeed-hosted application): no external address to find, nothing to retry."""
    if not url:
        return False
    host = (urlsplit(url).hostname or "").lower()
    return any(host == h or host.endswith("." + h) for h in _ON_SITE_HOSTS)

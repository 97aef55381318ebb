"""What a person may add as a posting: an http(s) URL with a host, checked up front.

``jobctrl add foo`` used to be stored and fail later as ``ENRICH_INVALID_URL``, and an
out-of-range port or a malformed IDNA host reached code that raised an internal error
(issue 30). ``posting_url`` is the one check at the door: the URL as it will be stored
(a bare ``www.host/path`` read as ``https://``), or ``INVALID_INPUT`` with a sentence
saying what is wrong.
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

import idna

from jobctrl.domain.errors import INVALID_INPUT, JobctrlError

__all__ = ["host_is_valid", "posting_url"]

# A bare address as a person copies it from a browser's bar without the scheme.
_BARE_WWW = re.compile(r"www\.[^\s/?#]+\.[^\s/?#]+(?:[/?#].*)?", re.IGNORECASE)
_SHOWN = 80  # how much of a refused text the message quotes


def posting_url(raw: str) -> str:
    """``raw`` as the URL to store, or ``JobctrlError(INVALID_INPUT)`` saying why not."""
    text = (raw or "").strip()
    if not text:
        raise JobctrlError("a posting URL is required", code=INVALID_INPUT)
    shown = repr(text[:_SHOWN] + ("…" if len(text) > _SHOWN else ""))
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in text):
        raise _refused(f"{shown} is not a web address: it has spaces or control characters")
    if "://" not in text and _BARE_WWW.fullmatch(text):
        text = "https://" + text
    try:
        parts = urlsplit(text)
        port = parts.port  # raises ValueError when out of range or not a number
    except ValueError:
        raise _refused(f"{shown} has a port that is not a number from 1 to 65535") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise _refused(
            f"{shown} is not a web address: give the posting's full URL, "
            "starting with https:// (or http://)"
        )
    if not parts.hostname:
        raise _refused(f"{shown} has no host name (e.g. https://jobs.example.com/123)")
    if port == 0:
        raise _refused(f"{shown} has a port that is not a number from 1 to 65535")
    if not host_is_valid(parts.hostname):
        raise _refused(f"{shown} has a host name that is not valid")
    return text


def host_is_valid(host: str) -> bool:
    """An IP address, or a name whose labels (IDNA ``xn--`` ones included) encode."""
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        pass
    name = host.rstrip(".")
    if not name or any(not label for label in name.split(".")):
        return False
    try:
        if not name.isascii():
            idna.encode(name, uts46=True)  # a Unicode name: its labels must encode
            return True
        for label in name.split("."):
            if len(label) > 63:
                return False
            if label.lower().startswith("xn--"):
                idna.decode(label)  # "xn--" alone, or bad Punycode, is refused
    except (idna.IDNAError, UnicodeError, ValueError):
        return False
    return True


def _refused(message: str) -> JobctrlError:
    return JobctrlError(message, code=INVALID_INPUT)

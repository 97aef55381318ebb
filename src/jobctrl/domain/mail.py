"""The rules of the person's SMTP account settings and of email addresses (pure).

``none`` (no TLS) is allowed only for a loopback host: anywhere else the password and the
letter would cross a network in clear. The password itself is never a setting: only the
name of the environment variable that holds it.
"""

from __future__ import annotations

import ipaddress
import re
from enum import StrEnum

__all__ = [
    "SmtpSecurity",
    "check_security_for_host",
    "email_address",
    "env_var_name",
    "header_line_break",
    "is_loopback_host",
    "smtp_host",
    "smtp_security",
]


class SmtpSecurity(StrEnum):
    STARTTLS = "starttls"  # plain connection upgraded with STARTTLS (port 587)
    TLS = "tls"  # TLS from the first byte (port 465)
    NONE = "none"  # no encryption: a loopback host only


_ADDRESS = re.compile(r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*$")
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOST = re.compile(rf"^(?=.{{1,253}}$){_LABEL}(?:\.{_LABEL})*\.?$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")


def header_line_break(text: str) -> str | None:
    """The first character of ``text`` that breaks a line (LF, CR, vertical tab,
    form feed, U+001C–U+001E, U+0085, U+2028, U+2029: every line boundary Python's
    ``str.splitlines`` knows, which is what the email library refuses in a header), as
    ``U+XXXX``; None when ``text`` is one line. A NUL is refused too: no mail server
    takes it in a header."""
    for ch in text:
        if ch == "\0" or len(f"a{ch}b".splitlines()) > 1:
            return f"U+{ord(ch):04X}"
    return None


def email_address(raw: str) -> str:
    """``raw`` as one plain address (``name@example.com``); ValueError otherwise. Display
    names, lists and header line breaks are refused."""
    value = raw.strip()
    if len(value) > 254 or not _ADDRESS.match(value):
        raise ValueError(f"{value[:80]!r} is not an email address (name@example.com)")
    return value


def smtp_host(raw: str) -> str:
    """A host name or IP address ("" = not configured)."""
    value = raw.strip().lower().strip("[]")
    if not value:
        return ""
    try:
        ipaddress.ip_address(value)
    except ValueError:
        if not _HOST.match(value):
            raise ValueError(f"{value[:80]!r} is not a host name or address") from None
    return value


def smtp_security(raw: str) -> str:
    value = raw.strip().lower()
    if value not in {s.value for s in SmtpSecurity}:
        raise ValueError("must be starttls, tls or none (none only for a loopback host)")
    return value


def env_var_name(raw: str) -> str:
    """The name of an environment variable (the password stays in the environment)."""
    value = raw.strip()
    if value and not _ENV_NAME.match(value):
        raise ValueError(
            "must be the name of an environment variable (letters, digits, _), "
            "never the password itself"
        )
    return value


def is_loopback_host(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
    value = host.strip().lower().strip("[]").rstrip(".")
    if value == "localhost" or value.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(value).is_loopback
    except ValueError:
        return False


def check_security_for_host(security: str, host: str) -> str | None:
    """Why ``security`` is not allowed with ``host``, or None."""
    if security == SmtpSecurity.NONE and host and not is_loopback_host(host):
        return (
            f"smtp.security none is allowed only for a loopback host (localhost, 127.0.0.1), "
            f"not {host!r}: use starttls or tls"
        )
    return None

"""Tenants: who a command, a request or a workflow acts for.

One deployment serves several tenants (a career service's clients); each has its own
profile, settings, sources, budget, materials and API token, and sees nothing of the
others. ``local`` is the tenant of a single-person home and always exists: its ids, files
and rows are exactly what they were before tenants.

A tenant's name goes into workflow ids (``prep-acme-…``), paths (``tenants/acme/``) and
idempotency keys, so it is short and plain: a lower-case letter, then 1-31 lower-case
letters or digits. A name of hex digits only is refused (inside a workflow id it would
read as a job id), and so are the words ids are built from (``auto``, ``retry``, stage
names...).
"""

from __future__ import annotations

import hashlib
import re

from jobctrl.domain.errors import INVALID_TENANT, JobctrlError

LOCAL = "local"
NAME_PATTERN = re.compile(r"^[a-z][a-z0-9]{1,31}$")
_HEX_ONLY = re.compile(r"^[0-9a-f]+$")
# Words workflow ids are made of: a tenant named so would make an id ambiguous.
RESERVED = frozenset(
    {
        "auto", "config", "sweep", "retry", "regenerate", "enrich", "score", "tailor", "cover",
        "pdf", "apply", "prep", "discover", "default", "all",
    }
)  # fmt: skip


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a tenant's name, or None when it can."""
    if not NAME_PATTERN.match(name):
        return "a lower-case letter, then 1-31 lower-case letters or digits"
    if _HEX_ONLY.match(name):
        return "not hex digits only (it would read as a job id)"
    if name in RESERVED:
        return "not one of the reserved words " + ", ".join(sorted(RESERVED))
    return None


def is_valid_name(name: str) -> bool:
    return name_problem(name) is None


def checked_name(name: str) -> str:
    """``name`` if it is a valid tenant name; else a ``JobctrlError`` saying why."""
    problem = name_problem(name)
    if problem is not None:
        raise JobctrlError(f"invalid tenant name {name!r}: {problem}", code=INVALID_TENANT)
    return name


def token_sha256(token: str) -> str:
    """What the store keeps of a tenant's API token: its sha256 (hex), never the token."""
    return hashlib.sha256(token.strip().encode()).hexdigest()


__all__ = [
    "LOCAL",
    "NAME_PATTERN",
    "RESERVED",
    "checked_name",
    "is_valid_name",
    "name_problem",
    "token_sha256",
]

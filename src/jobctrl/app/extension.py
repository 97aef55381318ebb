"""The browser extension's connection (issue 32): where its files are, pairing it with a
one-time code, and its tokens (listed, revoked, resolved by the API).

`jobctrl extension pair` makes a code (eight letters, ten minutes, one use) for the
tenant; the extension sends it to ``POST /v1/extension/pair`` and gets its own token,
which opens only the capture, status and task routes (``domain.extension.EXTENSION_PATHS``).
The store keeps only sha256s of codes and tokens.
"""

from __future__ import annotations

import secrets
import threading
import time
from datetime import datetime
from pathlib import Path

import jobctrl
from jobctrl.app.models import Items, Timestamp, View
from jobctrl.domain.clock import as_utc, utcnow
from jobctrl.domain.errors import FORBIDDEN, INVALID_INPUT, NOT_FOUND, JobctrlError, NotFoundError
from jobctrl.domain.extension import (
    CODE_ALPHABET,
    CODE_LENGTH,
    CODE_TTL,
    normal_code,
    secret_sha256,
)
from jobctrl.domain.tenants import LOCAL
from jobctrl.home import Home
from jobctrl.store import extension
from jobctrl.store.store import Store

Holder = extension.Holder

__all__ = [
    "ExtensionFolder",
    "ExtensionItem",
    "ExtensionResolver",
    "ExtensionRevoked",
    "Holder",
    "Paired",
    "PairingCode",
    "extension_folder",
    "list_extensions",
    "make_code",
    "pair",
    "revoke",
    "seen",
]

NAME_LIMIT = 64
LOAD_STEPS = (
    "Open chrome://extensions (edge://extensions in Edge, brave://extensions in Brave).",
    "Switch on Developer mode (top right).",
    "Click Load unpacked and choose the folder above.",
)


class ExtensionFolder(View):
    """The folder of the extension shipped in the package, and how to load it."""

    path: str
    exists: bool
    steps: list[str]


class PairingCode(View):
    """A one-time pairing code for the extension, valid until ``expiresAt``."""

    code: str
    name: str | None
    expires_at: Timestamp


class Paired(View):
    """The extension's own token (shown once) and its name."""

    token: str
    name: str


class ExtensionItem(View):
    """A paired extension: its name, the origin it paired from, when, and last seen."""

    name: str
    origin: str | None
    created_at: Timestamp
    last_used_at: Timestamp | None


class ExtensionRevoked(View):
    name: str
    revoked: bool


def extension_folder() -> ExtensionFolder:
    """The unpacked extension's folder inside the installed package."""
    folder = Path(jobctrl.__file__).resolve().parent / "extension"
    return ExtensionFolder(path=str(folder), exists=folder.is_dir(), steps=list(LOAD_STEPS))


def _name(name: str | None) -> str | None:
    if name is None:
        return None
    name = " ".join(name.split())
    if not name or len(name) > NAME_LIMIT or not name.isprintable():
        raise JobctrlError(
            f"an extension's name is 1 to {NAME_LIMIT} printable characters", code=INVALID_INPUT
        )
    return name


def make_code(home: Home, name: str | None = None, *, now: datetime | None = None) -> PairingCode:
    """A new one-time code for ``home``'s tenant (ten minutes from ``now``, one use)."""
    name = _name(name)
    code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
    expires = (now or utcnow()) + CODE_TTL
    extension.add_code(Store.open(home), secret_sha256(code), name, expires)
    return PairingCode(code=code, name=name, expires_at=expires)


def pair(home: Home, code: str, name: str | None, origin: str | None) -> Paired:
    """Redeem ``code`` (whichever tenant made it) for a new extension token of that
    tenant; a used, expired or unknown code is refused (403) and nothing is made."""
    name = _name(name)
    token = secrets.token_urlsafe(32)
    base = Store.open(home.with_tenant(LOCAL))
    given = extension.redeem(
        base, secret_sha256(normal_code(code)), secret_sha256(token), name, origin
    )
    if given is None:
        raise JobctrlError(
            "this pairing code is not valid (used, expired or mistyped): run "
            "`jobctrl extension pair` for a new one",
            code=FORBIDDEN,
        )
    return Paired(token=token, name=given)


def list_extensions(home: Home) -> Items[ExtensionItem]:
    """The tenant's paired extensions, oldest first."""
    rows = extension.tokens(Store.open(home))
    return Items[ExtensionItem](
        items=[
            ExtensionItem(
                name=r["name"],
                origin=r["origin"],
                created_at=as_utc(r["created_at"]),
                last_used_at=as_utc(r["last_used_at"]) if r["last_used_at"] else None,
            )
            for r in rows
        ]
    )


def seen(home: Home, name: str) -> None:
    """Record that the extension ``name`` was just heard from."""
    extension.touch(Store.open(home), name)


def revoke(home: Home, name: str) -> ExtensionRevoked:
    """Revoke the extension token ``name``: its requests are refused from now on."""
    if not extension.revoke(Store.open(home), name):
        raise NotFoundError(f"no paired extension is named {name!r}", code=NOT_FOUND)
    return ExtensionRevoked(name=name, revoked=True)


class ExtensionResolver:
    """Bearer token → (tenant, name, origin) of an extension token, None for any other
    token. A hit is read each time (a revoked token is refused at once); a miss is
    remembered a second, so a flood of wrong tokens costs a read each at most once a
    second."""

    def __init__(self, home: Home, *, miss_ttl: float = 1.0) -> None:
        self.store = Store.open(home.with_tenant(LOCAL))
        self.miss_ttl = miss_ttl
        self._missed: dict[str, float] = {}
        self._lock = threading.Lock()

    def __call__(self, token: str) -> extension.Holder | None:
        digest = secret_sha256(token)
        with self._lock:
            at = self._missed.get(digest)
        if at is not None and time.monotonic() - at < self.miss_ttl:
            return None
        found = extension.holder(self.store, digest)
        if found is None:
            with self._lock:
                if len(self._missed) > 10_000:  # wrong tokens must not grow it without end
                    self._missed.clear()
                self._missed[digest] = time.monotonic()
        return found

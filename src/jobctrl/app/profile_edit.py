"""The profile edited as a whole (the Profile page, ``PUT /v1/profile``): the person's
profile replaced by the one they saved, validated whole before anything is written, and
recorded as a new profile version (work in flight keeps the version it started with). The
saved application answers are edited on their own (``app.answers``) and kept unless the
saved profile carries them. An uploaded resume file goes through the import
(``app.profile.import_profile``) like `jobctrl profile import`."""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from jobctrl import config as config_file
from jobctrl.app.models import View
from jobctrl.app.profile import ProfileImported, import_profile
from jobctrl.domain.errors import INVALID_INPUT, JobctrlError
from jobctrl.domain.profile import Profile
from jobctrl.home import Home
from jobctrl.profile_import import first_problem
from jobctrl.store import profiles
from jobctrl.store.store import Store

__all__ = ["MAX_UPLOAD_BYTES", "ProfileSaved", "import_uploaded", "save_profile"]

MAX_UPLOAD_BYTES = 10 * 1024 * 1024  # a resume file sent from the Profile page
UPLOAD_SUFFIXES = (".pdf", ".docx", ".md", ".txt", ".json", ".yaml", ".yml")


class ProfileSaved(View):
    """The profile version now current, and whether the save changed the profile."""

    version: int
    changed: bool


def save_profile(home: Home, data: Mapping[str, Any]) -> ProfileSaved:
    """Replace the profile with ``data`` (config.yaml's ``profile:`` shape), keeping the
    saved answers unless ``data`` has ``answers``. A refused profile changes nothing."""
    current = config_file.load_config(home).profile
    fields = dict(data) if "answers" in data else {**data, "answers": current.answers.model_dump()}
    try:
        profile = Profile.model_validate(fields)
    except ValidationError as exc:
        problem = first_problem(exc)
        raise JobctrlError(f"the profile was not saved: {problem}", code=INVALID_INPUT) from None
    store = Store.open(home)
    before = profiles.version_of(store, current)
    config_file.edit_profile(home, profile)
    version = profiles.version_of(store, profile)
    return ProfileSaved(version=version, changed=version != before)


def import_uploaded(home: Home, filename: str, content: bytes) -> ProfileImported:
    """A resume file sent from the Profile page, imported as `jobctrl profile import` would
    (its suffix says its format)."""
    suffix = Path(filename).suffix.lower()
    if suffix not in UPLOAD_SUFFIXES:
        raise JobctrlError(
            f"{filename or 'the file'}: a resume must be one of {', '.join(UPLOAD_SUFFIXES)}",
            code=INVALID_INPUT,
        )
    if not content:
        raise JobctrlError(f"{filename}: the file is empty", code=INVALID_INPUT)
    if len(content) > MAX_UPLOAD_BYTES:
        raise JobctrlError(
            f"{filename}: {len(content):,} bytes; a resume file may be at most "
            f"{MAX_UPLOAD_BYTES // (1024 * 1024)} MB",
            code=INVALID_INPUT,
        )
    name = Path(filename).name
    with tempfile.TemporaryDirectory(prefix="jobctrl-upload-") as folder:
        path = Path(folder) / name
        path.write_bytes(content)
        try:
            return import_profile(home, path)
        except JobctrlError as exc:  # said of the person's file, not of the temporary copy
            raise JobctrlError(exc.message.replace(str(path), name), code=exc.code) from None

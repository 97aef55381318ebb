"""Replacing the candidate profile from a resume file: a JSON Resume or RenderCV file, or a
PDF, Word, Markdown or text resume read by the section parser."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from jobctrl import config as config_file
from jobctrl.app.models import View
from jobctrl.domain.errors import INVALID_INPUT, JobctrlError
from jobctrl.domain.facts import answer_facts
from jobctrl.domain.profile import Profile
from jobctrl.home import Home
from jobctrl.profile_import import first_problem, keep_saved_answers, read_profile_file
from jobctrl.store import profiles
from jobctrl.store.store import Store

__all__ = ["ProfileImported", "import_profile"]


class ProfileImported(View):
    """The profile just imported (or, with ``dry_run``, read and not saved): its version
    (None in a dry run), name, how many skills, roles and education entries it has, how
    many saved application answers it kept, the file's format, the whole parsed profile,
    and the document's text the parser could not place in it (``unplaced``: read it, and
    add by hand what belongs in the profile)."""

    version: int | None
    name: str
    skills: int
    experience: int
    education: int
    answers_kept: int
    format: str
    dry_run: bool
    profile: Profile
    unplaced: list[str]


def import_profile(home: Home, path: Path, *, dry_run: bool = False) -> ProfileImported:
    """Replace the profile in config.yaml with one read from ``path``, keeping the saved
    application answers; the new profile is recorded as a new version (work in flight keeps
    its own). ``dry_run`` reads and parses the file and writes nothing."""
    try:
        parsed = read_profile_file(path)
    except FileNotFoundError:
        raise JobctrlError(f"no file {path}", code=INVALID_INPUT) from None
    except ValueError as exc:
        raise JobctrlError(str(exc), code=INVALID_INPUT) from None
    try:
        profile = keep_saved_answers(parsed.profile, config_file.load_config(home).profile)
    except ValidationError as exc:  # the imported profile with the answers is too large
        raise JobctrlError(f"{path}: {first_problem(exc)}", code=INVALID_INPUT) from None
    version = None
    if not dry_run:
        config_file.edit_profile(home, profile)
        version = profiles.version_of(Store.open(home), profile)
    return ProfileImported(
        version=version,
        name=profile.name,
        skills=len(profile.skills),
        experience=len(profile.experience),
        education=len(profile.education),
        answers_kept=len(answer_facts(profile.answers)),
        format=parsed.format,
        dry_run=dry_run,
        profile=profile,
        unplaced=parsed.unplaced,
    )

"""Replacing the candidate profile from a resume file: a JSON Resume or RenderCV file, or a
PDF, Word, Markdown or text resume structured by the profile lane's model when one is set
(every value held to the document's text: ``app.resume_structuring``), else by the
section parser."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from jobctrl import config as config_file
from jobctrl.app.models import View
from jobctrl.app.resume_structuring import structure_resume
from jobctrl.domain.errors import INVALID_INPUT, JobctrlError
from jobctrl.domain.facts import answer_facts
from jobctrl.domain.profile import Profile
from jobctrl.home import Home
from jobctrl.profile_import import first_problem, keep_saved_answers, read_profile_file
from jobctrl.store import profiles
from jobctrl.store.store import Store

__all__ = ["DroppedValue", "ProfileImported", "import_profile"]


class DroppedValue(View):
    """A value the profile lane's model returned that the resume's text does not contain,
    left out of the profile: where it was (``experience[1].company``; a whole entry:
    ``experience[1]``) and what it said."""

    field: str
    value: str


class ProfileImported(View):
    """The profile just imported (or, with ``dry_run``, read and not saved): its version
    (None in a dry run), name, how many skills, roles and education entries it has, how
    many saved application answers it kept, the file's format, the whole parsed profile,
    and the document's text the parser could not place in it (``unplaced``: read it, and
    add by hand what belongs in the profile).

    ``structured_by`` says who read a document into fields: ``model`` (the profile lane's,
    named in ``model``; ``dropped`` lists each value it returned that the text does not
    contain), ``parser`` (the section parser; ``note`` says why when a model is set but
    was not used), or ``file`` (a JSON Resume or RenderCV file's own structure)."""

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
    structured_by: str
    model: str | None
    dropped: list[DroppedValue]
    note: str | None


def import_profile(home: Home, path: Path, *, dry_run: bool = False) -> ProfileImported:
    """Replace the profile in config.yaml with one read from ``path``, keeping the saved
    application answers; the new profile is recorded as a new version (work in flight keeps
    its own). ``dry_run`` reads and parses the file and writes nothing to the profile (a
    model on the profile lane is asked, paid once: the import after it reuses its answer)."""
    try:
        parsed = read_profile_file(path)
    except FileNotFoundError:
        raise JobctrlError(f"no file {path}", code=INVALID_INPUT) from None
    except ValueError as exc:
        raise JobctrlError(str(exc), code=INVALID_INPUT) from None
    structured = structure_resume(home, parsed)
    try:
        profile = keep_saved_answers(structured.profile, config_file.load_config(home).profile)
    except ValidationError as exc:  # the imported profile with the answers is too large
        raise JobctrlError(f"{path}: {first_problem(exc)}", code=INVALID_INPUT) from None
    by = "file" if parsed.format in {"json-resume", "rendercv"} else "parser"
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
        unplaced=structured.unplaced,
        structured_by="model" if structured.model else by,
        model=structured.model,
        dropped=[DroppedValue(field=d.field, value=d.value) for d in structured.dropped],
        note=structured.note,
    )

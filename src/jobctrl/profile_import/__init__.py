"""Import a candidate ``Profile`` from a resume file: a JSON Resume or RenderCV file
(JSON or YAML, told apart by shape), or a resume document — PDF, Word (.docx), Markdown
or plain text — read by the section parser.

``read_profile_file`` gives the profile and what could not be placed in it (``unplaced``:
lines of the document the parser found no field for, never silently dropped);
``load_profile_file`` the profile alone.

Dates become ``"YYYY-MM"`` or ``"YYYY"``; ``"present"`` stays; a dated entry (one with a
start) that has no end is current: its end becomes ``"present"``. Skills are de-duplicated
case-insensitively, first spelling and order kept.

A resume has none of the saved application answers but the LinkedIn and GitHub profiles
it links to (``profile.answers``): an import keeps the current answers, with those two
taken from the resume when it names them (``keep_saved_answers``).

Bounds: a structured or text file of at most ``MAX_PROFILE_BYTES``, a PDF or Word file
of at most ``MAX_DOCUMENT_BYTES`` and ``pdf.MAX_PAGES`` pages; a password-protected
document and a PDF without a text layer (a scan) are refused with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from jobctrl.domain.profile import Profile
from jobctrl.profile_import.documents import extract_document
from jobctrl.profile_import.errors import ProfileImportError, first_problem
from jobctrl.profile_import.files import check_resume_file, read_resume_text
from jobctrl.profile_import.json_resume import profile_from_json_resume
from jobctrl.profile_import.rendercv import profile_from_rendercv
from jobctrl.profile_import.structured import detect_format, profile_from_structured
from jobctrl.profile_import.text_resume import parse_resume

__all__ = [
    "DOCUMENT_SUFFIXES",
    "MAX_DOCUMENT_BYTES",
    "MAX_PROFILE_BYTES",
    "ParsedProfile",
    "ProfileImportError",
    "detect_format",
    "first_problem",
    "keep_saved_answers",
    "load_profile_file",
    "profile_from_json_resume",
    "profile_from_rendercv",
    "read_profile_file",
]

MAX_PROFILE_BYTES = 2_000_000  # a long real resume is a few tens of kilobytes
MAX_DOCUMENT_BYTES = 10_000_000  # a PDF or Word file with fonts and a photo
DOCUMENT_SUFFIXES = frozenset({".pdf", ".docx", ".md", ".markdown", ".txt", ".text"})


@dataclass(frozen=True)
class ParsedProfile:
    """A profile read from a file: its format (``json-resume``, ``rendercv``, ``pdf``,
    ``docx``, ``markdown``, ``text``), the profile, the document's text the parser could
    not place (empty for a structured file), and, for a document, its full text (what a
    model's structuring is checked against)."""

    format: str
    profile: Profile
    unplaced: list[str] = field(default_factory=list)
    text: str = ""


def read_profile_file(path: Path) -> ParsedProfile:
    """Read and convert a resume file; errors name the file and what is wrong (a file past
    its size limit, a profile past the profile's limits, an unreadable document)."""
    suffix = path.suffix.lower()
    binary = suffix in {".pdf", ".docx"}
    limit = MAX_DOCUMENT_BYTES if binary else MAX_PROFILE_BYTES
    check_resume_file(path, limit)  # a device, a pipe, a folder or too large: refused
    try:
        if suffix in DOCUMENT_SUFFIXES:
            kind, extracted = extract_document(path, limit)
            parsed = parse_resume(extracted)
            return ParsedProfile(kind, parsed.profile, parsed.unplaced, parsed.text)
        text = read_resume_text(path, limit)
        kind, profile = profile_from_structured(path, text)
        return ParsedProfile(kind, profile)
    except ValidationError as exc:
        raise ProfileImportError(f"{path}: {first_problem(exc)}") from None


def load_profile_file(path: Path) -> Profile:
    """The profile of ``read_profile_file``."""
    return read_profile_file(path).profile


def keep_saved_answers(imported: Profile, current: Profile) -> Profile:
    """``imported`` with the saved application answers of ``current`` (the profile it
    replaces): a resume file has none, and an import must not lose them — except the
    LinkedIn and GitHub profiles, taken from the resume when it names them."""
    answers = current.answers.model_dump()
    for name in ("linkedin", "github"):
        answers[name] = getattr(imported.answers, name) or answers[name]
    return Profile.model_validate({**imported.model_dump(), "answers": answers})

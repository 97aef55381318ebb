"""A resume document → its lines: PDF (``pdf``), Word (``docx``), Markdown and plain text
(``plain``), by the file's suffix."""

from __future__ import annotations

from pathlib import Path

from jobctrl.profile_import.docx import extract_docx
from jobctrl.profile_import.files import read_resume_text
from jobctrl.profile_import.lines import Extracted
from jobctrl.profile_import.pdf import extract_pdf
from jobctrl.profile_import.plain import extract_markdown, extract_text

__all__ = ["extract_document"]


def extract_document(path: Path, limit: int) -> tuple[str, Extracted]:
    """(the document's format, its lines); a text document is read up to ``limit`` bytes
    (``read_profile_file`` checked the file's type and size already)."""
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        return "pdf", extract_pdf(path)
    if suffix == ".docx":
        return "docx", extract_docx(path)
    text = read_resume_text(path, limit, encoding="utf-8-sig")
    if suffix in {".md", ".markdown"}:
        return "markdown", extract_markdown(text)
    return "text", extract_text(text)

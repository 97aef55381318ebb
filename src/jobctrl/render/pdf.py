"""Render a tailored resume and a cover letter to ATS-friendly PDFs with Typst.

The templates in ``templates/`` are fixed Typst files; the materials reach them as one JSON
document in ``sys.inputs.data``. Typst parses that with ``json()`` into plain strings and
prints strings verbatim, so user text is never spliced into markup and needs no escaping:
a bullet with ``#set``, ``*bold*``, ``$x$``, ``]`` or ``\\`` prints exactly as written.

Only the fonts the ``typst`` wheel embeds are used (Libertinus Serif), with system fonts
ignored, so rendering is offline, identical on every machine, and deterministic.
"""

from __future__ import annotations

import io
import json
import logging
import re
import threading
from collections.abc import Callable
from datetime import date as Date
from functools import cache
from importlib.resources import files
from typing import Any, Literal

import pypdf
import typst

from jobctrl.domain.errors import (
    RENDER_FAILED,
    RENDER_INVALID_INPUT,
    RENDER_LETTER_TOO_LONG,
    RENDER_NOT_A_PDF,
    RENDER_TOO_LARGE,
    JobctrlError,
)
from jobctrl.domain.materials import CoverLetter, TailoredResume, texts
from jobctrl.domain.profile import Contact

__all__ = [
    "RenderError",
    "Templates",
    "packaged_template",
    "pdf_pages",
    "pdf_text",
    "render_cover_letter",
    "render_resume",
]

log = logging.getLogger(__name__)

Paper = Literal["a4", "us-letter"]

# Input limits: generous for any real resume (a long one runs to a few pages), small
# enough that a runaway provider answer cannot make Typst work for seconds.
MAX_FIELD_CHARS = 5_000
MAX_TOTAL_CHARS = 200_000
MAX_STRINGS = 5_000

# A letter that overflows one page is first set a little smaller before it is refused.
_RESUME_SIZE = 10.5
_LETTER_SIZES = (11.0, 10.5, 10.0)

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_LONG_MONTHS = (
    "January", "February", "March", "April", "May", "June", "July",
    "August", "September", "October", "November", "December",
)  # fmt: skip
_YEAR_MONTH = re.compile(r"(\d{4})-(\d{2})")
_LINKABLE = re.compile(r"(?:https?://|mailto:)\S+", re.IGNORECASE)


class RenderError(JobctrlError, ValueError):
    """Materials could not be rendered; ``code`` says why, the message never quotes markup.

    Codes: ``render_invalid_input``, ``render_too_large``, ``render_letter_too_long``,
    ``render_failed`` (a template problem), ``render_not_a_pdf``. It is a ``ValueError``
    too: bad input is what it reports.
    """


# Where a template's Typst source comes from: ``kind`` is "resume" or "letter".
Templates = Callable[[str], bytes]


@cache
def packaged_template(kind: str) -> bytes:
    """The Typst template shipped in ``templates/``."""
    return (files("jobctrl.render") / "templates" / f"{kind}.typ").read_bytes()


def render_resume(
    resume: TailoredResume, *, paper: Paper = "a4", templates: Templates = packaged_template
) -> bytes:
    """Render ``resume`` as a single-column PDF (1–2 pages for a typical profile)."""
    if not isinstance(resume, TailoredResume):
        raise RenderError("expected a TailoredResume", code=RENDER_INVALID_INPUT)
    data = _checked(
        {
            "paper": _paper(paper),
            "size": _RESUME_SIZE,
            "name": resume.name,
            "headline": resume.headline.text,
            "contact": _contact_items(resume.contact),
            "summary": resume.summary_text(),
            "skills": resume.skills,
            "experience": [
                {
                    "title": job.title,
                    "company": job.company,
                    "dates": _date_range(job.start, job.end, open_is_current=True),
                    "location": job.location,
                    "bullets": texts(job.bullets),
                }
                for job in resume.experience
            ],
            "education": [
                {
                    "what": ", ".join(p for p in (school.degree, school.field) if p.strip())
                    or school.institution,
                    "where": school.institution if (school.degree or school.field) else "",
                    "dates": _date_range(school.start, school.end, open_is_current=False),
                }
                for school in resume.education
            ],
            "extras": texts(resume.extras),
        }
    )
    if not data["name"]:
        raise RenderError("the resume has no name", code=RENDER_INVALID_INPUT)
    return _compile(templates, "resume", data)


def render_cover_letter(
    letter: CoverLetter,
    *,
    sender: TailoredResume | None = None,
    date: str | None = None,
    paper: Paper = "a4",
    templates: Templates = packaged_template,
) -> bytes:
    """Render ``letter`` on exactly one page, headed by ``sender``'s name and contact.

    ``date`` is printed as given; None prints today's date, "" prints none. A letter
    that does not fit one page even at a smaller size raises ``RenderError``.
    """
    if not isinstance(letter, CoverLetter):
        raise RenderError("expected a CoverLetter", code=RENDER_INVALID_INPUT)
    if sender is not None and not isinstance(sender, TailoredResume):
        raise RenderError("sender must be a TailoredResume", code=RENDER_INVALID_INPUT)
    data = _checked(
        {
            "paper": _paper(paper),
            "size": _LETTER_SIZES[0],
            "sender": sender.name if sender else "",
            "contact": _contact_items(sender.contact) if sender else [],
            "date": _long_date(Date.today()) if date is None else date,
            "company": letter.company,
            "role": letter.role,
            "greeting": letter.greeting,
            "paragraphs": letter.paragraph_texts(),
            "closing": letter.closing,
            "signature": letter.signature,
        }
    )
    if not (data["greeting"] and data["paragraphs"] and data["signature"]):
        raise RenderError(
            "a cover letter needs a greeting, a paragraph and a signature",
            code=RENDER_INVALID_INPUT,
        )
    for size in _LETTER_SIZES:
        pdf = _compile(templates, "letter", {**data, "size": size})
        if pdf_pages(pdf) == 1:
            return pdf
    raise RenderError("the cover letter does not fit on one page", code=RENDER_LETTER_TOO_LONG)


def pdf_text(pdf: bytes) -> str:
    """The text of every page, as a text extractor (and most ATS) reads it back."""
    return "\n".join(page.extract_text() for page in _reader(pdf).pages)


def pdf_pages(pdf: bytes) -> int:
    return len(_reader(pdf).pages)


def _reader(pdf: bytes) -> pypdf.PdfReader:
    try:
        return pypdf.PdfReader(io.BytesIO(pdf))
    except (pypdf.errors.PyPdfError, ValueError, TypeError) as exc:
        raise RenderError(
            f"not a readable PDF ({type(exc).__name__})", code=RENDER_NOT_A_PDF
        ) from None


_compilers = threading.local()


def _compiler() -> typst.Compiler:
    """This thread's Typst compiler: it keeps the embedded fonts it loaded (about 40 % of a
    fresh ``typst.compile``'s time) and its caches between documents. One per thread, as a
    compiler is not to be shared by concurrent compiles."""
    compiler = getattr(_compilers, "compiler", None)
    if compiler is None:
        compiler = _compilers.compiler = typst.Compiler(ignore_system_fonts=True)
    return compiler


def _compile(templates: Templates, kind: str, data: dict[str, Any]) -> bytes:
    try:
        pdf = _compiler().compile(
            input=templates(kind),
            format="pdf",
            sys_inputs={"data": json.dumps(data, ensure_ascii=False)},
        )
        assert isinstance(pdf, bytes)  # one PDF document, not pages
        return pdf
    except typst.TypstError as exc:
        # Only a template bug gets here (data is never markup); keep Typst's diagnostic,
        # which quotes template source, in the debug log rather than in the error.
        log.debug("typst failed on %s.typ: %s\n%s", kind, exc.message, exc.diagnostic)
        raise RenderError(f"could not render the {kind}", code=RENDER_FAILED) from None


def _checked(data: dict[str, Any]) -> dict[str, Any]:
    """Clean every string in ``data`` and enforce the size limits."""
    budget = {"chars": 0, "strings": 0}

    def walk(value: Any, where: str) -> Any:
        if isinstance(value, str):
            text = _clean(value, where)
            budget["chars"] += len(text)
            budget["strings"] += 1
            return text
        if isinstance(value, dict):
            return {k: walk(v, f"{where}.{k}" if where else k) for k, v in value.items()}
        if isinstance(value, list):
            items = [walk(v, f"{where}[{i}]") for i, v in enumerate(value)]
            return [v for v in items if v != ""]  # a blank bullet or skill is no item
        return value

    cleaned = walk(data, "")
    if budget["chars"] > MAX_TOTAL_CHARS or budget["strings"] > MAX_STRINGS:
        raise RenderError(
            f"too much text to render ({budget['chars']} characters in {budget['strings']} "
            f"fields; the limit is {MAX_TOTAL_CHARS} in {MAX_STRINGS})",
            code=RENDER_TOO_LARGE,
        )
    return cleaned


# The control characters (Unicode category Cc) that are not whitespace: they go, and
# whitespace collapses to single spaces.
_CONTROL = re.compile("[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f]")


def _clean(text: str, where: str) -> str:
    """One line of printable text: whitespace runs collapse, control characters go."""
    if len(text) > MAX_FIELD_CHARS:
        raise RenderError(
            f"{where} is too long ({len(text)} characters; the limit is {MAX_FIELD_CHARS})",
            code=RENDER_TOO_LARGE,
        )
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise RenderError(f"{where} is not valid Unicode", code=RENDER_INVALID_INPUT) from None
    return " ".join(_CONTROL.sub("", text).split())


def _contact_items(contact: Contact) -> list[dict[str, str]]:
    items = []
    if contact.email.strip():
        email = contact.email.strip()
        url = f"mailto:{email}" if "@" in email and " " not in email else ""
        items.append({"text": email, "url": url})
    items += [{"text": contact.phone, "url": ""}, {"text": contact.location, "url": ""}]
    for link in contact.links:
        items.append({"text": link, "url": link.strip() if _LINKABLE.fullmatch(link) else ""})
    return [item for item in items if item["text"].strip()]


def _paper(paper: str) -> str:
    if paper not in ("a4", "us-letter"):
        raise RenderError("paper must be 'a4' or 'us-letter'", code=RENDER_INVALID_INPUT)
    return paper


def _date_range(start: str, end: str, *, open_is_current: bool) -> str:
    start, end = _month_year(start), _month_year(end)
    if end.lower() == "present" or (open_is_current and start and not end):
        end = "Present"
    return " – ".join(part for part in (start, end) if part)


def _month_year(value: str) -> str:
    """``2021-03`` reads ``Mar 2021``; a year or any other text is kept as written."""
    value = value.strip()
    match = _YEAR_MONTH.fullmatch(value)
    if match and 1 <= int(match[2]) <= 12:
        return f"{_MONTHS[int(match[2]) - 1]} {match[1]}"
    return value


def _long_date(day: Date) -> str:
    return f"{day.day} {_LONG_MONTHS[day.month - 1]} {day.year}"

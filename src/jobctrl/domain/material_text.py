"""The text form of a tailored resume and a cover letter: what a person edits (`jobctrl
materials edit` in ``$EDITOR``, the text areas of the Job page) and reads back.

A letter is its greeting, a blank line, its paragraphs (one sentence a line, a blank line
between paragraphs), then the closing and the name as the last two lines. A resume is a
small Markdown-like text: ``# Name``, ``Email:``/``Phone:``/``Location:``/``Link:`` lines,
then ``## Headline``, ``## Summary``, ``## Skills``, ``## Experience``, ``## Education``
and ``## Extras`` sections; an entry is a ``### `` line of fields separated by `` | ``
(experience: title, company, start, end, place; education: school, degree, field, start,
end) followed by its ``- `` bullets.

The form round-trips: reading back the text of a document gives the same document, except
that what a line cites (``Cited.facts``) is not part of the text: every line reads back
citing nothing, and the truth check's citing (``domain.truth.citing``) gives each line
the facts it rests on again. A text that cannot be read is ``INVALID_INPUT`` naming the
line.
"""

from __future__ import annotations

from collections.abc import Callable

from jobctrl.domain.errors import INVALID_INPUT, JobctrlError
from jobctrl.domain.materials import (
    Cited,
    CoverLetter,
    Paragraph,
    TailoredEducation,
    TailoredExperience,
    TailoredResume,
)
from jobctrl.domain.profile import Contact

__all__ = [
    "MAX_TEXT",
    "SECTIONS",
    "letter_from_text",
    "letter_text",
    "resume_from_text",
    "resume_text",
]

MAX_TEXT = 100_000  # characters of an edited document
SECTIONS = ("headline", "summary", "skills", "experience", "education", "extras")
_CONTACT = {"email": "email", "phone": "phone", "location": "location", "link": "links"}


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _refuse(message: str) -> JobctrlError:
    return JobctrlError(message, code=INVALID_INPUT)


def _lines_of(text: str) -> list[str]:
    if len(text) > MAX_TEXT:
        raise _refuse(f"the text is too long ({len(text)} characters; at most {MAX_TEXT})")
    return [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]


def _sentences(line: str) -> list[Cited]:
    """One edited line, kept whole (the citing splits a new line into its sentences)."""
    return [Cited(text=_one_line(line), facts=[])]


# -- the letter ----------------------------------------------------------------------------


def letter_text(letter: CoverLetter) -> str:
    """The letter as a person edits it."""
    blocks = [_one_line(letter.greeting)]
    for paragraph in letter.paragraphs:
        lines = [_one_line(s.text) for s in paragraph.sentences if s.text.strip()]
        if lines:
            blocks.append("\n".join(lines))
    blocks.append(f"{_one_line(letter.closing)}\n{_one_line(letter.signature)}")
    return "\n\n".join(blocks) + "\n"


def letter_from_text(text: str, *, company: str, role: str) -> CoverLetter:
    """The letter a person's text says (each line citing nothing yet), written to
    ``company`` for ``role`` (the job's: not part of the text)."""
    lines = _lines_of(text)
    filled = [i for i, line in enumerate(lines) if line.strip()]
    if len(filled) < 4:
        raise _refuse(
            "a letter is a greeting, at least one paragraph, then the closing and your name "
            "on the last two lines"
        )
    greeting, closing, signature = (lines[filled[i]] for i in (0, -2, -1))
    paragraphs: list[Paragraph] = []
    current: list[Cited] = []
    for line in lines[filled[0] + 1 : filled[-2]]:
        if not line.strip():
            if current:
                paragraphs.append(Paragraph(sentences=current))
            current = []
            continue
        current.extend(_sentences(line))
    if current:
        paragraphs.append(Paragraph(sentences=current))
    return CoverLetter(
        company=company,
        role=role,
        greeting=_one_line(greeting),
        paragraphs=paragraphs,
        closing=_one_line(closing),
        signature=_one_line(signature),
    )


# -- the resume ----------------------------------------------------------------------------


def _fields(*values: str) -> str:
    return " | ".join(_one_line(v) for v in values).rstrip(" |")


def resume_text(resume: TailoredResume) -> str:
    """The resume as a person edits it."""
    out = [f"# {_one_line(resume.name)}"]
    contact = resume.contact
    for label, value in (("Email", contact.email), ("Phone", contact.phone)):
        if value.strip():
            out.append(f"{label}: {_one_line(value)}")
    if contact.location.strip():
        out.append(f"Location: {_one_line(contact.location)}")
    out.extend(f"Link: {_one_line(link)}" for link in contact.links if link.strip())
    out += ["", "## Headline", _one_line(resume.headline.text), "", "## Summary"]
    out += [_one_line(s.text) for s in resume.summary]
    out += ["", "## Skills", *(f"- {_one_line(s)}" for s in resume.skills), "", "## Experience"]
    for exp in resume.experience:
        out += ["", f"### {_fields(exp.title, exp.company, exp.start, exp.end, exp.location)}"]
        out += [f"- {_one_line(b.text)}" for b in exp.bullets]
    out += ["", "## Education"]
    for edu in resume.education:
        out.append(f"### {_fields(edu.institution, edu.degree, edu.field, edu.start, edu.end)}")
    out += ["", "## Extras", *(f"- {_one_line(e.text)}" for e in resume.extras)]
    return "\n".join(out) + "\n"


def _split_fields(line: str, count: int, number: int, what: str) -> list[str]:
    parts = [p.strip() for p in line.split("|")]
    if len(parts) > count or not parts[0]:
        raise _refuse(f"line {number}: {what}")
    return parts + [""] * (count - len(parts))


class _ResumeReader:
    """One pass over a resume's text, section by section."""

    def __init__(self) -> None:
        self.name = ""
        self.contact = Contact()
        self.section = ""
        self.headline: list[str] = []
        self.summary: list[Cited] = []
        self.skills: list[str] = []
        self.experience: list[TailoredExperience] = []
        self.education: list[TailoredEducation] = []
        self.extras: list[Cited] = []

    def read(self, number: int, line: str) -> None:
        stripped = line.strip()
        if not stripped:
            return
        if stripped.startswith("### "):
            self.entry(number, stripped[4:])
        elif stripped.startswith("## "):
            title = stripped[3:].strip().casefold()
            if title not in SECTIONS:
                raise _refuse(
                    f"line {number}: unknown section {stripped[3:].strip()!r} "
                    f"(the sections are {', '.join(s.title() for s in SECTIONS)})"
                )
            self.section = title
        elif stripped.startswith("# ") and not self.section:
            self.name = _one_line(stripped[2:])
        elif not self.section:
            self.contact_line(number, stripped)
        else:
            self.section_line(number, stripped.removeprefix("- ").removeprefix("* ").strip())

    def contact_line(self, number: int, line: str) -> None:
        label, _, value = line.partition(":")
        field = _CONTACT.get(label.strip().casefold())
        if field is None or not value.strip():
            raise _refuse(
                f"line {number}: before the first section, write Email:, Phone:, Location: "
                "or Link: lines"
            )
        if field == "links":
            self.contact.links.append(value.strip())
        else:
            setattr(self.contact, field, _one_line(value))

    def entry(self, number: int, line: str) -> None:
        if self.section == "experience":
            title, company, start, end, place = _split_fields(
                line, 5, number, "an experience entry is: ### title | company | start | end | place"
            )
            self.experience.append(
                TailoredExperience(
                    fact="", title=title, company=company, start=start, end=end, location=place
                )
            )
        elif self.section == "education":
            school, degree, field, start, end = _split_fields(
                line, 5, number, "an education entry is: ### school | degree | field | start | end"
            )
            self.education.append(
                TailoredEducation(
                    fact="", institution=school, degree=degree, field=field, start=start, end=end
                )
            )
        else:
            raise _refuse(f"line {number}: ### entries belong under Experience or Education")

    def section_line(self, number: int, text: str) -> None:
        adders: dict[str, Callable[[str], None]] = {
            "headline": self.headline.append,
            "summary": lambda t: self.summary.extend(_sentences(t)),
            "skills": lambda t: self.skills.append(_one_line(t)),
            "extras": lambda t: self.extras.append(Cited(text=_one_line(t), facts=[])),
        }
        if self.section in adders:
            adders[self.section](text)
        elif self.section == "experience" and self.experience:
            self.experience[-1].bullets.append(Cited(text=_one_line(text), facts=[]))
        else:
            raise _refuse(
                f"line {number}: under {self.section.title()}, start each entry with a ### line"
            )


def resume_from_text(text: str) -> TailoredResume:
    """The resume a person's text says (each line citing nothing yet, each entry naming
    no profile entry yet)."""
    reader = _ResumeReader()
    for number, line in enumerate(_lines_of(text), start=1):
        reader.read(number, line)
    if not reader.name:
        raise _refuse("a resume starts with your name on a line of its own: # Your Name")
    return TailoredResume(
        name=reader.name,
        contact=reader.contact,
        headline=Cited(text=" ".join(reader.headline), facts=[]),
        summary=reader.summary,
        skills=reader.skills,
        experience=reader.experience,
        education=reader.education,
        extras=reader.extras,
    )

"""The deterministic section parser: a resume document's lines → a ``Profile`` and the
text it could not place (no model, no network: the no-key default).

1. The header (the lines before the first section heading) gives the name and contact
   (``text_header``).
2. A line is a section heading when its words are a known heading in any case or
   spacing ("WORK EXPERIENCE", "E d u c a t i o n", "Skills:"; ``headings``), or when its
   type is larger than the body's (an unknown section: its lines are unplaced).
3. Within a section, a wrapped line joins the line it continues (a line indented past
   its bullet, starting in lower case, or after a hyphen at a line's end: "submis-" +
   "sions" → "submissions"); the short texts beside it (its date column) go with it.
4. Experience, volunteer, education and projects are read entry by entry: an entry's
   header is its lines before its first bullet; a new entry starts after bullets, after
   a gap, or at a second dated line (``text_entries``). Skills and languages are lists
   (split at commas, semicolons and bullets; a "Label:" before a list is a category, not
   a skill); each certification or award line gives its name, issuer and date.
5. Whatever finds no field (an unknown section, an education entry's bullets, a
   headline under the name) is returned in ``unplaced``, never dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from jobctrl.domain.profile import (
    Award,
    Certification,
    Contact,
    Education,
    Experience,
    Language,
    Profile,
    Project,
)
from jobctrl.profile_import.dates import find_range, is_duration, strip_range
from jobctrl.profile_import.headings import heading_kind
from jobctrl.profile_import.lines import Extracted, Line
from jobctrl.profile_import.links import answers_from_links
from jobctrl.profile_import.text_entries import Entry, read_education, read_project, read_role
from jobctrl.profile_import.text_header import name_line, read_header
from jobctrl.profile_import.values import unique

__all__ = ["ParsedResume", "parse_resume"]

_LABEL = re.compile(r"^([^:]{1,40}):\s+(?=\S)")
_ITEM_SPLIT = re.compile(r"\s*(?:[,;•·|]|\s{3,})\s*(?![^()]*\))")
_LANGUAGE = re.compile(r"^(?P<lang>[^\W\d][\w' -]*?)\s*(?:\((?P<p>[^)]+)\)|[:–—-]\s*(?P<d>.+))?$")
_ISSUER_SPLIT = re.compile(r",\s+|\s+[|—–]\s+|\s+-\s+|\s+(?:by|from)\s+")
_MAX_SKILL_WORDS = 6


@dataclass
class ParsedResume:
    profile: Profile
    unplaced: list[str] = field(default_factory=list)
    text: str = ""  # the document's whole text, line by line


def _joined(lines: list[Line]) -> list[Line]:
    """Wrapped lines joined to the line they continue (hyphenation undone)."""
    out: list[Line] = []
    for line in lines:
        prev = out[-1] if out else None
        if prev is not None and _continues(prev, line):
            if re.search(r"[a-zà-ÿ]-$", prev.text) and line.text[:1].islower():
                prev.text = prev.text[:-1] + line.text
            else:
                prev.text = f"{prev.text} {line.text}"
            prev.aside += line.aside
            continue
        out.append(Line(line.text, list(line.aside), line.indent, line.heading, line.bullet,
                        line.gap_before, line.size))  # fmt: skip
    return out


def _continues(prev: Line, line: Line) -> bool:
    if line.bullet or line.heading or line.gap_before or not line.text:
        return False
    if any(not is_duration(a) for a in line.aside) and not prev.bullet:
        return False
    if find_range(line.text) and not prev.bullet:
        return False
    if prev.text.endswith("-") and line.text[:1].islower():
        return True
    if prev.bullet:
        return line.indent > prev.indent + 0.5 or line.text[:1].islower()
    return False


def _items(text: str) -> list[str]:
    text = _LABEL.sub("", text)
    return [x.strip(" .") for x in _ITEM_SPLIT.split(text) if x.strip(" .")]


class _Reader:
    def __init__(self) -> None:
        self.summary: list[str] = []
        self.skills: list[str] = []
        self.languages: list[Language] = []
        self.certifications: list[Certification] = []
        self.awards: list[Award] = []
        self.experience: list[Experience] = []
        self.volunteer: list[Experience] = []
        self.education: list[Education] = []
        self.projects: list[Project] = []
        self.unplaced: list[str] = []

    def section(self, kind: str, lines: list[Line]) -> None:
        lines = _joined(lines)
        if kind == "summary":
            self.summary.append(" ".join(x.text for x in lines))
            self.unplaced += [a for x in lines for a in x.aside]
        elif kind in ("experience", "volunteer", "education", "projects"):
            for entry in _entries(lines):
                self.entry(kind, entry)
        elif kind == "skills":
            for line in lines:
                for item in _items(line.text) + line.aside:
                    if len(item.split()) <= _MAX_SKILL_WORDS:
                        self.skills.append(item)
                    else:
                        self.unplaced.append(item)
        elif kind == "languages":
            for line in lines:
                for item in _items(line.text) + line.aside:
                    self.language(item)
        elif kind in ("certifications", "awards"):
            for line in lines:
                self.dated_line(kind, " ".join([line.text, *line.aside]))
        else:
            self.unplaced += [" ".join([x.text, *x.aside]) for x in lines]

    def entry(self, kind: str, entry: Entry) -> None:
        if kind == "education":
            edu, rest = read_education(entry)
            self.education += [edu] if edu else []
        elif kind == "projects":
            project, rest = read_project(entry)
            self.projects += [project] if project else []
        else:
            role, rest = read_role(entry)
            (self.volunteer if kind == "volunteer" else self.experience).extend(
                [role] if role else []
            )
        self.unplaced += rest

    def language(self, item: str) -> None:
        match = _LANGUAGE.match(item)
        if not match or len(match["lang"].split()) > 3:
            self.unplaced.append(item)
            return
        fluency = (match["p"] or match["d"] or "").strip()
        self.languages.append(Language(language=match["lang"].strip(), fluency=fluency))

    def dated_line(self, kind: str, text: str) -> None:
        found = find_range(text)
        when = found.end or found.start if found else ""
        if found and kind == "certifications":
            when = found.start
        rest = strip_range(text, found) if found else text.strip()
        if not rest:
            self.unplaced.append(text)
            return
        name, *issuer = [p for p in _ISSUER_SPLIT.split(rest, maxsplit=1) if p.strip()]
        by = issuer[0].strip() if issuer else ""
        if kind == "certifications":
            self.certifications.append(Certification(name=name[:300], issuer=by[:300], date=when))
        else:
            self.awards.append(Award(title=rest[:300], date=when))


def _entries(lines: list[Line]) -> list[Entry]:
    entries: list[Entry] = []
    cur: Entry | None = None
    dated = False
    for line in lines:
        has_date = any(find_range(a) for a in line.aside) or bool(find_range(line.text))
        if line.bullet:
            if cur is None:
                cur = Entry()
                entries.append(cur)
            cur.bullets.append(line.text)
            cur.aside += line.aside
            continue
        if cur is None or cur.bullets or line.gap_before or (has_date and dated):
            cur = Entry()
            entries.append(cur)
            dated = False
        if cur.body or (len(cur.header) >= 2 and not has_date):
            cur.body.append(line.text)
            cur.aside += line.aside
        else:
            cur.header.append(line.text)
            cur.aside += line.aside
        dated = dated or has_date
    return entries


def parse_resume(doc: Extracted) -> ParsedResume:
    lines = [x for x in doc.lines if x.text.strip() or x.aside]
    # The whole text, and the link targets the document holds (what a model's reading is
    # checked against: a link shown as "LinkedIn" is its address).
    text = "\n".join([*(" ".join([x.text, *x.aside]) for x in lines), *doc.links])
    named = name_line(lines)
    after = -1 if named is None else named
    start = next((i for i, x in enumerate(lines) if heading_kind(x) and i > after), len(lines))
    header, name_at = read_header(lines[:start], doc.links)
    if name_at >= 0 and lines[:start] and start == len(lines):
        start = name_at + 1  # no sections at all: everything after the name is body
    reader = _Reader()
    reader.unplaced += header.unplaced
    kind, body = "other", list[Line]()
    found_section = False
    for line in lines[start:]:
        opened = heading_kind(line)
        if opened:
            if found_section or body:
                reader.section(kind, body)
            kind, body, found_section = opened, [], True
        else:
            body.append(line)
    reader.section(kind, body)
    profile = Profile(
        name=header.name[:300],
        contact=Contact(
            email=header.email, phone=header.phone, location=header.location,
            links=header.links[:20],
        ),
        summary=" ".join(s for s in reader.summary if s)[:5000],
        skills=unique(reader.skills)[:300],
        experience=reader.experience[:50],
        education=reader.education[:20],
        languages=reader.languages[:30],
        certifications=reader.certifications[:50],
        projects=reader.projects[:50],
        awards=reader.awards[:50],
        volunteer=reader.volunteer[:30],
        answers=answers_from_links(header.links),
    )  # fmt: skip
    return ParsedResume(profile, [u for u in reader.unplaced if u.strip()], text)

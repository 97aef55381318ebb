"""A model's structuring of a resume held to the resume's own text (the profile lane).

The model is asked for a ``ResumeFields`` (a profile without the saved answers) from the
document's extracted text; ``ground`` keeps each value only where the text says it, the
same truth discipline as generated materials: a value the text does not contain is
dropped and listed (``Dropped``), never silently.

What "the text says it" means, per kind of value:

- words (a name, title, employer, school, degree, place, skill, bullet, summary sentence,
  …): the value's words, in order, appear in the text — case, accents' composition,
  punctuation, bullet glyphs, line breaks and a word hyphenated across lines aside;
- a date: ``"YYYY-MM"`` when the text writes that month in any spelling ("Sept 2018",
  "09/2018", …), ``"YYYY"`` when it writes that year, ``"present"`` when a range ends in
  "present" (or "since …"); a date the model wrote in another spelling is normalised first;
- an email address as written; a phone number by its digits; a link by its address
  without scheme, ``www.`` or trailing slash (the text includes the document's link
  targets).

An entry whose name is not in the text (a role's employer, a school, a project's,
certification's, award's or language's name) is dropped whole, listed once; a kept
entry's other values are checked one by one. ``unplaced_lines`` lists the text's lines
that no kept value accounts for, as the section parser lists what it could not place.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from jobctrl.domain.profile import (
    MAX_SUMMARY,
    Award,
    Certification,
    Contact,
    Education,
    Experience,
    Language,
    Line,
    Profile,
    Project,
)
from jobctrl.profile_import.dates import find_range, is_duration
from jobctrl.profile_import.headings import heading_kind
from jobctrl.profile_import.lines import Line as TextLine
from jobctrl.profile_import.links import answers_from_links

__all__ = ["Dropped", "Grounded", "ResumeFields", "ground", "unplaced_lines"]


class ResumeFields(BaseModel):
    """What the profile lane's model returns: every part of a profile a resume states
    (the saved application answers are the person's, not the resume's)."""

    model_config = ConfigDict(extra="forbid")

    name: Line = ""
    contact: Contact = Field(default_factory=Contact)
    summary: Annotated[str, StringConstraints(max_length=MAX_SUMMARY)] = ""
    skills: list[Line] = Field(default_factory=list)
    experience: list[Experience] = Field(default_factory=list)
    education: list[Education] = Field(default_factory=list)
    languages: list[Language] = Field(default_factory=list)
    certifications: list[Certification] = Field(default_factory=list)
    projects: list[Project] = Field(default_factory=list)
    awards: list[Award] = Field(default_factory=list)
    volunteer: list[Experience] = Field(default_factory=list)


@dataclass(frozen=True)
class Dropped:
    """A value the model returned that the resume's text does not contain: where it was
    (``experience[1].company``; a whole entry: ``experience[1]``) and what it said."""

    field: str
    value: str


@dataclass
class Grounded:
    """The kept profile (its saved answers: the LinkedIn and GitHub links it names) and
    every value dropped."""

    profile: Profile
    dropped: list[Dropped] = field(default_factory=list)


_MONTH_WORDS = re.compile(
    r"^(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|"
    r"april|june|july|august|september|october|november|december|present|current|now|"
    r"today|to|until|since|heute|bis|seit)$"
)


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).replace("\u00ad", "")
    return text.casefold()


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", _fold(text))


def _link(url: str) -> str:
    url = _fold(url).strip()
    url = re.sub(r"^(?:mailto:|https?://)?(?:www\.)?", "", url)
    return url.rstrip("/")


_TRAILING_DURATION = re.compile(
    r"\s*\(?\d+\s*(?:years?|yrs?|months?|mos?)\b(?:,?\s*\d+\s*(?:months?|mos?)\b)?\)?\s*$",
    re.IGNORECASE,
)


def _joined(text: str) -> str:
    """A word hyphenated across lines made whole ("develop-" + "ment")."""
    return re.sub(r"(\w)[-‐]\s*\n\s*(\w)", r"\1\2", text)


def _without_dates(line: str) -> str:
    """``line`` without its date ranges, and without a date or a duration at its end (what
    a date column adds to a line)."""
    line = _TRAILING_DURATION.sub("", line)
    out = ""
    rest = line
    while (found := find_range(rest)) is not None and found.span[1] > 0:
        a, b = found.span
        tail = rest[b:]
        if found.end or not tail.strip():
            out += rest[:a] + " "
        else:
            out += rest[:b]
        rest = tail
    return _TRAILING_DURATION.sub("", (out + rest).rstrip())


class _Source:
    """The resume's text, read once for every check."""

    def __init__(self, text: str) -> None:
        # A layout's date column reads into the line beside it, maybe mid-bullet ("… with
        # 99.97% June 2023 – present" / "uptime 2 years 10 months"): also read without it.
        bare = "\n".join(_without_dates(line) for line in text.splitlines())
        self.variants = [
            f" {' '.join(_words(t))} " for t in (text, _joined(text), bare, _joined(bare))
        ]
        self.folded = _fold(text)
        self.bare = re.sub(r"(?:https?://)?(?:www\.)?", "", self.folded)
        self.numbers = [
            re.sub(r"\D", "", run) for run in re.findall(r"\+?\d[\d\s().\-/]{4,}\d", text)
        ]
        self.points: set[str] = set()
        for line in text.splitlines():
            rest = line
            while (found := find_range(rest)) is not None and found.span[1] > 0:
                for point in (found.start, found.end):
                    if point:  # "2018-09" states 2018 too
                        self.points |= {point, point[:4]} if point[0].isdigit() else {point}
                rest = rest[found.span[1] :]

    def says(self, value: str) -> bool:
        words = _words(value)
        if not words:
            return True  # nothing claimed
        needle = f" {' '.join(words)} "
        return any(needle in v for v in self.variants)

    def dated(self, value: str) -> str | None:
        """``value`` normalised (``"YYYY-MM"``, ``"YYYY"``, ``"present"``) when the text
        states it, else None."""
        text = value.strip().lower()
        if text in {"present", "current", "now"}:
            return "present" if "present" in self.points else None
        if not re.fullmatch(r"\d{4}(?:-\d{2})?", text):
            found = find_range(value)
            if found is None or found.end:
                return None
            text = found.start
        return text if text in self.points else None

    def has_email(self, value: str) -> bool:
        return _fold(value).strip() in self.folded

    def has_phone(self, value: str) -> bool:
        digits = re.sub(r"\D", "", value)
        return len(digits) >= 5 and any(digits in run for run in self.numbers)

    def has_link(self, value: str) -> bool:
        bare = _link(value)
        return bool(bare) and bare in self.bare


class _Grounding:
    def __init__(self, source: _Source) -> None:
        self.source = source
        self.dropped: list[Dropped] = []

    def words(self, where: str, value: str) -> str:
        if not value or self.source.says(value):
            return value
        self.dropped.append(Dropped(where, value))
        return ""

    def date(self, where: str, value: str) -> str:
        if not value:
            return value
        kept = self.source.dated(value)
        if kept is None:
            self.dropped.append(Dropped(where, value))
            return ""
        return kept

    def checked(self, where: str, value: str, check: Callable[[str], bool]) -> str:
        if not value or check(value):
            return value
        self.dropped.append(Dropped(where, value))
        return ""

    def each(self, where: str, values: list[str], check: Callable[[str, str], str]) -> list[str]:
        kept = [check(f"{where}[{i}]", v) for i, v in enumerate(values)]
        return [v for v in kept if v]

    def entry(self, where: str, name: str, summary: str) -> bool:
        """Whether an entry named ``name`` is kept; else it is listed once, whole."""
        if name and self.source.says(name):
            return True
        self.dropped.append(Dropped(where, summary))
        return False

    def role(self, where: str, e: Experience) -> Experience | None:
        if not self.entry(where, e.company, _role_text(e)):
            return None
        return Experience(
            title=self.words(f"{where}.title", e.title),
            company=e.company,
            start=self.date(f"{where}.start", e.start),
            end=self.date(f"{where}.end", e.end),
            location=self.words(f"{where}.location", e.location),
            bullets=self.each(f"{where}.bullets", e.bullets, self.words),
        )


def _role_text(e: Experience) -> str:
    when = " – ".join(x for x in (e.start, e.end) if x)
    return f"{e.title} at {e.company}" + (f" ({when})" if when else "")


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]


def ground(fields: ResumeFields, text: str) -> Grounded:
    """``fields`` with only what ``text`` states; every value dropped is listed."""
    g = _Grounding(_Source(text))
    s = g.source
    c = fields.contact
    contact = Contact(
        email=g.checked("contact.email", c.email, s.has_email),
        phone=g.checked("contact.phone", c.phone, s.has_phone),
        location=g.words("contact.location", c.location),
        links=g.each("contact.links", c.links, lambda w, v: g.checked(w, v, s.has_link)),
    )
    summary = " ".join(g.each("summary", _sentences(fields.summary), g.words))
    roles = [g.role(f"experience[{i}]", e) for i, e in enumerate(fields.experience)]
    volunteer = [g.role(f"volunteer[{i}]", e) for i, e in enumerate(fields.volunteer)]
    education = []
    for i, d in enumerate(fields.education):
        w = f"education[{i}]"
        if g.entry(w, d.institution, ", ".join(x for x in (d.degree, d.institution) if x)):
            education.append(
                Education(
                    institution=d.institution,
                    degree=g.words(f"{w}.degree", d.degree),
                    field=g.words(f"{w}.field", d.field),
                    start=g.date(f"{w}.start", d.start),
                    end=g.date(f"{w}.end", d.end),
                )
            )
    languages = [
        Language(language=x.language, fluency=g.words(f"languages[{i}].fluency", x.fluency))
        for i, x in enumerate(fields.languages)
        if g.entry(f"languages[{i}]", x.language, x.language)
    ]
    certifications = [
        Certification(
            name=x.name,
            issuer=g.words(f"certifications[{i}].issuer", x.issuer),
            date=g.date(f"certifications[{i}].date", x.date),
            url=g.checked(f"certifications[{i}].url", x.url, s.has_link),
        )
        for i, x in enumerate(fields.certifications)
        if g.entry(f"certifications[{i}]", x.name, x.name)
    ]
    projects = []
    for i, p in enumerate(fields.projects):
        w = f"projects[{i}]"
        if g.entry(w, p.name, p.name):
            projects.append(
                Project(
                    name=p.name,
                    description=" ".join(
                        g.each(f"{w}.description", _sentences(p.description), g.words)
                    ),
                    url=g.checked(f"{w}.url", p.url, s.has_link),
                    bullets=g.each(f"{w}.bullets", p.bullets, g.words),
                    start=g.date(f"{w}.start", p.start),
                    end=g.date(f"{w}.end", p.end),
                )
            )
    awards = [
        Award(
            title=a.title,
            awarder=g.words(f"awards[{i}].awarder", a.awarder),
            date=g.date(f"awards[{i}].date", a.date),
            summary=g.words(f"awards[{i}].summary", a.summary),
        )
        for i, a in enumerate(fields.awards)
        if g.entry(f"awards[{i}]", a.title, a.title)
    ]
    profile = Profile(
        name=g.words("name", fields.name),
        contact=contact,
        summary=summary,
        skills=list(dict.fromkeys(g.each("skills", fields.skills, g.words))),
        experience=[r for r in roles if r is not None],
        education=education,
        languages=languages,
        certifications=certifications,
        projects=projects,
        awards=awards,
        volunteer=[r for r in volunteer if r is not None],
        answers=answers_from_links(contact.links),
    )
    return Grounded(profile, g.dropped)


def _values(profile: Profile) -> list[list[str]]:
    """Every kept value's words (dates aside: a date's words are accounted for by shape)."""
    c = profile.contact
    texts = [profile.name, c.email, c.phone, c.location, *profile.skills]
    texts += [_link(u) for u in (*c.links, *(x.url for x in profile.certifications))]
    texts += [_link(p.url) for p in profile.projects]
    texts += _sentences(profile.summary)
    for e in (*profile.experience, *profile.volunteer):
        texts += [e.title, e.company, e.location, *e.bullets]
    for d in profile.education:
        texts += [d.institution, d.degree, d.field]
    for x in profile.languages:
        texts += [x.language, x.fluency]
    for cert in profile.certifications:
        texts += [cert.name, cert.issuer]
    for p in profile.projects:
        texts += [p.name, *_sentences(p.description), *p.bullets]
    for a in profile.awards:
        texts += [a.title, a.awarder, a.summary]
    return [w for w in (_words(t) for t in texts if t) if w]


def unplaced_lines(profile: Profile, text: str) -> list[str]:
    """The lines of ``text`` the profile accounts for less than half of (headings, dates
    and durations aside): what the model left out, for the person to check."""
    values = _values(profile)
    joined = [f" {' '.join(v)} " for v in values]
    out = []
    broken = False  # the line before ended in a hyphen: this one starts with a word's end
    for line in text.splitlines():
        bare = _without_dates(line).rstrip()
        words = _words(bare)[1 if broken else 0 :]
        broken = bare.endswith(("-", "‐"))
        if broken:
            words = words[:-1]  # a word's beginning
        if not words or heading_kind(TextLine(line.strip())) or is_duration(line):
            continue
        if any(f" {' '.join(words)} " in v for v in joined):
            continue  # a part of a longer value (a bullet wrapped over lines)
        covered = [bool(_MONTH_WORDS.match(w) or w.isdigit()) for w in words]
        for value in values:
            n = len(value)
            for i in range(len(words) - n + 1):
                if words[i : i + n] == value:
                    covered[i : i + n] = [True] * n
        if sum(covered) * 2 < len(words):
            out.append(line.strip())
    return out

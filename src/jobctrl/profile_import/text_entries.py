"""One entry of a resume's experience, education or projects section — its header lines,
the short texts set apart beside them, its bullets — read into the profile's fields.

The dates are the first range found beside the entry (a date column) or in its header;
a duration ("2 years 10 months") is dropped (it states nothing new). The header is split
at strong separators (" – ", " | ", " at ", " @ ", a new line), then at commas when one
part is all there is: the part with words of a job title is the title, the next the
employer; a part shaped like a place ("Berlin, DE", "Remote") is the location. For
education: the part naming a school (University, College, Institute, …) is the
institution, a degree ("PhD in Computer Science", "BSc", "Master of Science") gives
degree and field. What finds no field is returned as unplaced.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from jobctrl.domain.profile import Education, Experience, Project
from jobctrl.profile_import.dates import find_range, is_duration, strip_range
from jobctrl.profile_import.text_header import is_place

__all__ = ["Entry", "read_education", "read_project", "read_role"]

_STRONG = re.compile(r"\s+(?:[–—|@]|-{1,2}|at|bei)\s+|\s*\|\s*")
_TITLE_WORDS = frozenset(
    """engineer developer manager intern internship director cto ceo cfo coo cio cpo vp
    founder co-founder cofounder lead head scientist analyst designer consultant architect
    officer associate researcher specialist administrator assistant coordinator president
    programmer technician teacher professor lecturer fellow student owner partner principal
    staff senior junior sr jr editor writer mentor volunteer tutor nurse accountant
    representative executive sre devops trainee apprentice werkstudent entwickler ingenieur
    leiter berater product chief postdoc postdoctoral tester strategist marketer recruiter
    instructor advisor counsel attorney clerk supervisor operator""".split()  # noqa: SIM905
)
_COMPANY_WORDS = frozenset(
    """inc inc. gmbh ltd ltd. llc ag corp corp. corporation company co. research labs lab
    university bank group technologies technology systems solutions ai se plc s.a. sa
    foundation institute studio studios agency""".split()  # noqa: SIM905
)
_SCHOOL = re.compile(
    r"universit|college|institut|school|academy|akademie|hochschule|polytechn|bootcamp|"
    r"conservato|\bTU\b|\bETH\b|\bMIT\b|\bEPFL\b|\bUCL\b|école|escuela|universidad",
    re.IGNORECASE,
)
_DEGREE = re.compile(
    r"^(?:ph\.?\s?d\.?|d\.?phil|doctor(?:ate)?(?: of [\w ]+?)?|m\.?\s?sc?\.?|m\.?\s?a\.?|mba|"
    r"m\.?\s?eng\.?|m\.?\s?phil\.?|b\.?\s?sc?\.?|b\.?\s?a\.?|b\.?\s?eng\.?|b\.?\s?tech\.?|"
    r"m\.?\s?tech\.?|basc|masc|bba|llb|llm|jd|md|a\.?\s?a\.?|a\.?\s?s\.?|"
    r"bachelor(?:'s)?(?: of [\w ]+?)?|master(?:'s)?(?: of [\w ]+?)?|diplom[a]?|"
    r"associate(?:'s)?(?: of [\w ]+?)?|high school diploma|abitur|certificate)"
    r"(?=$|\s|,|\.|\))",
    re.IGNORECASE,
)


@dataclass
class Entry:
    header: list[str] = field(default_factory=list)
    aside: list[str] = field(default_factory=list)
    bullets: list[str] = field(default_factory=list)
    body: list[str] = field(default_factory=list)  # plain lines after the header


@dataclass
class _Parts:
    start: str = ""
    end: str = ""
    parts: list[str] = field(default_factory=list)
    places: list[str] = field(default_factory=list)
    unplaced: list[str] = field(default_factory=list)


def _split(entry: Entry) -> _Parts:
    out = _Parts()
    texts = list(entry.header)
    for side in entry.aside:
        if is_duration(side):
            continue
        found = find_range(side)
        if found and not out.start and not strip_range(side, found):
            out.start, out.end = found.start, found.end
        elif is_place(side):
            out.places.append(side)
        else:
            texts.append(side)
    for text in texts:
        if not out.start and (found := find_range(text)):
            out.start, out.end = found.start, found.end
            text = strip_range(text, found)
        for part in _STRONG.split(text):
            part = part.strip(" ,;:")
            if not part:
                continue
            (
                out.places if is_place(part) and len(texts) + len(out.parts) > 1 else out.parts
            ).append(part)
    return out


def _words(text: str) -> set[str]:
    return set(re.findall(r"[\w.&'-]+", text.lower()))


def _title_score(text: str) -> int:
    words = _words(text)
    return 2 * len(words & _TITLE_WORDS) - len(words & _COMPANY_WORDS)


def _commas(parts: list[str], want: int) -> list[str]:
    """Split parts at commas until there are ``want`` (a place keeps its comma)."""
    if len(parts) >= want:
        return parts
    out: list[str] = []
    for part in parts:
        out += [p.strip() for p in part.split(",") if p.strip()] if not is_place(part) else [part]
    return out


def read_role(entry: Entry) -> tuple[Experience | None, list[str]]:
    """A role (or volunteer role) and what of it found no field."""
    p = _split(entry)
    parts = _commas(p.parts, 2)
    if not parts:
        return None, [*p.places, *entry.bullets, *entry.body]
    ranked = sorted(range(len(parts)), key=lambda i: (-_title_score(parts[i]), i))
    title_at = ranked[0] if len(parts) > 1 or _title_score(parts[0]) > 0 else None
    title = parts[title_at] if title_at is not None else ""
    rest = [x for i, x in enumerate(parts) if i != title_at]
    company = rest.pop(0) if rest else ""
    places = p.places
    if rest and not places:
        places = [rest.pop()]
    unplaced = rest + places[1:]
    return (
        Experience(
            title=title[:300],
            company=company[:300],
            start=p.start,
            end=p.end or p.start,  # a single date: a role begun and ended then
            location=places[0] if places else "",
            bullets=[*entry.body, *entry.bullets][:30],
        ),
        unplaced,
    )


def read_education(entry: Entry) -> tuple[Education | None, list[str]]:
    p = _split(entry)
    parts = _commas(p.parts, 3)
    institution = next((x for x in parts if _SCHOOL.search(x)), "")
    degree = field_ = ""
    for x in parts:
        if x == institution or degree:
            continue
        match = _DEGREE.match(x)
        if match:
            degree = match[0].strip()
            rest = x[match.end() :].strip(" ,.")
            rest = re.sub(r"^(?:in|of)\s+", "", rest, flags=re.IGNORECASE)
            field_ = rest
    others = [
        x for x in parts if x != institution and not (_DEGREE.match(x) and x.startswith(degree))
    ]
    if not institution and others:
        institution = others.pop(0)
    if not field_ and others:
        field_ = others.pop(0)
    if not institution:
        return None, [*parts, *p.places, *entry.bullets, *entry.body]
    # A single date on a degree is when it was awarded.
    start, end = (p.start, p.end) if p.end else ("", p.start)
    return Education(
        institution=institution[:300], degree=degree[:300], field=field_[:300],
        start=start, end=end,
    ), [*others, *p.places, *entry.body, *entry.bullets]  # fmt: skip


def read_project(entry: Entry) -> tuple[Project | None, list[str]]:
    p = _split(entry)
    if not p.parts:
        return None, [*p.places, *entry.bullets, *entry.body]
    name, *more = p.parts
    if ":" in name and not more:
        name, _, rest = name.partition(":")
        more = [rest.strip()]
    description = " ".join([*more, *entry.body]).strip()
    return Project(
        name=name.strip()[:300], description=description[:1000], start=p.start, end=p.end,
        bullets=entry.bullets[:30],
    ), p.places  # fmt: skip

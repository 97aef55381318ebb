"""Reading a posting's requirements out of its plain-text description: the sections its
headings name (requirements, nice-to-haves, duties, benefits), their list items (a nested
list joined to its parent as alternatives), and, without headings or lists, the sentences
that read like requirements. The offline scorer (``llm.offline``) checks what it returns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["MAX_REQUIREMENTS", "SENTENCE_SPLIT", "extract_requirements", "trim_boilerplate"]

MAX_REQUIREMENTS = 25

_NICE_HEADING = re.compile(
    r"nice[\s-]to[\s-]have|^bonus|bonus (?:points|skills|if)|preferred|pluses|\ba plus\b|"
    r"\bbig plus\b|good to have|desirable|extra credit|even better|ideally|not required|"
    r"would be (?:great|nice)|what sets you apart|stand out",
    re.IGNORECASE,
)
_MUST_HEADING = re.compile(
    r"requirement|qualifications?|what you(?:'|’)?ll bring|what you bring|must[\s-]haves?|"
    r"you have|you bring|about you|skills|who you are|looking for|you should have|"
    r"you(?:'|’)?ll need|you will need|what you need|your profile|your background|"
    r"your experience|^experience|competenc|what we expect|essential|expertise|"
    r"look(?:ing)? for|ideal candidate|we(?:'|’)?re seeking|you might be|you(?:'|’)?re a fit|"
    r"what it takes|to succeed|to thrive",
    re.IGNORECASE,
)
# What the person will do: signals of level and family, never requirements.
_DUTY_HEADING = re.compile(
    r"responsibilit|what you(?:'|’)?ll do|what you will do|you will|you(?:'|’)?ll\b|"
    r"day[\s-]to[\s-]day|duties|tasks|impact|your role|the role|in this role|what you do|"
    r"first (?:year|90 days|months?)",
    re.IGNORECASE,
)
_OTHER_HEADING = re.compile(
    r"responsibilit|what you(?:'|’)?ll do|what you will do|you will|day[\s-]to[\s-]day|about|"
    r"the role|your role|the team|mission|benefits|perks|we offer|offer|compensation|salary|"
    r"why |how to apply|process|who we are|culture|values|location|equal opportunit|duties|"
    r"tasks|impact|the job|overview|description",
    re.IGNORECASE,
)
_BENEFIT_HEADING = re.compile(
    r"benefit|perk|offer|compensation|salary|why |about us|about the company|who we are|"
    r"how to apply|process|equal opportunit|culture|values|what we value|our values",
    re.IGNORECASE,
)
_NICE_CUE = re.compile(
    r"nice[\s-]to[\s-]have|\bbonus\b|\bpreferred\b|\ba plus\b|\bis a plus\b|\bideally\b|"
    r"\bdesirable\b|not required|good to have|\bplus if\b",
    re.IGNORECASE,
)
_REQUIREMENT_CUE = re.compile(
    r"experience (?:with|in|of|building|running)|proficien|\byears?\b|knowledge of|\bdegree\b|"
    r"familiar(?:ity)? with|expertise in|skilled in|understanding of|background in|"
    r"must have|required|\bfluent\b",
    re.IGNORECASE,
)
_BULLET = re.compile(r"^\s*(?:[-*+•·▪‣◦–—]|\d{1,2}[.)])\s+")
SENTENCE_SPLIT = re.compile(r"(?<=[.!?;])\s+(?=[A-Z0-9])")


@dataclass
class _Section:
    kind: str  # "must" | "nice" | "duty" | "other" | "benefit" | "none"
    bullets: list[str] = field(default_factory=list)
    paragraphs: list[str] = field(default_factory=list)


# Markdown marks and a parenthesised aside are not part of a heading's words:
# "### **Our Benefits (there are more but here are some highlights):**" is "Our Benefits".
_HEADING_MARKS = re.compile(r"^[#>\s]+|[*_]{1,3}|\([^)]*\)")


def _heading_text(line: str) -> str:
    return " ".join(_HEADING_MARKS.sub(" ", line).split()).rstrip(":").strip()


def _heading_kind(line: str) -> str | None:
    text = _heading_text(line)
    if _NICE_HEADING.search(text):
        return "nice"
    if _MUST_HEADING.search(text):
        return "must"
    if _BENEFIT_HEADING.search(text):
        return "benefit"
    if _DUTY_HEADING.search(text):
        return "duty"
    if _OTHER_HEADING.search(text):
        return "other"
    return None


def _looks_like_heading(lines: list[str], i: int) -> str | None:
    """Return the section kind if ``lines[i]`` is a heading, else None."""
    line = lines[i].strip()
    words = _heading_text(line).split()
    if not words or _BULLET.match(line) or len(words) > 9 or len(" ".join(words)) > 80:
        return None
    if line.rstrip("*_ ").endswith((".", ",", ";")):
        return None
    kind = _heading_kind(line)
    if kind is not None:
        return kind
    # An unknown short line is a heading only if it stands alone (blank line or list
    # after it) or ends with a colon, so plain "Python" lines in a list are not headings.
    before_blank = i == 0 or not lines[i - 1].strip()
    after = lines[i + 1].strip() if i + 1 < len(lines) else ""
    if line.endswith(":") or (before_blank and (not after or _BULLET.match(after))):
        return "other"
    return None


def _sections(description: str) -> list[_Section]:
    lines = description.splitlines()
    sections = [_Section("none")]
    indent = -1  # the indentation of the section's last top-level bullet
    for i, raw in enumerate(lines):
        line = raw.strip()
        if not line:
            continue
        kind = _looks_like_heading(lines, i)
        if kind is not None:
            sections.append(_Section(kind))
            indent = -1
        elif _BULLET.match(line):
            item = _BULLET.sub("", line, count=1).strip()
            depth = len(raw) - len(raw.lstrip())
            bullets = sections[-1].bullets
            if bullets and 0 <= indent < depth:
                # A nested list belongs to its parent item ("one cloud provider, e.g.:"
                # then AWS, GCP, Azure): one requirement with its alternatives.
                joiner = " " if bullets[-1].endswith((":", "e.g.", "such as")) else ", "
                bullets[-1] = bullets[-1].rstrip(":") + joiner + item
                continue
            bullets.append(item)
            indent = depth
        else:
            sections[-1].paragraphs.append(line)
    return sections


def _sentences(paragraphs: list[str]) -> list[str]:
    out: list[str] = []
    for paragraph in paragraphs:
        out.extend(s.strip() for s in SENTENCE_SPLIT.split(paragraph) if len(s.split()) >= 3)
    return out


def extract_requirements(description: str) -> list[tuple[str, str]]:
    """(requirement text, "must" | "nice") pairs, in page order, deduped, at most 25."""
    sections = _sections(description)
    found: list[tuple[str, str]] = []
    for section in sections:
        if section.kind in ("must", "nice"):
            # Without bullets, short lines are items (plain-text lists); long ones are prose.
            items = section.bullets or [
                item
                for line in section.paragraphs
                for item in ([line] if len(line.split()) <= 15 else _sentences([line]))
            ]
            found.extend((item, section.kind) for item in items)
    if not found:  # no requirement headings: any list outside benefits and duties
        for section in sections:
            if section.kind not in ("benefit", "duty"):
                found.extend((item, "must") for item in section.bullets)
    if not found:  # no lists at all: any sentence that reads like a requirement
        paragraphs = [p for s in sections for p in s.paragraphs]
        found = [(s, "must") for s in _sentences(paragraphs) if _REQUIREMENT_CUE.search(s)]
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for text, kind in found:
        key = " ".join(re.findall(r"\w+", text.lower()))
        if not key or key in seen:
            continue
        seen.add(key)
        out.append((text, "nice" if kind == "nice" or _NICE_CUE.search(text) else "must"))
        if len(out) >= MAX_REQUIREMENTS:
            break
    return out


# Boilerplate a model need not read: equal-opportunity statements, cookie and privacy
# notices (paragraphs of their own, under any heading).
_BOILERPLATE = re.compile(
    r"equal (?:employment )?opportunit|regardless of (?:race|age|gender|sex)|"
    r"reasonable accommodation|protected (?:veteran|characteristic|status)|"
    r"\bcookies?\b.*\b(?:accept|consent|policy|settings)\b|privacy (?:policy|notice)|"
    r"e-?verify|affirmative action",
    re.IGNORECASE,
)


def trim_boilerplate(description: str) -> str:
    """The description without what no requirement lives in: the sections its headings
    name as benefits, the company's story or the application process, and
    equal-opportunity, cookie and privacy paragraphs outside the requirement sections.
    Requirements, duties and everything unrecognised are kept word for word; should the
    requirements read from the trimmed text differ in any way (an HR posting asking for
    "EEO-1 reports"), the description is kept whole."""
    lines = description.splitlines()
    kept: list[str] = []
    section = "none"
    for i, raw in enumerate(lines):
        line = raw.strip()
        kind = _looks_like_heading(lines, i) if line else None
        if kind is not None:
            section = kind
        if section == "benefit":
            continue
        prose = line and kind is None and not _BULLET.match(line)
        if prose and section not in ("must", "nice") and _BOILERPLATE.search(line):
            continue
        kept.append(raw)
    trimmed = re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()
    if extract_requirements(trimmed) != extract_requirements(description):
        return description  # never at the cost of a requirement
    return trimmed

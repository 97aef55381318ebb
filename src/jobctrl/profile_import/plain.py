"""Plain-text and Markdown resumes → lines.

Plain text: a blank line is a gap; leading spaces are the indent; a run of three or more
spaces or a tab sets the rest of a line apart (a right-hand date column typed with
spaces); a line of ``===``/``---`` under a line makes it a heading.

Markdown: ``#`` lines are headings; ``- ``/``* ``/``1. `` items are bullets; emphasis
marks are dropped; ``[text](url)`` reads as its text and its URL is a link target.
"""

from __future__ import annotations

import re

from jobctrl.profile_import.headings import heading_kind
from jobctrl.profile_import.lines import Extracted, Line, split_bullet

__all__ = ["extract_markdown", "extract_text"]

_APART = re.compile(r"\t+|\s{3,}")
_RULE = re.compile(r"^\s*(?:={3,}|-{3,}|_{3,}|\*{3,})\s*$")
_MD_LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+)\)")
_MD_AUTOLINK = re.compile(r"<(https?://[^>\s]+)>")
_EMPHASIS = re.compile(r"(\*\*|__|\*|_|`)(?=\S)(.+?)(?<=\S)\1")


def _line(raw: str, gap: bool, heading: bool = False) -> Line:
    indent = len(raw) - len(raw.lstrip(" ")) + 4 * (len(raw) - len(raw.lstrip("\t")))
    parts = [p.strip() for p in _APART.split(raw.strip()) if p.strip()]
    if not parts:
        return Line("", gap_before=gap)
    bullet, first = split_bullet(parts[0])
    return Line(first, parts[1:], float(indent), heading, bullet, gap)


def extract_text(text: str) -> Extracted:
    lines: list[Line] = []
    gap = False
    for raw in text.splitlines():
        if _RULE.match(raw):
            if lines and not lines[-1].bullet:
                lines[-1].heading = True
            gap = True
            continue
        if not raw.strip():
            gap = True
            continue
        lines.append(_line(raw.replace("\f", ""), gap))
        gap = False
    return Extracted(lines=lines)


def extract_markdown(text: str) -> Extracted:
    links: list[str] = []
    lines: list[Line] = []
    gap = False
    for raw in text.splitlines():
        if _RULE.match(raw):
            gap = True
            continue
        if not raw.strip():
            gap = True
            continue
        links += [m[2] for m in _MD_LINK.finditer(raw)] + _MD_AUTOLINK.findall(raw)
        plain = _MD_AUTOLINK.sub(r"\1", _MD_LINK.sub(r"\1", raw))
        plain = _EMPHASIS.sub(r"\2", _EMPHASIS.sub(r"\2", plain)).replace("\\", "")
        heading = re.match(r"^\s{0,3}(#{1,6})\s+", plain)
        if heading:
            line = _line(plain[heading.end() :], gap, heading=True)
            line.size = 20.0 - 2 * len(heading[1])  # "# Name" is the largest
        else:
            line = _line(re.sub(r"\s{2}$", "", plain), gap)
        lines.append(line)
        gap = False
    return Extracted(lines=_section_level(lines), links=list(dict.fromkeys(links)))


def _section_level(lines: list[Line]) -> list[Line]:
    """Headings deeper than the first known section heading's level are entry headers
    ("### Senior Engineer, Acme" under "## Experience"), not sections."""
    level = next((x.size for x in lines if x.heading and heading_kind(x)), None)
    if level is not None:
        for x in lines:
            x.heading = x.heading and x.size >= level
    return lines

"""A resume document's text as lines, with what its layout says about each line.

Every extractor (PDF, Word, Markdown, plain text) gives the section parser the same
thing: lines in reading order (a two-column page's columns one after the other), each
with the short texts set apart on the same line (``aside``: a right-hand date or place
column, a left-hand date column, a tab-separated date), how far it is indented, and
whether its style marks it as a heading or a list item.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["BULLET_MARK", "Extracted", "Line", "split_bullet"]

# A list item's mark at the start of a line ("•Thesis" too: some themes set no space).
BULLET_MARK = re.compile(r"^\s*(?:[•●▪■◦‣∙·▸►✓➢➤○◆◇−–—*]|-(?=\s)|\d{1,2}[.)](?=\s))\s*")


@dataclass
class Line:
    text: str
    aside: list[str] = field(default_factory=list)
    indent: float = 0.0  # from the text's left edge: points (PDF) or characters (text)
    heading: bool = False  # its style says so (larger type, a Word heading, a "# " line)
    bullet: bool = False  # a list item (its mark removed from ``text``)
    gap_before: bool = False  # a blank line or a wider gap than the body's line spacing
    size: float = 0.0  # type size (PDF), 0 when unknown


@dataclass
class Extracted:
    """A document's lines, the link targets it holds (PDF annotations, Word hyperlinks),
    and its page count."""

    lines: list[Line]
    links: list[str] = field(default_factory=list)
    pages: int = 1


def split_bullet(text: str) -> tuple[bool, str]:
    """(whether ``text`` starts with a list mark, the text without it)."""
    match = BULLET_MARK.match(text)
    if match and match.end() < len(text):
        return True, text[match.end() :]
    return False, text

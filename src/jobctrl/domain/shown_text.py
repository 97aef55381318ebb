"""Text from outside (a page's title, a board's company name) made safe to show in one line.

A NUL or a bidirectional override (U+202E) in a posting's title was stored and shown as
is on the Jobs page, where an override can reverse the rest of a row (issue 30).
``one_line`` removes control and bidirectional formatting characters where such text
enters the system; ``without_controls`` is the same filter for display, which applies it
again to whatever was stored before.
"""

from __future__ import annotations

import re

__all__ = ["one_line", "without_controls"]

# C0 and C1 controls (tab, line breaks and NUL included), DEL, and the bidirectional
# formatting characters: marks (ALM, LRM, RLM), embeddings, overrides and isolates; and
# U+FFFD, which an HTML parser puts where a page had a NUL.
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufffd]")
_LINE_BREAKS = re.compile("[\t\n\v\f\r\x85\u2028\u2029]+")
_SPACES = re.compile(r" {2,}")


def one_line(text: str | None) -> str | None:
    """``text`` with line breaks and tabs as one space and every other control or
    bidirectional formatting character removed, trimmed; None stays None (and so does
    text left empty)."""
    if text is None:
        return None
    cleaned = _SPACES.sub(" ", _CONTROLS.sub("", _LINE_BREAKS.sub(" ", text))).strip()
    return cleaned or None


def without_controls(text: str) -> str:
    """``text`` without control or bidirectional formatting characters, line breaks kept
    (a description's paragraphs); for display."""
    if not _CONTROLS.search(text):
        return text
    return _CONTROLS.sub(lambda m: m.group() if m.group() in "\n\t" else "", text)

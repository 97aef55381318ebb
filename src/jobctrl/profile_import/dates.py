"""Dates as resumes write them → ``"YYYY-MM"``, ``"YYYY"`` or ``"present"``.

A point: "Sept 2018", "September 2018", "Sep. 2018", "09/2018", "09.2018", "2018-09",
"2018/09", "Summer 2018", "2018" (English and German month names). A range joins two
points (or a point and "present", "current", "now", "today", "heute") with a dash of any
kind, "to", "until" or "bis"; "since 2020" is a range to present. A duration ("2 years 10
months", "4 mos") is what a theme prints beside a range and states nothing new.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["DateRange", "find_range", "is_duration", "strip_range"]

_MONTHS = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8,
    "sep": 9, "oct": 10, "nov": 11, "dec": 12, "mär": 3, "mai": 5, "okt": 10, "dez": 12,
}  # fmt: skip
_MONTH = (
    r"(?:jan(?:uary|uar)?|feb(?:ruary|ruar)?|mar(?:ch)?|märz?|apr(?:il)?|ma[yi]|june?|juni|"
    r"july?|juli|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|okt(?:ober)?|nov(?:ember)?|"
    r"de[cz](?:ember)?)\.?"
)
_YEAR = r"(?:19|20)\d{2}"
_POINT = (
    rf"(?:{_MONTH}\s*(?:\d{{1,2}},?\s*)?'?{_YEAR}|(?:0?[1-9]|1[0-2])\s*[/.]\s*{_YEAR}|"
    rf"{_YEAR}\s*[-/.]\s*(?:0?[1-9]|1[0-2])(?![\d])|(?:spring|summer|fall|autumn|winter)\s+{_YEAR}|"
    rf"{_YEAR})"
)
_NOW = r"(?:present|current(?:ly)?|now|today|ongoing|heute|aktuell|date)"
_RANGE = re.compile(
    rf"(?<![\w/.-])(?:(?:since|seit)\s+(?P<since>{_POINT})|(?P<start>{_POINT})"
    rf"(?:\s*(?:[-–—−~]+|to|until|till|bis)\s*(?P<end>{_POINT}|{_NOW}))?)(?![\w/-])",
    re.IGNORECASE,
)
_DURATION = re.compile(
    r"^\(?\s*\d+\s*(?:years?|yrs?|y|months?|mos?|m)\b(?:,?\s*\d+\s*(?:months?|mos?|m)\b)?\s*\)?$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class DateRange:
    start: str
    end: str  # "" for a single date
    span: tuple[int, int]  # where in the text


def _point(text: str) -> str:
    text = text.strip().lower()
    if re.fullmatch(_NOW, text, re.IGNORECASE):
        return "present"
    year = re.search(_YEAR, text)
    if not year:
        return ""
    month = re.match(r"[a-zä]+", text)
    if month and month[0][:3] in _MONTHS:
        return f"{year[0]}-{_MONTHS[month[0][:3]]:02d}"
    numeric = re.fullmatch(rf"(\d{{1,2}})\s*[/.]\s*{_YEAR}|{_YEAR}\s*[-/.]\s*(\d{{1,2}})", text)
    if numeric:
        return f"{year[0]}-{int(numeric[1] or numeric[2]):02d}"
    return year[0]


def find_range(text: str) -> DateRange | None:
    """The first date range (or single date) in ``text``, or None."""
    for match in _RANGE.finditer(text):
        if match["since"]:
            return DateRange(_point(match["since"]), "present", match.span())
        start = _point(match["start"])
        if start:
            end = _point(match["end"]) if match["end"] else ""
            return DateRange(start, end, match.span())
    return None


def strip_range(text: str, found: DateRange) -> str:
    """``text`` without the range and the brackets or separators left around it."""
    a, b = found.span
    rest = (text[:a].rstrip(" ,|–—-:(") + " " + text[b:].lstrip(" ,|–—-:)")).strip()
    return re.sub(r"\(\s*\)", "", rest).strip(" ,|–—-")


def is_duration(text: str) -> bool:
    return bool(_DURATION.match(text.strip()))

"""A resume's header — the lines before its first section: the name and how to reach the
person (email, phone, place, links)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from jobctrl.profile_import.lines import Line

__all__ = ["Header", "is_place", "name_line", "read_header"]

_EMAIL = re.compile(r"^(?:e-?mail:?\s*)?(?:mailto:)?([\w.+-]+@[\w-]+(?:\.[\w-]+)+)$", re.I)
_PHONE = re.compile(
    r"^(?:(?:phone|tel|mobile|cell|m|t)\s*[.:]?\s*)?(\+?[\d][\d ()./-]{6,}\d)$", re.I
)
_URL = re.compile(
    r"^(?:https?://)?(?:www\.)?[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}(?:/[^\s]*)?$", re.IGNORECASE
)
_SEPARATORS = re.compile(r"\s*(?:\||•|·|⋅|◦|♦|\s{3,}|\t)\s*")
# "San Francisco, CA", "Berlin, Germany", "London, UK", "Remote": a town, then a region
# code or a country (a town alone cannot be told from a company's name).
_COUNTRIES = (
    "Germany|Deutschland|France|UK|United Kingdom|England|Scotland|Wales|Ireland|USA|"
    "United States|Canada|Mexico|Brazil|Argentina|Chile|Colombia|Netherlands|Belgium|"
    "Luxembourg|Switzerland|Schweiz|Austria|Österreich|Spain|Portugal|Italy|Greece|Poland|"
    "Czechia|Czech Republic|Slovakia|Hungary|Romania|Bulgaria|Croatia|Serbia|Slovenia|"
    "Ukraine|Estonia|Latvia|Lithuania|Finland|Sweden|Norway|Denmark|Iceland|Türkiye|Turkey|"
    "Israel|UAE|United Arab Emirates|Saudi Arabia|Qatar|Egypt|Nigeria|Kenya|South Africa|"
    "India|Pakistan|Bangladesh|China|Hong Kong|Taiwan|Japan|Korea|South Korea|Singapore|"
    "Malaysia|Thailand|Vietnam|Indonesia|Philippines|Australia|New Zealand|Remote"
)
_PLACE = re.compile(
    r"^(?:remote|hybrid|[A-ZÀ-Ý][\w'.-]+(?:[ -][A-ZÀ-Ýa-z][\w'.-]+){0,3},\s*"
    rf"(?:[A-Z]{{2,3}}|{_COUNTRIES})(?:,\s*(?:[A-Z]{{2,3}}|{_COUNTRIES}))?(?:\s*\(remote\))?)$"
)
_NOT_NAME = re.compile(r"@|\d|https?:|www\.|\.com\b|curriculum|resume|résumé|\bcv\b|updated", re.I)


@dataclass
class Header:
    name: str = ""
    email: str = ""
    phone: str = ""
    location: str = ""
    links: list[str] = field(default_factory=list)
    unplaced: list[str] = field(default_factory=list)


def is_place(text: str) -> bool:
    return bool(_PLACE.match(text.strip())) and len(text) <= 60


def name_line(lines: list[Line]) -> int | None:
    """The index of the name: the largest type among the first lines that reads as a
    name (2–5 words, no digits, no address), else the first such line."""
    candidates = [
        i
        for i, line in enumerate(lines[:6])
        if not _NOT_NAME.search(line.text) and 1 <= len(line.text.split()) <= 5 and not line.aside
    ]
    if not candidates:
        return None
    return max(candidates, key=lambda i: (lines[i].size, -i))


def _link(token: str) -> str:
    token = token.strip().rstrip("/.,;")
    return token if token.lower().startswith(("http://", "https://")) else f"https://{token}"


def read_header(lines: list[Line], links: list[str]) -> tuple[Header, int]:
    """The header of ``lines`` (which must end before the first section) and the index of
    its name line (-1 when none). ``links`` are the document's link targets: those whose
    address the header shows, and LinkedIn/GitHub profiles, are the person's links."""
    header = Header()
    at = name_line(lines)
    if at is not None:
        header.name = " ".join(lines[at].text.split())
    shown: list[str] = []
    for i, line in enumerate(lines):
        if i == at:
            continue
        for part in [*_SEPARATORS.split(line.text), *line.aside]:
            token = part.strip(" ,;")
            if not re.search(r"\w", token):
                continue
            if (m := _EMAIL.match(token)) and not header.email:
                header.email = m[1]
            elif (m := _PHONE.match(token)) and not header.phone:
                header.phone = m[1].strip()
            elif _URL.match(token) and "@" not in token:
                shown.append(token.lower())
                header.links.append(_link(token))
            elif is_place(token) and not header.location:
                header.location = token
            elif not _is_handle(token, links):
                header.unplaced.append(token)
    for url in links:
        bare = re.sub(r"^(?:https?://)?(?:www\.)?", "", url.lower()).rstrip("/")
        profile = re.match(
            r"(?:[\w-]+\.)?(?:linkedin\.com/in|github\.com|gitlab\.com)/[\w.-]+$", bare
        )
        if url.lower().startswith(("http://", "https://")) and (
            profile
            or any(bare == re.sub(r"^(?:https?://)?(?:www\.)?", "", s).rstrip("/") for s in shown)
        ):
            header.links.append(url)
    header.links = _unique_links(header.links)
    return header, -1 if at is None else at


def _is_handle(token: str, links: list[str]) -> bool:
    """A bare user name shown beside an icon whose link names it."""
    return bool(re.fullmatch(r"@?[\w.-]{2,40}", token)) and any(
        url.lower().rstrip("/").endswith("/" + token.lstrip("@").lower()) for url in links
    )


def _unique_links(links: list[str]) -> list[str]:
    seen: dict[str, str] = {}
    for url in links:
        key = re.sub(r"^(?:https?://)?(?:www\.)?", "", url.lower()).rstrip("/")
        seen.setdefault(key, url)
    return list(seen.values())

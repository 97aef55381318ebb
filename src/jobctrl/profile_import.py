"""Import a candidate ``Profile`` from a JSON Resume (resume.json) or a RenderCV YAML file.

The format is told by shape, not by file name: a mapping with a ``cv`` mapping is RenderCV;
a mapping with any of ``basics``/``work``/``education``/``skills`` is JSON Resume (either may
be written as JSON or YAML). Unknown extra fields are ignored; wrong-typed ones are skipped.

Dates (both formats) become ``"YYYY-MM"`` or ``"YYYY"``: ``"2020-03-15"`` → ``"2020-03"``,
``"2020"`` → ``"2020"``, ``"present"`` stays; anything else is dropped (``""``). A dated
entry (one with a start) that has no end is current: its end becomes ``"present"``.

JSON Resume:
- ``basics``: name, email, phone, summary; ``location`` city/region/countryCode →
  ``"City, Region, CC"`` (empty parts left out); ``url`` then ``profiles[].url`` → links (a
  profile without a url but with a known network + username gets one built, as below).
- ``work[]``: name (or legacy ``company``) → company, position → title, startDate/endDate,
  location, highlights → bullets; a role's ``summary`` is the only bullet when there are no
  highlights. Roles with neither company nor title are skipped.
- ``education[]``: institution, studyType → degree, area → field, startDate/endDate.
- ``skills[]``: each ``name``, then its ``keywords``.

RenderCV (``cv:``):
- name, email, location; phone without its ``tel:`` prefix; ``website`` then
  ``social_networks`` (network + username → profile URL for the networks RenderCV knows;
  unknown networks are skipped) → links.
- ``sections`` maps a title to a list of entries, recognised by shape, in any section:
  ``company`` + ``position`` → experience (highlights → bullets, else summary);
  ``institution`` + ``area`` → education (degree, area → field); ``label`` + ``details``
  (OneLineEntry) → skills, details split on commas (the label is a category, not a skill);
  plain strings (and ``bullet`` entries) in a section titled summary/about/profile → summary,
  one line each.

Skills are de-duplicated case-insensitively, first spelling and order kept.

Neither format has the saved application answers (``profile.answers``): an import replaces
the rest of the profile and keeps them (``keep_saved_answers``).
"""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from jobctrl.domain.errors import PROFILE_IMPORT, ConfigError
from jobctrl.domain.profile import Contact, Education, Experience, Profile

__all__ = [
    "ProfileImportError",
    "detect_format",
    "keep_saved_answers",
    "load_profile_file",
    "profile_from_json_resume",
    "profile_from_rendercv",
]

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_DATE = re.compile(r"(\d{4})(?:-(\d{1,2})(?:-\d{1,2})?)?(?:[T ].*)?")
_SUMMARY_WORDS = {"summary", "about", "profile"}
_JSON_RESUME_KEYS = ("basics", "work", "education", "skills")
# RenderCV's social networks, by lower-cased name without spaces → profile URL.
_NETWORK_URLS = {
    "linkedin": "https://linkedin.com/in/{}",
    "github": "https://github.com/{}",
    "gitlab": "https://gitlab.com/{}",
    "x": "https://x.com/{}",
    "twitter": "https://twitter.com/{}",
    "instagram": "https://instagram.com/{}",
    "orcid": "https://orcid.org/{}",
    "stackoverflow": "https://stackoverflow.com/users/{}",
    "researchgate": "https://researchgate.net/profile/{}",
    "youtube": "https://youtube.com/@{}",
    "googlescholar": "https://scholar.google.com/citations?user={}",
    "telegram": "https://t.me/{}",
}


class ProfileImportError(ConfigError, ValueError):
    """A profile file could not be read: bad JSON/YAML, or neither known shape."""

    def __init__(self, message: str) -> None:
        super().__init__(message, code=PROFILE_IMPORT)


def detect_format(path: Path, text: str) -> str:
    """``"json-resume"`` or ``"rendercv"``; ``ProfileImportError`` (a ValueError) if neither."""
    return _shape(path, _parse(path, text))


MAX_PROFILE_BYTES = 2_000_000  # a long real resume is a few tens of kilobytes


def load_profile_file(path: Path) -> Profile:
    """Read, detect and convert a profile file; errors name the file and what is wrong
    (including a file past ``MAX_PROFILE_BYTES`` or a profile past its limits)."""
    if path.is_file() and path.stat().st_size > MAX_PROFILE_BYTES:
        raise ProfileImportError(
            f"{path}: larger than {MAX_PROFILE_BYTES // 1_000_000} MB; a profile file is "
            "a resume, not a database"
        )
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ProfileImportError(f"{path}: not UTF-8 text") from None
    data = _parse(path, text)
    convert = (
        profile_from_rendercv if _shape(path, data) == "rendercv" else profile_from_json_resume
    )
    try:
        return convert(data)
    except ValidationError as exc:
        raise ProfileImportError(f"{path}: {first_problem(exc)}") from None


def keep_saved_answers(imported: Profile, current: Profile) -> Profile:
    """``imported`` with the saved application answers of ``current`` (the profile it
    replaces): a resume file has none, and an import must not lose them."""
    return Profile.model_validate(
        {**imported.model_dump(), "answers": current.answers.model_dump()}
    )


def first_problem(exc: ValidationError) -> str:
    """The first validation problem in one line: where, what (no input values), how many."""
    first = exc.errors(include_input=False, include_url=False)[0]
    where = ".".join(str(part) for part in first["loc"])
    more = f" ({exc.error_count()} problems)" if exc.error_count() > 1 else ""
    return f"{where}: {first['msg']}{more}"


def profile_from_json_resume(data: dict[str, Any]) -> Profile:
    basics = _dict(data.get("basics"))
    links = [_str(basics.get("url") or basics.get("website"))]
    for p in map(_dict, _list(basics.get("profiles"))):
        links.append(_str(p.get("url")) or _network_url(p.get("network"), p.get("username")))
    experience = [
        _experience(
            title=w.get("position"),
            company=w.get("name") or w.get("company"),
            start=w.get("startDate"),
            end=w.get("endDate"),
            location=w.get("location"),
            highlights=w.get("highlights"),
            summary=w.get("summary"),
        )
        for w in map(_dict, _list(data.get("work")))
    ]
    education = [
        _education(e.get("institution"), e.get("studyType"), e.get("area"),
                   e.get("startDate"), e.get("endDate"))
        for e in map(_dict, _list(data.get("education")))
    ]  # fmt: skip
    skills: list[Any] = []
    for s in map(_dict, _list(data.get("skills"))):
        skills += [s.get("name"), *_list(s.get("keywords"))]
    return Profile(
        name=_str(basics.get("name")),
        contact=Contact(
            email=_str(basics.get("email")),
            phone=_str(basics.get("phone")),
            location=_location(basics.get("location")),
            links=_unique(links),
        ),
        summary=_str(basics.get("summary")),
        skills=_unique(skills),
        experience=[x for x in experience if x],
        education=[x for x in education if x],
    )


def profile_from_rendercv(data: dict[str, Any]) -> Profile:
    cv = _dict(data.get("cv"))
    links = [_str(cv.get("website"))]
    for n in map(_dict, _list(cv.get("social_networks"))):
        links.append(_network_url(n.get("network"), n.get("username")))
    summary: list[str] = []
    skills: list[str] = []
    experience: list[Experience | None] = []
    education: list[Education | None] = []
    for title, entries in _dict(cv.get("sections")).items():
        is_summary = bool(_SUMMARY_WORDS & set(re.split(r"[\W_]+", str(title).lower())))
        for entry in _list(entries):
            if isinstance(entry, str | int | float):
                summary += [_str(entry)] if is_summary else []
                continue
            e = _dict(entry)
            if "company" in e and "position" in e:
                experience.append(
                    _experience(e.get("position"), e.get("company"), e.get("start_date"),
                                e.get("end_date"), e.get("location"), e.get("highlights"),
                                e.get("summary"))
                )  # fmt: skip
            elif "institution" in e and "area" in e:
                education.append(
                    _education(e.get("institution"), e.get("degree"), e.get("area"),
                               e.get("start_date"), e.get("end_date"))
                )  # fmt: skip
            elif "label" in e and "details" in e:
                skills += _str(e.get("details")).split(",")
            elif "bullet" in e and is_summary:
                summary.append(_str(e.get("bullet")))
    return Profile(
        name=_str(cv.get("name")),
        contact=Contact(
            email=_str(cv.get("email")),
            phone=_str(cv.get("phone")).removeprefix("tel:"),
            location=_str(cv.get("location")),
            links=_unique(links),
        ),
        summary="\n".join(line for line in summary if line),
        skills=_unique(skills),
        experience=[x for x in experience if x],
        education=[x for x in education if x],
    )


def _parse(path: Path, text: str) -> Any:
    if path.suffix.lower() == ".json" or (
        path.suffix.lower() not in {".yaml", ".yml"} and text.lstrip().startswith("{")
    ):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ProfileImportError(
                f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
            ) from None
        except RecursionError:
            raise ProfileImportError(f"{path}: nested too deeply to be a profile") from None
    else:
        try:
            data = yaml.load(text, Loader=_Loader)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" (line {mark.line + 1})" if mark else ""
            raise ProfileImportError(f"{path}: not valid YAML{where}") from None
        except RecursionError:
            raise ProfileImportError(f"{path}: nested too deeply to be a profile") from None
    if data is None:
        raise ProfileImportError(f"{path}: the file is empty")
    return data


def _shape(path: Path, data: Any) -> str:
    if isinstance(data, dict):
        if isinstance(data.get("cv"), dict):
            return "rendercv"
        if any(isinstance(data.get(k), dict | list) for k in _JSON_RESUME_KEYS):
            return "json-resume"
    raise ProfileImportError(
        f"{path}: neither a JSON Resume (no basics/work/education/skills) "
        "nor a RenderCV file (no cv: mapping)"
    )


def _experience(
    title: Any, company: Any, start: Any, end: Any, location: Any, highlights: Any, summary: Any
) -> Experience | None:
    if not (_str(title) or _str(company)):
        return None
    bullets = [b for b in map(_str, _list(highlights)) if b] or [_str(summary)]
    begin = _date(start)
    return Experience(
        title=_str(title),
        company=_str(company),
        start=begin,
        end=_date(end) or ("present" if begin else ""),
        location=_str(location),
        bullets=[b for b in bullets if b],
    )


def _education(institution: Any, degree: Any, field: Any, start: Any, end: Any) -> Education | None:
    if not _str(institution):
        return None
    begin = _date(start)
    return Education(
        institution=_str(institution),
        degree=_str(degree),
        field=_str(field),
        start=begin,
        end=_date(end) or ("present" if begin else ""),
    )


def _date(value: Any) -> str:
    """``"YYYY-MM"``, ``"YYYY"``, ``"present"`` or ``""`` (YAML gives dates and ints too)."""
    if isinstance(value, date):
        return f"{value.year:04d}-{value.month:02d}"
    text = _str(value)
    if text.lower() in {"present", "current", "now"}:
        return "present"
    match = _DATE.fullmatch(text)
    if not match:
        return ""
    year, month = match[1], match[2]
    return f"{year}-{int(month):02d}" if month and 1 <= int(month) <= 12 else year


def _location(value: Any) -> str:
    if isinstance(value, str):
        return value.strip()
    loc = _dict(value)
    parts = (_str(loc.get(k)) for k in ("city", "region", "countryCode"))
    return ", ".join(p for p in parts if p)


def _network_url(network: Any, username: Any) -> str:
    user = _str(username)
    if user.startswith(("http://", "https://")):
        return user
    key = re.sub(r"\s+", "", _str(network).lower())
    if key == "mastodon" and user.count("@") == 2:
        name, host = user.lstrip("@").split("@")
        return f"https://{host}/@{name}"
    pattern = _NETWORK_URLS.get(key)
    return pattern.format(user.lstrip("@")) if pattern and user else ""


def _unique(values: list[Any]) -> list[str]:
    """Non-empty stripped strings, first of each case-insensitive spelling, order kept."""
    seen: set[str] = set()
    out: list[str] = []
    for text in map(_str, values):
        if text and text.casefold() not in seen:
            seen.add(text.casefold())
            out.append(text)
    return out


def _str(value: Any) -> str:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return ""


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _dict(value: Any) -> dict[Any, Any]:
    return value if isinstance(value, dict) else {}

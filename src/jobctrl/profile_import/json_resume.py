"""A JSON Resume (resume.json, as JSON or YAML) → ``Profile``.

- ``basics``: name, email, phone, summary; ``location`` city/region/countryCode →
  ``"City, Region, CC"``, a part that repeats the one before it left out ("Berlin,
  Berlin, DE" → "Berlin, DE"); ``url`` then ``profiles[].url`` → links (a profile without
  a url but with a known network + username gets one built). The LinkedIn and GitHub
  profiles also become the saved answers application forms ask for.
- ``work[]``: name (or legacy ``company``) → company, position → title, startDate/endDate,
  location; its ``summary`` is the first bullet, then its ``highlights``. Roles with
  neither company nor title are skipped.
- ``volunteer[]``: organization → company, position → title, the rest as work.
- ``education[]``: institution, studyType → degree, area → field, startDate/endDate.
- ``skills[]``: each ``name``, then its ``keywords``.
- ``languages[]`` (language, fluency), ``certificates[]`` (name, issuer, date, url),
  ``projects[]`` (name, description, url, highlights, startDate/endDate), ``awards[]``
  (title, awarder, date, summary).
"""

from __future__ import annotations

from typing import Any

from jobctrl.domain.profile import Award, Certification, Contact, Language, Profile
from jobctrl.profile_import.entries import education_entry, experience_entry, project_entry
from jobctrl.profile_import.links import answers_from_links, network_url
from jobctrl.profile_import.values import as_dict, as_list, as_text, month_or_year, unique

__all__ = ["profile_from_json_resume"]


def profile_from_json_resume(data: dict[str, Any]) -> Profile:
    basics = as_dict(data.get("basics"))
    links = [as_text(basics.get("url") or basics.get("website"))]
    for p in map(as_dict, as_list(basics.get("profiles"))):
        links.append(as_text(p.get("url")) or network_url(p.get("network"), p.get("username")))
    experience = [
        experience_entry(w.get("position"), w.get("name") or w.get("company"),
                         w.get("startDate"), w.get("endDate"), w.get("location"),
                         w.get("highlights"), w.get("summary"))
        for w in map(as_dict, as_list(data.get("work")))
    ]  # fmt: skip
    volunteer = [
        experience_entry(v.get("position"), v.get("organization") or v.get("name"),
                         v.get("startDate"), v.get("endDate"), v.get("location"),
                         v.get("highlights"), v.get("summary"))
        for v in map(as_dict, as_list(data.get("volunteer")))
    ]  # fmt: skip
    education = [
        education_entry(e.get("institution"), e.get("studyType"), e.get("area"),
                        e.get("startDate"), e.get("endDate"))
        for e in map(as_dict, as_list(data.get("education")))
    ]  # fmt: skip
    projects = [
        project_entry(p.get("name"), p.get("description"), p.get("url"), p.get("highlights"),
                      p.get("startDate"), p.get("endDate"))
        for p in map(as_dict, as_list(data.get("projects")))
    ]  # fmt: skip
    skills: list[Any] = []
    for s in map(as_dict, as_list(data.get("skills"))):
        skills += [s.get("name"), *as_list(s.get("keywords"))]
    links = unique(links)
    return Profile(
        name=as_text(basics.get("name")),
        contact=Contact(
            email=as_text(basics.get("email")),
            phone=as_text(basics.get("phone")),
            location=_location(basics.get("location")),
            links=links,
        ),
        summary=as_text(basics.get("summary")),
        skills=unique(skills),
        experience=[x for x in experience if x],
        education=[x for x in education if x],
        languages=[
            Language(language=as_text(x.get("language")), fluency=as_text(x.get("fluency")))
            for x in map(as_dict, as_list(data.get("languages")))
            if as_text(x.get("language"))
        ],
        certifications=[x for x in map(_certification, as_list(data.get("certificates"))) if x],
        projects=[x for x in projects if x],
        awards=[x for x in map(_award, as_list(data.get("awards"))) if x],
        volunteer=[x for x in volunteer if x],
        answers=answers_from_links(links),
    )


def _certification(value: Any) -> Certification | None:
    c = as_dict(value)
    if not as_text(c.get("name")):
        return None
    return Certification(
        name=as_text(c.get("name")),
        issuer=as_text(c.get("issuer")),
        date=month_or_year(c.get("date")),
        url=as_text(c.get("url")),
    )


def _award(value: Any) -> Award | None:
    a = as_dict(value)
    if not as_text(a.get("title")):
        return None
    return Award(
        title=as_text(a.get("title")),
        awarder=as_text(a.get("awarder")),
        date=month_or_year(a.get("date")),
        summary=as_text(a.get("summary")),
    )


def _location(value: Any) -> str:
    if isinstance(value, str):
        return value.strip()
    loc = as_dict(value)
    parts: list[str] = []
    for part in (as_text(loc.get(k)) for k in ("city", "region", "countryCode")):
        if part and not (parts and part.casefold() == parts[-1].casefold()):
            parts.append(part)
    return ", ".join(parts)

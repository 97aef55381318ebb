"""A RenderCV YAML file (``cv:``) → ``Profile``.

- name, email, location; phone without its ``tel:`` prefix; ``website`` then
  ``social_networks`` (network + username → profile URL for the networks RenderCV knows;
  unknown networks are skipped) → links; LinkedIn and GitHub → the saved answers.
- ``sections`` maps a title to a list of entries, recognised by shape, in any section:
  ``company`` + ``position`` → experience (a section titled volunteer… → volunteer;
  summary then highlights → bullets); ``institution`` + ``area`` → education (degree,
  area → field); ``label`` + ``details`` (OneLineEntry) → skills, details split on commas
  (the label is a category, not a skill), or languages (label, details as fluency) in a
  section titled languages; ``name`` (NormalEntry) → a project in a section titled
  project…, a certification in certificat…/licen…, an award in award…/honor…; plain
  strings and ``bullet`` entries → summary lines in a section titled
  summary/about/profile, else awards, certifications or languages by the section's title.
- RenderCV's inline Markdown is read as text: ``[FlashInfer](https://…)`` → "FlashInfer"
  (a project keeps the URL), ``**bold**`` → "bold".
"""

from __future__ import annotations

import re
from typing import Any

from jobctrl.domain.profile import (
    Award,
    Certification,
    Contact,
    Education,
    Experience,
    Language,
    Profile,
    Project,
)
from jobctrl.profile_import.dates import find_range, strip_range
from jobctrl.profile_import.entries import education_entry, experience_entry, project_entry
from jobctrl.profile_import.links import answers_from_links, network_url
from jobctrl.profile_import.values import as_dict, as_list, as_text, month_or_year, unique

__all__ = ["profile_from_rendercv", "section_kind"]

_LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]*)\)")
_EMPHASIS = re.compile(r"(\*\*|__|\*|_)(?=\S)(.+?)(?<=\S)\1")
_KINDS = (
    ("summary", ("summary", "about", "profile")),
    ("volunteer", ("volunteer",)),
    ("projects", ("project",)),
    ("certifications", ("certificat", "licen")),
    ("awards", ("award", "honor", "honour")),
    ("languages", ("language",)),
)


def section_kind(title: str) -> str:
    """What a section holds by its title's words ("" when none of these)."""
    words = re.split(r"[\W_]+", title.lower())
    for kind, stems in _KINDS:
        if any(w.startswith(stem) for w in words for stem in stems):
            return kind
    return ""


def _plain(value: Any) -> str:
    return _EMPHASIS.sub(r"\2", _LINK.sub(r"\1", as_text(value)))


def _url_in(value: Any) -> str:
    match = _LINK.search(as_text(value))
    return match[2] if match else ""


class _Sections:
    def __init__(self) -> None:
        self.summary: list[str] = []
        self.skills: list[str] = []
        self.experience: list[Experience | None] = []
        self.volunteer: list[Experience | None] = []
        self.education: list[Education | None] = []
        self.projects: list[Project | None] = []
        self.languages: list[Language] = []
        self.certifications: list[Certification] = []
        self.awards: list[Award] = []

    def line(self, kind: str, text: str, date: Any = None) -> None:
        if not text:
            return
        found = find_range(text) if kind in ("awards", "certifications") and not date else None
        if found and strip_range(text, found):
            text, date = strip_range(text, found), found.end or found.start
        if kind == "summary":
            self.summary.append(text)
        elif kind == "awards":
            self.awards.append(Award(title=text, date=month_or_year(date)))
        elif kind == "certifications":
            self.certifications.append(Certification(name=text, date=month_or_year(date)))
        elif kind == "languages":
            self.languages.append(Language(language=text))

    def entry(self, kind: str, e: dict[Any, Any]) -> None:
        if "company" in e and "position" in e:
            highlights = [_plain(h) for h in as_list(e.get("highlights"))]
            role = experience_entry(
                _plain(e.get("position")), _plain(e.get("company")), e.get("start_date"),
                e.get("end_date"), e.get("location"), highlights, _plain(e.get("summary")),
            )  # fmt: skip
            (self.volunteer if kind == "volunteer" else self.experience).append(role)
        elif "institution" in e and "area" in e:
            self.education.append(
                education_entry(_plain(e.get("institution")), e.get("degree"),
                                _plain(e.get("area")), e.get("start_date"), e.get("end_date"))
            )  # fmt: skip
        elif "label" in e and "details" in e:
            if kind == "languages":
                language = _plain(e.get("label"))
                self.languages.append(Language(language=language, fluency=_plain(e.get("details"))))
            else:
                self.skills += _plain(e.get("details")).split(",")
        elif "name" in e and kind == "projects":
            highlights = [_plain(h) for h in as_list(e.get("highlights"))]
            self.projects.append(
                project_entry(_plain(e.get("name")), _plain(e.get("summary")),
                              _url_in(e.get("name")), highlights,
                              e.get("start_date") or e.get("date"), e.get("end_date"))
            )  # fmt: skip
        elif "name" in e:
            self.line(kind, _plain(e.get("name")), e.get("date") or e.get("start_date"))
        elif "bullet" in e:
            self.line(kind, _plain(e.get("bullet")))


def profile_from_rendercv(data: dict[str, Any]) -> Profile:
    cv = as_dict(data.get("cv"))
    links = [as_text(cv.get("website"))]
    for n in map(as_dict, as_list(cv.get("social_networks"))):
        links.append(network_url(n.get("network"), n.get("username")))
    found = _Sections()
    for title, entries in as_dict(cv.get("sections")).items():
        kind = section_kind(str(title))
        for entry in as_list(entries):
            if isinstance(entry, str | int | float):
                found.line(kind, _plain(entry))
            else:
                found.entry(kind, as_dict(entry))
    links = unique(links)
    return Profile(
        name=as_text(cv.get("name")),
        contact=Contact(
            email=as_text(cv.get("email")),
            phone=as_text(cv.get("phone")).removeprefix("tel:"),
            location=as_text(cv.get("location")),
            links=links,
        ),
        summary="\n".join(line for line in found.summary if line),
        skills=unique(found.skills),
        experience=[x for x in found.experience if x],
        education=[x for x in found.education if x],
        languages=found.languages,
        certifications=found.certifications,
        projects=[x for x in found.projects if x],
        awards=found.awards,
        volunteer=[x for x in found.volunteer if x],
        answers=answers_from_links(links),
    )

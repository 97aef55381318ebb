"""Building a profile's entries from a structured file's loosely typed fields: a role's
bullets are its summary then its highlights; a dated entry without an end is current."""

from __future__ import annotations

from typing import Any

from jobctrl.domain.profile import Education, Experience, Project
from jobctrl.profile_import.values import as_list, as_text, month_or_year

__all__ = ["education_entry", "experience_entry", "project_entry"]


def _bullets(summary: Any, highlights: Any) -> list[str]:
    return [b for b in (as_text(summary), *map(as_text, as_list(highlights))) if b]


def experience_entry(
    title: Any, company: Any, start: Any, end: Any, location: Any, highlights: Any, summary: Any
) -> Experience | None:
    """A role (or volunteer role); its summary, when it has one, is its first bullet."""
    if not (as_text(title) or as_text(company)):
        return None
    begin = month_or_year(start)
    return Experience(
        title=as_text(title),
        company=as_text(company),
        start=begin,
        end=month_or_year(end) or ("present" if begin else ""),
        location=as_text(location),
        bullets=_bullets(summary, highlights),
    )


def education_entry(
    institution: Any, degree: Any, field: Any, start: Any, end: Any
) -> Education | None:
    if not as_text(institution):
        return None
    begin = month_or_year(start)
    return Education(
        institution=as_text(institution),
        degree=as_text(degree),
        field=as_text(field),
        start=begin,
        end=month_or_year(end) or ("present" if begin else ""),
    )


def project_entry(
    name: Any, description: Any, url: Any, highlights: Any, start: Any, end: Any
) -> Project | None:
    if not as_text(name):
        return None
    begin = month_or_year(start)
    return Project(
        name=as_text(name),
        description=as_text(description),
        url=as_text(url),
        bullets=_bullets(None, highlights),
        start=begin,
        end=month_or_year(end),
    )

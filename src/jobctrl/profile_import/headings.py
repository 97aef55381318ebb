"""A resume's section headings, in any case, spacing or common wording: what each holds."""

from __future__ import annotations

import re

from jobctrl.profile_import.lines import Line

__all__ = ["KNOWN", "heading_kind"]

_WORDS: dict[str, tuple[str, ...]] = {
    "summary": ("summary", "profile", "about", "about me", "professional summary",
                "career summary", "objective", "career objective", "personal statement",
                "professional profile", "overview", "introduction", "kurzprofil", "profil"),
    "experience": ("experience", "work experience", "professional experience", "employment",
                   "employment history", "work history", "career history", "career",
                   "relevant experience", "work", "experience highlights", "positions",
                   "professional background", "berufserfahrung", "berufliche erfahrung"),
    "education": ("education", "academic background", "education and training",
                  "education & training", "academic history", "studies", "ausbildung",
                  "bildung", "academic qualifications", "qualifications"),
    "skills": ("skills", "technical skills", "core skills", "key skills", "core competencies",
               "competencies", "technologies", "tools", "tech stack", "skills and tools",
               "skills & tools", "expertise", "areas of expertise", "technical expertise",
               "skills & interests", "skills and interests", "kenntnisse", "fähigkeiten"),
    "languages": ("languages", "language skills", "language", "spoken languages", "sprachen",
                  "sprachkenntnisse"),
    "certifications": ("certifications", "certificates", "certification", "licenses",
                       "licenses & certifications", "licenses and certifications",
                       "certifications & licenses", "courses & certifications",
                       "courses and certifications", "zertifikate", "zertifizierungen"),
    "projects": ("projects", "personal projects", "selected projects", "side projects",
                 "open source", "open source projects", "key projects", "projekte"),
    "awards": ("awards", "honors", "honours", "awards & honors", "awards and honors",
               "honors & awards", "honors and awards", "achievements", "selected honors",
               "awards & achievements", "auszeichnungen"),
    "volunteer": ("volunteer", "volunteering", "volunteer experience", "volunteer work",
                  "community", "ehrenamt"),
}  # fmt: skip
KNOWN = {phrase: kind for kind, phrases in _WORDS.items() for phrase in phrases}
# Sections a profile has no place for: their lines are listed as unplaced.
_OTHER = ("publications", "talks", "invited talks", "patents", "interests", "hobbies",
          "references", "memberships", "affiliations", "presentations", "teaching",
          "conferences", "activities", "extracurricular activities", "leadership")  # fmt: skip


def _normal(text: str) -> str:
    tokens = text.split()
    if len(tokens) > 3 and all(len(t) == 1 for t in tokens):  # "E X P E R I E N C E"
        text = "".join(tokens)
    text = re.sub(r"[^\w&]+", " ", text.casefold()).strip()
    return re.sub(r"\s+", " ", text)


def heading_kind(line: Line) -> str | None:
    """What section ``line`` opens ("other" for one the profile has no place for), or
    None when it is not a heading."""
    if line.bullet or len(line.text) > 60:
        return None
    words = _normal(line.text)
    if words in KNOWN and not any(not _date_or_blank(a) for a in line.aside):
        return KNOWN[words]
    if words in _OTHER:
        return "other"
    if line.heading and not line.aside and 0 < len(words.split()) <= 6:
        return "other"
    return None


def _date_or_blank(text: str) -> bool:
    return not text.strip()

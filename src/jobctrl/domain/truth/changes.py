"""What a repair did (``domain.truth.repair``): a ``Change`` at each place it repaired, with
the findings that caused it and their reasons in plain words; the ``Repaired`` document and
the share of its lines that was removed; how many lines a resume and a letter hold (what the
share counts, and what a check record says was read)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

from jobctrl.domain.materials import CoverLetter, TailoredResume
from jobctrl.domain.truth.document import Finding
from jobctrl.domain.truth.reasons import reason

__all__ = [
    "Action",
    "Change",
    "Repaired",
    "has_substance",
    "letter_lines",
    "reason",
    "resume_lines",
]

Action = Literal["removed", "replaced", "restored"]
D = TypeVar("D", TailoredResume, CoverLetter)


@dataclass(frozen=True)
class Change:
    """What the repair did at one place, and why (the findings there)."""

    where: str
    sentence: str  # what the document said there
    action: Action
    findings: tuple[Finding, ...]
    replacement: str = ""  # a replaced line's new text, a restored field's value

    @property
    def reasons(self) -> list[str]:
        return list(dict.fromkeys(reason(f.kind) for f in self.findings))


@dataclass(frozen=True)
class Repaired(Generic[D]):
    """A document with every unsupported place repaired, and what was done."""

    document: D
    changes: tuple[Change, ...]
    lines: int  # the lines the original document held
    removed: int  # of those, removed or replaced
    unrepaired: tuple[Finding, ...] = ()  # still flagged after every round (none expected)

    @property
    def share(self) -> float:
        return self.removed / self.lines if self.lines else 0.0

    @property
    def clean(self) -> bool:
        return not self.unrepaired


def resume_lines(resume: TailoredResume) -> int:
    """The lines a resume's check reads: the name, headline, each summary sentence, skill,
    entry, bullet, education entry and extra."""
    entries = resume.experience
    return (
        1
        + bool(resume.headline.text.strip())
        + len(resume.summary)
        + len(resume.skills)
        + len(entries)
        + sum(len(e.bullets) for e in entries)
        + len(resume.education)
        + len(resume.extras)
    )


def letter_lines(letter: CoverLetter) -> int:
    """The lines a letter's check reads: greeting, each sentence, closing and signature."""
    return 3 + sum(len(p.sentences) for p in letter.paragraphs)


def has_substance(document: TailoredResume | CoverLetter) -> bool:
    """Whether a document says something of the person: a resume with a role or a summary
    sentence, a letter with a sentence that cites the profile."""
    if isinstance(document, TailoredResume):
        return bool(document.experience or document.summary)
    return any(line.facts for p in document.paragraphs for line in p.sentences)

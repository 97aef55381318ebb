"""The truth-check corpus: profiles, cited documents built from them, and one change each.

Every document is a truthful base (a resume or a cover letter that restates the profile,
each line citing the facts it rests on, written per profile in its module) plus the edits
of one case. A fabrication case plants exactly one lie and says what it is and where
(``where``, a path into the document as ``domain.truth`` reports it); its lines cite what
a lying model would cite, the real fact it altered. A truthful case rewrites the base the
way a careful writer may: reordering, subsets, first-person paraphrase, aliases, other
date formats.

Facts are named symbolically in the tables and resolved to their stable ids here:
``name``, ``sum0`` (summary sentence 0), ``skill:Python``, ``exp1`` (experience entry 1),
``exp1.hl2`` (highlight 2 of entry 1), ``edu0``; ``id:<id>`` is an id taken literally.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Literal

import yaml

from jobctrl.domain.facts import (
    education_fact_id,
    experience_fact_id,
    profile_facts,
    summary_sentences,
)
from jobctrl.domain.profile import Profile

PROFILES_DIR = Path(__file__).parent / "profiles"
TODAY = date(2025, 9, 1)  # what "present" means for every duration in the corpus

Document = Literal["resume", "letter"]

# The kinds of lie the corpus plants (issue 11's list), and the resume fields and letter
# it plants them in.
FABRICATION_KINDS = (
    "employer",  # a new employer, in any field
    "title",  # a title not held
    "school",  # an institution not attended
    "degree",  # a degree not held
    "certification",
    "award",
    "skill",  # a skill outside the profile in the skills list
    "tool",  # a tool or technology added to a sentence
    "dates",  # shifted or invented dates
    "duration",  # "five years at X" when it was less
    "years",  # years of experience inflated
    "quantity",  # a number changed
    "quantity_swap",  # a number replaced with another number of the same profile
    "unit",  # the unit or magnitude changed (50M+ -> 50B+)
    "number_word",  # a number written as a word ("sixty")
    "claim",  # a claim word the fact does not carry (promoted, patent, published, led)
    "uncited",  # a candidate claim in a line that cites nothing
    "moved",  # a real highlight placed under another employer
    "unknown_fact",  # a citation of an id the profile does not have
    "name",  # the candidate's name changed
    # lies that cite the real fact they bend (issue 27, lies27.py)
    "invented",  # duties or domains no fact states, citing a real role
    "fusion",  # a number put with what another cited fact did
    "grade",  # a role verb above the fact's ("led" for "built")
    "about",  # "about N" with a figure the fact lacks ("about 55M" for 50M+)
    "duration_sum",  # years at one employer only the sum of the cited entries covers
    "entry_named",  # real work placed at another cited employer, title or place
)
FIELDS = (
    "name",
    "headline",
    "summary",
    "skills",
    "experience.title",
    "experience.company",
    "experience.dates",
    "experience.bullets",
    "experience",  # a whole new entry
    "education",
    "extras",
    "letter",
)
REWRITE_KINDS = (
    "control",  # the base document itself
    "reorder",
    "subset",
    "paraphrase",
    "alias",
    "dates",
    "quantity_form",  # the same quantity written another way (50M+ / 50 million)
    "merge",  # one sentence from two facts
    "years",  # years of experience restated or computed
    "skill_from_text",  # a skill a highlight names, listed though not in the skills list
    # issue 27's refusals, each adapted to a profile's facts (truth_corpus.paraphrase)
    "counted_verb",  # what a number counts ends before its verb ("that 60 people attend")
    "degree_spelled",  # a master's or doctorate spelled out ("Master of Science", "Ph.D.")
    "degree_generic",  # a bachelor's written generically or spelled out
    "range",  # a range or change in words ("from forty-eight to nineteen megabytes")
    "at_least",  # a rate or an "N+" restated ("100K RPS", "more than a million")
    "claim_synonym",  # a claim word for its near-synonym ("took first place" for "won")
    "about_job",  # an uncited sentence about the posting, the role or the reader
)


# -- lines and edits -------------------------------------------------------------------------


@dataclass(frozen=True)
class Line:
    """A cited line: its text and the symbolic names of the facts it cites."""

    text: str
    refs: tuple[str, ...] = ()


def cite(text: str, *refs: str) -> Line:
    return Line(text, refs)


Resolve = Callable[[str], str]
_STEP = re.compile(r"([a-z_]+)|\[(\d+)\]")


def _steps(path: str) -> list[str | int]:
    steps: list[str | int] = []
    for part in path.split("."):
        for name, index in _STEP.findall(part):
            steps.append(name if name else int(index))
    return steps


def _parent(doc: dict[str, Any], path: str) -> tuple[Any, str | int]:
    steps = _steps(path)
    node: Any = doc
    for step in steps[:-1]:
        node = node[step]
    return node, steps[-1]


def materialize(value: Any, resolve: Resolve) -> Any:
    """Lines become ``Cited`` dicts with resolved ids; entries' ``fact`` refs are resolved."""
    if isinstance(value, Line):
        return {"text": value.text, "facts": [resolve(r) for r in value.refs]}
    if isinstance(value, dict):
        out = {k: materialize(v, resolve) for k, v in value.items()}
        if out.get("fact"):
            out["fact"] = resolve(out["fact"])
        return out
    if isinstance(value, list | tuple):
        return [materialize(v, resolve) for v in value]
    return value


@dataclass(frozen=True)
class Sub:
    """Replace ``old`` (which must occur) with ``new`` in the text at ``path``."""

    path: str
    old: str
    new: str

    def apply(self, doc: dict[str, Any], resolve: Resolve) -> None:
        parent, key = _parent(doc, self.path)
        node = parent[key]
        text = node["text"] if isinstance(node, dict) else node
        if self.old not in text:
            raise ValueError(f"{self.path}: {self.old!r} not in {text!r}")
        text = text.replace(self.old, self.new, 1)
        if isinstance(node, dict):
            node["text"] = text
        else:
            parent[key] = text


@dataclass(frozen=True)
class Put:
    """Set the value at ``path`` (a Line, a string, a list or an entry)."""

    path: str
    value: Any

    def apply(self, doc: dict[str, Any], resolve: Resolve) -> None:
        parent, key = _parent(doc, self.path)
        parent[key] = materialize(self.value, resolve)


@dataclass(frozen=True)
class Add:
    """Insert ``value`` into the list at ``path`` (at the end unless ``at``)."""

    path: str
    value: Any
    at: int | None = None

    def apply(self, doc: dict[str, Any], resolve: Resolve) -> None:
        parent, key = _parent(doc, self.path)
        items = parent[key]
        items.insert(len(items) if self.at is None else self.at, materialize(self.value, resolve))


@dataclass(frozen=True)
class Keep:
    """Keep the items of the list at ``path`` in this order (a subset, a reordering)."""

    path: str
    order: tuple[int, ...]

    def apply(self, doc: dict[str, Any], resolve: Resolve) -> None:
        parent, key = _parent(doc, self.path)
        items = parent[key]
        parent[key] = [items[i] for i in self.order]


@dataclass(frozen=True)
class Cite:
    """Change what the line at ``path`` cites."""

    path: str
    refs: tuple[str, ...]

    def apply(self, doc: dict[str, Any], resolve: Resolve) -> None:
        parent, key = _parent(doc, self.path)
        parent[key]["facts"] = [resolve(r) for r in self.refs]


Edit = Sub | Put | Add | Keep | Cite


# -- cases -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    profile: str
    document: Document
    truthful: bool
    kind: str  # the kind of lie, or of rewrite
    where: str  # the lie's place in the document ("" for a truthful case)
    what: str  # what is wrong, or what was rewritten
    edits: tuple[Edit, ...]
    gap: str = ""  # a known checker gap kept on purpose (strict xfail): why
    number: int = 0

    @property
    def id(self) -> str:
        side = "lie" if not self.truthful else "ok"
        return f"{self.profile}-{self.document}-{side}-{self.number:02d}-{self.kind}"

    @property
    def field(self) -> str:
        """The resume field (or "letter") the lie is in."""
        if self.document == "letter":
            return "letter"
        top = _steps(self.where)[0] if self.where else ""
        if top == "experience":
            steps = _steps(self.where)
            if len(steps) == 2:
                return "experience"
            sub = str(steps[2])
            return "experience.dates" if sub in ("start", "end") else f"experience.{sub}"
        return str(top)

    @property
    def appended(self) -> bool:
        """The lie is added to a real sentence, which otherwise stays as it was."""
        return any(isinstance(e, Sub) and e.new.startswith(e.old[:-1]) for e in self.edits)


@dataclass
class Table:
    """One profile's cases, numbered as they are added."""

    profile: str
    cases: list[Case] = field(default_factory=list)

    def lie(
        self, document: Document, kind: str, where: str, what: str, *edits: Edit, gap: str = ""
    ) -> None:
        assert kind in FABRICATION_KINDS or gap, kind
        self.cases.append(
            Case(self.profile, document, False, kind, where, what, edits, gap, len(self.cases))
        )

    def ok(self, document: Document, kind: str, what: str, *edits: Edit) -> None:
        assert kind in REWRITE_KINDS, kind
        self.cases.append(
            Case(self.profile, document, True, kind, "", what, edits, "", len(self.cases))
        )


@dataclass(frozen=True)
class Spec:
    """What a profile's module gives: its target posting and its base documents' lines."""

    profile: str
    company: str  # the employer the letter is for
    role: str
    headline: Line
    extras: tuple[Line, ...]
    greeting: str
    letter: tuple[tuple[Line, ...], ...]  # paragraphs of sentences
    table: Table


# -- profiles, ids and base documents --------------------------------------------------------


@functools.cache
def load_profile(key: str) -> Profile:
    data = yaml.safe_load((PROFILES_DIR / f"{key}.yaml").read_text(encoding="utf-8"))
    return Profile.model_validate(data)


@functools.cache
def fact_ids(key: str) -> dict[str, str]:
    """Symbolic name -> fact id, for every fact of the profile."""
    profile = load_profile(key)
    facts = profile_facts(profile)
    names: dict[str, str] = {}
    by_text = {(f.kind, f.text): f.id for f in facts}
    names["name"] = by_text[("name", profile.name)]
    for i, sentence in enumerate(summary_sentences(profile.summary)):
        names[f"sum{i}"] = by_text[("summary", sentence)]
    for skill in profile.skills:
        names[f"skill:{skill}"] = by_text[("skill", skill)]
    for i, exp in enumerate(profile.experience):
        entry = experience_fact_id(exp)
        names[f"exp{i}"] = entry
        highlights = {f.text: f.id for f in facts if f.parent == entry}
        for j, bullet in enumerate(exp.bullets):
            names[f"exp{i}.hl{j}"] = highlights[bullet.strip()]
    for i, edu in enumerate(profile.education):
        names[f"edu{i}"] = education_fact_id(edu)
    return names


def resolver(key: str) -> Resolve:
    names = fact_ids(key)

    def resolve(ref: str) -> str:
        return ref[3:] if ref.startswith("id:") else names[ref]

    return resolve


def base_resume(spec: Spec) -> dict[str, Any]:
    """The profile restated in full, every line citing its fact."""
    profile = load_profile(spec.profile)
    resolve = resolver(spec.profile)
    summary = [cite(s, f"sum{i}") for i, s in enumerate(summary_sentences(profile.summary))]
    experience = [
        {
            "fact": f"exp{i}",
            "title": exp.title,
            "company": exp.company,
            "start": exp.start,
            "end": exp.end,
            "location": exp.location,
            "bullets": [cite(b.strip(), f"exp{i}.hl{j}") for j, b in enumerate(exp.bullets)],
        }
        for i, exp in enumerate(profile.experience)
    ]
    education = [{"fact": f"edu{i}", **edu.model_dump()} for i, edu in enumerate(profile.education)]
    return materialize(
        {
            "name": profile.name,
            "contact": profile.contact.model_dump(),
            "headline": spec.headline,
            "summary": summary,
            "skills": list(profile.skills),
            "experience": experience,
            "education": education,
            "extras": list(spec.extras),
        },
        resolve,
    )


def base_letter(spec: Spec) -> dict[str, Any]:
    profile = load_profile(spec.profile)
    return materialize(
        {
            "company": spec.company,
            "role": spec.role,
            "greeting": spec.greeting,
            "paragraphs": [{"sentences": list(p)} for p in spec.letter],
            "closing": "Kind regards,",
            "signature": profile.name,
        },
        resolver(spec.profile),
    )


def build(spec: Spec, case: Case) -> dict[str, Any]:
    """The case's document as plain data (validated into the model by the caller)."""
    doc = base_resume(spec) if case.document == "resume" else base_letter(spec)
    resolve = resolver(spec.profile)
    for edit in case.edits:
        edit.apply(doc, resolve)
    return doc


# -- places ----------------------------------------------------------------------------------


def _norm_where(where: str) -> str:
    return re.sub(r"\s+", "", where)


def same_place(expected: str, reported: str) -> bool:
    """``reported`` names the lie's place: the same path, or one containing or inside it
    ("experience[1]" for a changed "experience[1].start", and the reverse)."""
    a, b = _norm_where(expected), _norm_where(reported)
    if a == b:
        return True
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return long.startswith(short) and long[len(short)] in ".["

"""The truth check as a person reads it: a job's latest check (`jobctrl show`, the Job
page, ``GET /v1/jobs/{id}``) and each line of its current resume and letter beside the
profile facts it cites. Queries: they change nothing.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from jobctrl import config as config_file
from jobctrl.app.models import Timestamp, View
from jobctrl.domain.errors import JobctrlError
from jobctrl.domain.facts import Fact, fact_index
from jobctrl.domain.materials import (
    EDIT_RUN_PREFIX,
    Cited,
    CoverLetter,
    MaterialKind,
    MaterialState,
    TailoredResume,
)
from jobctrl.domain.profile import Profile
from jobctrl.domain.truth.reasons import reason
from jobctrl.home import Home
from jobctrl.store import jobs, materials, profiles, truth_checks
from jobctrl.store.store import Store

__all__ = [
    "CitedFact",
    "CitedLine",
    "DocumentCitations",
    "DocumentLine",
    "TruthCheckView",
    "TruthFinding",
    "TruthRepair",
    "latest_truth_check",
    "letter_lines",
    "material_citations",
    "resume_lines",
    "truth_check_view",
]


class TruthFinding(View):
    """An unsupported claim and the sentence it came from; ``where`` names the line,
    ``reason`` says in plain words why the profile does not support it."""

    where: str
    sentence: str
    kind: str
    claim: str
    reason: str


class TruthRepair(View):
    """What the repair did at one place: ``removed`` a line, ``replaced`` it with the
    closest supported one (``replacement``), or ``restored`` a field from the profile;
    ``reasons`` in plain words. ``document``: ``resume`` or ``letter``."""

    document: str
    where: str
    sentence: str
    action: str
    replacement: str
    reasons: list[str]


class TruthCheckView(View):
    """A recorded check of a resume (stage ``tailor``) or a letter (``cover``).
    ``passed``: the document was kept (its unsupported lines repaired; ``findings`` are
    what the check found in the model's answer). ``dropped``: the lines removed or
    replaced in the job's newest resume and letter (both stages), ``restored``: the
    fields put back as the profile has them; ``repairRequested``: the model was asked
    once to repair this document. ``edited``: the check of a person's edit (kept as
    written; while it has findings, approval waits)."""

    stage: str
    passed: bool
    edited: bool
    checked: int
    findings: list[TruthFinding]
    finding_count: int
    dropped: list[TruthRepair]
    restored: list[TruthRepair]
    repair_requested: bool
    generation: int
    attempt: int
    run_id: str
    profile_version: int | None
    checked_at: Timestamp


_DOCUMENT = {"tailor": "resume", "cover": "letter"}


def _repairs(rows: list[dict[str, Any]]) -> list[TruthRepair]:
    return [
        TruthRepair(
            document=_DOCUMENT.get(row["stage"], row["stage"]),
            where=str(c.get("where", "")),
            sentence=str(c.get("sentence", "")),
            action=str(c.get("action", "")),
            replacement=str(c.get("replacement", "")),
            reasons=[str(r) for r in c.get("reasons", [])],
        )
        for row in rows
        for c in row.get("changes") or []
    ]


def truth_check_view(
    row: dict[str, Any] | None, current: list[dict[str, Any]] | None = None
) -> TruthCheckView | None:
    """A recorded check: the stage, whether the document passed, how many lines were
    read, and each unsupported claim with the sentence it came from (``where`` names the
    line: ``summary[1]``, ``experience[0].bullets[2]``, ``paragraphs[1].sentences[0]``).
    ``current``: the newest check of each stage, whose repairs the view lists (by default
    this check's own)."""
    if row is None:
        return None
    repairs = _repairs([r for r in (current if current is not None else [row]) if r["passed"]])
    return TruthCheckView(
        stage=row["stage"],
        passed=bool(row["passed"]),
        edited=str(row["run_id"]).startswith(EDIT_RUN_PREFIX),
        checked=row["checked"],
        findings=[
            TruthFinding(
                where=str(f.get("where", "")),
                sentence=str(f.get("sentence", "")),
                kind=str(f.get("kind", "")),
                claim=str(f.get("claim", "")),
                reason=reason(str(f.get("kind", ""))),
            )
            for f in row["findings"] or []
        ],
        finding_count=row["finding_count"],
        dropped=[r for r in repairs if r.action != "restored"],
        restored=[r for r in repairs if r.action == "restored"],
        repair_requested=bool(row.get("repair_requested")),
        generation=row["generation"],
        attempt=row["attempt"],
        run_id=row["run_id"],
        profile_version=row["profile_version"],
        checked_at=row["created_at"],
    )


def latest_truth_check(store: Store, job_id: str) -> TruthCheckView | None:
    """The job's most recent check, Tailor's or Cover's (None before either ran), with
    what the repair did to its newest resume and letter."""
    current = truth_checks.latest_per_stage(store, job_id)
    return truth_check_view(current[0] if current else None, current)


# -- citations -----------------------------------------------------------------------------


def _current(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per kind, the generation the Job page shows: the draft awaiting a decision, else
    the approved one, else the newest."""

    def rank(row: dict[str, Any]) -> tuple[bool, bool, int]:
        state = row["state"]
        return (state == MaterialState.DRAFT, state == MaterialState.APPROVED, row["generation"])

    shown: dict[str, dict[str, Any]] = {}
    for row in sorted(rows, key=rank):
        shown[row["kind"]] = row  # the best-ranked of each kind comes last
    return shown


class DocumentLine(View):
    """A line of a resume or letter that can cite, with the fact ids it cites."""

    where: str
    text: str
    facts: list[str]


class CitedFact(View):
    """A cited profile fact (``kind`` and ``text`` None: not a fact of that version)."""

    id: str
    kind: str | None
    text: str | None


class CitedLine(View):
    """A line beside the profile facts it cites."""

    where: str
    text: str
    facts: list[CitedFact]


class DocumentCitations(View):
    """The current generation of one document, each line with its facts."""

    kind: str
    generation: int
    approval: str
    profile_version: int | None
    lines: list[CitedLine]


def _line(where: str, text: str, facts: list[str]) -> DocumentLine:
    return DocumentLine(where=where, text=text, facts=facts)


def _cited(where: str, line: Cited) -> DocumentLine:
    return _line(where, line.text, list(line.facts))


def resume_lines(resume: TailoredResume) -> list[DocumentLine]:
    """Each line of a resume that can cite: headline, summary sentences, entries, bullets
    and extras, with the ids it cites."""
    lines = []
    if resume.headline.text.strip():
        lines.append(_cited("headline", resume.headline))
    lines += [_cited(f"summary[{i}]", s) for i, s in enumerate(resume.summary)]
    for i, exp in enumerate(resume.experience):
        when = " – ".join(x for x in (exp.start, exp.end) if x)
        heading = f"{exp.title} at {exp.company}" + (f", {when}" if when else "")
        lines.append(_line(f"experience[{i}]", heading, [exp.fact] if exp.fact else []))
        lines += [_cited(f"experience[{i}].bullets[{j}]", b) for j, b in enumerate(exp.bullets)]
    for i, edu in enumerate(resume.education):
        what = ", ".join(x for x in (edu.degree, edu.field, edu.institution) if x)
        lines.append(_line(f"education[{i}]", what, [edu.fact] if edu.fact else []))
    lines += [_cited(f"extras[{i}]", e) for i, e in enumerate(resume.extras)]
    return lines


def letter_lines(letter: CoverLetter) -> list[DocumentLine]:
    """Each sentence of a letter with the ids it cites."""
    return [
        _cited(f"paragraphs[{i}].sentences[{j}]", sentence)
        for i, paragraph in enumerate(letter.paragraphs)
        for j, sentence in enumerate(paragraph.sentences)
    ]


def _document_lines(kind: str, content: Any) -> list[DocumentLine]:
    try:
        if kind == MaterialKind.RESUME:
            return resume_lines(TailoredResume.model_validate(content))
        return letter_lines(CoverLetter.model_validate(content))
    except ValidationError:  # a stored shape this version cannot read: nothing to show
        return []


def _profile(home: Home, store: Store, version: int | None) -> Profile | None:
    """The profile version a generation was written from (None when it cannot be read)."""
    try:
        if version is None:
            return config_file.load_config(home).profile
        return profiles.load_version(store, version)
    except JobctrlError:
        return None


def _fact_view(fact_id: str, index: dict[str, Fact]) -> CitedFact:
    fact = index.get(fact_id)
    if fact is None:  # not a fact of that profile version: shown as the bare id
        return CitedFact(id=fact_id, kind=None, text=None)
    return CitedFact(id=fact.id, kind=fact.kind, text=fact.text)


def material_citations(home: Home, ref: str) -> list[DocumentCitations]:
    """For the job's current resume and letter (the generation the Job page shows), each
    line beside the profile facts it cites, resolved in the profile version that
    generation was written from."""
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    shown = _current(materials.list_materials(store, job_id))
    indexes: dict[int | None, dict[str, Fact]] = {}
    documents: list[DocumentCitations] = []
    for kind in (MaterialKind.RESUME, MaterialKind.COVER):
        row = shown.get(kind.value)
        if row is None:
            continue
        version = row["profile_version"]
        if version not in indexes:
            profile = _profile(home, store, version)
            indexes[version] = fact_index(profile) if profile is not None else {}
        index = indexes[version]
        lines = [
            CitedLine(
                where=line.where,
                text=line.text,
                facts=[_fact_view(f, index) for f in line.facts],
            )
            for line in _document_lines(kind.value, row["content"])
        ]
        documents.append(
            DocumentCitations(
                kind=kind.value,
                generation=row["generation"],
                approval=row["state"],
                profile_version=version,
                lines=lines,
            )
        )
    return documents

"""Run the corpus through the truth check: each document's findings, whether a lie was
caught where it was planted, and the detection and false-alarm rates (the test and
bench/truth_check.py share these)."""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass

from jobctrl.demo.postings import generate_postings
from jobctrl.domain.materials import CoverLetter, TailoredResume
from jobctrl.domain.profile import Profile
from jobctrl.domain.truth.changes import Repaired
from jobctrl.domain.truth.claims import ClaimContext
from jobctrl.domain.truth.document import Finding, check_letter, check_resume
from jobctrl.domain.truth.repair import DEFAULT_MAX_DROPPED_SHARE, repair_letter, repair_resume
from jobctrl.fetch.extract import extract_posting
from jobctrl.llm.offline import score_offline
from jobctrl.llm.offline_materials import cover_offline, tailor_offline
from tests.unit.truth_corpus import CASES, SPECS
from tests.unit.truth_corpus.corpus import TODAY, Case, build, load_profile, same_place

BY_ID = {case.id: case for case in CASES}
FABRICATIONS = [c for c in CASES if not c.truthful and not c.gap]
GAPS = [c for c in CASES if c.gap]  # known checker gaps (strict xfail), not counted
TRUTHFUL = [c for c in CASES if c.truthful]


def context(profile: str) -> ClaimContext:
    """The letter's employer and role may be named citing nothing; "present" is TODAY."""
    spec = SPECS[profile]
    return ClaimContext(free_names=(spec.company, spec.role), today=TODAY)


def document(case: Case) -> TailoredResume | CoverLetter:
    doc = build(SPECS[case.profile], case)
    if case.document == "resume":
        return TailoredResume.model_validate(doc)
    return CoverLetter.model_validate(doc)


def check(case: Case, doc: TailoredResume | CoverLetter) -> list[Finding]:
    profile = load_profile(case.profile)
    if isinstance(doc, TailoredResume):
        return check_resume(doc, profile, context(case.profile))
    return check_letter(doc, profile, context(case.profile))


@functools.cache
def findings(case_id: str) -> tuple[Finding, ...]:
    case = BY_ID[case_id]
    return tuple(check(case, document(case)))


def control(case: Case) -> Case:
    """The case's base document, unchanged."""
    return next(
        c
        for c in TRUTHFUL
        if c.profile == case.profile and c.document == case.document and c.kind == "control"
    )


def caught_by(case: Case) -> list[Finding]:
    """The findings that name the lie: at its place, and not already raised on the base."""
    base = {(f.where, f.kind, f.claim) for f in findings(control(case).id)}
    return [
        f
        for f in findings(case.id)
        if same_place(case.where, f.where) and (f.where, f.kind, f.claim) not in base
    ]


def shown(found: tuple[Finding, ...] | list[Finding]) -> str:
    return "; ".join(f"{f.where} [{f.kind}] {f.claim!r}" for f in found) or "none"


def lie_text(case: Case) -> str:
    return f"{case.id} ({case.what}) at {case.where}"


@dataclass(frozen=True)
class Rates:
    detected: int
    missed: list[str]  # each miss: the lie and what the check found instead
    alarms: list[str]  # each false alarm: the rewrite and what the check found
    caught_by_kind: dict[str, str]

    @property
    def detection_rate(self) -> float:
        return self.detected / len(FABRICATIONS)

    @property
    def false_alarm_rate(self) -> float:
        return len(self.alarms) / len(TRUTHFUL)

    def report(self) -> str:
        lines = [
            f"truth corpus: {len(CASES)} documents from {len(SPECS)} profiles: "
            f"{len(FABRICATIONS)} fabrications, {len(TRUTHFUL)} truthful, "
            f"{len(GAPS)} known gaps (not counted)",
            f"detection {self.detected}/{len(FABRICATIONS)} = {self.detection_rate:.1%}; "
            f"false alarms {len(self.alarms)}/{len(TRUTHFUL)} = {self.false_alarm_rate:.1%}",
            "caught by kind: " + ", ".join(f"{k} {v}" for k, v in self.caught_by_kind.items()),
        ]
        lines += [f"  missed: {m}" for m in self.missed]
        lines += [f"  false alarm: {a}" for a in self.alarms]
        return "\n".join(lines)


def rates() -> Rates:
    missed = [c for c in FABRICATIONS if not caught_by(c)]
    alarms = [c for c in TRUTHFUL if findings(c.id)]
    by_kind = Counter(c.kind for c in FABRICATIONS)
    missed_by_kind = Counter(c.kind for c in missed)
    return Rates(
        detected=len(FABRICATIONS) - len(missed),
        missed=[f"{lie_text(c)}; found: {shown(findings(c.id))}" for c in missed],
        alarms=[f"{c.id} ({c.what}): {shown(findings(c.id))}" for c in alarms],
        caught_by_kind={
            k: f"{by_kind[k] - missed_by_kind[k]}/{by_kind[k]}" for k in sorted(by_kind)
        },
    )


# -- the offline writer's documents ----------------------------------------------------------


@dataclass(frozen=True)
class Posting:
    title: str
    company: str
    description: str


@functools.cache
def demo_postings(n: int, seed: int = 11) -> tuple[Posting, ...]:
    """``n`` of the demo site's generated postings, read as Enrich reads them."""
    out = []
    for path, page in generate_postings(n, seed=seed).items():
        posting = extract_posting(page, f"https://jobs.example{path}")
        out.append(Posting(posting.title or "", posting.company or "", posting.description))
    return tuple(out)


def offline_context(posting: Posting) -> ClaimContext:
    free = tuple(name for name in (posting.company, posting.title) if name)
    return ClaimContext(free_names=free, today=TODAY)


def offline_documents(
    profile: Profile, posting: Posting
) -> tuple[TailoredResume, CoverLetter, ClaimContext]:
    """What the offline provider writes for ``posting``: Score, then Tailor and Cover."""
    report = score_offline(posting.title, posting.description, profile, today=TODAY)
    resume = tailor_offline(profile, report, posting.title, posting.company)
    letter = cover_offline(profile, report, posting.title, posting.company)
    return resume, letter, offline_context(posting)


# -- repair ----------------------------------------------------------------------------------


@functools.cache
def repaired(case_id: str) -> Repaired[TailoredResume] | Repaired[CoverLetter]:
    """The case's document as the stage keeps it: each place its check flags repaired."""
    case = BY_ID[case_id]
    doc, found = document(case), list(findings(case_id))
    profile, ctx = load_profile(case.profile), context(case.profile)
    if isinstance(doc, TailoredResume):
        return repair_resume(doc, profile, ctx, found)
    spec = SPECS[case.profile]
    return repair_letter(doc, profile, ctx, found, company=spec.company, role=spec.role)


def refused_whole(case_id: str, max_share: float = DEFAULT_MAX_DROPPED_SHARE) -> bool:
    """The stage would not keep the document by cutting (it would ask the model once)."""
    done = repaired(case_id)
    return not done.clean or done.share > max_share


def repair_by_kind() -> dict[str, dict[str, int]]:
    """Per kind of lie or rewrite: documents, lies caught, documents that lost a line,
    documents too broken to keep by cutting."""
    table: dict[str, dict[str, int]] = {}
    for case in [*FABRICATIONS, *TRUTHFUL]:
        key = f"{'lie' if not case.truthful else 'ok'}:{case.kind}"
        row = table.setdefault(key, {"documents": 0, "caught": 0, "lost_a_line": 0, "refused": 0})
        row["documents"] += 1
        row["caught"] += bool(not case.truthful and caught_by(case))
        row["lost_a_line"] += bool(repaired(case.id).removed)
        row["refused"] += refused_whole(case.id)
    return dict(sorted(table.items()))

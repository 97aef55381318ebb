"""The truth check against the corpus (issue 11): every planted lie is caught where it was
planted, and truthful rewrites are accepted (false alarms at most 2%).

The corpus (``tests/unit/truth_corpus``) holds seven profiles and, for each, a truthful base
resume and cover letter with every line citing its facts, plus one change per document: a
fabrication (what a lying model writes, citing the real fact it altered) or a truthful
rewrite. ``test_detection_and_false_alarm_rates`` reports both rates whatever the outcome
(printed past pytest's capture, and in its assertion message).
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from jobctrl.demo.profile import DEMO_PROFILE
from jobctrl.domain.profile import Profile
from jobctrl.domain.truth.document import check_letter, check_resume
from tests.unit.truth_corpus import CASES, SPECS
from tests.unit.truth_corpus.corpus import (
    FABRICATION_KINDS,
    FIELDS,
    REWRITE_KINDS,
    build,
    load_profile,
)
from tests.unit.truth_corpus.evaluate import (
    BY_ID,
    FABRICATIONS,
    GAPS,
    TRUTHFUL,
    caught_by,
    control,
    demo_postings,
    findings,
    lie_text,
    offline_documents,
    rates,
    shown,
)

FALSE_ALARM_BAR = 0.02

# Truthful documents the checker rejects today, within the 2% bar: case id -> why.
KNOWN_FALSE_ALARMS: dict[str, str] = {}


# -- the corpus itself -----------------------------------------------------------------------


def test_the_corpus_has_the_size_and_spread_the_issue_asks_for() -> None:
    assert len(SPECS) >= 4
    assert len(CASES) >= 150
    assert len(FABRICATIONS) >= 100
    assert len(TRUTHFUL) >= 50
    kinds = Counter(c.kind for c in FABRICATIONS)
    assert set(FABRICATION_KINDS) <= set(kinds), set(FABRICATION_KINDS) - set(kinds)
    fields = Counter(c.field for c in FABRICATIONS)
    assert set(FIELDS) <= set(fields), set(FIELDS) - set(fields)
    assert sum(c.appended for c in FABRICATIONS) >= 20  # lies appended to real sentences
    assert set(REWRITE_KINDS) <= {c.kind for c in TRUTHFUL}
    for profile in SPECS:  # every profile has lies and rewrites in both documents
        for kind in ("resume", "letter"):
            assert any(c.profile == profile and c.document == kind for c in FABRICATIONS)
            assert any(c.profile == profile and c.document == kind for c in TRUTHFUL)


def test_the_truthful_rewrites_use_every_date_format() -> None:
    text = "\n".join(str(build(SPECS[c.profile], c)) for c in TRUTHFUL)
    month = "Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec"
    formats = {
        "Mar 2021": rf"\b({month}) \d{{4}}\b",
        "March 2021": r"\b(January|February|March|April|June|July|September|October) \d{4}\b",
        "2021-03": r"\b\d{4}-\d{2}\b",
        "03/2021": r"\b\d{2}/\d{4}\b",
        "Present": r"'Present'",
        "2021–present": r"\d{4}–present\b",
        "2018–2021": r"\b\d{4}–\d{4}\b",
    }
    missing = [name for name, pattern in formats.items() if not re.search(pattern, text)]
    assert not missing


def test_every_fabricated_line_cites_a_fact_unless_its_lie_is_citing_nothing() -> None:
    for case in FABRICATIONS:
        if case.kind in ("uncited", "name") or case.field.startswith(
            ("experience.", "education", "skills")
        ):
            continue
        node: object = build(SPECS[case.profile], case)
        for step in re.findall(r"[a-z_]+|\d+", case.where):
            node = node[int(step)] if step.isdigit() else node[step]  # type: ignore[index]
        if isinstance(node, dict) and "facts" in node:
            assert node["facts"], case.id


def test_each_fabrication_changes_its_base_document() -> None:
    for case in FABRICATIONS + GAPS:
        base = build(SPECS[case.profile], control(case))
        assert build(SPECS[case.profile], case) != base, case.id


# -- the check -------------------------------------------------------------------------------


@pytest.mark.parametrize("case_id", [c.id for c in FABRICATIONS])
def test_the_fabrication_is_caught_where_it_is(case_id: str) -> None:
    case = BY_ID[case_id]
    assert caught_by(case), f"missed: {lie_text(case)}; found: {shown(findings(case_id))}"


@pytest.mark.parametrize(
    "case_id",
    [pytest.param(c.id, marks=pytest.mark.xfail(reason=c.gap, strict=True)) for c in GAPS],
)
def test_a_known_gap_stays_known(case_id: str) -> None:
    assert caught_by(BY_ID[case_id])


@pytest.mark.parametrize(
    "case_id",
    [
        pytest.param(
            c.id,
            marks=[pytest.mark.xfail(reason=KNOWN_FALSE_ALARMS[c.id], strict=True)]
            if c.id in KNOWN_FALSE_ALARMS
            else [],
        )
        for c in TRUTHFUL
    ],
)
def test_the_truthful_rewrite_passes(case_id: str) -> None:
    found = findings(case_id)
    assert not found, f"false alarm on {case_id} ({BY_ID[case_id].what}): {shown(found)}"


def test_detection_and_false_alarm_rates(capsys: pytest.CaptureFixture[str]) -> None:
    figures = rates()
    report = figures.report()
    with capsys.disabled():
        print("\n" + report)
    assert figures.detection_rate == 1.0, report
    assert figures.false_alarm_rate <= FALSE_ALARM_BAR, report


# -- the offline writer ----------------------------------------------------------------------

OFFLINE_POSTINGS = 24  # demo postings per profile


def _offline_profile(name: str) -> Profile:
    return Profile.model_validate(DEMO_PROFILE) if name == "demo" else load_profile(name)


@pytest.mark.parametrize("profile", ["demo", *sorted(SPECS)])
def test_the_offline_writers_documents_pass(profile: str) -> None:
    """The offline provider cites by construction: its resume and letter for the demo
    profile and each corpus profile, for each of a few dozen demo postings, raise nothing
    (not counted in the rates above)."""
    person = _offline_profile(profile)
    refused = []
    for posting in demo_postings(OFFLINE_POSTINGS):
        resume, letter, context = offline_documents(person, posting)
        found = check_resume(resume, person, context) + check_letter(letter, person, context)
        if found:
            refused.append(f"{posting.title} at {posting.company}: {shown(found)}")
    assert not refused, refused

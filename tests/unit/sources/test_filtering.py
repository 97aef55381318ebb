"""filter_posting: one stable reason per rejected posting, and missing data never rejects."""

from __future__ import annotations

from typing import Any

import pytest

from jobctrl.domain.profile import TargetSearch
from jobctrl.sources.base import DiscoveredPosting
from jobctrl.sources.filtering import filter_posting, filter_postings, words


def _posting(title: str = "Senior Backend Engineer", **fields: Any) -> DiscoveredPosting:
    return DiscoveredPosting(
        source_kind="greenhouse",
        source_name="acme",
        url=f"https://acme.example/jobs/{abs(hash((title, tuple(fields.items()))))}",
        title=title,
        **fields,
    )


BACKEND = TargetSearch(titles=["Backend Engineer", "Platform Engineer"])


@pytest.mark.parametrize(
    ("posting", "target", "reason"),
    [
        # titles: every word of one target title must be in the posting title
        (_posting("Senior Backend Engineer (Python)"), BACKEND, None),
        (_posting("Back-end Engineer"), BACKEND, "title_not_targeted"),
        (_posting("Engineer, Platform Team"), BACKEND, None),
        (_posting("Backend Developer"), BACKEND, "title_not_targeted"),
        (_posting("BACKEND ENGINEER"), BACKEND, None),
        (_posting("Backend Engineers Guild Lead"), BACKEND, "title_not_targeted"),
        # exclusions win over targets
        (
            _posting("Backend Engineering Manager"),
            TargetSearch(titles=["Backend"], exclude_titles=["Manager"]),
            "title_excluded",
        ),
        (
            _posting("Senior Backend Engineer"),
            TargetSearch(exclude_titles=["Engineering Manager"]),
            None,
        ),
        # seniority from the title; a title without a level passes
        (_posting("Sr. Backend Engineer"), TargetSearch(seniority=["senior"]), None),
        (
            _posting("Staff Backend Engineer"),
            TargetSearch(seniority=["Senior"]),
            "seniority_not_targeted",
        ),
        (_posting("Backend Engineer"), TargetSearch(seniority=["senior"]), None),
        (
            _posting("Backend Intern"),
            TargetSearch(seniority=["senior", "staff"]),
            "seniority_not_targeted",
        ),
        (_posting("Jr Backend Engineer"), TargetSearch(seniority=["Junior"]), None),
        (_posting("Head of Engineering"), TargetSearch(seniority=["head", "director"]), None),
        # remote_only
        (_posting(remote=True), TargetSearch(remote_only=True), None),
        (_posting(remote=False), TargetSearch(remote_only=True), "not_remote"),
        (_posting(location="Berlin"), TargetSearch(remote_only=True), "not_remote"),
        (_posting(location="Remote, EU"), TargetSearch(remote_only=True), None),
        (_posting("Backend Engineer (Remote)"), TargetSearch(remote_only=True), None),
        (_posting(), TargetSearch(remote_only=True), None),  # unknown: kept
        # locations
        (_posting(location="Berlin, Germany"), TargetSearch(locations=["berlin"]), None),
        (_posting(location="Munich"), TargetSearch(locations=["Berlin"]), "location_not_targeted"),
        (_posting(location="Zürich"), TargetSearch(locations=["Zurich"]), None),
        (_posting(location="New York, NY"), TargetSearch(locations=["New York"]), None),
        (
            _posting(location="Newark"),
            TargetSearch(locations=["New York"]),
            "location_not_targeted",
        ),
        (_posting(location="Lisbon", remote=True), TargetSearch(locations=["Remote"]), None),
        (_posting(location="Remote"), TargetSearch(locations=["Berlin", "remote"]), None),
        (
            _posting(location="Remote"),
            TargetSearch(locations=["Berlin"]),
            "location_not_targeted",
        ),
        (_posting(), TargetSearch(locations=["Berlin"]), None),  # unknown: kept
        # keywords: any one, in the title or the description
        (
            _posting(description="We use Python and PostgreSQL."),
            TargetSearch(keywords=["postgresql", "go"]),
            None,
        ),
        (
            _posting(description="We use Java and Oracle."),
            TargetSearch(keywords=["Python"]),
            "keyword_missing",
        ),
        (
            _posting(description="Our stack: C++ and Node.js."),
            TargetSearch(keywords=["node.js"]),
            None,
        ),
        (
            _posting(description="Experience with machine learning pipelines."),
            TargetSearch(keywords=["Machine Learning"]),
            None,
        ),
        (
            _posting(description="Pythonic code."),
            TargetSearch(keywords=["python"]),
            "keyword_missing",
        ),
        (_posting("Python Engineer"), TargetSearch(keywords=["python"]), None),
        (_posting(), TargetSearch(keywords=["python"]), None),  # no description: kept
    ],
)
def test_filter_reasons(posting: DiscoveredPosting, target: TargetSearch, reason: str) -> None:
    assert filter_posting(posting, target) == reason


def test_empty_target_passes_everything() -> None:
    postings = [
        _posting("Junior Frontend Intern", location="Mars", remote=False, description="COBOL"),
        _posting("", location=None),
        _posting("Director of Sales"),
    ]

    accepted, dropped = filter_postings(postings, TargetSearch())

    assert accepted == postings
    assert dropped == {}


def test_checks_run_in_a_stable_order() -> None:
    target = TargetSearch(
        titles=["Backend Engineer"],
        exclude_titles=["Manager"],
        seniority=["senior"],
        remote_only=True,
        locations=["Berlin"],
        keywords=["python"],
    )

    assert filter_posting(_posting("Backend Engineering Manager"), target) == "title_excluded"
    assert filter_posting(_posting("Frontend Engineer", remote=False), target) == (
        "title_not_targeted"
    )
    assert filter_posting(_posting("Staff Backend Engineer", remote=False), target) == (
        "seniority_not_targeted"
    )
    assert filter_posting(_posting(location="Munich", remote=False), target) == "not_remote"
    assert filter_posting(_posting(location="Munich", remote=True), target) == (
        "location_not_targeted"
    )
    assert filter_posting(_posting(location="Berlin", remote=True, description="Go"), target) == (
        "keyword_missing"
    )


def test_filter_postings_counts_reasons() -> None:
    target = TargetSearch(titles=["Backend Engineer"], locations=["Berlin"])
    postings = [
        _posting("Backend Engineer", location="Berlin"),
        _posting("Data Scientist", location="Berlin"),
        _posting("Product Manager"),
        _posting("Backend Engineer", location="Paris"),
        _posting("Backend Engineer II"),
    ]

    accepted, dropped = filter_postings(postings, target)

    assert [p.title for p in accepted] == ["Backend Engineer", "Backend Engineer II"]
    assert dropped == {"title_not_targeted": 2, "location_not_targeted": 1}


def test_words_fold_case_accents_and_seniority_abbreviations() -> None:
    assert words("Sr. Développeur C++/C# (Node.js) – Zürich") == [
        "senior",
        "developpeur",
        "c++",
        "c#",
        "node.js",
        "zurich",
    ]

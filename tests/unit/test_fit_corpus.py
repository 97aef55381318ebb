"""The labelled fit corpus (tests/fixtures/fit) scored by the offline scorer: the figures
may only get better. bench/fit.py prints the same evaluation in full.

The floors below are the figures measured when they were last raised; whoever improves the
scorer raises them (run ``.venv/bin/python bench/fit.py`` and copy the overall line).
Goals (issue 29): pairwise accuracy ≥ 0.90, no ``no`` pair verdicted "Strong fit", no
``strong`` pair below min_fit_score.
"""

from __future__ import annotations

from collections import Counter

import pytest

from jobctrl.domain.profile import Profile
from jobctrl.domain.scoring import ScoreReport
from jobctrl.llm.offline import score_offline
from tests.fixtures.fit.corpus import (
    TODAY,
    Scored,
    figures,
    load_labels,
    load_postings,
    load_profiles,
    score_all,
)

# ---- Floors: raise them as the scorer improves (never lower them to let a change in). ----
# Second review's labels (labels.yaml); 0.755 and 17 of 24 under the first review's at
# 8357a63, 0.896 and 12 of 24 under them now (bench/fit.py --first-review).
PAIRWISE_ACCURACY_FLOOR = 0.90  # overall, over 1,464 comparable pairs (0.901)
MAX_NO_PAIRS_VERDICTED_STRONG_FIT = 0  # of 128 `no` pairs
MAX_STRONG_PAIRS_BELOW_MIN_FIT_SCORE = 1  # of 10 `strong` pairs
# -------------------------------------------------------------------------------------------


def _offline(title: str, description: str, profile: Profile) -> ScoreReport:
    return score_offline(title, description, profile, today=TODAY)


@pytest.fixture(scope="module")
def scored() -> list[Scored]:
    return score_all(_offline)


def test_the_corpus_has_enough_real_profiles_postings_and_labels_of_each_class() -> None:
    profiles, postings, labels = load_profiles(), load_postings(), load_labels()
    assert len(profiles) >= 5
    assert len(postings) >= 30
    assert len(labels) >= 150
    classes = Counter(label.label for label in labels)
    assert set(classes) == {"strong", "maybe", "no"}
    # The second, blind review left 10 strong pairs (14 of the first 24 lacked a must-have).
    assert min(classes.values()) >= 10, classes
    assert all(lb.first in (None, "strong", "maybe", "no") for lb in labels)
    assert {label.factor for label in labels} <= {"level", "family", "must-have", "skills"}
    assert all(label.reason for label in labels)
    pairs = [(label.profile, label.posting) for label in labels]
    assert len(pairs) == len(set(pairs)), "a pair is labelled twice"
    assert {label.profile for label in labels} == set(profiles)
    assert {label.posting for label in labels} <= set(postings)
    for posting in postings.values():
        assert posting.source.startswith("https://github.com/"), posting.key
        assert posting.title and len(posting.description) > 200, posting.key


def test_pairwise_ordering_accuracy_does_not_fall_below_its_floor(scored: list[Scored]) -> None:
    assert figures(scored).pairwise_accuracy >= PAIRWISE_ACCURACY_FLOOR


def test_no_more_no_pairs_are_verdicted_strong_fit_than_the_floor(scored: list[Scored]) -> None:
    found = figures(scored).no_strong_fit
    assert len(found) <= MAX_NO_PAIRS_VERDICTED_STRONG_FIT, found


def test_no_more_strong_pairs_fall_below_min_fit_score_than_the_floor(
    scored: list[Scored],
) -> None:
    found = figures(scored).strong_below_min
    assert len(found) <= MAX_STRONG_PAIRS_BELOW_MIN_FIT_SCORE, found

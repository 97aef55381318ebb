"""The model scorer on the labelled fit corpus against a careless model (a loopback
OpenAI-compatible server that claims every requirement met on evidence the profile does not
hold, ignores level and says "Strong fit"), settled by code as the Score stage settles it:
what the code corrects may only grow. ``bench/fit.py --model`` prints the whole corpus.

A sample keeps it quick: for each profile, the first ``PER_LABEL`` pairs of each label
in labels.yaml. The ceilings below are what the code let through when they were last
lowered; whoever adds a model-side check lowers them (goal: none).
"""

from __future__ import annotations

from collections import Counter

from tests.fixtures.fit.careless import careless_model_run
from tests.fixtures.fit.corpus import Label, figures, load_labels

PER_LABEL = 1  # pairs of each label per profile: 18 in all

# ---- Ceilings: lower them as the model-side checks improve (never raise them). ----------
# The model's claimed evidence is checked against the profile (supported_by_profile): a
# careless model that quotes the posting as evidence earns nothing on it, so its strong
# pairs score low too (before that check: 6 of 6 `no` pairs Strong fit, 144 of 144 claims
# met on evidence not in the profile).
MAX_NO_PAIRS_VERDICTED_STRONG_FIT = 0  # of the sample's 6 `no` pairs
MAX_MEAN_SCORE = 10  # of a model that proves nothing
MAX_REQUIREMENTS_MET_ON_EVIDENCE_NOT_IN_THE_PROFILE = 0  # cited facts not about it (issue 31)
# -------------------------------------------------------------------------------------------


def sample() -> list[Label]:
    taken: Counter[tuple[str, str]] = Counter()
    chosen = []
    for label in load_labels():
        key = (label.profile, label.label)
        if taken[key] < PER_LABEL:
            taken[key] += 1
            chosen.append(label)
    return chosen


def test_a_careless_models_claims_are_held_to_the_ceilings() -> None:
    labels = sample()
    run = careless_model_run(labels)
    found = figures(run.scored)
    assert len(run.scored) == len(labels)
    assert len(found.no_strong_fit) <= MAX_NO_PAIRS_VERDICTED_STRONG_FIT, found.no_strong_fit
    assert sum(row.score for row in run.scored) / len(run.scored) <= MAX_MEAN_SCORE
    assert run.unsupported_met <= MAX_REQUIREMENTS_MET_ON_EVIDENCE_NOT_IN_THE_PROFILE

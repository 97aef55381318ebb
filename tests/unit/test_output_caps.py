"""Each lane's output cap (``llm.lanes.MAX_OUTPUT_TOKENS``) against the answers its schema
holds: a careful model's answer (the offline scorer's and writer's documents as answers,
``llm.answers``) for every posting of tests/fixtures/fit/postings and the demo's profile,
in tokens (characters ÷ 4; bench/output_modes.py prints the figures). A schema that grows
its answers past the cap's headroom fails here, before a provider cuts them off (billed,
``provider_output_truncated``)."""

from __future__ import annotations

import json
from datetime import date
from functools import cache

from jobctrl.demo.profile import DEMO_PROFILE
from jobctrl.domain.profile import Profile
from jobctrl.llm.answers import answer_from_letter, answer_from_report, answer_from_resume
from jobctrl.llm.lanes import MAX_OUTPUT_TOKENS
from jobctrl.llm.offline import score_offline
from jobctrl.llm.offline_materials import cover_offline, tailor_offline
from tests.fixtures.fit.corpus import load_postings

TODAY = date(2026, 12, 1)


@cache
def _answer_tokens() -> dict[str, list[int]]:
    profile = Profile.model_validate(DEMO_PROFILE)
    sizes: dict[str, list[int]] = {"score": [], "tailor": [], "cover": []}
    for posting in load_postings().values():
        report = score_offline(posting.title, posting.description, profile, today=TODAY)
        answers = {
            "score": answer_from_report(report, profile),
            "tailor": answer_from_resume(
                tailor_offline(profile, report, posting.title, posting.company)
            ),
            "cover": answer_from_letter(
                cover_offline(profile, report, posting.title, posting.company)
            ),
        }
        for lane, answer in answers.items():
            sizes[lane].append(len(json.dumps(answer.model_dump(mode="json"))) // 4)
    return sizes


def test_each_cap_holds_a_careful_answer_with_room_to_spare() -> None:
    sizes = _answer_tokens()
    assert len(sizes["score"]) >= 50
    # Writing lanes: a model writes fuller than the offline writer (a 350-word letter is
    # about 900 tokens as cited JSON; a two-page resume about three times the demo's).
    assert max(sizes["tailor"]) * 3 <= MAX_OUTPUT_TOKENS["tailor"]
    assert max(sizes["cover"]) * 3 <= MAX_OUTPUT_TOKENS["cover"]
    # Score's answer grows with the posting's requirements: 95 in 100 fit with 1.5x to
    # spare; the longest (25 requirements, each retyped) may be cut, and is billed once.
    ordered = sorted(sizes["score"])
    p95 = ordered[round(0.95 * (len(ordered) - 1))]
    assert p95 * 1.5 <= MAX_OUTPUT_TOKENS["score"]
    assert sum(size > MAX_OUTPUT_TOKENS["score"] for size in ordered) <= len(ordered) // 20


def test_no_cap_is_far_above_what_its_answers_need() -> None:
    """A cap is also what each call reserves against the daily budget (at the output
    price): one far above its answers holds budget no answer uses."""
    sizes = _answer_tokens()
    for lane in ("score", "tailor", "cover"):
        ordered = sorted(sizes[lane])
        median = ordered[len(ordered) // 2]
        assert MAX_OUTPUT_TOKENS[lane] <= 8 * median, lane

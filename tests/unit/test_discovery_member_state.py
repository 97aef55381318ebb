"""A discovery plan member's state from what the store knows (domain/discovery.py):
waiting only with evidence of a queue, unknown without any, never the other way round."""

from __future__ import annotations

import pytest

from jobctrl.domain.discovery import MemberFacts, member_state


def facts(**changes) -> MemberFacts:
    base = dict(
        plan_state="planned",
        discovering=False,
        prep_status="running",
        prep_is_the_runs=True,
        existed_before=False,
        hidden=False,
        closed=False,
        stages={"enrich": ("succeeded", None, False), "score": ("pending", None, False)},
    )
    return MemberFacts(**{**base, **changes})


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({}, ("queued", None, None)),
        ({"stages": {"enrich": ("pending", None, False)}}, ("planned", None, None)),
        ({"stages": {"score": ("running", None, False)}}, ("running", None, None)),
        ({"plan_state": "pending", "discovering": True}, ("waiting", None, None)),
        ({"plan_state": "pending", "discovering": False}, ("unknown", None, None)),
        ({"prep_status": None}, ("unknown", None, None)),
        ({"prep_status": "reconciled_not_found"}, ("unknown", None, None)),
        (
            {"stages": {"score": ("failed", "budget_exceeded", False)}},
            ("waiting", None, None),
        ),
        ({"prep_status": "completed"}, ("done", None, None)),
        (
            {"prep_status": "failed", "stages": {"enrich": ("failed", "ENRICH_TIMEOUT", True)}},
            ("done", None, "ENRICH_TIMEOUT"),
        ),
        (
            {"prep_status": "completed", "existed_before": True, "prep_is_the_runs": False},
            ("not_eligible", "duplicate", None),
        ),
        ({"hidden": True}, ("not_eligible", "hidden", None)),
        ({"closed": True}, ("not_eligible", "closed", None)),
        (
            {"stages": {"tailor": ("skipped", "POSTING_EXPIRED", False)}},
            ("not_eligible", "closed", None),
        ),
        (
            {"stages": {"tailor": ("skipped", "MIN_SCORE", False)}, "prep_status": "completed"},
            ("not_eligible", "below_threshold", None),
        ),
    ],
)
def test_member_state(changes, expected):
    state, reason, code = member_state(facts(**changes))
    assert (state.value, reason.value if reason else None, code) == expected

"""The operations snapshot's phase and how a failed stage row counts."""

from __future__ import annotations

import pytest

from jobctrl.domain.operations import Phase, RowClass, classify_failed, phase


@pytest.mark.parametrize(
    ("status", "remaining", "issues", "expected"),
    [
        (None, 0, 0, Phase.IDLE),
        ("running", 0, 0, Phase.DISCOVERING),
        ("running", 5, 3, Phase.DISCOVERING),
        ("completed", 2, 0, Phase.DRAINING),
        ("partial", 1, 0, Phase.DRAINING),
        ("completed", 0, 0, Phase.COMPLETED),
        ("completed", 0, 1, Phase.COMPLETED_WITH_ISSUES),
        ("partial", 0, 0, Phase.COMPLETED_WITH_ISSUES),
        ("failed", 4, 0, Phase.FAILED),
        ("canceled", 4, 0, Phase.CANCELED),
        ("reconciled_not_found", 0, 0, Phase.FAILED),
    ],
)
def test_phase(status: str | None, remaining: int, issues: int, expected: Phase) -> None:
    assert phase(status, remaining=remaining, issues=issues) is expected


RULES = {"non_retryable": frozenset({"provider_auth"}), "max_auto_attempts": 3}


@pytest.mark.parametrize(
    ("code", "retryable", "auto", "expected"),
    [
        ("ENRICH_TIMEOUT", True, 0, RowClass.RETRY),
        ("ENRICH_TIMEOUT", True, 3, RowClass.FAILED),  # automatic attempts exhausted
        ("ENRICH_TIMEOUT", False, 0, RowClass.FAILED),
        ("provider_auth", True, 0, RowClass.FAILED),  # never retried automatically
        ("canceled", True, 0, RowClass.FAILED),
        ("budget_exceeded", False, 0, RowClass.BLOCKED),
        ("config_invalid", False, 0, RowClass.BLOCKED),
        ("automation_paused", True, 0, RowClass.BLOCKED),
        (None, None, 0, RowClass.FAILED),
    ],
)
def test_failed_rows(
    code: str | None, retryable: bool | None, auto: int, expected: RowClass
) -> None:
    assert classify_failed(code, retryable, auto, **RULES) is expected

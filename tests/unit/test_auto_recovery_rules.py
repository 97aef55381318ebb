"""Automatic recovery's rules (domain/recovery.py): backoff, the attempt cap, the codes it
never retries, and the cohort's workflow id."""

from __future__ import annotations

import inspect
import typing
from datetime import UTC, datetime, timedelta

import pytest

from jobctrl.domain import errors
from jobctrl.domain import recovery as rules
from jobctrl.workflows import activity_defs
from jobctrl.workflows.recovery_activities import RecoveryActivities

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("attempts", "seconds"), [(0, 60), (1, 120), (2, 240), (3, 480), (4, 960), (5, 1800), (9, 1800)]
)
def test_backoff_doubles_from_a_minute_up_to_half_an_hour(attempts, seconds) -> None:
    assert rules.backoff_seconds(attempts) == seconds


def test_a_shrunk_base_shrinks_the_cap_with_it() -> None:
    assert rules.backoff_seconds(0, base=0.5) == 0.5
    assert rules.backoff_seconds(2, base=0.5) == 2.0
    assert rules.backoff_seconds(9, base=0.5) == 15.0  # 1800 * 0.5 / 60


@pytest.mark.parametrize(("limit", "cap"), [(1, 1), (3, 3), (5, 5), (10, 5)])
def test_automatic_attempts_are_the_stage_limit_at_most_five(limit, cap) -> None:
    assert rules.max_auto_attempts(limit) == cap


def test_a_failure_is_due_once_its_backoff_has_passed() -> None:
    code = errors.PROVIDER_UNAVAILABLE
    assert not rules.is_due(T0 + timedelta(seconds=59), T0, 0, code)
    assert rules.is_due(T0 + timedelta(seconds=60), T0, 0, code)
    assert not rules.is_due(T0 + timedelta(seconds=119), T0, 1, code)
    assert rules.is_due(T0 + timedelta(seconds=120), T0, 1, code)


def test_a_row_stopped_by_a_paused_lane_waits_for_no_backoff() -> None:
    assert rules.is_due(T0, T0, 3, errors.AUTOMATION_PAUSED)


@pytest.mark.parametrize(
    "code",
    [
        errors.CONFIGURATION,
        errors.PROVIDER_AUTH,
        errors.MISSING_INPUT,
        errors.DETAIL_UNSAFE_URL,
        errors.ENRICH_ROBOTS_DISALLOWED,
        errors.ENRICH_HTTP_NOT_FOUND,
        errors.TAILOR_FABRICATION,
        errors.COVER_FABRICATION,
        errors.CANCELED,
        errors.BUDGET_EXCEEDED,
        errors.CONFIG_INVALID,
    ],
)
def test_codes_a_later_attempt_cannot_fix_are_never_retried(code) -> None:
    assert not rules.retryable_code(code, True)


@pytest.mark.parametrize(
    "code",
    [
        errors.PROVIDER_UNAVAILABLE,
        errors.PROVIDER_RATE_LIMITED,
        errors.STAGE_INTERRUPTED,
        errors.ENRICH_TIMEOUT,
        errors.ENRICH_HTTP_SERVER_ERROR,
        errors.AUTOMATION_PAUSED,
    ],
)
def test_passing_failures_are_retried(code) -> None:
    assert rules.retryable_code(code, True)
    assert not rules.retryable_code(code, False)  # the row's own verdict counts too


def test_the_cohort_id_is_a_digest_of_the_frozen_cohort() -> None:
    members = [("b" * 12, 3, 0), ("a" * 12, 2, 1)]
    wid = rules.cohort_workflow_id("score", members, T0, "local")
    assert wid.startswith("prepare-auto-local-score-") and len(wid.rsplit("-", 1)[1]) == 24
    assert wid == rules.cohort_workflow_id("score", list(reversed(members)), T0, "local")
    assert wid != rules.cohort_workflow_id(
        "score", [("a" * 12, 2, 2), ("b" * 12, 3, 0)], T0, "local"
    )
    assert wid != rules.cohort_workflow_id("score", members, T0 + timedelta(seconds=1), "local")


@pytest.mark.parametrize("declared", activity_defs.RECOVERY, ids=lambda f: f.__name__)
def test_each_recovery_activity_is_implemented_with_the_declared_types(declared) -> None:
    name = declared.__temporal_activity_definition.name
    found = {
        getattr(m, "__temporal_activity_definition").name: m
        for _, m in inspect.getmembers(RecoveryActivities, inspect.isfunction)
        if hasattr(m, "__temporal_activity_definition")
    }
    assert name in found
    want = typing.get_type_hints(declared)
    assert list(typing.get_type_hints(found[name]).values()) == list(want.values())


def test_a_pending_enrich_waits_its_backoff_a_later_pending_stage_its_grace() -> None:
    """A pending Enrich left by a preparation that ended unclaimed is retried like a
    failure at its last change (backoff, doubling per automatic attempt); a later pending
    stage after the grace."""
    assert not rules.pending_due(T0 + timedelta(seconds=59), "enrich", T0, 0)
    assert rules.pending_due(T0 + timedelta(seconds=60), "enrich", T0, 0)
    assert not rules.pending_due(T0 + timedelta(seconds=119), "enrich", T0, 1)
    assert rules.pending_due(T0 + timedelta(seconds=30), "score", T0, 0)
    assert not rules.pending_due(T0 + timedelta(seconds=29), "tailor", T0, 3)


def test_a_cohort_holds_the_smaller_of_its_workers_and_its_unfinished_members() -> None:
    assert rules.cohort_share(3, 10) == 3
    assert rules.cohort_share(3, 1) == 1
    assert rules.cohort_share(3, 0) == 0  # every member finished: it holds nothing
    assert rules.cohort_share(None, 10) == rules.LEGACY_WORKERS  # saved before the setting


def test_a_new_cohort_gets_only_what_the_shared_setting_leaves() -> None:
    assert rules.remaining_workers(1, []) == 1
    assert rules.remaining_workers(4, [3]) == 1
    assert rules.remaining_workers(4, [3, 1]) == 0  # no dispatch this beat
    assert rules.remaining_workers(2, [2, 2]) == 0  # never negative, never multiplied


@pytest.mark.parametrize(
    ("stage", "status", "vetoed"),
    [
        ("tailor", "abandoned", True),
        ("cover", "abandoned", True),
        ("score", "abandoned", False),  # Enrich/Score are unchanged
        ("enrich", "abandoned", False),
        ("pdf", "abandoned", False),
        ("tailor", "draft", False),
        ("tailor", "sent", False),
        ("tailor", None, False),  # no application yet
    ],
)
def test_only_an_abandoned_application_vetoes_automatic_tailor_and_cover(
    stage, status, vetoed
) -> None:
    assert rules.vetoed(stage, status) is vetoed

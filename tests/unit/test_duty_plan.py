"""Which duties the lease holder runs for which tenant this beat (worker/duty_plan.py): the
census's answer, the worker's own tenant, changed settings, the queue's listing and the
schedule's rotation."""

from __future__ import annotations

from jobctrl.domain.duties import EVERY_DUTY, Duty
from jobctrl.store.census import Census
from jobctrl.worker.duty_plan import DutyPlan
from jobctrl.workflows.starts import ObservedRun

NAMES = ["local", "acme", "beta", "gamma", "delta"]


def _census(duties=None, changed=(), auto_apply=()) -> Census:
    return Census(duties or {}, frozenset(changed), frozenset(auto_apply), seq=7)


def _run(workflow_id: str) -> ObservedRun:
    return ObservedRun(workflow_id, "run-1", "ApplyWorkflow", None)


def test_only_the_tenants_with_work_get_duties_and_only_theirs() -> None:
    plan = DutyPlan(rotation=0)
    found = _census({"beta": frozenset({Duty.INTENTS}), "gone": frozenset({Duty.STOPS})})

    due = plan.plan(found, NAMES, {}, "local")

    assert due == {"local": EVERY_DUTY, "beta": {Duty.INTENTS}}  # a tenant since removed: no


def test_a_tenant_whose_settings_changed_runs_every_duty_once() -> None:
    plan = DutyPlan(rotation=0)
    due = plan.plan(_census(changed={"gamma"}), NAMES, {}, "local")
    assert due["gamma"] == EVERY_DUTY


def test_the_listing_calls_for_adoption_and_orphans_and_the_apply_loop() -> None:
    plan = DutyPlan(rotation=0)
    parts = {
        "acme": [_run("apply-auto-acme")],  # on and running: nothing to do for the loop
        "beta": [_run("apply-auto-beta")],  # off and running: to be cancelled
        "gamma": [],  # on and not running: to be started (or its failure said)
        "delta": [_run("prep-delta-0123456789abcdef")],
    }
    due = plan.plan(_census(auto_apply={"acme", "gamma"}), NAMES, parts, "local")

    assert due["acme"] == {Duty.ORPHANS}  # what runs is compared with the store
    assert due["beta"] == {Duty.ORPHANS, Duty.APPLY_LOOP}
    assert due["gamma"] == {Duty.APPLY_LOOP}
    assert due["delta"] == {Duty.ORPHANS}


def test_with_the_server_away_a_loop_that_should_run_is_still_reconciled() -> None:
    due = DutyPlan(rotation=0).plan(_census(auto_apply={"acme"}), NAMES, None, "local")
    assert due["acme"] == {Duty.APPLY_LOOP}  # it meets (and says) the server away


def test_the_rotation_reconciles_every_tenants_schedule_in_turn() -> None:
    plan = DutyPlan(rotation=3)
    seen: list[list[str]] = []
    for _ in range(3):
        due = plan.plan(_census(), NAMES, {}, "local")
        assert all(due[t] == {Duty.SCHEDULE} for t in due if t != "local")
        seen.append([t for t in due if t != "local"])

    assert seen == [
        ["acme", "beta", "gamma"],
        ["acme", "beta", "delta"],
        ["acme", "gamma", "delta"],
    ]

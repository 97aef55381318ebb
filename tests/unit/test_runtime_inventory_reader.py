"""The runtime inventory's reader and rules: fresh / stale / unavailable, zero only when
fresh, one home and one task queue, the oldest 20 items with labels, the exact-run job
join (and the manual URL import), duration merging, and what the interceptor keeps."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

from sqlalchemy import update

from jobctrl.domain import runtime as rules
from jobctrl.domain.events import WorkflowStarted
from jobctrl.store import jobs, runtime, schema
from jobctrl.worker.inventory import RuntimeInventory
from jobctrl.workflows import activity_defs

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
HOME = "a" * 32
RUN = "0195b0c4-1111-7000-8000-000000000001"


def _row(worker: str, *, beat_at=NOW, queue="q1", home=HOME, items=(), slots=None, **extra):
    items = list(items)
    return {
        "worker_id": worker,
        "home_id": home,
        "task_queue": queue,
        "started_at": NOW - timedelta(hours=1),
        "beat_at": beat_at,
        "interval_seconds": 15.0,
        "active_slots": len(items) if slots is None else slots,
        "capacity": 16,
        "items_total": len(items),
        "items": items,
        "durations": {},
        "queue": None,
        **extra,
    }


def _item(n: int, kind="score", wid="prep-x", run=RUN) -> dict:
    return {
        "kind": kind,
        "workflowId": wid,
        "runId": run,
        "key": rules.item_key(wid, str(n), 1),
        "startedAt": (NOW - timedelta(seconds=1000 - n)).isoformat(),
    }


def test_no_row_is_unavailable_and_unknown(store) -> None:
    view = runtime.read_runtime(store, NOW, home_id=HOME)
    assert view.state == "unavailable"
    assert (view.active_slots, view.capacity, view.items_total) == (None, None, None)
    assert view.items == [] and view.workers == 0 and view.beat_at is None


def test_fresh_empty_is_zero(store) -> None:
    runtime.publish(store, _row("w1", beat_at=NOW - timedelta(seconds=40)))
    view = runtime.read_runtime(store, NOW, home_id=HOME)
    assert view.state == "fresh"
    assert (view.active_slots, view.capacity, view.items_total) == (0, 16, 0)
    assert view.items == [] and not view.truncated and view.workers == 1


def test_stale_is_unknown_never_zero(store) -> None:
    runtime.publish(store, _row("w1", beat_at=NOW - timedelta(seconds=46), items=[_item(1)]))
    view = runtime.read_runtime(store, NOW, home_id=HOME)
    assert view.state == "stale"
    assert (view.active_slots, view.capacity, view.items_total) == (None, None, None)
    assert view.items == [] and view.workers == 0
    assert view.beat_at == NOW - timedelta(seconds=46)


def test_freshness_window_is_three_intervals_at_least_ten_seconds() -> None:
    assert rules.is_fresh(NOW - timedelta(seconds=9.9), 0.5, NOW)
    assert not rules.is_fresh(NOW - timedelta(seconds=10.1), 0.5, NOW)
    assert rules.is_fresh(NOW - timedelta(seconds=45), 15, NOW)
    assert not rules.is_fresh(NOW - timedelta(seconds=45.1), 15, NOW)


def test_other_homes_and_older_queues_are_left_out(store) -> None:
    runtime.publish(store, _row("mine", items=[_item(1)]))
    runtime.publish(store, _row("foreign", home="b" * 32, items=[_item(2), _item(3)]))
    runtime.publish(
        store, _row("old-queue", queue="q0", beat_at=NOW - timedelta(seconds=5), slots=4)
    )
    view = runtime.read_runtime(store, NOW, home_id=HOME)
    assert view.state == "fresh" and view.workers == 1
    assert view.active_slots == 1 and view.capacity == 16
    assert [i.key for i in view.items] == [_item(1)["key"]]


def test_fresh_workers_add_up_and_items_are_the_oldest_twenty(store) -> None:
    first = [_item(n) for n in range(0, 30, 2)]  # 15 items
    second = [_item(n, kind="tailor") for n in range(1, 30, 2)]  # 15 items
    runtime.publish(store, _row("w1", items=first[:20], slots=16, items_total=15))
    runtime.publish(store, _row("w2", items=second, slots=15, items_total=15))
    runtime.publish(store, _row("w3", beat_at=NOW - timedelta(minutes=5), slots=9))  # stale
    view = runtime.read_runtime(store, NOW, home_id=HOME)
    assert view.workers == 2 and view.active_slots == 31 and view.capacity == 32
    assert view.items_total == 30 and len(view.items) == 20 and view.truncated
    starts = [i.started_at for i in view.items]
    assert starts == sorted(starts) and starts[0] == _item(0)["startedAt"]
    assert {i.label for i in view.items} == {"Score", "Tailor"}
    assert view.items[0].stage == "score"


def test_malformed_items_and_rows_are_not_shown(store) -> None:
    bad = [
        {**_item(1), "kind": "fetch_url"},
        {**_item(2), "workflowId": "https://example.com/job"},
        {**_item(3), "key": "Senior Engineer"},
        {**_item(4), "title": "x"} | {"runId": "not a run"},
    ]
    runtime.publish(store, _row("w1", items=[*bad, _item(5)], slots=5))
    runtime.publish(store, _row("broken", capacity=0, beat_at=NOW + timedelta(seconds=1)))
    view = runtime.read_runtime(store, NOW, home_id=HOME)
    assert view.workers == 1 and view.active_slots == 5
    assert [i.key for i in view.items] == [_item(5)["key"]]


def _prep_run(store, job_id: str, wid: str, run_id: str, workflow_type="JobPreparationWorkflow"):
    with store.write() as tx:
        tx.append(
            WorkflowStarted(
                workflow_id=wid, run_id=run_id, workflow_type=workflow_type, job_id=job_id
            ),
            key=f"started:{wid}:{run_id}",
            job_id=job_id,
        )


def test_preparation_items_get_their_job_only_for_the_exact_run(store) -> None:
    job = jobs.create_job(store, "https://jobs.example.com/a", source="greenhouse").job_id
    with store.write() as tx:
        tx.conn.execute(
            update(schema.jobs)
            .where(schema.jobs.c.tenant_id == tx.tenant, schema.jobs.c.id == job)
            .values(title="Data Engineer", company="Acme")
        )
    other_run = "0195b0c4-2222-7000-8000-000000000002"
    _prep_run(store, job, "prep-a", RUN)
    runtime.publish(
        store,
        _row(
            "w1",
            items=[
                _item(1, wid="prep-a"),
                _item(2, kind="tailor", wid="prep-a", run=other_run),  # a stale run
                _item(3, kind="discovery_family", wid="discover-local"),
            ],
        ),
    )
    [exact, mismatched, discovery] = runtime.read_runtime(store, NOW, home_id=HOME).items
    assert exact.job_id == job
    assert (exact.job_title, exact.company) == ("Data Engineer", "Acme")
    assert mismatched.job_id is None and mismatched.job_title is None
    assert discovery.label == "Search a source family" and discovery.job_id is None


def test_a_recovery_cohorts_items_get_the_members_it_runs_now(store) -> None:
    """A recovery run names no single job: its items are the stage rows that exact run
    holds running, matched oldest first; a row of another run is never borrowed."""
    cohort_run = "0195b0c4-3333-7000-8000-000000000003"
    members = []
    for n, name in enumerate(("first", "second", "elsewhere")):
        job = jobs.create_job(store, f"https://jobs.example.com/{name}", source="lever").job_id
        owner = RUN if name == "elsewhere" else cohort_run
        with store.write() as tx:
            tx.conn.execute(
                update(schema.jobs)
                .where(schema.jobs.c.tenant_id == tx.tenant, schema.jobs.c.id == job)
                .values(title=name.title())
            )
            tx.conn.execute(
                update(schema.job_stage_states)
                .where(
                    schema.job_stage_states.c.tenant_id == tx.tenant,
                    schema.job_stage_states.c.job_id == job,
                    schema.job_stage_states.c.stage == "score",
                )
                .values(
                    state="running",
                    owner_run_id=owner,
                    started_at=NOW - timedelta(seconds=100 - n),
                )
            )
        members.append(job)
    _prep_run(
        store, None, "prepare-auto-local-score-abc", cohort_run, "PreparationRecoveryWorkflow"
    )
    wid = "prepare-auto-local-score-abc"
    runtime.publish(
        store,
        _row("w1", items=[_item(2, wid=wid, run=cohort_run), _item(1, wid=wid, run=cohort_run)]),
    )
    items = runtime.read_runtime(store, NOW, home_id=HOME).items
    assert [(i.job_id, i.job_title) for i in items] == [
        (members[0], "First"),
        (members[1], "Second"),
    ]


def test_a_manual_add_enrich_is_import_job_url(store) -> None:
    manual = jobs.create_job(store, "https://jobs.example.com/by-hand").job_id
    found = jobs.create_job(store, "https://jobs.example.com/found", source="lever").job_id
    _prep_run(store, manual, "prep-manual", RUN)
    _prep_run(store, found, "prep-found", RUN)
    runtime.publish(
        store,
        _row(
            "w1",
            items=[
                _item(1, kind="enrich", wid="prep-manual"),
                _item(2, kind="enrich", wid="prep-found"),
                _item(3, kind="score", wid="prep-manual"),
            ],
        ),
    )
    items = runtime.read_runtime(store, NOW, home_id=HOME).items
    assert [(i.kind, i.label) for i in items] == [
        ("job_url_import", "Import job URL"),
        ("enrich", "Enrich"),
        ("score", "Score"),
    ]
    assert items[0].job_id == manual and items[0].stage == "enrich"


def test_rows_not_seen_for_a_day_are_deleted(store) -> None:
    runtime.publish(store, _row("gone", beat_at=NOW - timedelta(days=1, seconds=1)))
    runtime.publish(store, _row("w1"))
    assert [r["worker_id"] for r in runtime.heartbeat_rows(store)] == ["w1"]
    runtime.withdraw(store, "w1")
    assert runtime.read_runtime(store, NOW, home_id=HOME).state == "unavailable"


def test_durations_merge_count_weighted() -> None:
    merged = rules.merge_durations(
        [
            {"score": {"count": 3, "p50": 1.0, "p90": 2.0, "max": 2.0}},
            {"score": {"count": 1, "p50": 5.0, "p90": 6.0, "max": 9.0}, "bogus": {"count": 1}},
        ]
    )
    assert merged == {"score": {"count": 4, "p50": 2.0, "p90": 3.0, "max": 9.0}}
    assert rules.summarize([3, 1, 2, 4, 5, 6, 7, 8, 9, 10]) == {
        "count": 10,
        "p50": 5.0,
        "p90": 9.0,
        "max": 10.0,
    }


def _info(
    activity_type: str, wid: str | None = "prep-a", run: str | None = RUN, attempt=1, local=False
):
    return SimpleNamespace(
        activity_type=activity_type,
        activity_id="3",
        attempt=attempt,
        workflow_id=wid,
        workflow_run_id=run,
        is_local=local,
    )


def test_the_inventory_counts_every_slot_but_details_only_safe_allowlisted_work() -> None:
    inventory = RuntimeInventory(capacity=4, task_queue="q1")
    score = inventory.started(_info("score"))
    inventory.started(_info("custom_secret_step"))
    inventory.started(_info("tailor", wid="https://example.com/?q=1"))
    snap = inventory.snapshot()
    assert snap["active_slots"] == 3 and snap["items_total"] == 1
    [item] = snap["items"]
    assert item["kind"] == "score" and item["workflowId"] == "prep-a" and item["runId"] == RUN
    assert item["key"] == rules.item_key("prep-a", "3", 1) != rules.item_key("prep-a", "3", 2)
    inventory.finished(score, succeeded=True)
    failing = inventory.started(_info("score"))
    inventory.finished(failing, succeeded=False)  # a failed attempt is not a duration
    snap = inventory.snapshot()
    assert snap["active_slots"] == 2 and snap["items"] == []
    assert set(snap["durations"]) == {"score"} and snap["durations"]["score"]["count"] == 1
    # A local activity (finalize: a short lifecycle write) has its own limit: it is not
    # one of the capacity's slots, so slots never exceed capacity because of it.
    finalize = inventory.started(_info("finalize_preparation", local=True))
    assert inventory.snapshot()["active_slots"] == 2
    inventory.finished(finalize, succeeded=True)


def test_every_declared_activity_has_a_runtime_label() -> None:
    """A new activity without a label would show only as ``other``: name it in
    domain/runtime.py's ACTIVITY_KINDS (never anything from its arguments)."""
    declared = {
        definition.name
        for value in vars(activity_defs).values()
        if (definition := getattr(value, "__temporal_activity_definition", None)) is not None
    }
    assert declared and not declared - set(rules.ACTIVITY_KINDS)

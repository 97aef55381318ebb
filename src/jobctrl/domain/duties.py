"""The lease holder's heartbeat duties, named once: what the census finds a tenant needs
(``store.census``) and what the heartbeat then runs for it (``worker.heartbeat``)."""

from __future__ import annotations

from enum import StrEnum


class Duty(StrEnum):
    # Reconciling runs, in four parts (``worker.reconcile.reconcile_runs``):
    RUNS = "runs"  # open runs, described against Temporal
    ABANDONED = "abandoned"  # stage rows left running (under a run that may have ended)
    STOPS = "stops"  # stop requests not seen through
    ORPHANS = "orphans"  # executions listed on the queue, or orphans recorded to clear
    SCHEDULE = "schedule"  # the discovery schedule against the settings
    AVAILABILITY = "availability"  # saved postings due for a check
    APPLY_LOOP = "apply_loop"  # the standing apply loop against ``auto_apply``
    SENDS = "sends"  # live apply attempts whose process may have died
    INTENTS = "intents"  # preparations recorded but not started
    BUDGET = "budget"  # stages a spent budget stopped on an earlier UTC day
    CONFIG = "config"  # stages that stopped because config.yaml could not be read
    RECHECK = "recheck"  # Enrich refusals for a non-public address, not yet exhausted
    RECOVERY = "recovery"  # open recovery cohorts, retryable failed or stranded rows


EVERY_DUTY = frozenset(Duty)
RECONCILING = frozenset({Duty.RUNS, Duty.ABANDONED, Duty.STOPS, Duty.ORPHANS})


def duties_lease(task_queue: str) -> str:
    """The lease one worker of a task queue holds while it runs the heartbeat duties."""
    return f"heartbeat-duties:{task_queue}"

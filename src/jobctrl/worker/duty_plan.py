"""Which duties the lease holder runs for which tenant this beat: the census's answer
(``store.census``: one statement over every tenant) with what only the worker knows.

- The worker's own tenant (``local``, the operator's: it also owns every execution that
  is no tenant's) runs every duty on every beat, as before the census.
- A tenant whose settings changed since the last census runs every duty once (a setting
  turned off is acted on: a schedule deleted, a loop cancelled).
- A tenant with an execution running on the queue compares them with its store
  (adoption and orphans); its standing apply loop is reconciled while ``auto_apply`` and the listing
  disagree (on and not listed: started, or its failure said; off and listed: cancelled).
- The discovery schedule is the one duty whose observed state no row and no listing
  shows (a schedule deleted on the Temporal server by hand, say): it is reconciled for the
  tenants with a schedule stored on the first census, for a tenant whose settings change,
  and by a slow rotation, ``ROTATION_PER_BEAT`` other tenants a beat (each tenant every
  ``tenants / ROTATION_PER_BEAT`` beats: 10,000 tenants, ≈ 8 h at 15 s). Every other duty
  is found by the census's rows or the queue's listing.

Every other tenant costs nothing this beat.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from jobctrl.domain import ids
from jobctrl.domain.duties import EVERY_DUTY, Duty
from jobctrl.domain.errors import JobctrlError
from jobctrl.store import census
from jobctrl.store.census import Census
from jobctrl.store.store import Store
from jobctrl.workflows.starts import ObservedRun

log = logging.getLogger(__name__)
ROTATION_PER_BEAT = 5


@dataclass
class DutyPlan:
    """The heartbeat's memory between censuses: the event sequence the last complete beat
    read up to (None: no census yet) and where the rotation stands."""

    since: int | None = None
    turn: int = 0
    rotation: int = ROTATION_PER_BEAT

    async def due_now(
        self,
        store: Store,
        now: datetime,
        names: Sequence[str],
        parts: Mapping[str, list[ObservedRun]] | None,
    ) -> tuple[dict[str, frozenset[Duty]], int | None]:
        """The tenants with work this beat and their duties (``plan``), and the event
        sequence the census read up to: the next ``since`` once the beat is complete. A
        census that fails unexpectedly is logged and every tenant runs every duty, as
        before the census (``database_busy`` is raised: the beat is skipped, said once)."""
        try:
            found = await asyncio.to_thread(census.census, store, now, since=self.since)
        except JobctrlError:
            raise
        except Exception:
            log.exception("the heartbeat's census failed; every tenant's duties run")
            return dict.fromkeys(names, EVERY_DUTY), self.since
        return self.plan(found, names, parts, store.tenant), found.seq

    def plan(
        self,
        found: Census,
        names: Sequence[str],
        parts: Mapping[str, list[ObservedRun]] | None,
        own: str,
    ) -> dict[str, frozenset[Duty]]:
        """Each tenant of ``names`` with something to do, in ``names``' order, and what."""
        due: dict[str, set[Duty]] = {name: set() for name in names}
        for tenant, kinds in found.duties.items():
            if tenant in due:
                due[tenant] |= kinds
        for tenant in due:
            listed = None if parts is None else parts.get(tenant, [])
            if listed:
                due[tenant].add(Duty.ORPHANS)
            loop = listed is not None and any(
                r.workflow_id == ids.apply_loop_id(tenant) for r in listed
            )
            if (tenant in found.auto_apply) != loop:
                due[tenant].add(Duty.APPLY_LOOP)
        others = [name for name in names if name != own]
        if others:
            start = self.turn % len(others)
            turn = (others + others)[start : start + min(self.rotation, len(others))]
            self.turn = start + len(turn)
        else:
            turn = []
        for tenant in turn:
            due[tenant].add(Duty.SCHEDULE)
        for tenant in [own, *found.changed]:
            if tenant in due:
                due[tenant] |= EVERY_DUTY
        return {tenant: frozenset(kinds) for tenant, kinds in due.items() if kinds}

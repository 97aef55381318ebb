"""A lease holder whose host was suspended past its lease does not run a duty on the
strength of a renewal it made before the suspend: the monotonic clock stands still while
suspended, the lease's expiry (wall time) does not, so the renew-skip window is measured
by both (review s8)."""

from __future__ import annotations

from datetime import timedelta

from jobctrl.stages.context import StageContext
from jobctrl.store import leases
from jobctrl.store.settings import Settings
from jobctrl.worker import heartbeat as hb


async def test_a_suspended_holder_renews_and_learns_it_lost_the_lease(
    home, store, monkeypatch
) -> None:
    mono, wall = 1000.0, 1_800_000_000.0
    monkeypatch.setattr(hb, "_clocks", lambda: (mono, wall))
    beat = hb.WorkerHeartbeat(None, StageContext(home=home, store=store))  # type: ignore[arg-type]
    values = Settings(store).all()
    assert await beat._lead(values)

    mono += 1  # a second later by both clocks: the renewal is skipped, still the holder
    assert await beat._lead(values)

    # The host sleeps for 200 s (longer than the lease): another worker takes it over.
    assert leases.take_over(store, beat.lease, beat.identity, "other~host:1:t", timedelta(90))
    wall += 200  # the monotonic clock stood still
    assert not await beat._lead(values)  # renewed (not skipped), and found lost
    assert not beat.leading

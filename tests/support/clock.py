"""Clocks a test controls: a monotonic one (politeness, cooldowns, caches) and a UTC wall
clock (what the store and the stages stamp)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


class FakeClock:
    """A monotonic clock that only moves when slept on or advanced."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def advance(self, seconds: float) -> None:
        self.now += seconds


class WallClock:
    """A UTC wall clock for the store and the stages (``StageContext.clock``) that a test
    sets or moves: ``clock()`` is the current instant."""

    def __init__(self, now: datetime | None = None) -> None:
        self.now = now or datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, delta: timedelta) -> None:
        self.now += delta

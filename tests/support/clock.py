"""A fake monotonic clock for politeness, cooldown and cache tests."""

from __future__ import annotations


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

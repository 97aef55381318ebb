"""Fixtures for the fetch unit tests: a fake monotonic clock."""

from __future__ import annotations

import pytest
from tests.support.clock import FakeClock


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()

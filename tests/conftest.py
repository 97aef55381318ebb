"""Shared fixtures: a fresh jobctrl home per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from jobctrl.app.home import init_home
from jobctrl.home import Home
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store
from tests.support.profile import TEST_PROFILE


@pytest.fixture
def home(tmp_path, monkeypatch) -> Home:
    monkeypatch.setenv("JOBCTRL_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("JOBCTRL_DATABASE_URL", raising=False)
    h = Home.resolve()
    init_home(h, profile=TEST_PROFILE)
    return h


@pytest.fixture
def store(home: Home) -> Iterator[Store]:
    s = Store.open(home)
    yield s
    s.dispose()


@pytest.fixture
def settings(store: Store) -> Settings:
    return Settings(store)

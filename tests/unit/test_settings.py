"""Typed settings: defaults, parsing, refusal of bad values."""

import pytest

from jobctrl.domain.errors import ConfigError


def test_defaults(settings):
    assert settings.get("daily_budget_usd") == 25.0
    assert settings.get("lane_token_limits") == {}
    assert settings.get("fetch.allow_hosts") == []


def test_set_parses_cli_forms(settings):
    assert settings.set("fetch.allow_hosts", "127.0.0.1, Intranet.Local") == [
        "127.0.0.1",
        "intranet.local",
    ]
    assert settings.get("fetch.allow_hosts") == ["127.0.0.1", "intranet.local"]
    assert settings.set("lane_token_limits", "score=1000,tailor=0") == {"score": 1000, "tailor": 0}
    assert settings.set("lane_token_limits", '{"score": 5}') == {"score": 5}
    assert settings.set("daily_budget_usd", "0") == 0.0
    assert settings.set("discovery.schedule_cron", "*/15 6-18 1,15 * 1-5") == "*/15 6-18 1,15 * 1-5"


@pytest.mark.parametrize(
    ("key", "value"),
    [("daily_budget_usd", "-1"), ("daily_budget_usd", "lots"), ("min_fit_score", "101"),
     ("lane_token_limits", "score"), ("lane_token_limits", "score=-5"), ("nope", "1"),
     ("fetch.allow_hosts", "10.0.0.0/8"), ("daily_budget_usd", "inf"),
     ("discovery.schedule_cron", "99 99 99 99 99"), ("discovery.schedule_cron", "0 7 * 13 *"),
     ("discovery.schedule_cron", "0 7 * * 7"), ("discovery.schedule_cron", "*/0 * * * *"),
     ("discovery.schedule_cron", "0 20-8 * * *")],
)  # fmt: skip
def test_bad_values_are_refused(settings, key, value):
    with pytest.raises(ConfigError):
        settings.set(key, value)


def test_a_change_is_an_event(settings, store):
    settings.set("min_fit_score", "70")
    events = store.events_after(0)
    assert events[-1]["type"] == "SettingChanged"
    assert events[-1]["payload"] == {"key": "min_fit_score"}


def test_the_database_runs_in_wal_mode(store):
    with store.read() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"

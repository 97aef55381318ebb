"""Typed settings: defaults, parsing, refusal of bad values."""

import pytest

from jobctrl.app.settings import change_settings
from jobctrl.domain.errors import ConfigError
from jobctrl.store.events import events_after


def test_defaults(settings):
    assert settings.get("daily_budget_usd") == 25.0
    assert settings.get("lane_token_limits") == {}
    assert settings.get("fetch.allow_hosts") == []


def _set(home, key: str, raw: str):
    """`jobctrl settings set KEY VALUE`: the value as stored."""
    return change_settings(home, {key: raw}).root[key]


def test_set_parses_cli_forms(home, settings):
    assert _set(home, "fetch.allow_hosts", "127.0.0.1, Intranet.Local") == [
        "127.0.0.1",
        "intranet.local",
    ]
    assert settings.get("fetch.allow_hosts") == ["127.0.0.1", "intranet.local"]
    assert _set(home, "lane_token_limits", "score=1000,tailor=0") == {"score": 1000, "tailor": 0}
    assert _set(home, "lane_token_limits", '{"score": 5}') == {"score": 5}
    assert _set(home, "daily_budget_usd", "0") == 0.0
    assert _set(home, "discovery.schedule_cron", "*/15 6-18 1,15 * 1-5") == "*/15 6-18 1,15 * 1-5"


def test_typed_json_values_take_the_same_path(home):
    assert (
        change_settings(home, {"min_fit_score": 70, "fetch.respect_robots": False}).root[
            "min_fit_score"
        ]
        == 70
    )


@pytest.mark.parametrize(
    ("key", "value"),
    [("daily_budget_usd", "-1"), ("daily_budget_usd", "lots"), ("min_fit_score", "101"),
     ("lane_token_limits", "score"), ("lane_token_limits", "score=-5"), ("nope", "1"),
     ("fetch.allow_hosts", "10.0.0.0/8"), ("daily_budget_usd", "inf"),
     ("discovery.schedule_cron", "99 99 99 99 99"), ("discovery.schedule_cron", "0 7 * 13 *"),
     ("discovery.schedule_cron", "0 7 * * 7"), ("discovery.schedule_cron", "*/0 * * * *"),
     ("discovery.schedule_cron", "0 20-8 * * *"), ("auto_apply", "yes"), ("auto_apply", "1"),
     ("fetch.respect_robots", "off")],
)  # fmt: skip
def test_bad_values_are_refused(home, settings, key, value):
    before = settings.all()
    with pytest.raises(ConfigError):
        change_settings(home, {"min_fit_score": "10", key: value})
    assert settings.all() == before, "nothing is written when one change is refused"


@pytest.mark.parametrize("value", ["yes", "on", "1", "y"])
def test_a_boolean_setting_takes_only_true_or_false(home, settings, value):
    with pytest.raises(ConfigError, match="auto_apply: must be true or false"):
        change_settings(home, {"auto_apply": value})
    assert settings.get("auto_apply") is False
    assert _set(home, "auto_apply", "TRUE") is True
    assert _set(home, "auto_apply", "false") is False


@pytest.mark.parametrize("value", ["2.5", "1_000", "five", "0"])
def test_a_whole_number_is_plain_digits_and_the_refusal_says_what_is_wanted(home, value):
    with pytest.raises(ConfigError, match="must be a whole number from 1 to 1000") as refused:
        change_settings(home, {"stop_loss.threshold": value})
    assert "invalid literal" not in str(refused.value)


def test_a_change_is_an_event(home, store):
    change_settings(home, {"min_fit_score": "70"})
    events = events_after(store, 0)
    assert events[-1]["type"] == "SettingChanged"
    assert events[-1]["payload"] == {"key": "min_fit_score"}


def test_the_database_runs_in_wal_mode(store):
    with store.read() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"

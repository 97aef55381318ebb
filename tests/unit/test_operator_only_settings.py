"""Issue 14: the settings a tenant may not set for itself over HTTP (they would reach past
the tenant), declared once with the reason; the operator (the CLI) may set them."""

from __future__ import annotations

import pytest

from jobctrl.domain.settings import OPERATOR_ONLY, SPECS, operator_only


def test_every_operator_only_key_is_a_setting() -> None:
    assert set(OPERATOR_ONLY) <= set(SPECS)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("fetch.allow_hosts", ["127.0.0.1"]),
        ("fetch.allow_hosts", []),
        ("smtp.password_env", "OTHER_TENANTS_PASSWORD"),
        ("smtp.security", "none"),
        ("smtp.security", " NONE "),
        ("fetch.respect_robots", False),
        ("fetch.min_host_interval_seconds", 0.0),
        ("fetch.min_host_interval_seconds", 30.0),
        ("providers.offline.latency_ms", 600000),
        ("pipeline_internal_concurrency", 16),
        ("availability.batch_size", 500),
        ("worker.heartbeat_seconds", 1),
        ("worker.sticky_timeout_seconds", 1.0),
    ],
)
def test_what_only_the_operator_sets_says_why(key: str, value: object) -> None:
    why = operator_only(key, value)
    assert why is not None and why.startswith(key) and "operator only" in why


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("smtp.security", "starttls"),
        ("smtp.security", "tls"),
        ("daily_budget_usd", 5.0),
        ("fetch.respect_robots", True),
        ("smtp.host", "smtp.example.com"),  # checked at send: a public address only
    ],
)
def test_a_tenant_sets_the_rest_itself(key: str, value: object) -> None:
    assert operator_only(key, value) is None

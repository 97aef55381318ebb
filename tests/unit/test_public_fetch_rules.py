"""The public-fetch recheck's rules (domain/public_fetch.py) and its check
(worker/public_fetch_recovery.check_hosts) with a resolver the test controls: never DNS."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest

from jobctrl.domain import errors
from jobctrl.domain import public_fetch as rules
from jobctrl.domain.public_fetch import CheckResult
from jobctrl.fetch.addresses import AddressGuard
from jobctrl.worker.public_fetch_recovery import check_hosts

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
PUBLIC, PRIVATE = "93.184.216.34", "10.1.2.3"


def _resolver(table: dict[str, list[str]]):
    return lambda host, port: list(table.get(host, []))


def test_checks_start_after_a_minute_and_back_off_exponentially_five_at_most() -> None:
    assert [rules.check_delay(n).total_seconds() for n in range(5)] == [60, 120, 240, 480, 960]
    assert rules.next_check_at(T0, 1) == T0 + timedelta(seconds=120)
    assert rules.next_check_at(T0, 4) == T0 + timedelta(seconds=960)
    assert rules.next_check_at(T0, rules.MAX_CHECKS) is None  # the fifth check was the last
    assert rules.check_delay(2, base=0.5) == timedelta(seconds=2)


def test_both_destinations_must_be_public() -> None:
    assert rules.combined([CheckResult.PUBLIC, CheckResult.PUBLIC]) == CheckResult.PUBLIC
    assert rules.combined([CheckResult.PUBLIC, CheckResult.UNRESOLVED]) == CheckResult.UNRESOLVED
    assert rules.combined([CheckResult.UNRESOLVED, CheckResult.NON_PUBLIC]) == (
        CheckResult.NON_PUBLIC
    )
    assert rules.combined([]) == CheckResult.UNRESOLVED


def test_a_refusal_carries_typed_evidence_a_name_or_a_literal() -> None:
    guard = AddressGuard((), _resolver({"jobs.example.test": [PUBLIC, PRIVATE]}))
    with pytest.raises(rules.UnsafeAddressError) as by_name:
        guard.addresses("jobs.example.test", 443)
    assert by_name.value.code == errors.DETAIL_UNSAFE_URL and not by_name.value.retryable
    assert (by_name.value.reason, by_name.value.host) == (rules.DNS_NON_PUBLIC, "jobs.example.test")
    with pytest.raises(rules.UnsafeAddressError) as literal:
        guard.addresses("10.0.0.5", 443)
    assert literal.value.reason == rules.LITERAL_NON_PUBLIC
    assert rules.LITERAL_NON_PUBLIC not in rules.RECHECKABLE  # a private literal never changes


def test_a_check_resolves_each_host_as_a_fetch_would() -> None:
    table = {"a.example.test": [PUBLIC], "b.example.test": [PRIVATE]}
    resolve = _resolver(table)
    assert check_hosts(["a.example.test"], (), resolve) == CheckResult.PUBLIC
    assert check_hosts(["a.example.test", "b.example.test"], (), resolve) == (
        CheckResult.NON_PUBLIC
    )
    assert check_hosts(["gone.example.test"], (), resolve) == CheckResult.UNRESOLVED
    # A host the person allowed (fetch.allow_hosts) passes, as it would for a fetch.
    assert check_hosts(["b.example.test"], ("b.example.test",), resolve) == CheckResult.PUBLIC


def test_a_lookup_that_does_not_finish_in_time_leaves_the_failure_blocked() -> None:
    release = threading.Event()

    def hanging(host: str, port: int) -> list[str]:
        release.wait(5)
        return [PUBLIC]

    try:
        assert check_hosts(["slow.example.test"], (), hanging, deadline=0.2) == (
            CheckResult.UNRESOLVED
        )
    finally:
        release.set()


def test_a_resolver_that_raises_proves_nothing() -> None:
    def broken(host: str, port: int) -> list[str]:
        raise RuntimeError("resolver exploded")

    assert check_hosts(["x.example.test"], (), broken) == CheckResult.UNRESOLVED


@pytest.mark.parametrize(
    ("message", "host"),
    [
        ("jobs.example.test is not a public address", "jobs.example.test"),
        ("intranet is not a public address", "intranet"),
        ("10.0.0.5 is not a public address", None),  # a literal: never
        ("::1 is not a public address", None),
        ("JOBS.example.test is not a public address", None),  # not what jobctrl wrote
        ("refused: jobs.example.test is not a public address", None),
        ("jobs.example.test is not a public address.", None),
        ("", None),
        (None, None),
    ],
)
def test_only_the_exact_legacy_message_of_a_host_name_is_adopted(message, host) -> None:
    assert rules.legacy_dns_host(message) == host

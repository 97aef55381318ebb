"""The public-fetch recheck: the one narrow way a non-retryable ``DETAIL_UNSAFE_URL``
Enrich failure returns to pending (the store side is ``store/public_fetch.py``, the
heartbeat's pass ``worker/public_fetch_recovery.py``).

A fetch is refused when a host resolves to an address that is not public. When that
host is a NAME, the refusal records typed evidence, ``dns_non_public``, with the host
that failed: the name may later resolve to public addresses only (a DNS record fixed,
a split-horizon answer gone). A private literal IP in the URL (``literal_non_public``)
is what the person asked for and never changes: it is never rechecked. A refusal
recorded before the evidence existed is adopted only in the exact shape jobctrl wrote
then (``legacy_dns_host``: "<host name> is not a public address"); any other text
never enables a recheck.

The worker checks at most ``CANDIDATES_PER_PASS`` failures per heartbeat and each one at
most ``MAX_CHECKS`` times: first ``FIRST_CHECK_SECONDS`` after the failure, then with
exponential backoff. A check only resolves the posting's host and the failed request's
host (no page is fetched), within ``CHECK_DEADLINE_SECONDS``; a lookup that does not
finish leaves the failure blocked. Only when both resolve to public addresses (or a
host the person allowed) is the stage reset, with reason ``RESET_REASON``; normal
guarded dispatch (automatic recovery, its attempt cap and backoff) owns the retry.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from datetime import datetime, timedelta
from enum import StrEnum

from jobctrl.domain.errors import DETAIL_UNSAFE_URL, StageError

DNS_NON_PUBLIC = "dns_non_public"  # a host name resolved to a non-public address
LITERAL_NON_PUBLIC = "literal_non_public"  # the URL names a non-public IP itself
RECHECKABLE = frozenset({DNS_NON_PUBLIC})

RESET_REASON = "public_fetch_condition_resolved"
CANDIDATES_PER_PASS = 5
MAX_CHECKS = 5
FIRST_CHECK_SECONDS = 60.0
CHECK_DEADLINE_SECONDS = 10.0
# The message AddressGuard wrote for every refusal before the typed evidence: exactly this.
_LEGACY_MESSAGE = re.compile(r"([a-z0-9_](?:[a-z0-9_.-]{0,251}[a-z0-9_])?) is not a public address")


class CheckResult(StrEnum):
    PUBLIC = "public"  # every address public (or the host allowed)
    NON_PUBLIC = "non_public"  # still resolves to a non-public address
    UNRESOLVED = "unresolved"  # no answer within the deadline, or none at all


class UnsafeAddressError(StageError):
    """``DETAIL_UNSAFE_URL`` with its typed evidence: why (``reason``) and which host."""

    def __init__(self, host: str, reason: str) -> None:
        super().__init__(DETAIL_UNSAFE_URL, f"{host} is not a public address", retryable=False)
        self.host = host
        self.reason = reason


def check_delay(checks_done: int, *, base: float = FIRST_CHECK_SECONDS) -> timedelta:
    """How long after the failure (``checks_done`` 0) or after check ``checks_done``
    the next check waits: ``base * 2**checks_done`` (one minute, two, four, ...)."""
    return timedelta(seconds=base * 2 ** max(0, int(checks_done)))


def next_check_at(
    now: datetime, checks_done: int, *, base: float = FIRST_CHECK_SECONDS
) -> datetime | None:
    """When to check again after ``checks_done`` checks; None once the cap is reached."""
    if checks_done >= MAX_CHECKS:
        return None
    return now + check_delay(checks_done, base=base)


def combined(results: Iterable[CheckResult]) -> CheckResult:
    """One answer for the destinations checked: public only when every one is."""
    found = set(results)
    if CheckResult.NON_PUBLIC in found:
        return CheckResult.NON_PUBLIC
    if CheckResult.UNRESOLVED in found or not found:
        return CheckResult.UNRESOLVED
    return CheckResult.PUBLIC


def legacy_dns_host(message: str | None) -> str | None:
    """The host NAME of a refusal recorded before its evidence was typed, when the
    message is exactly the one jobctrl wrote then; None for a literal or any other text."""
    found = _LEGACY_MESSAGE.fullmatch(message or "")
    if found is None:
        return None
    host = found.group(1)
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return host
    return None  # a literal: never rechecked

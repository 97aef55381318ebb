"""The health check's rules (`jobctrl doctor`): each check's status (ok, warn, fail), the
thresholds it judges by, and how long Temporal keeps a closed execution's history.

A check is ``fail`` when something a person relies on does not work now (no server, no
worker, a damaged database, a full disk), ``warn`` when it works but will not for long or
needs a decision (history about to expire under an open run, paused automation, stale
scores), ``ok`` otherwise. Pure: no I/O.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum

__all__ = [
    "DEFAULT_RETENTION_DAYS",
    "DISK_FAIL_BYTES",
    "DISK_WARN_BYTES",
    "EXPIRY_MARGIN",
    "RETENTION_SETTING",
    "CheckStatus",
    "disk_status",
    "expiry_cutoff",
    "retention_status",
    "worst",
]

DEFAULT_RETENTION_DAYS = 30  # the ADR's successful-history retention
RETENTION_SETTING = "temporal.retention_days"
DISK_FAIL_BYTES = 200 * 1024 * 1024  # below this a write (a PDF, the database) may fail
DISK_WARN_BYTES = 1024 * 1024 * 1024
# An open run older than the retention less this margin is flagged while there is still
# time to settle it (Temporal counts retention from an execution's close, which the store
# may have missed: after it, nothing can say how the run ended).
EXPIRY_MARGIN = timedelta(days=3)


class CheckStatus(StrEnum):
    OK = "ok"
    WARN = "warn"
    FAIL = "fail"


_RANK = {CheckStatus.OK: 0, CheckStatus.WARN: 1, CheckStatus.FAIL: 2}


def worst(statuses: list[CheckStatus]) -> CheckStatus:
    """The overall status: the worst of the checks' (ok when there are none)."""
    return max(statuses, key=_RANK.__getitem__, default=CheckStatus.OK)


def disk_status(free_bytes: int, *, writable: bool = True) -> CheckStatus:
    """Fail on a home that cannot be written (a read-only disk), whatever space it has."""
    if not writable or free_bytes < DISK_FAIL_BYTES:
        return CheckStatus.FAIL
    return CheckStatus.WARN if free_bytes < DISK_WARN_BYTES else CheckStatus.OK


def free_space_words(free_bytes: int) -> str:
    """Free space as a person reads it: "65.9 GB", or "1.4 MB" under a gigabyte (a disk
    that still has a little is never "0.0 GB")."""
    if free_bytes >= 1024**3:
        return f"{free_bytes / 1024**3:.1f} GB"
    return f"{free_bytes / 1024**2:.1f} MB"


def retention_status(retention: timedelta | None, wanted_days: int) -> CheckStatus:
    """Warn when the namespace keeps histories for less than ``wanted_days`` (or keeps
    them for an unknown time); longer is fine."""
    if retention is None or retention < timedelta(days=wanted_days):
        return CheckStatus.WARN
    return CheckStatus.OK


def expiry_cutoff(
    now: datetime, retention: timedelta, *, margin: timedelta = EXPIRY_MARGIN
) -> datetime:
    """A run the store has held open since before this instant may lose its history (or
    soon) before the store learns how it ended: Temporal counts the retention from the
    execution's close, which the store may have missed."""
    return now - (retention - margin)

"""What the Operations page says about recent stage attempts (issue 34): per stage, the
attempts of the UTC day so far, how many succeeded, failed, were interrupted (a later
attempt of the stage started: a killed worker, a cancelled run) or still run, the p50/p90
seconds of those that ended (nearest rank), and the most frequent failure codes. Pure:
the rows come from ``store.attempt_metrics``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from jobctrl.domain.runtime import summarize

__all__ = ["TOP_CODES", "day_start", "per_stage"]

TOP_CODES = 3


def day_start(now: datetime) -> datetime:
    """Midnight UTC of ``now``'s day (what "today" means on the page, as for spend)."""
    return now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def per_stage(rows: Iterable[Mapping[str, Any]], stages: Sequence[str]) -> dict[str, Any]:
    """``{stage: {attempts, succeeded, failed, interrupted, running, p50, p90,
    top_failures}}`` for every
    stage in ``stages`` (zeros and None when it had no attempt)."""
    grouped: dict[str, list[Mapping[str, Any]]] = {stage: [] for stage in stages}
    for row in rows:
        if row["stage"] in grouped:
            grouped[row["stage"]].append(row)
    out: dict[str, Any] = {}
    for stage, mine in grouped.items():
        outcomes = Counter(str(r["outcome"]) for r in mine)
        timed = summarize(
            float(r["duration_seconds"]) for r in mine if r["duration_seconds"] is not None
        )
        codes = Counter(str(r["error_code"]) for r in mine if r["error_code"])
        out[stage] = {
            "attempts": len(mine),
            "succeeded": outcomes["succeeded"],
            "failed": outcomes["failed"],
            "interrupted": outcomes["interrupted"],
            "running": outcomes["running"],
            "p50": timed["p50"],
            "p90": timed["p90"],
            "top_failures": [
                {"code": code, "count": n}
                for code, n in sorted(codes.items(), key=lambda c: (-c[1], c[0]))[:TOP_CODES]
            ],
        }
    return out

"""The worker runtime inventory's rules: which activity kinds may be shown (and their
labels), which workflow/run references are safe to keep, the opaque item key, duration
summaries, freshness, the home identity, and the view the operations snapshot reads.

Nothing here sees an activity's arguments: an item is an allowlisted kind, a validated
workflow/run reference, a digest and a start time. URLs, payloads, prompts, provider
output, artifact paths and exception text have no field to go into.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:
    from jobctrl.home import Home

MAX_ITEMS = 20  # active-item detail per worker and in the aggregated view (oldest first)
DURATION_SAMPLES = 200  # completed-activity durations kept per kind (in memory)
FRESH_MIN_SECONDS = 10.0  # a beat is fresh within 3 x its interval, never less than this
FRESH_INTERVALS = 3
FORGET_AFTER = timedelta(days=1)  # rows of workers not seen for this long are deleted

OTHER = "other"  # any activity not allowlisted: counted in slots, never detailed
JOB_URL_IMPORT = "job_url_import"  # the Enrich of a job a person added by URL

# Activity type (the registered name) -> (kind shown, label). The kind is the activity
# name; only these names ever leave the worker as detail.
ACTIVITY_KINDS: dict[str, str] = {
    "enrich": "Enrich",
    "score": "Score",
    "tailor": "Tailor",
    "cover": "Cover letter",
    "render_pdf": "PDF",
    "finalize_preparation": "Finalize preparation",
    "discovery_plan": "Plan discovery",
    "discovery_family": "Search a source family",
    "discovery_enrichment_pass": "Enrich discovered jobs",
    "discovery_preparation_fanout": "Start preparations",
    "discovery_backlog_sweep": "Sweep the existing backlog",
    "discovery_finish": "Finish discovery",
    "availability_sweep": "Check saved postings",
    "apply_claim": "Claim an application",
    "apply_prepare": "Prepare an application",
    "apply_finish": "Finish an application",
    "recovery_begin": "Begin a recovery",
    "recovery_finish": "Finish a recovery",
    "contact_research_claim": "Begin contact research",
    "contact_research_source": "Read a source for contacts",
    "contact_research_finish": "Finish contact research",
}
LABELS: dict[str, str] = {**ACTIVITY_KINDS, JOB_URL_IMPORT: "Import job URL", OTHER: "Other"}
# The preparation stage an activity kind works on (the job's stage name).
STAGE_OF_KIND: dict[str, str] = {
    "enrich": "enrich",
    "score": "score",
    "tailor": "tailor",
    "cover": "cover",
    "render_pdf": "pdf",
    JOB_URL_IMPORT: "enrich",
}
# Executions whose (workflow id, run id) may be joined to a job for its title (through
# the job id of their exact workflow_run_projections row; a recovery cohort's row names
# no single job, so its items stay unresolved).
JOB_WORKFLOW_TYPES = frozenset({"JobPreparationWorkflow", "PreparationRecoveryWorkflow"})

_SAFE_WORKFLOW_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")
_SAFE_RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,63}")
_SAFE_KEY = re.compile(r"[0-9a-f]{16,64}")

RuntimeState = Literal["fresh", "stale", "unavailable"]


def activity_kind(activity_type: str) -> str:
    """The kind an activity type is shown as: its own name when allowlisted, else other."""
    return activity_type if activity_type in ACTIVITY_KINDS else OTHER


def safe_workflow_id(value: object) -> bool:
    return isinstance(value, str) and _SAFE_WORKFLOW_ID.fullmatch(value) is not None


def safe_run_id(value: object) -> bool:
    return isinstance(value, str) and _SAFE_RUN_ID.fullmatch(value) is not None


def item_key(workflow_id: str, activity_id: str, attempt: int) -> str:
    """An opaque, non-reversible display key for one activity attempt."""
    raw = f"{workflow_id}\x00{activity_id}\x00{attempt}".encode()
    return hashlib.sha256(raw).hexdigest()[:24]


def home_identity(home: Home) -> str:
    """A digest naming the database a worker serves (the resolved SQLite path, or the
    database URL without its credentials), so readers pick the heartbeats of their own
    home: two homes sharing a Temporal server never mix their inventories."""
    url = home.database_url
    if url.startswith("sqlite:///"):
        location = "sqlite:" + str(Path(url.removeprefix("sqlite:///")).expanduser().resolve())
    else:
        parts = urlsplit(url)
        host = parts.hostname or ""
        netloc = f"{host}:{parts.port}" if parts.port else host
        location = urlunsplit((parts.scheme, netloc, parts.path, "", ""))
    return hashlib.sha256(location.encode()).hexdigest()[:32]


def is_fresh(beat_at: datetime, interval_seconds: float, now: datetime) -> bool:
    """A beat is fresh within 3 x its own interval (never less than 10 s) of ``now``."""
    window = max(FRESH_MIN_SECONDS, FRESH_INTERVALS * float(interval_seconds))
    return (now - beat_at).total_seconds() <= window


def _nearest_rank(ordered: Sequence[float], fraction: float) -> float:
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def summarize(samples: Iterable[float]) -> dict[str, Any]:
    """``{count, p50, p90, max}`` seconds (nearest-rank percentiles) of ``samples``."""
    ordered = sorted(float(s) for s in samples)
    if not ordered:
        return {"count": 0, "p50": None, "p90": None, "max": None}
    return {
        "count": len(ordered),
        "p50": round(_nearest_rank(ordered, 0.5), 3),
        "p90": round(_nearest_rank(ordered, 0.9), 3),
        "max": round(ordered[-1], 3),
    }


def _valid_summary(value: object) -> bool:
    if not isinstance(value, Mapping):
        return False
    count = value.get("count")
    numbers = [value.get(k) for k in ("p50", "p90", "max")]
    return (
        isinstance(count, int)
        and count > 0
        and all(isinstance(n, int | float) and n >= 0 for n in numbers)
    )


def merge_durations(summaries: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per-kind summaries of several workers as one: counts add up, ``max`` is the largest,
    ``p50``/``p90`` are count-weighted means of the workers' own percentiles (an
    approximation: the samples themselves stay in each worker's memory)."""
    merged: dict[str, dict[str, Any]] = {}
    for durations in summaries:
        for kind, summary in durations.items():
            if kind not in LABELS or not _valid_summary(summary):
                continue
            seen = merged.setdefault(kind, {"count": 0, "p50": 0.0, "p90": 0.0, "max": 0.0})
            total = seen["count"] + summary["count"]
            for p in ("p50", "p90"):
                seen[p] = (seen[p] * seen["count"] + summary[p] * summary["count"]) / total
            seen["max"] = max(seen["max"], float(summary["max"]))
            seen["count"] = total
    return {
        kind: {**s, "p50": round(s["p50"], 3), "p90": round(s["p90"], 3)}
        for kind, s in sorted(merged.items())
    }


def valid_item(item: object) -> bool:
    """A stored item of the allowed shape: allowlisted kind, safe references, digest key."""
    return (
        isinstance(item, Mapping)
        and item.get("kind") in ACTIVITY_KINDS
        and safe_workflow_id(item.get("workflowId"))
        and safe_run_id(item.get("runId"))
        and isinstance(item.get("key"), str)
        and _SAFE_KEY.fullmatch(item["key"]) is not None
        and isinstance(item.get("startedAt"), str)
    )


@dataclass(frozen=True)
class RuntimeItem:
    """One activity a worker executes now, as a reader may show it: an allowlisted kind
    and its label, the exact execution, the opaque key, when it started (the ISO text the
    worker published) and, where the execution is bound to one, the stage and the job."""

    kind: str
    label: str
    workflow_id: str
    run_id: str
    key: str
    started_at: str
    stage: str | None = None
    job_id: str | None = None  # None: no job bound (then no title or company either)
    job_title: str | None = None
    company: str | None = None


@dataclass(frozen=True)
class RuntimeView:
    """What the workers of one home report executing now (``store.runtime.read_runtime``).

    Only ``fresh`` has numbers: ``stale`` (rows, none fresh) and ``unavailable`` (no row)
    report ``None`` for slots, capacity and totals: unknown, never zero.
    """

    state: RuntimeState
    active_slots: int | None = None
    capacity: int | None = None
    items: list[RuntimeItem] = field(default_factory=list)
    items_total: int | None = None
    truncated: bool = False
    queue: dict[str, Any] | None = None
    durations: dict[str, dict[str, Any]] = field(default_factory=dict)
    workers: int = 0
    beat_at: datetime | None = None

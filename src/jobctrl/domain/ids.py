"""Identity: canonical posting URLs, idempotency keys, job ids and workflow ids.

The same posting reached with tracking parameters, a fragment, a trailing slash or a
different host case gets the same canonical URL, and so the same idempotency key, job id
and ``prep-{idempotencyKey}`` workflow id.
"""

from __future__ import annotations

import hashlib
from urllib.parse import urlsplit, urlunsplit

from w3lib.url import canonicalize_url, url_query_cleaner

# Query parameters that only track where a click came from.
TRACKING_PARAMS = (
    "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "utm_id",
    "utm_name", "utm_reader", "utm_referrer", "gclid", "dclid", "gbraid", "wbraid", "fbclid",
    "msclkid", "mc_cid", "mc_eid", "_hsenc", "_hsmi", "mkt_tok", "igshid", "yclid", "ref",
    "ref_src", "referrer", "src", "source", "trk", "trkCampaign", "gh_src", "lever-source",
    "lever-origin", "ashby_src", "campaign", "share", "si",
)  # fmt: skip


# The one Discover execution of the local tenant, and the schedule that starts it.
DISCOVER_WORKFLOW_ID = "discover-local"
DISCOVERY_SCHEDULE_ID = "jobctrl-discovery-local"
# At most one availability sweep at a time (the worker's heartbeat starts it).
AVAILABILITY_SWEEP_ID = "availability-sweep-local"
# The standing apply loop (`auto_apply`): one at a time, kept running by the heartbeat.
APPLY_LOOP_ID = "apply-auto-local"


def canonical_url(url: str) -> str:
    """The URL that identifies a posting: no tracking, no fragment, no trailing slash."""
    raw = url.strip()
    try:
        parts = urlsplit(raw)
    except ValueError:
        return raw
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return raw
    cleaned = url_query_cleaner(raw, TRACKING_PARAMS, remove=True, keep_fragments=False)
    canon = canonicalize_url(cleaned, keep_fragments=False)
    parts = urlsplit(canon)
    path = parts.path.rstrip("/") if parts.path not in ("", "/") else ""
    netloc = parts.netloc.lower()
    if parts.port and (parts.scheme, parts.port) in (("http", 80), ("https", 443)):
        netloc = netloc.rsplit(":", 1)[0]
    return urlunsplit((parts.scheme.lower(), netloc, path, parts.query, ""))


def idempotency_key(canonical: str) -> str:
    return hashlib.sha256(f"posting-url:{canonical}".encode()).hexdigest()[:32]


def job_id_for(key: str) -> str:
    return key[:12]


def prep_workflow_id(key: str) -> str:
    return f"prep-{key}"


def stage_workflow_id(kind: str, stage: str, job_id: str, occasion: str) -> str:
    """``prepare-<kind>-<stage>-<24 hex>``: one execution per job, stage and occasion (a
    budget day for automatic recovery, an observed failure for a retry), so a repeated
    start finds the one already made."""
    digest = hashlib.sha256(f"{job_id}:{stage}:{occasion}".encode()).hexdigest()[:24]
    return f"prepare-{kind}-{stage}-{digest}"


def apply_workflow_id(job_id: str, occasion: str) -> str:
    """``apply-{jobId}-<12 hex>``: one apply execution per job and occasion (the approved
    materials it prepares with), so a repeated start finds the one already made."""
    digest = hashlib.sha256(f"{job_id}:{occasion}".encode()).hexdigest()[:12]
    return f"apply-{job_id}-{digest}"

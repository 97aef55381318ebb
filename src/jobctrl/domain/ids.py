"""Identity: canonical posting URLs, idempotency keys, job ids and workflow ids.

The same posting reached with tracking parameters, a fragment, a trailing slash or a
different host case gets the same canonical URL, and so the same idempotency key, job id
and ``prep-{idempotencyKey}`` workflow id.

Every id belongs to one tenant. The ``local`` tenant's ids are exactly what they were
before tenants (a home's jobs, its executions in flight and its recorded histories keep
theirs); another tenant's key is salted with its name, so the same posting is another
job there (job ids stay unique across tenants, and every table keyed by a job id keeps
its key), and its workflow ids carry its name: ``tenant_of`` reads it back.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection
from urllib.parse import urlsplit, urlunsplit

from w3lib.url import canonicalize_url, url_query_cleaner

from jobctrl.domain.tenants import LOCAL, is_valid_name

# Query parameters that only track where a click came from.
TRACKING_PARAMS = (
    "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "utm_id",
    "utm_name", "utm_reader", "utm_referrer", "gclid", "dclid", "gbraid", "wbraid", "fbclid",
    "msclkid", "mc_cid", "mc_eid", "_hsenc", "_hsmi", "mkt_tok", "igshid", "yclid", "ref",
    "ref_src", "referrer", "src", "source", "trk", "trkCampaign", "gh_src", "lever-source",
    "lever-origin", "ashby_src", "campaign", "share", "si",
)  # fmt: skip


# The kinds of ``prepare-<kind>-…`` executions (``stage_workflow_id``). All but a retry
# always name their tenant (``prepare-auto-local-…``, as they always did); a retry names
# it only outside ``local`` (``prepare-retry-score-…`` stays as it was).
AUTO_KIND = "auto"  # automatic recovery and the budget resume
CONFIG_KIND = "config"  # work resumed once config.yaml reads again
SWEEP_KIND = "sweep"  # Discover's sweep of the existing backlog
RETRY_KIND = "retry"  # a person's retry of a failed stage
CAPTURE_KIND = "capture"  # a blocked Enrich continued from the person's browser (issue 32)
RESCORE_KIND = "rescore"  # a job scored again on the current profile (`jobctrl rescore`)
TENANT_KINDS = frozenset({AUTO_KIND, CONFIG_KIND, SWEEP_KIND, RESCORE_KIND})


def discover_workflow_id(tenant: str) -> str:
    """The tenant's one Discover execution: ``discover-local``."""
    return f"discover-{tenant}"


def discovery_schedule_id(tenant: str) -> str:
    """The schedule that starts the tenant's Discover: ``jobctrl-discovery-local``."""
    return f"jobctrl-discovery-{tenant}"


def availability_sweep_id(tenant: str) -> str:
    """At most one availability sweep of a tenant at a time: ``availability-sweep-local``
    (``workflows/starts.py`` adds a task queue of the home's own)."""
    return f"availability-sweep-{tenant}"


def apply_loop_id(tenant: str) -> str:
    """The tenant's standing apply loop (``auto_apply``): ``apply-auto-local``."""
    return f"apply-auto-{tenant}"


# The local tenant's: the ids these builders give it (kept for their callers).
DISCOVER_WORKFLOW_ID = discover_workflow_id(LOCAL)
DISCOVERY_SCHEDULE_ID = discovery_schedule_id(LOCAL)
AVAILABILITY_SWEEP_ID = availability_sweep_id(LOCAL)
APPLY_LOOP_ID = apply_loop_id(LOCAL)


def canonical_url(url: str) -> str:
    """The URL that identifies a posting: no tracking, no fragment, no trailing slash."""
    raw = url.strip()
    try:
        parts = urlsplit(raw)
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            return raw
        cleaned = url_query_cleaner(raw, TRACKING_PARAMS, remove=True, keep_fragments=False)
        canon = canonicalize_url(cleaned, keep_fragments=False)
        parts = urlsplit(canon)
        port = parts.port  # a port out of range: kept as given (Enrich refuses the URL)
    except ValueError:
        return raw
    path = parts.path.rstrip("/") if parts.path not in ("", "/") else ""
    netloc = parts.netloc.lower()
    if port and (parts.scheme, port) in (("http", 80), ("https", 443)):
        netloc = netloc.rsplit(":", 1)[0]
    return urlunsplit((parts.scheme.lower(), netloc, path, parts.query, ""))


def idempotency_key(canonical: str, tenant: str) -> str:
    """The posting's key in ``tenant``: 32 hex, salted with the name outside ``local``."""
    salt = "" if tenant == LOCAL else f"tenant:{tenant}:"
    return hashlib.sha256(f"{salt}posting-url:{canonical}".encode()).hexdigest()[:32]


def job_id_for(key: str) -> str:
    return key[:12]


def _tenant_part(tenant: str) -> str:
    """``"T-"`` in the ids of a tenant other than ``local``, which keep today's form."""
    return "" if tenant == LOCAL else f"{tenant}-"


def prep_workflow_id(key: str, tenant: str) -> str:
    """``prep-{key}`` (``prep-T-{key}`` outside ``local``)."""
    return f"prep-{_tenant_part(tenant)}{key}"


def stage_workflow_id(kind: str, stage: str, job_id: str, occasion: str, tenant: str) -> str:
    """``prepare-<kind>-[<tenant>-]<stage>-<24 hex>``: one execution per job, stage and
    occasion (a budget day for automatic recovery, an observed failure for a retry), so a
    repeated start finds the one already made. A kind of ``TENANT_KINDS`` always names
    its tenant, a retry only outside ``local``."""
    digest = hashlib.sha256(f"{job_id}:{stage}:{occasion}".encode()).hexdigest()[:24]
    named = f"{tenant}-" if kind in TENANT_KINDS else _tenant_part(tenant)
    return f"prepare-{kind}-{named}{stage}-{digest}"


def regenerate_workflow_id(job_id: str, generation: int, refused: int, tenant: str) -> str:
    """``prepare-regenerate-[<tenant>-]{jobId}-{generation}[-r{refused}]``: one
    regeneration per generation, and a new attempt after each refused document."""
    suffix = f"-r{refused}" if refused else ""
    return f"prepare-regenerate-{_tenant_part(tenant)}{job_id}-{generation}{suffix}"


def letter_workflow_id(job_id: str, generation: int, refused: int, tenant: str) -> str:
    """``prepare-letter-[<tenant>-]{jobId}-{generation}[-r{refused}]``: the cover letter
    a person asked for, one per letter generation and a new attempt after each refusal."""
    suffix = f"-r{refused}" if refused else ""
    return f"prepare-letter-{_tenant_part(tenant)}{job_id}-{generation}{suffix}"


def apply_workflow_id(job_id: str, occasion: str, tenant: str) -> str:
    """``apply-[<tenant>-]{jobId}-<12 hex>``: one apply execution per job and occasion
    (the approved materials it prepares with), so a repeated start finds the one already
    made."""
    digest = hashlib.sha256(f"{job_id}:{occasion}".encode()).hexdigest()[:12]
    return f"apply-{_tenant_part(tenant)}{job_id}-{digest}"


def contact_research_workflow_id(job_id: str, request_key: str, tenant: str) -> str:
    """``contacts-[<tenant>-]{jobId}-<12 hex>``: one research run per job and request."""
    return f"contacts-{_tenant_part(tenant)}{job_id}-{request_key[:12]}"


def _hex(part: str) -> bool:
    return bool(part) and all(c in "0123456789abcdef" for c in part)


def _named(part: str) -> str | None:
    return part if is_valid_name(part) else None


def owner_of(workflow_id: str, tenants: Collection[str] | None = None) -> str:
    """Whose execution ``workflow_id`` is: the tenant it names (one of ``tenants``, when
    given), else ``local``, the operator's (an execution that is no tenant's)."""
    tenant = tenant_of(workflow_id)
    if tenant is None or (tenants is not None and tenant not in tenants):
        return LOCAL
    return tenant


def tenant_of(workflow_id: str) -> str | None:
    """The tenant whose execution ``workflow_id`` is (by the forms above), or None for an
    id jobctrl does not make."""
    parts = workflow_id.split("-")
    head, rest = parts[0], parts[1:]
    if head == "prep":
        if len(rest) == 1 and _hex(rest[0]):
            return LOCAL
        if len(rest) == 2 and _hex(rest[1]):
            return _named(rest[0])
    elif head == "discover" and rest:
        return _named(rest[0])  # discover-T, or a schedule's start: discover-T-<time>
    elif head == "jobctrl" and len(rest) == 2 and rest[0] == "discovery":
        return _named(rest[1])
    elif head == "availability" and len(rest) >= 2 and rest[0] == "sweep":
        return _named(rest[1])  # a task queue of the home's own may follow
    elif head == "apply" and rest:
        if rest[0] == "auto" and len(rest) == 2:
            return _named(rest[1])
        if len(rest) == 2 and _hex(rest[0]) and _hex(rest[1]):
            return LOCAL
        if len(rest) == 3 and _hex(rest[1]) and _hex(rest[2]):
            return _named(rest[0])
    elif head == "contacts" and len(rest) in (2, 3) and _hex(rest[-1]) and _hex(rest[-2]):
        return LOCAL if len(rest) == 2 else _named(rest[0])
    elif head == "prepare" and len(rest) >= 3:
        return _prepare_tenant(rest[0], rest[1:])
    return None


def _prepare_tenant(kind: str, rest: list[str]) -> str | None:
    """The tenant of ``prepare-<kind>-<rest…>``."""
    if kind in TENANT_KINDS and len(rest) == 3 and _hex(rest[2]):
        return _named(rest[0])
    if kind in (RETRY_KIND, CAPTURE_KIND) and _hex(rest[-1]):
        # prepare-retry-<stage>-<hex>, or prepare-retry-<tenant>-<stage>-<hex>
        return LOCAL if len(rest) == 2 else _named(rest[0]) if len(rest) == 3 else None
    if kind in ("regenerate", "letter"):
        # prepare-(regenerate|letter)-[<tenant>-]<job>-<generation>[-r<n>]
        if rest[-1].startswith("r") and rest[-1][1:].isdigit():
            rest = rest[:-1]
        if len(rest) == 2 and _hex(rest[0]) and rest[1].isdigit():
            return LOCAL
        if len(rest) == 3 and _hex(rest[1]) and rest[2].isdigit():
            return _named(rest[0])
    return None

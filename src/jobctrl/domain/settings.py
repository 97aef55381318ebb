"""Every runtime setting (``jobctrl settings get|set``), declared once: its key, default,
parser for the CLI's string form and a one-line description; unknown keys and bad values
are refused with a clear message. Stored and read by ``store.settings``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from jobctrl.domain.contacts import DEFAULT_SOURCES as DEFAULT_CONTACT_SOURCES
from jobctrl.domain.contacts import parse_sources as parse_contact_sources
from jobctrl.domain.errors import UNKNOWN_SETTING, ConfigError
from jobctrl.domain.mail import check_security_for_host, env_var_name, smtp_host, smtp_security
from jobctrl.domain.setting_parsers import (
    boolean,
    cron,
    float_at_least,
    float_between,
    host_list,
    int_between,
    lane_limits,
    optional_address,
    text,
)


@dataclass(frozen=True)
class SettingSpec:
    key: str
    default: Any
    parse: Callable[[str], Any]
    help: str


# local's SMTP password variable; a tenant's is named by the operator (apply_email refuses
# to read this one for another tenant).
DEFAULT_SMTP_PASSWORD_ENV = "JOBCTRL_SMTP_PASSWORD"

SPECS: dict[str, SettingSpec] = {
    s.key: s
    for s in (
        SettingSpec(
            "daily_budget_usd",
            25.0,
            float_at_least(0),
            "Estimated USD the LLM lanes may spend per UTC day (0 = unlimited).",
        ),
        SettingSpec(
            "lane_token_limits",
            {},
            lane_limits,
            "Per-lane daily input+output token ceilings, e.g. score=200000 (0 = unlimited).",
        ),
        SettingSpec(
            "min_fit_score",
            50,
            int_between(0, 100),
            "Jobs scoring below this skip the later stages (MIN_SCORE).",
        ),
        SettingSpec(
            "followup.after_days",
            7,
            int_between(1, 365),
            "Days after applying with no answer before the inbox says to follow up.",
        ),
        SettingSpec("followup.max_count", 2, int_between(0, 10), "Follow-ups per application."),
        SettingSpec("outreach.max_per_day", 10, int_between(0, 200), "Outreach emails per day."),
        SettingSpec(
            "materials.mention_gaps",
            False,
            boolean,
            "Cover letters may name a must-have you lack (off: they say only what you bring).",
        ),
        SettingSpec(
            "materials.cover_min_score",
            0,
            int_between(0, 100),
            "Cover letters are written on their own only for jobs scoring at least this "
            "(and min_fit_score; 0 = min_fit_score); any other prepared job's letter is "
            "written when you ask (`jobctrl materials letter JOB`, or the Job page).",
        ),
        SettingSpec(
            "score.offline_margin",
            20,
            int_between(0, 100),
            "With a paid score model: a job the free offline scorer places this many points "
            "or more below min_fit_score is not sent to the model (`jobctrl rescore JOB "
            "--paid` asks it anyway).",
        ),
        SettingSpec(
            "fit.unmet_must_have_caps_score",
            True,
            boolean,
            "A job missing one of its must-haves scores below min_fit_score and is never "
            "a Strong fit (off: the score is the share of requirements met).",
        ),
        SettingSpec(
            "fetch.allow_hosts",
            [],
            host_list,
            "Private hosts (names or addresses) that fetches may reach, e.g. an intranet.",
        ),
        SettingSpec(
            "fetch.min_host_interval_seconds",
            1.0,
            float_at_least(0),
            "Least time between two requests to the same host.",
        ),
        SettingSpec(
            "fetch.max_bytes",
            5_000_000,
            int_between(10_000, 100_000_000),
            "Largest decoded page Enrich reads, in bytes.",
        ),
        SettingSpec(
            "fetch.timeout_seconds",
            20.0,
            float_at_least(0.1),
            "Total time one page fetch may take, redirects included.",
        ),
        SettingSpec(
            "fetch.respect_robots",
            True,
            boolean,
            "Honour robots.txt (turn off only for hosts you own).",
        ),
        SettingSpec(
            "retry.max_attempts",
            3,
            int_between(1, 10),
            "Attempts a stage gets for transient errors (timeouts, 5xx, 429).",
        ),
        SettingSpec(
            "retry.initial_interval_seconds",
            5.0,
            float_at_least(0.01),
            "Delay before the first retry of a transient error (doubles each time).",
        ),
        SettingSpec(
            "worker.heartbeat_timeout_seconds",
            30.0,
            float_at_least(0.5),
            "How long a silent activity may go before another worker takes it over.",
        ),
        SettingSpec(
            "budget.strict",
            True,
            boolean,
            "Reserve each call's worst-case cost before sending it, so spend plus open "
            "reservations never exceeds the daily budget.",
        ),
        SettingSpec(
            "budget.reservation_ttl_seconds",
            900.0,
            float_at_least(1),
            "After this long an unsettled reservation (its worker died mid-call) is shown as "
            "assumed spend; it counts against the budget either way, until its day ends.",
        ),
        SettingSpec(
            "llm.rate_limit_max_wait_seconds",
            300.0,
            # A stage attempt may run 10 minutes; its request itself may take 2 of them.
            float_between(0, 420),
            "How long one stage attempt waits for a rate-limited provider (its Retry-After "
            "and pace) before the attempt fails; 0: a 429 fails the attempt at once.",
        ),
        SettingSpec(
            "truth.max_dropped_share",
            0.3,
            float_between(0, 1),
            "The share of a generated resume or letter the truth check may remove (lines "
            "your profile does not support) and still keep it; above it the model is asked "
            "once to repair it, and the job fails only if the repair fails too.",
        ),
        SettingSpec(
            "preparation.materials",
            True,
            boolean,
            "After Score, write the tailored resume, cover letter and PDFs for jobs at or "
            "above min_fit_score (applies to preparations started later).",
        ),
        SettingSpec(
            "discovery.schedule_enabled",
            False,
            boolean,
            "Run discovery on a schedule (takes effect at the worker's next heartbeat).",
        ),
        SettingSpec(
            "discovery.schedule_cron",
            "0 7 * * *",
            cron,
            "When scheduled discovery runs: a five-field cron expression (UTC).",
        ),
        SettingSpec(
            "discovery.prepare_jobs",
            True,
            boolean,
            "Start each newly discovered job's preparation at once (score as you discover).",
        ),
        SettingSpec(
            "discovery.cancel_preparations",
            False,
            boolean,
            "Cancelling discovery also cancels the preparations that run started (false: it "
            "only stops finding jobs; those already found are still prepared).",
        ),
        SettingSpec(
            "worker.heartbeat_seconds",
            15.0,
            float_at_least(0.2),
            "How often the worker reconciles the schedule and runs availability checks.",
        ),
        SettingSpec(
            "worker.sticky_timeout_seconds",
            10.0,  # the Temporal SDK's own default
            float_between(0.5, 60),
            "How long a workflow's next step waits for the worker that ran its last step "
            "before any worker may take it: after a worker dies, its workflows pause this "
            "long (read when the worker starts).",
        ),
        SettingSpec(
            "temporal.retention_days",
            30,
            int_between(1, 3650),
            "Days the embedded Temporal server keeps a finished run's history (set when the "
            "worker starts; `jobctrl doctor` shows a cluster's own).",
        ),
        SettingSpec(
            "providers.offline.latency_ms",
            0,
            int_between(0, 600_000),
            "Simulated latency of the offline provider (for benchmarks and crash drills).",
        ),
        SettingSpec(
            "availability.enabled",
            True,
            boolean,
            "Recheck saved postings on a schedule (24 h active, 7 d closed, backoff on errors).",
        ),
        SettingSpec(
            "availability.batch_size",
            25,
            int_between(1, 500),
            "Most saved postings one availability sweep checks.",
        ),
        # -- running itself (issue 13)
        SettingSpec(
            "recovery.enabled",
            True,
            boolean,
            "Retry failed stages that can succeed later (timeouts, 5xx, interrupted workers) "
            "on the heartbeat, with backoff, at most 5 automatic attempts.",
        ),
        SettingSpec(
            "stop_loss.threshold",
            5,
            int_between(1, 1000),
            "Consecutive failures with one code in a lane or source that pause its automation.",
        ),
        SettingSpec(
            "pipeline_internal_concurrency",
            1,
            int_between(1, 16),
            "Stage attempts automatic recovery runs at once, shared by all its batches.",
        ),
        # -- applying (issue 12): the person's own SMTP account, and the apply loop
        SettingSpec("smtp.host", "", text(smtp_host), "Your SMTP server's host name."),
        SettingSpec("smtp.port", 587, int_between(1, 65535), "Your SMTP server's port."),
        SettingSpec(
            "smtp.security",
            "starttls",
            text(smtp_security),
            "starttls (port 587), tls (port 465) or none (a loopback host only).",
        ),
        SettingSpec("smtp.username", "", text(str.strip), "The user name to log in with."),
        SettingSpec(
            "smtp.password_env",
            DEFAULT_SMTP_PASSWORD_ENV,
            text(env_var_name),
            "The environment variable holding the SMTP password (never the password).",
        ),
        SettingSpec(
            "smtp.from", "", text(optional_address), "The address applications are sent from."
        ),
        SettingSpec(
            "auto_apply",
            False,
            boolean,
            "Keep the standing apply loop running: it prepares approved jobs' applications "
            "and never sends or submits on its own.",
        ),
        SettingSpec(
            "apply_approval_required",
            True,
            boolean,
            "The apply loop takes a job only once its materials are all decided and its "
            "resume approved; false: an approved resume is enough (read at each claim).",
        ),
        SettingSpec(
            "apply_concurrency",
            1,
            int_between(1, 8),
            "Applications the apply loop prepares at once (read at each claim).",
        ),
        SettingSpec(
            "apply_poll_seconds",
            30.0,
            float_at_least(0.1),
            "How long the standing apply loop waits before looking for approved jobs again "
            "when it found none (read at each poll; at most an hour is used).",
        ),
        SettingSpec(
            "extension.capture_hosts",
            [],
            host_list,
            "Sites the browser extension may save postings from, e.g. linkedin.com,indeed.com "
            "(a site's subdomains count; empty: any site).",
        ),
        SettingSpec(
            "extension.tasks",
            True,
            boolean,
            "Offer jobs whose site needs your browser to the paired extension (false: stop).",
        ),
        SettingSpec(
            "contacts.sources",
            DEFAULT_CONTACT_SOURCES,
            parse_contact_sources,
            "What a contact research run may read: posting, pasted, company_pages (pages you "
            "name on the company's own site), any_pages (pages you name anywhere).",
        ),
        SettingSpec(
            "apply_approval_ttl_seconds",
            900,
            int_between(1, 900),
            "How long an email approval stays valid (at most 15 minutes).",
        ),
    )
}


# Settings a tenant may not set for itself over HTTP (issue 14): each would reach past the
# tenant. Only the operator (the CLI, which has the database) sets them, for any tenant.
# Key -> the values refused (None: every value), with why.
OPERATOR_ONLY: dict[str, tuple[frozenset[str] | None, str]] = {
    "fetch.allow_hosts": (
        None,
        "it would let the worker fetch the deployment's own hosts (its database, Temporal)",
    ),
    "smtp.password_env": (None, "it names an environment variable of the worker's host"),
    "smtp.security": (frozenset({"none"}), "unencrypted SMTP is for a loopback test server"),
    "fetch.respect_robots": (
        frozenset({"false"}),
        "sites would see the deployment's address ignore their robots.txt",
    ),
    "fetch.min_host_interval_seconds": (
        None,
        "the deployment's pace towards each site is one for every tenant",
    ),
    "providers.offline.latency_ms": (
        None,
        "a test setting: slow offline calls would hold the activity slots tenants share",
    ),
    "pipeline_internal_concurrency": (None, "the worker's activity slots are shared by tenants"),
    "availability.batch_size": (
        None,
        "a longer availability sweep holds an activity slot tenants share",
    ),
    "worker.heartbeat_seconds": (
        None,
        "one heartbeat serves every tenant: only the operator's own value is read",
    ),
    "worker.sticky_timeout_seconds": (
        None,
        "one worker serves every tenant: only the operator's own value is read",
    ),
    "temporal.retention_days": (
        None,
        "one Temporal namespace serves every tenant: only the operator's own value is read",
    ),
}


def operator_only(key: str, value: Any) -> str | None:
    """Why only the operator may set ``key`` to ``value`` (a tenant over HTTP may not), or
    None when a tenant may."""
    rule = OPERATOR_ONLY.get(key)
    if rule is None:
        return None
    refused, why = rule
    if refused is not None and str(value).strip().lower() not in refused:
        return None
    shown = key if refused is None else f"{key}={value}"
    return f"{shown} is set by the operator only: {why}"


def check_combination(values: dict[str, Any]) -> str | None:
    """Why a set of values (all settings, as they would be) is not allowed together."""
    return check_security_for_host(
        str(values.get("smtp.security", "")), str(values.get("smtp.host", ""))
    )


def spec_for(key: str) -> SettingSpec:
    try:
        return SPECS[key]
    except KeyError:
        known = ", ".join(sorted(SPECS))
        raise ConfigError(
            f"unknown setting {key!r}; known settings: {known}", code=UNKNOWN_SETTING
        ) from None

"""Typed runtime settings stored in the database (``jobctrl settings get|set``).

Every key is declared here with its default, a parser for the CLI's string form and a
one-line description; unknown keys and bad values are refused with a clear message.
"""

from __future__ import annotations

import ipaddress
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from jobctrl.domain.errors import INVALID_SETTING, UNKNOWN_SETTING, ConfigError
from jobctrl.domain.events import SettingChanged
from jobctrl.domain.mail import (
    check_security_for_host,
    email_address,
    env_var_name,
    smtp_host,
    smtp_security,
)
from jobctrl.store import schema
from jobctrl.store.db import upsert
from jobctrl.store.store import Store


def _float_at_least(low: float) -> Callable[[str], float]:
    def parse(raw: str) -> float:
        value = float(raw)
        if not math.isfinite(value) or value < low:
            raise ValueError(f"must be a finite number >= {low:g}")
        return value

    return parse


def _float_between(low: float, high: float) -> Callable[[str], float]:
    def parse(raw: str) -> float:
        value = float(raw)
        if not math.isfinite(value) or not low <= value <= high:
            raise ValueError(f"must be a number from {low:g} to {high:g}")
        return value

    return parse


def _int_between(low: int, high: int) -> Callable[[str], int]:
    def parse(raw: str) -> int:
        value = int(raw)
        if not low <= value <= high:
            raise ValueError(f"must be a whole number from {low} to {high}")
        return value

    return parse


_HOST_NAME = re.compile(
    r"^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?"
    r"(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$"
)


def _host_list(raw: str) -> list[str]:
    """Host names or IP addresses, each named exactly: a wildcard, a network or a URL
    would open the public-address check to more than the person meant."""
    items = json.loads(raw) if raw.strip().startswith("[") else raw.split(",")
    hosts = sorted({str(h).strip().lower().strip("[]") for h in items if str(h).strip()})
    for host in hosts:
        if "*" in host or "?" in host:
            raise ValueError(
                f"{host!r}: wildcards are refused (one would switch off the public-address "
                "check); name each host"
            )
        try:
            ipaddress.ip_address(host)
        except ValueError:
            if not _HOST_NAME.match(host):
                raise ValueError(f"{host!r} is not a host name or address") from None
    return hosts


def _lane_limits(raw: str) -> dict[str, int]:
    if raw.strip().startswith("{"):
        items = {str(k): v for k, v in json.loads(raw).items()}
    else:
        items = {}
        for part in filter(None, (p.strip() for p in raw.split(","))):
            lane, sep, value = part.partition("=")
            if not sep:
                raise ValueError("use LANE=TOKENS[,LANE=TOKENS] or a JSON object")
            items[lane.strip()] = value.strip()
    limits: dict[str, int] = {}
    for lane, value in items.items():
        number = int(value)
        if number < 0:
            raise ValueError(f"the limit for {lane} must be >= 0")
        limits[lane] = number
    return limits


def _bool(raw: str) -> bool:
    lowered = raw.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError("must be true or false")


_CRON_FIELD = re.compile(r"^(\*|\d+(-\d+)?)(/\d+)?(,(\*|\d+(-\d+)?)(/\d+)?)*$")


_CRON_RANGES = (("minute", 0, 59), ("hour", 0, 23), ("day-of-month", 1, 31), ("month", 1, 12),
                ("day-of-week", 0, 6))  # fmt: skip


def _cron(raw: str) -> str:
    fields = raw.split()
    if len(fields) != 5 or not all(_CRON_FIELD.match(f) for f in fields):
        raise ValueError("use five cron fields: minute hour day-of-month month day-of-week")
    for field, (name, low, high) in zip(fields, _CRON_RANGES, strict=True):
        for part in field.split(","):
            span, _, step = part.partition("/")
            numbers = [int(n) for n in span.split("-") if n != "*"]
            if any(not low <= n <= high for n in numbers) or step == "0":
                raise ValueError(f"the {name} field takes {low}-{high}")
            if len(numbers) == 2 and numbers[0] > numbers[1]:
                raise ValueError(f"the {name} range {span} runs backwards")
    return " ".join(fields)


def _text(parse: Callable[[str], str]) -> Callable[[str], str]:
    """A text setting; JSON text (``"x"``, as PATCH sends it) is read as its string."""

    def read(raw: str) -> str:
        value = json.loads(raw) if raw.strip().startswith('"') else raw
        return parse(str(value))

    return read


def _optional_address(raw: str) -> str:
    return email_address(raw) if raw.strip() else ""


@dataclass(frozen=True)
class SettingSpec:
    key: str
    default: Any
    parse: Callable[[str], Any]
    help: str


SPECS: dict[str, SettingSpec] = {
    s.key: s
    for s in (
        SettingSpec(
            "daily_budget_usd",
            25.0,
            _float_at_least(0),
            "Estimated USD the LLM lanes may spend per UTC day (0 = unlimited).",
        ),
        SettingSpec(
            "lane_token_limits",
            {},
            _lane_limits,
            "Per-lane daily input+output token ceilings, e.g. score=200000 (0 = unlimited).",
        ),
        SettingSpec(
            "min_fit_score",
            50,
            _int_between(0, 100),
            "Jobs scoring below this skip the later stages (MIN_SCORE).",
        ),
        SettingSpec(
            "fetch.allow_hosts",
            [],
            _host_list,
            "Private hosts (names or addresses) that fetches may reach, e.g. an intranet.",
        ),
        SettingSpec(
            "fetch.min_host_interval_seconds",
            1.0,
            _float_at_least(0),
            "Least time between two requests to the same host.",
        ),
        SettingSpec(
            "fetch.max_bytes",
            5_000_000,
            _int_between(10_000, 100_000_000),
            "Largest decoded page Enrich reads, in bytes.",
        ),
        SettingSpec(
            "fetch.timeout_seconds",
            20.0,
            _float_at_least(0.1),
            "Total time one page fetch may take, redirects included.",
        ),
        SettingSpec(
            "fetch.respect_robots",
            True,
            _bool,
            "Honour robots.txt (turn off only for hosts you own).",
        ),
        SettingSpec(
            "retry.max_attempts",
            3,
            _int_between(1, 10),
            "Attempts a stage gets for transient errors (timeouts, 5xx, 429).",
        ),
        SettingSpec(
            "retry.initial_interval_seconds",
            5.0,
            _float_at_least(0.01),
            "Delay before the first retry of a transient error (doubles each time).",
        ),
        SettingSpec(
            "worker.heartbeat_timeout_seconds",
            30.0,
            _float_at_least(0.5),
            "How long a silent activity may go before another worker takes it over.",
        ),
        SettingSpec(
            "budget.strict",
            True,
            _bool,
            "Reserve each call's worst-case cost before sending it, so spend plus open "
            "reservations never exceeds the daily budget.",
        ),
        SettingSpec(
            "budget.reservation_ttl_seconds",
            900.0,
            _float_at_least(1),
            "After this long an unsettled reservation (its worker died mid-call) is shown as "
            "assumed spend; it counts against the budget either way, until its day ends.",
        ),
        SettingSpec(
            "llm.rate_limit_max_wait_seconds",
            300.0,
            # A stage attempt may run 10 minutes; its request itself may take 2 of them.
            _float_between(0, 420),
            "How long one stage attempt waits for a rate-limited provider (its Retry-After "
            "and pace) before the attempt fails; 0: a 429 fails the attempt at once.",
        ),
        SettingSpec(
            "preparation.materials",
            True,
            _bool,
            "After Score, write the tailored resume, cover letter and PDFs for jobs at or "
            "above min_fit_score (applies to preparations started later).",
        ),
        SettingSpec(
            "discovery.schedule_enabled",
            False,
            _bool,
            "Run discovery on a schedule (takes effect at the worker's next heartbeat).",
        ),
        SettingSpec(
            "discovery.schedule_cron",
            "0 7 * * *",
            _cron,
            "When scheduled discovery runs: a five-field cron expression (UTC).",
        ),
        SettingSpec(
            "discovery.prepare_jobs",
            True,
            _bool,
            "Start each newly discovered job's preparation at once (score as you discover).",
        ),
        SettingSpec(
            "worker.heartbeat_seconds",
            15.0,
            _float_at_least(0.2),
            "How often the worker reconciles the schedule and runs availability checks.",
        ),
        SettingSpec(
            "providers.offline.latency_ms",
            0,
            _int_between(0, 600_000),
            "Simulated latency of the offline provider (for benchmarks and crash drills).",
        ),
        SettingSpec(
            "availability.enabled",
            True,
            _bool,
            "Recheck saved postings on a schedule (24 h active, 7 d closed, backoff on errors).",
        ),
        SettingSpec(
            "availability.batch_size",
            25,
            _int_between(1, 500),
            "Most saved postings one availability sweep checks.",
        ),
        # -- running itself (issue 13)
        SettingSpec(
            "recovery.enabled",
            True,
            _bool,
            "Retry failed stages that can succeed later (timeouts, 5xx, interrupted workers) "
            "on the heartbeat, with backoff, at most 5 automatic attempts.",
        ),
        SettingSpec(
            "stop_loss.threshold",
            5,
            _int_between(1, 1000),
            "Consecutive failures with one code in a lane or source that pause its automation.",
        ),
        SettingSpec(
            "pipeline_internal_concurrency",
            1,
            _int_between(1, 16),
            "Stage attempts automatic recovery runs at once, shared by all its batches.",
        ),
        # -- applying (issue 12): the person's own SMTP account, and the apply loop
        SettingSpec("smtp.host", "", _text(smtp_host), "Your SMTP server's host name."),
        SettingSpec("smtp.port", 587, _int_between(1, 65535), "Your SMTP server's port."),
        SettingSpec(
            "smtp.security",
            "starttls",
            _text(smtp_security),
            "starttls (port 587), tls (port 465) or none (a loopback host only).",
        ),
        SettingSpec("smtp.username", "", _text(str.strip), "The user name to log in with."),
        SettingSpec(
            "smtp.password_env",
            "JOBCTRL_SMTP_PASSWORD",
            _text(env_var_name),
            "The environment variable holding the SMTP password (never the password).",
        ),
        SettingSpec(
            "smtp.from", "", _text(_optional_address), "The address applications are sent from."
        ),
        SettingSpec(
            "auto_apply",
            False,
            _bool,
            "Keep the standing apply loop running: it prepares approved jobs' applications "
            "and never sends or submits on its own.",
        ),
        SettingSpec(
            "apply_approval_required",
            True,
            _bool,
            "The apply loop takes a job only once its materials are all decided and its "
            "resume approved; false: an approved resume is enough (read at each claim).",
        ),
        SettingSpec(
            "apply_concurrency",
            1,
            _int_between(1, 8),
            "Applications the apply loop prepares at once (read at each claim).",
        ),
        SettingSpec(
            "apply_poll_seconds",
            30.0,
            _float_at_least(0.1),
            "How long the standing apply loop waits before looking for approved jobs again "
            "when it found none (read at each poll; at most an hour is used).",
        ),
        SettingSpec(
            "apply_approval_ttl_seconds",
            900,
            _int_between(1, 900),
            "How long an email approval stays valid (at most 15 minutes).",
        ),
    )
}


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


class Settings:
    def __init__(self, store: Store) -> None:
        self.store = store

    def get(self, key: str) -> Any:
        spec = spec_for(key)
        with self.store.read() as conn:
            value = conn.execute(
                select(schema.settings.c.value).where(schema.settings.c.key == key)
            ).scalar()
        return spec.default if value is None else value

    def all(self) -> dict[str, Any]:
        with self.store.read() as conn:
            stored = dict(
                conn.execute(select(schema.settings.c.key, schema.settings.c.value)).all()
            )
        return {key: stored.get(key, spec.default) for key, spec in sorted(SPECS.items())}

    @staticmethod
    def parse(key: str, raw: str) -> Any:
        """``raw`` (the CLI's text, or JSON) as ``key``'s typed value, or ConfigError."""
        spec = spec_for(key)
        try:
            return spec.parse(raw)
        except (ValueError, TypeError, AttributeError, json.JSONDecodeError) as exc:
            raise ConfigError(f"invalid value for {key}: {exc}", code=INVALID_SETTING) from None

    def set_value(self, key: str, value: Any) -> None:
        self.set_values({key: value})

    def set_values(self, values: dict[str, Any]) -> None:
        """Write typed values (already parsed) in one transaction, one event each."""
        for key in values:
            spec_for(key)
        with self.store.write() as tx:
            stored = dict(
                tx.conn.execute(select(schema.settings.c.key, schema.settings.c.value)).all()
            )
            merged = {k: stored.get(k, spec.default) for k, spec in SPECS.items()} | values
            refused = check_combination(merged)
            if refused:
                raise ConfigError(refused, code=INVALID_SETTING)
            for key, value in values.items():
                upsert(
                    tx.conn,
                    schema.settings,
                    {"key": key, "value": value, "updated_at": tx.now},
                    keys=["key"],
                    update=["value", "updated_at"],
                )
                tx.append(SettingChanged(key=key), key=f"setting:{key}:{tx.now.isoformat()}")

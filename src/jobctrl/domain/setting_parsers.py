"""The parsers of the settings' text forms (the CLI's string, or JSON): each returns the
typed value or raises ValueError/TypeError with a message a person can act on."""

from __future__ import annotations

import ipaddress
import json
import math
import re
from collections.abc import Callable

from jobctrl.domain.mail import email_address


def float_at_least(low: float) -> Callable[[str], float]:
    def parse(raw: str) -> float:
        value = float(raw)
        if not math.isfinite(value) or value < low:
            raise ValueError(f"must be a finite number >= {low:g}")
        return value

    return parse


def float_between(low: float, high: float) -> Callable[[str], float]:
    def parse(raw: str) -> float:
        value = float(raw)
        if not math.isfinite(value) or not low <= value <= high:
            raise ValueError(f"must be a number from {low:g} to {high:g}")
        return value

    return parse


def int_between(low: int, high: int) -> Callable[[str], int]:
    def parse(raw: str) -> int:
        text = str(raw).strip()
        # Plain digits only: int() would also take "1_000" and say "invalid literal for
        # int() with base 10" of "2.5".
        if not re.fullmatch(r"[+-]?\d+", text) or not low <= (value := int(text)) <= high:
            raise ValueError(f"must be a whole number from {low} to {high}")
        return value

    return parse


_HOST_NAME = re.compile(
    r"^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?"
    r"(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$"
)


def host_list(raw: str) -> list[str]:
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


def lane_limits(raw: str) -> dict[str, int]:
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


def boolean(raw: str) -> bool:
    """``true`` or ``false`` (any case), nothing else: ``yes`` or ``1`` silently meaning
    true once switched on the apply loop for someone who meant to ask (issue 30)."""
    lowered = raw.strip().lower()
    if lowered == "true":
        return True
    if lowered == "false":
        return False
    raise ValueError(f"must be true or false (not {raw.strip()[:20]!r})")


_CRON_FIELD = re.compile(r"^(\*|\d+(-\d+)?)(/\d+)?(,(\*|\d+(-\d+)?)(/\d+)?)*$")


_CRON_RANGES = (("minute", 0, 59), ("hour", 0, 23), ("day-of-month", 1, 31), ("month", 1, 12),
                ("day-of-week", 0, 6))  # fmt: skip


def cron(raw: str) -> str:
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


def text(parse: Callable[[str], str]) -> Callable[[str], str]:
    """A text setting; JSON text (``"x"``, as PATCH sends it) is read as its string."""

    def read(raw: str) -> str:
        value = json.loads(raw) if raw.strip().startswith('"') else raw
        return parse(str(value))

    return read


def optional_address(raw: str) -> str:
    return email_address(raw) if raw.strip() else ""

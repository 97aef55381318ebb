"""The public-fetch recheck, one pass per heartbeat (part of ``recovery.enabled``): an
Enrich refused with ``DETAIL_UNSAFE_URL`` because a host NAME resolved to a non-public
address is looked at again, in case the name now resolves to public addresses only.

Each pass first adopts refusals recorded before their evidence was typed, in the exact
shape jobctrl wrote then (``store.public_fetch.adopt_legacy``), then takes at most five
due failures (``store.public_fetch.due``: still current,
unowned, not exhausted; each at most five checks, the first a minute after the failure,
then one, two, four... minutes later). A check only resolves the failed request's host
and the posting's host, under the same address rules a fetch uses (``AddressGuard``,
``fetch.allow_hosts`` included), within ten seconds; no page is fetched. Every check is
recorded (``EnrichmentFetchRechecked``); when both hosts are public the same write
transaction, after checking the candidate again, returns the stage to pending
(``StageReset`` ``public_fetch_condition_resolved``), and automatic recovery's normal
guarded dispatch (attempt cap, backoff) owns the retry. The rules are in
``domain/public_fetch.py``.

Tests and benchmarks shrink the first delay (production: 60 s) and replace DNS with a
JSON file ``{host: [address, ...]}`` read at each check (a host it does not name does
not resolve), with their hooks (``jobctrl.testing.hooks``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from jobctrl.domain import public_fetch as rules
from jobctrl.domain.errors import DETAIL_UNSAFE_URL, StageError
from jobctrl.fetch.addresses import AddressGuard, Resolver, system_resolver
from jobctrl.stages.context import StageContext
from jobctrl.store import public_fetch
from jobctrl.testing import hooks

log = logging.getLogger(__name__)

PORT = 443  # resolution does not depend on it; the guard's interface asks for one


def check_base() -> float:
    return hooks.seconds(hooks.PUBLIC_FETCH_RECHECK_BASE_SECONDS, rules.FIRST_CHECK_SECONDS)


def file_resolver(path: Path) -> Resolver:
    """A resolver answering from a JSON file of ``{host: [addresses]}``, read per call."""

    def resolve(host: str, port: int) -> list[str]:
        table = json.loads(path.read_text(encoding="utf-8"))
        return [str(ip) for ip in table.get(host.lower(), [])]

    return resolve


def configured_resolver() -> Resolver:
    path = hooks.hook(hooks.RESOLVER_FILE)
    return file_resolver(Path(path)) if path else system_resolver


def check_hosts(
    hosts: Iterable[str],
    allow_hosts: Iterable[str],
    resolver: Resolver,
    *,
    deadline: float = rules.CHECK_DEADLINE_SECONDS,
) -> rules.CheckResult:
    """Resolve each host once, as a fetch's guard would, all within ``deadline`` seconds:
    public when every one is; a lookup that does not finish in time is ``unresolved``."""
    guard = AddressGuard(allow_hosts, resolver)
    wanted = [h for h in dict.fromkeys(hosts) if h]
    results: list[rules.CheckResult] = []

    def run() -> None:
        for host in wanted:
            try:
                guard.addresses(host, PORT)
            except StageError as error:
                unsafe = error.code == DETAIL_UNSAFE_URL
                results.append(
                    rules.CheckResult.NON_PUBLIC if unsafe else rules.CheckResult.UNRESOLVED
                )
            except Exception:  # an unreadable answer proves nothing: still blocked
                results.append(rules.CheckResult.UNRESOLVED)
            else:
                results.append(rules.CheckResult.PUBLIC)

    # getaddrinfo has no timeout: a lookup that hangs is abandoned on its daemon thread.
    worker = threading.Thread(target=run, name="public-fetch recheck", daemon=True)
    worker.start()
    worker.join(deadline)
    if worker.is_alive() or len(results) < len(wanted):
        return rules.CheckResult.UNRESOLVED
    return rules.combined(results)


async def recheck_public_fetch(
    ctx: StageContext, values: dict[str, Any], *, resolver: Resolver | None = None
) -> int:
    """One pass: check the due failures, record each check; how many were reset."""
    if not values["recovery.enabled"]:
        return 0
    stage_limit = int(values["retry.max_attempts"])
    base = check_base()
    await asyncio.to_thread(public_fetch.adopt_legacy, ctx.store, clock=ctx.clock)
    candidates = await asyncio.to_thread(
        public_fetch.due, ctx.store, ctx.now(), stage_limit=stage_limit, base=base
    )
    resolve = resolver or configured_resolver()
    allowed = list(values["fetch.allow_hosts"])
    reset = 0
    for candidate in candidates:
        result = await asyncio.to_thread(
            check_hosts, (candidate.host, candidate.posting_host), allowed, resolve
        )
        settled = await asyncio.to_thread(
            public_fetch.settle_check,
            ctx.store,
            candidate,
            result,
            stage_limit=stage_limit,
            base=base,
            clock=ctx.clock,
        )
        if settled:
            reset += 1
            log.info(
                "public-fetch recheck: %s resolves to public addresses now; job %s's "
                "Enrich is pending again",
                candidate.host,
                candidate.job_id,
            )
    return reset

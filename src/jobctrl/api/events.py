"""``GET /v1/events/stream``: Server-Sent Events over new ``job_events`` rows.

The stream polls the event log about every 250 ms (a poller, not a push: facts are durable
first, then announced). Each message carries the event's sequence number as its SSE id, so
a client that reconnects with ``Last-Event-ID`` (or ``?after=``) gets every later event
exactly once. An idle stream sends a keep-alive comment every ``keepalive_seconds``.

Only identifiers travel: sequence, event id, type, job id, time (and a discovery run's id).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

from anyio import to_thread
from fastapi import Header, Query, Request
from fastapi.sse import EventSourceResponse, ServerSentEvent

from jobctrl.api.deps import TenantHome, tenant_router
from jobctrl.app import activity
from jobctrl.app.models import Timestamp, View
from jobctrl.domain.clock import as_utc
from jobctrl.home import Home

POLL_SECONDS = 0.25
KEEPALIVE_SECONDS = 15.0
BATCH = 500
MAX_SEQ = 2**63 - 1  # a cursor past this can't be an event (SQLite's integer range)


class StreamedEvent(View):
    """An event as the stream sends it: ids and codes only (a discovery run's id)."""

    seq: int
    event_id: str
    type: str
    job_id: str | None
    run_id: str | None
    occurred_at: Timestamp  # in UTC, with its offset


def _after(home: Home, seq: int) -> list[StreamedEvent]:
    """The next events after ``seq``, as the stream sends them."""
    return [
        StreamedEvent(
            seq=e.seq,
            event_id=e.event_id,
            type=e.type,
            job_id=e.job_id,
            run_id=e.payload.get("runId") if e.type.startswith("Discovery") else None,
            occurred_at=as_utc(e.occurred_at),
        )
        for e in activity.event_log(home, seq, BATCH)
    ]


def _start(last_event_id: str | None, after: int | None) -> int | None:
    for value in (last_event_id, after):
        if value is None:
            continue
        try:
            number = int(value)
        except ValueError:
            continue
        if number <= MAX_SEQ:
            return max(0, number)
    return None


router = tenant_router()
"""Add ``GET /v1/events/stream``; an idle stream sends a keep-alive comment every
``keepalive_seconds``, so proxies and clients see it is alive."""


@router.get("/v1/events/stream", response_class=EventSourceResponse, tags=["events"])
async def stream(
    request: Request,
    home: TenantHome,
    after: int | None = Query(None, ge=0, le=MAX_SEQ, description="Resume after this sequence."),
    last_event_id: str | None = Header(None, alias="Last-Event-ID", max_length=32),
) -> AsyncIterator[ServerSentEvent]:
    """New job events as they are recorded; resumes after ``Last-Event-ID``."""
    keepalive_seconds: float = request.app.state.keepalive_seconds
    stopping: asyncio.Event = request.app.state.stopping
    cursor = _start(last_event_id, after)
    if cursor is None:
        cursor = await to_thread.run_sync(activity.latest_event_seq, home)
    yield ServerSentEvent(comment=f"from {cursor}", retry=1000)
    quiet_since = time.monotonic()
    # Ends when the client goes (the response cancels this generator) or the server stops.
    while not stopping.is_set():
        events = await to_thread.run_sync(_after, home, cursor)
        for event in events:
            cursor = event.seq
            yield ServerSentEvent(data=event.to_json(), event=event.type, id=str(cursor))
        if events:
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since >= keepalive_seconds:
            yield ServerSentEvent(comment="ping")
            quiet_since = time.monotonic()
        if len(events) < BATCH:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stopping.wait(), POLL_SECONDS)

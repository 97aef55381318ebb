"""``GET /v1/events/stream``: Server-Sent Events over new ``job_events`` rows.

The stream polls the event log about every 250 ms (a poller, not a push: facts are durable
first, then announced). Each message carries the event's sequence number as its SSE id, so
a client that reconnects with ``Last-Event-ID`` (or ``?after=``) gets every later event
exactly once. FastAPI's SSE support sends the keep-alive comments on an idle stream.

Only identifiers travel: sequence, event id, type, job id, time (and a discovery run's id).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

from anyio import to_thread
from fastapi import FastAPI, Header, Query
from fastapi.sse import EventSourceResponse, ServerSentEvent
from sqlalchemy import func, select

from jobctrl.home import Home
from jobctrl.store import schema
from jobctrl.store.store import Store

E = schema.job_events
POLL_SECONDS = 0.25
BATCH = 500
MAX_SEQ = 2**63 - 1  # a cursor past this can't be an event (SQLite's integer range)


def _utc(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _latest(store: Store) -> int:
    with store.read() as conn:
        return conn.execute(select(func.coalesce(func.max(E.c.seq), 0))).scalar_one()


def _after(store: Store, seq: int) -> list[dict[str, Any]]:
    """The next events after ``seq``, as the stream sends them (ids and codes only)."""
    return [
        {
            "seq": e["seq"],
            "eventId": e["event_id"],
            "type": e["type"],
            "jobId": e["job_id"],
            "runId": e["payload"].get("runId") if e["type"].startswith("Discovery") else None,
            "occurredAt": _utc(e["occurred_at"]).isoformat(),
        }
        for e in store.events_after(seq, BATCH)
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


def register_event_stream(app: FastAPI, home: Home) -> None:
    @app.get("/v1/events/stream", response_class=EventSourceResponse, tags=["events"])
    async def stream(
        after: int | None = Query(
            None, ge=0, le=MAX_SEQ, description="Resume after this sequence."
        ),
        last_event_id: str | None = Header(None, alias="Last-Event-ID", max_length=32),
    ) -> AsyncIterator[ServerSentEvent]:
        """New job events as they are recorded; resumes after ``Last-Event-ID``."""
        store = Store.open(home)
        cursor = _start(last_event_id, after)
        if cursor is None:
            cursor = await to_thread.run_sync(_latest, store)
        yield ServerSentEvent(comment=f"from {cursor}", retry=1000)
        while True:  # ends when the client goes: the response cancels this generator
            events = await to_thread.run_sync(_after, store, cursor)
            for event in events:
                cursor = event["seq"]
                yield ServerSentEvent(data=event, event=event["type"], id=str(cursor))
            if len(events) < BATCH:
                await asyncio.sleep(POLL_SECONDS)

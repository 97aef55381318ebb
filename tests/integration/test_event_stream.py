"""``GET /v1/events/stream`` over real HTTP (uvicorn on a loopback port in a thread: an
in-process ASGI transport buffers whole responses and cannot stream).

Every read is bounded: httpx's read timeout fails a silent stream, and each test runs under
``asyncio.timeout``, so a hung stream fails the test rather than blocking the run."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from collections.abc import AsyncIterator, Iterator
from datetime import datetime

import httpx
import pytest
from sqlalchemy import func, select

from jobctrl.store import jobs, schema, tenancy
from jobctrl.store.store import Store
from tests.support.app import live_server

E = schema.job_events
TIMEOUT = httpx.Timeout(5.0)


@pytest.fixture
def served(home) -> Iterator[str]:
    """The real app served by uvicorn on a free loopback port; its base URL."""
    with live_server(home, keepalive_seconds=0.2) as base:
        yield base


@pytest.fixture
async def http(served) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=served, timeout=TIMEOUT) as c:
        yield c


async def _messages(response: httpx.Response) -> AsyncIterator[dict[str, str]]:
    """SSE messages as dicts of their fields; a comment line is ``{"comment": text}``."""
    fields: dict[str, str] = {}
    async for line in response.aiter_lines():
        if line == "":
            if fields:
                yield fields
            fields = {}
        elif line.startswith(":"):
            yield {"comment": line[1:].strip()}
        else:
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            fields[name] = f"{fields[name]}\n{value}" if name in fields else value


def _latest(store: Store) -> int:
    with store.read() as conn:
        mine = tenancy.scoped(E, conn)
        return conn.execute(select(func.coalesce(func.max(E.c.seq), 0)).where(mine)).scalar_one()


def _seqs_after(store: Store, start: int) -> list[int]:
    with store.read() as conn:
        return (
            conn.execute(
                select(E.c.seq).where(E.c.seq > start, tenancy.scoped(E, conn)).order_by(E.c.seq)
            )
            .scalars()
            .all()
        )


async def _from_comment(messages: AsyncIterator[dict[str, str]]) -> int:
    """The stream's first message names its starting cursor (``: from N``)."""
    first = await anext(messages)
    assert first.get("comment", "").startswith("from "), first
    return int(first["comment"].split()[1])


async def test_new_events_arrive_with_their_seq_type_and_identifiers(http, store):
    async with asyncio.timeout(20), http.stream("GET", "/v1/events/stream") as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        assert r.headers["cache-control"] == "no-cache"
        assert r.headers["x-frame-options"] == "DENY"
        assert "access-control-allow-origin" not in r.headers
        messages = _messages(r)
        start = await _from_comment(messages)
        assert start == _latest(store)
        job = jobs.create_job(store, "https://jobs.example.com/sse/1")
        expected = _seqs_after(store, start)
        assert expected, "creating a job records events"
        got = []
        async for m in messages:
            if "id" in m:
                got.append(m)
            if len(got) == len(expected):
                break
    with store.read() as conn:
        mine = tenancy.scoped(E, conn)
        rows = {r.seq: r for r in conn.execute(select(E).where(E.c.seq > start, mine))}
    assert [int(m["id"]) for m in got] == expected
    for m in got:
        data = json.loads(m["data"])
        row = rows[int(m["id"])]
        assert m["event"] == row.type == data["type"]
        assert data["seq"] == row.seq
        assert data["eventId"] == row.event_id
        assert data["jobId"] == row.job_id == job.job_id
        assert datetime.fromisoformat(data["occurredAt"]).tzinfo is not None
        assert set(data) <= {"seq", "eventId", "type", "jobId", "runId", "occurredAt"}
    assert json.loads(got[0]["data"])["type"] == "JobCreated"


async def _read_some(
    http: httpx.AsyncClient,
    *,
    cursor: int,
    how: str,
    take: int,
    done: threading.Event,
    target: list[int],
) -> list[int]:
    """Connect after ``cursor`` (by header or query), read up to ``take`` events, go away."""
    headers = {"Last-Event-ID": str(cursor)} if how == "header" else {}
    params = {"after": cursor} if how == "query" else {}
    seqs: list[int] = []
    async with http.stream("GET", "/v1/events/stream", headers=headers, params=params) as r:
        assert r.status_code == 200
        messages = _messages(r)
        assert await _from_comment(messages) == cursor
        async for m in messages:
            if "id" in m:
                seq = int(m["id"])
                assert json.loads(m["data"])["seq"] == seq
                seqs.append(seq)
                if len(seqs) == take:
                    break
            # Pings keep this loop turning while the writer is idle or finished.
            last = seqs[-1] if seqs else cursor
            if done.is_set() and target and last >= target[0]:
                break
    return seqs


async def test_reconnecting_with_last_event_id_or_after_gets_each_event_exactly_once(http, store):
    rng = random.Random(7)
    start = _latest(store)
    done = threading.Event()
    target: list[int] = []
    failures: list[BaseException] = []

    def writer() -> None:
        try:
            for n in range(60):
                jobs.create_job(store, f"https://jobs.example.com/resume/{n}")
                time.sleep(rng.uniform(0, 0.03))
            target.append(_latest(store))
        except BaseException as exc:  # reported by the test, not lost in the thread
            failures.append(exc)
        finally:
            done.set()

    thread = threading.Thread(target=writer, daemon=True)
    received: list[int] = []
    connections = 0
    async with asyncio.timeout(60):
        thread.start()
        cursor = start
        while not (done.is_set() and (failures or (target and cursor >= target[0]))):
            how = ("header", "query")[connections % 2]
            got = await _read_some(
                http, cursor=cursor, how=how, take=rng.randint(1, 12), done=done, target=target
            )
            connections += 1
            received += got
            if got:
                cursor = got[-1]
    thread.join(5)
    assert not failures, failures
    expected = _seqs_after(store, start)
    assert len(expected) >= 60
    assert connections >= 5, "the client disconnected and resumed several times"
    assert len(received) == len(set(received)), "no event twice"
    assert received == expected, "every event, in order, no gaps"


async def test_last_event_id_wins_over_after_and_a_bad_one_falls_back(http, store):
    for n in range(3):
        jobs.create_job(store, f"https://jobs.example.com/both/{n}")
    seqs = _seqs_after(store, 0)
    assert len(seqs) >= 3
    cases = [
        ({"Last-Event-ID": str(seqs[1])}, {"after": seqs[0]}, seqs[1]),
        ({"Last-Event-ID": "not-a-number"}, {"after": seqs[0]}, seqs[0]),
    ]
    async with asyncio.timeout(20):
        for headers, params, cursor in cases:
            async with http.stream("GET", "/v1/events/stream", headers=headers, params=params) as r:
                messages = _messages(r)
                assert await _from_comment(messages) == cursor
                first = await anext(m async for m in messages if "id" in m)
                assert int(first["id"]) == next(s for s in seqs if s > cursor)
    r = await http.get("/v1/events/stream", params={"after": -1})
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_input"


HUGE = str(10**20)  # more than a 64-bit sequence column holds


async def test_an_after_beyond_any_seq_is_refused(http):
    """Like ``after=-1``: a client error, not a 200 whose stream then aborts (an
    EventSource would reconnect with the same URL forever)."""
    async with asyncio.timeout(10):
        async with http.stream("GET", "/v1/events/stream", params={"after": HUGE}) as r:
            assert r.status_code == 422
            await r.aread()
    assert r.json()["error"]["code"] == "invalid_input"


async def test_a_last_event_id_beyond_any_seq_does_not_break_the_stream(http):
    """An unusable Last-Event-ID is ignored like a non-numeric one: the stream stays up."""
    async with asyncio.timeout(10):
        async with http.stream("GET", "/v1/events/stream", headers={"Last-Event-ID": HUGE}) as r:
            assert r.status_code == 200
            messages = _messages(r)
            await _from_comment(messages)
            pings = 0
            async for m in messages:  # an aborted stream ends early (or raises ReadError)
                pings += m.get("comment") == "ping"
                if pings == 2:
                    break
    assert pings == 2, "the stream ended instead of staying up"


async def test_without_a_cursor_the_stream_starts_at_the_end(http, store):
    for n in range(5):
        jobs.create_job(store, f"https://jobs.example.com/old/{n}")
    old = _latest(store)
    assert old > 0
    async with asyncio.timeout(20), http.stream("GET", "/v1/events/stream") as r:
        messages = _messages(r)
        assert await _from_comment(messages) == old, "old events are not replayed"
        jobs.create_job(store, "https://jobs.example.com/new")
        first = await anext(m async for m in messages if "id" in m)
    assert int(first["id"]) == _seqs_after(store, old)[0]
    assert json.loads(first["data"])["type"] == "JobCreated"


async def test_an_idle_stream_sends_keepalive_comments(http):
    pings = 0
    started = time.monotonic()
    async with asyncio.timeout(10), http.stream("GET", "/v1/events/stream") as r:
        messages = _messages(r)
        await _from_comment(messages)
        async for m in messages:
            assert "id" not in m, "nothing happened, so no event"
            if m.get("comment") == "ping":
                pings += 1
            if pings == 3:
                break
    assert pings == 3, "the stream ended"
    assert time.monotonic() - started >= 0.6, "pings come at the interval, not in a burst"


async def test_the_stream_refuses_a_foreign_host(http, served):
    port = served.rsplit(":", 1)[1]
    for host in ("evil.example", f"evil.example:{port}", f"127.0.0.1:{int(port) + 1}"):
        r = await http.get("/v1/events/stream", headers={"Host": host})
        assert r.status_code == 403, host
        assert r.json()["error"]["code"] == "forbidden_host"
        assert r.headers["content-type"] == "application/json"
    async with asyncio.timeout(10):
        async with http.stream(
            "GET", "/v1/events/stream", headers={"Host": f"localhost:{port}"}
        ) as r:
            assert r.status_code == 200
            assert await _from_comment(_messages(r)) >= 0

"""Benchmark: MCP tool calls over a store of 20,000 jobs, against the same reads over the
HTTP API in the same run (issue 35; see docs/PERFORMANCE.md).

    .venv/bin/python bench/mcp_calls.py [--jobs 20000] [--requests 200] [--json]

The store is seeded as bench/api.py seeds it (a tenth through `jobs.create_job`, the rest
in batches with every Enrich and Score event). Then, one after the other, each measured
over one connection with ``--requests`` calls after 20 warm-up calls:

- the HTTP API (the real app under uvicorn in a spawned process, as `jobctrl up` serves
  it): `GET /v1/jobs` (the first page, 50 jobs) and `GET /v1/jobs/{id}` (the best-scored
  job), each with the tenant's Bearer token;
- `jobctrl mcp` over stdio (a child process, the MCP SDK's own client): the tools
  ``list_jobs`` ({}: the same first page) and ``show_job`` (the same job);
- `jobctrl mcp --http` (streamable HTTP on loopback in a spawned process, the token
  checked as the API checks it): the same two tools.

Printed: p50/p95/p99/max ms per call and transport, and each answer's size in bytes.
(Not bench/mcp.py: a script's folder comes first on sys.path, and that name would hide
the `mcp` SDK from this very script.)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from api import _serve, seed
from jobctrl.app import queries
from jobctrl.app.tenants import ensure_token
from jobctrl.home import Home
from support import fresh_home, percentiles, spawned

SEED = 35
WARMUP = 20
JOBCTRL = str(Path(sys.executable).with_name("jobctrl"))


def _serve_mcp(root: str, queue: Any) -> None:
    """`jobctrl mcp --http`'s app on a free loopback port, in a process of its own."""
    import uvicorn

    from jobctrl.api.server import bind
    from jobctrl.mcp.http import MCP_PATH, http_app

    sock = bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    app = http_app(Home(Path(root)), port=port)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    queue.put(f"http://127.0.0.1:{port}{MCP_PATH}")
    uvicorn.Server(config).run(sockets=[sock])


async def _timed(call: Callable[[], Awaitable[int]], n: int) -> dict[str, float]:
    for _ in range(WARMUP):
        await call()
    ms: list[float] = []
    size = 0
    for _ in range(n):
        started = time.perf_counter()
        size = await call()
        ms.append((time.perf_counter() - started) * 1000)
    return {**percentiles(ms), "bytes": size}


async def api_calls(base_url: str, token: str, job_id: str, n: int) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=base_url, headers=headers, timeout=30) as http:

        async def get(path: str) -> int:
            answer = await http.get(path)
            answer.raise_for_status()
            return len(answer.content)

        return {
            "list_jobs": await _timed(lambda: get("/v1/jobs"), n),
            "show_job": await _timed(lambda: get(f"/v1/jobs/{job_id}"), n),
        }


async def tool_calls(client: Client, job_id: str, n: int) -> dict[str, Any]:
    async def call(name: str, arguments: dict[str, Any]) -> int:
        result = await client.call_tool(name, arguments)
        if result.is_error:
            raise RuntimeError(f"{name}: {result.content}")
        return len(json.dumps(result.structured_content))

    return {
        "list_jobs": await _timed(lambda: call("list_jobs", {}), n),
        "show_job": await _timed(lambda: call("show_job", {"job": job_id}), n),
    }


async def mcp_stdio(job_id: str, n: int) -> dict[str, Any]:
    params = StdioServerParameters(command=JOBCTRL, args=["mcp"], env=os.environ.copy())
    async with Client(params, read_timeout_seconds=60) as client:
        return await tool_calls(client, job_id, n)


async def mcp_http(url: str, token: str, job_id: str, n: int) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        return await tool_calls(client, job_id, n)


def _report(figures: dict[str, Any]) -> None:
    print(f"\nseeded: {json.dumps(figures['seed'])}")
    print(
        f"\n{'call':<10} {'transport':<16} {'p50':>8} {'p95':>8} {'p99':>8} {'max':>8} {'bytes':>8}"
    )
    for call in ("list_jobs", "show_job"):
        for transport in ("http_api", "mcp_stdio", "mcp_http"):
            s = figures[transport][call]
            print(
                f"{call:<10} {transport:<16} {s['p50']:>8} {s['p95']:>8} {s['p99']:>8} "
                f"{s['max']:>8} {s['bytes']:>8}"
            )


def main(n_jobs: int, n_requests: int) -> dict[str, Any]:
    os.environ.pop("JOBCTRL_DATABASE_URL", None)  # SQLite in the home, as bench/api.py
    home, store = fresh_home("jobctrl-bench-mcp-")
    root = str(home.root)
    figures: dict[str, Any] = {"seed": seed(store, n_jobs, random.Random(SEED))}
    token = ensure_token(home) or ""
    items, _ = queries.find_jobs(home, queries.JobFilter(limit=1))
    job_id = items[0].job_id
    figures["job"] = {"jobId": job_id, "score": items[0].score}
    with spawned(_serve, root, True) as (base_url, _):
        figures["http_api"] = asyncio.run(api_calls(base_url, token, job_id, n_requests))
    figures["mcp_stdio"] = asyncio.run(mcp_stdio(job_id, n_requests))
    with spawned(_serve_mcp, root) as (url, _):
        figures["mcp_http"] = asyncio.run(mcp_http(url, token, job_id, n_requests))
    _report(figures)
    store.dispose()
    shutil.rmtree(root, ignore_errors=True)
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=20_000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    args = parser.parse_args()
    result = main(args.jobs, args.requests)
    if args.json:
        print(json.dumps(result, indent=2))

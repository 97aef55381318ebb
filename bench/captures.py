"""Benchmark: the server's part of a save from the browser (issue 32), in process.

The real app (``create_app``) over httpx's ASGI transport, a fresh home with the demo
profile, the embedded Temporal server and a jobctrl worker in this process (the offline
scorer). Each save is ``POST /v1/captures`` with a posting page of ~20 KB (JobPosting
JSON-LD and its HTML), as the extension sends it:

- **capture to job created**: the request's answer (201: URL checked, page cleaned and
  read, the job, its capture and its start intent in one transaction, the preparation
  started on Temporal);
- the same **without a Temporal server** (the job kept with its start intent);
- **capture to scored**: from the request to the job's score in ``/v1/captures/status``
  (Enrich from the capture, Score, by the worker).

    .venv/bin/python bench/captures.py [--saves 30]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import time

import httpx

from jobctrl.api.app import create_app
from jobctrl.app import extension as app_extension
from jobctrl.home import Home
from support import embedded_temporal, fresh_home, jobctrl_worker

BASE = "http://127.0.0.1:8765"
EXT = "chrome-extension://abcdefghijklmnopabcdefghijklmnop"


def page(n: int) -> tuple[str, dict[str, object]]:
    items = "".join(
        f"<li>Build and run Python service number {i} on PostgreSQL</li>" for i in range(200)
    )
    jsonld = {
        "@context": "https://schema.org",
        "@type": "JobPosting",
        "title": f"Backend Engineer {n}",
        "hiringOrganization": {"@type": "Organization", "name": "Acme Robotics"},
        "jobLocation": {"@type": "Place", "address": {"addressLocality": "Berlin"}},
        "description": f"<p>Python, PostgreSQL, Kubernetes.</p><ul>{items[:4000]}</ul>",
    }
    body = f"<h1>Backend Engineer {n}</h1><ul>{items}</ul><script>x()</script>"
    html = f"<html><body>{body}</body></html>"
    return html, jsonld


def ms(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {
        "p50": round(statistics.median(ordered), 1),
        "p95": round(p95, 1),
        "max": round(ordered[-1], 1),
    }


async def saves(home: Home, n: int, prefix: str, *, scored: bool) -> dict[str, object]:
    transport = httpx.ASGITransport(app=create_app(home, port=8765))
    async with httpx.AsyncClient(transport=transport, base_url=BASE, timeout=120) as api:
        code = app_extension.make_code(home).code
        r = await api.post("/v1/extension/pair", json={"code": code}, headers={"Origin": EXT})
        headers = {"Authorization": f"Bearer {r.json()['token']}", "Origin": EXT}
        created, to_score = [], []
        for i in range(n):
            html, jsonld = page(i)
            url = f"https://careers.example.com/{prefix}/{i}"
            start = time.perf_counter()
            r = await api.post(
                "/v1/captures", json={"url": url, "html": html, "jsonld": jsonld}, headers=headers
            )
            assert r.status_code == 201, r.text
            created.append((time.perf_counter() - start) * 1000)
            while scored:
                s = await api.get("/v1/captures/status", params={"url": url}, headers=headers)
                if s.json().get("score") is not None:
                    to_score.append((time.perf_counter() - start) * 1000)
                    break
                await asyncio.sleep(0.01)
    result: dict[str, object] = {"saves": n, "created_ms": ms(created)}
    if scored:
        result["scored_ms"] = ms(to_score)
    return result


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=30)
    args = parser.parse_args()
    home, store = fresh_home("jobctrl-bench-captures-")
    # Nothing listens on port 9: the start fails at once, the start intent stays.
    os.environ["JOBCTRL_TEMPORAL_ADDRESS"] = "127.0.0.1:9"
    without = await saves(home, args.saves, "no-temporal", scored=False)
    os.environ.pop("JOBCTRL_TEMPORAL_ADDRESS")
    async with embedded_temporal(home) as (client, _pid), jobctrl_worker(client, store, home):
        with_worker = await saves(home, args.saves, "worker", scored=True)
    print(json.dumps({"without_temporal": without, "with_worker": with_worker}, indent=1))


if __name__ == "__main__":
    asyncio.run(main())

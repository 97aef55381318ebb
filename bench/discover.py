"""Benchmark: discovery over B boards × P postings (Greenhouse, Lever and Ashby shapes) on
loopback with a share of cross-posted duplicates: time to discover and dedupe, postings
and jobs per second, peak RSS, and dedupe precision/recall against the known duplicates.
Preparation of the found jobs is switched off (`discovery.prepare_jobs false`) so the
figures are discovery's own. See docs/PERFORMANCE.md.

    .venv/bin/python bench/discover.py [--boards 50] [--per-board 100] [--duplicates 0.2]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import multiprocessing
import threading
import time
from collections import defaultdict
from urllib.parse import urlsplit

from sqlalchemy import select

from jobctrl.app.discovery import start_discovery
from jobctrl.app.sources import add_source
from jobctrl.demo.boards import DemoBoards, build_boards, posting_url_paths
from jobctrl.store import schema
from support import (
    LOOPBACK_FETCH,
    embedded_temporal,
    fresh_home,
    jobctrl_worker,
    peak_rss_self_mb,
    spawned,
)


def _serve(boards: int, per_board: int, duplicates: float, queue: multiprocessing.Queue) -> None:
    layout = build_boards(boards, per_board, duplicates)[:-1]  # without the broken board
    queue.put(DemoBoards(layout).start().base_url)
    threading.Event().wait()


def _pairs(groups: dict[str, list[str]]) -> set[tuple[str, str]]:
    return {
        tuple(sorted(pair))  # type: ignore[misc]
        for members in groups.values()
        for pair in itertools.combinations(members, 2)
    }


async def main(boards_n: int, per_board: int, duplicates: float) -> dict:
    home, store = fresh_home(
        settings={
            **LOOPBACK_FETCH,
            "fetch.max_bytes": 50_000_000,
            "discovery.prepare_jobs": False,
        }
    )
    layout = build_boards(boards_n, per_board, duplicates)[:-1]
    truth_by_path = posting_url_paths(layout)
    with spawned(_serve, boards_n, per_board, duplicates) as (base_url, _):
        for board in layout:
            add_source(home, board.kind, board.name, base_url)
        async with embedded_temporal(home) as (client, _), jobctrl_worker(client, store, home):
            started = time.perf_counter()
            run = await start_discovery(home, wait=True, wait_timeout=1800)
            elapsed = time.perf_counter() - started
    so = schema.source_observations
    with store.read() as conn:
        rows = conn.execute(select(so.c.job_id, so.c.url)).all()
    predicted: dict[str, list[str]] = defaultdict(list)
    truth: dict[str, list[str]] = defaultdict(list)
    for job_id, url in rows:
        path = urlsplit(url).path
        predicted[job_id].append(path)
        truth[truth_by_path[path]].append(path)
    p_pairs, t_pairs = _pairs(predicted), _pairs(truth)
    hits = len(p_pairs & t_pairs)
    postings = sum(len(b.postings) for b in layout)
    return {
        "boards": boards_n,
        "per_board": per_board,
        "duplicate_share": duplicates,
        "status": run.status,
        "postings": postings,
        "observations": len(rows),
        "jobs": len(predicted),
        "true_unique_postings": len(truth),
        "seconds": round(elapsed, 2),
        "postings_per_s": round(postings / elapsed, 1),
        "jobs_per_s": round(len(predicted) / elapsed, 1),
        "duplicate_pairs_true": len(t_pairs),
        "duplicate_pairs_found": len(p_pairs),
        "dedupe_precision": round(hits / len(p_pairs), 4) if p_pairs else 1.0,
        "dedupe_recall": round(hits / len(t_pairs), 4) if t_pairs else 1.0,
        "counts": run["counts"],
        "peak_rss_worker_mb": peak_rss_self_mb(),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--boards", type=int, default=50)
    parser.add_argument("--per-board", type=int, default=100)
    parser.add_argument("--duplicates", type=float, default=0.2)
    args = parser.parse_args()
    figures = asyncio.run(main(args.boards, args.per_board, args.duplicates))
    print(json.dumps(figures, indent=2), flush=True)

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
import os
import resource
import tempfile
import threading
import time
import uuid
from collections import defaultdict
from urllib.parse import urlsplit

from sqlalchemy import select

from jobctrl import services
from jobctrl.demo.boards import DemoBoards, build_boards, posting_url_paths
from jobctrl.demo.profile import DEMO_PROFILE
from jobctrl.home import Home
from jobctrl.store import schema
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store
from jobctrl.worker.connection import connect
from jobctrl.worker.devserver import EmbeddedTemporal
from jobctrl.worker.run import build_worker


def _serve(args: tuple[int, int, float], queue: multiprocessing.Queue) -> None:
    boards = DemoBoards(build_boards(*args)[:-1])  # without the broken board
    boards.start()
    queue.put(boards.base_url)
    threading.Event().wait()


def _pairs(groups: dict[str, list[str]]) -> set[tuple[str, str]]:
    return {
        tuple(sorted(pair))  # type: ignore[misc]
        for members in groups.values()
        for pair in itertools.combinations(members, 2)
    }


async def main(boards_n: int, per_board: int, duplicates: float) -> dict:
    os.environ["JOBCTRL_HOME"] = tempfile.mkdtemp(prefix="jobctrl-bench-")
    os.environ.pop("JOBCTRL_TEMPORAL_ADDRESS", None)
    os.environ["JOBCTRL_TASK_QUEUE"] = f"bench-{uuid.uuid4().hex[:8]}"
    home = Home.resolve()
    services.init_home(home, profile=DEMO_PROFILE)
    store = Store.open(home)
    settings = Settings(store)
    settings.set_value("fetch.allow_hosts", ["127.0.0.1"])
    settings.set_value("fetch.min_host_interval_seconds", 0.0)
    settings.set_value("fetch.max_bytes", 50_000_000)
    settings.set_value("discovery.prepare_jobs", False)

    layout = build_boards(boards_n, per_board, duplicates)[:-1]
    truth_by_path = posting_url_paths(layout)
    spawn = multiprocessing.get_context("spawn")
    queue = spawn.Queue()
    site = spawn.Process(
        target=_serve, args=((boards_n, per_board, duplicates), queue), daemon=True
    )
    site.start()
    base_url = queue.get(timeout=60)
    for board in layout:
        services.add_source(home, board.kind, board.name, base_url)

    server = EmbeddedTemporal(home)
    await server.ensure()
    figures: dict = {"boards": boards_n, "per_board": per_board, "duplicate_share": duplicates}
    try:
        client = await connect(home)
        worker, ctx = build_worker(client, store, home)
        async with worker:
            started = time.perf_counter()
            run = await services.start_discovery(home, wait=True, wait_timeout=1800)
            elapsed = time.perf_counter() - started
        ctx.close()
        counts = run["counts"]
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
        figures.update(
            status=run["status"],
            postings=postings,
            observations=len(rows),
            jobs=len(predicted),
            true_unique_postings=len(truth),
            seconds=round(elapsed, 2),
            postings_per_s=round(postings / elapsed, 1),
            jobs_per_s=round(len(predicted) / elapsed, 1),
            duplicate_pairs_true=len(t_pairs),
            duplicate_pairs_found=len(p_pairs),
            dedupe_precision=round(hits / len(p_pairs), 4) if p_pairs else 1.0,
            dedupe_recall=round(hits / len(t_pairs), 4) if t_pairs else 1.0,
            counts=counts,
        )
    finally:
        figures["peak_rss_worker_mb"] = round(
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1
        )
        server.stop()
        site.terminate()
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--boards", type=int, default=50)
    parser.add_argument("--per-board", type=int, default=100)
    parser.add_argument("--duplicates", type=float, default=0.2)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main(args.boards, args.per_board, args.duplicates)), indent=2))

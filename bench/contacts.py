"""Benchmark: contact research (issue 33) — candidate extraction precision and recall on
labelled fixture pages, and one research run end to end.

    .venv/bin/python bench/contacts.py [--runs 5]

- **extraction**: every page of ``tests/fixtures/contacts`` (postings, team and about
  pages, pasted people-search lists and notes; written for jobctrl, labelled by hand) read
  as the stage reads it (``html_fragment_to_text``), people extracted, compared by name
  with the labels: precision, recall, the share of found people whose role matches the
  label, and the emails found. Three sets: ``pages`` (the rules were written on them),
  ``heldout`` (written after; its misses then changed the rules) and ``heldout2``
  (written and labelled after that change, never used to tune);
- **fake model**: the same pages through the ``contact_research`` lane's answer check
  (``supported_people``) with a fake model that answers each page's labels plus one
  invented person and one invented address per page — what the check lets through;
- **end to end**: ``jobctrl contacts research JOB --wait`` as the app runs it (the
  embedded Temporal dev server and a worker in this process, loopback pages): the
  posting, a team page and a pasted list, from the command to the candidates listed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from jobctrl.fetch.extract import html_fragment_to_text  # noqa: E402
from jobctrl.llm.contact_answers import ContactAnswer, supported_people  # noqa: E402
from jobctrl.llm.offline_contacts import FoundPerson, extract_people  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "contacts"
SETS = {
    "pages": "labels.json",
    "heldout": "heldout_labels.json",
    "heldout2": "heldout2_labels.json",
}


def page_text(path: Path) -> str:
    raw = path.read_text(encoding="utf-8")
    return html_fragment_to_text(raw) if path.suffix == ".html" else raw


def pages(name: str) -> list[tuple[Path, dict[str, Any]]]:
    labels = json.loads((FIXTURES / SETS[name]).read_text(encoding="utf-8"))
    return [(FIXTURES / name / f, lab) for f, lab in labels.items() if not f.startswith("_")]


def score(
    found: dict[Path, list[FoundPerson]], labelled: list[tuple[Path, dict[str, Any]]]
) -> dict[str, Any]:
    tp = fp = fn = roles = emails = wanted_emails = 0
    for path, lab in labelled:
        got = {p.name: p for p in found[path]}
        want = {p["name"]: p for p in lab["people"]}
        tp += len(got.keys() & want.keys())
        fp += len(got.keys() - want.keys())
        fn += len(want.keys() - got.keys())
        roles += sum(1 for n in got.keys() & want.keys() if got[n].role == want[n]["role"])
        for n, p in want.items():
            if p.get("email"):
                wanted_emails += 1
                emails += n in got and got[n].email == p["email"]
    return {
        "pages": len(labelled),
        "people": tp + fn,
        "precision": round(tp / (tp + fp), 3) if tp + fp else 1.0,
        "recall": round(tp / (tp + fn), 3) if tp + fn else 1.0,
        "role_accuracy": round(roles / tp, 3) if tp else None,
        "emails": f"{emails}/{wanted_emails}",
        "false_positives": fp,
        "missed": fn,
    }


def offline(name: str) -> dict[str, Any]:
    labelled = pages(name)
    started = time.perf_counter()
    found = {p: extract_people(page_text(p), company=lab["company"]) for p, lab in labelled}
    ms = (time.perf_counter() - started) * 1000 / len(labelled)
    return {**score(found, labelled), "ms_per_page": round(ms, 2)}


def fake_model(name: str) -> dict[str, Any]:
    """Each page through the contact_research lane (``call_lane``: spend authority, the
    provider's answer recorded) to a loopback OpenAI-compatible server
    (tests/support/fake_openai.py) that answers the page's labels plus one invented
    person and one invented address, then the lane's check (``supported_people``)."""
    from tests.support.fake_openai import FakeOpenAI, prompt_text
    from tests.support.profile import TEST_PROFILE

    from jobctrl.app.home import init_home
    from jobctrl.config import LaneProvider
    from jobctrl.home import Home
    from jobctrl.llm.contact_answers import CONTACTS_SYSTEM, contacts_prompt
    from jobctrl.llm.lanes import call_lane
    from jobctrl.llm.spend import SpendAuthority
    from jobctrl.store.settings import Settings
    from jobctrl.store.store import Store

    labelled = pages(name)
    by_text = {page_text(p)[:2000]: lab for p, lab in labelled}

    def answer(request: dict[str, Any]) -> dict[str, Any]:
        asked = prompt_text(request)
        lab = next(v for k, v in by_text.items() if k in asked)
        people = [
            {"name": p["name"], "role": p["role"], "title": "", "email": p.get("email", ""),
             "evidence": f"{p['name']} works here"}
            for p in lab["people"]
        ]  # fmt: skip
        people.append({"name": "Morgan Invented", "role": "recruiter", "title": "",
                       "email": "morgan@invented.example", "evidence": "invented"})  # fmt: skip
        if people[0]["name"] != "Morgan Invented" and not people[0]["email"]:
            people[0]["email"] = "made.up@invented.example"
        return {"people": people}

    found: dict[Path, list[FoundPerson]] = {}
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAI("ok", answer=answer) as provider:
        home = Home(Path(tmp))
        init_home(home, profile=TEST_PROFILE)
        store = Store.open(home)
        spend = SpendAuthority(store, Settings(store))
        os.environ["FAKE_KEY"] = "sk-test-not-a-real-key"
        lane = LaneProvider(provider="openai", model="gpt-4o-mini", base_url=provider.base_url,
                            api_key_env="FAKE_KEY")  # fmt: skip
        started = time.perf_counter()
        for n, (path, lab) in enumerate(labelled):
            text = page_text(path)
            got = call_lane(
                spend, "contact_research", lane, job_id=f"bench{n:07d}", run_id="bench",
                attempt=1, output_type=ContactAnswer, system=CONTACTS_SYSTEM,
                prompt=lambda text=text, lab=lab, source=path.name: contacts_prompt(
                    text, company=lab["company"], source=source
                ),
                offline=lambda: ContactAnswer(),
            )  # fmt: skip
            found[path] = supported_people(got, text)
        ms = (time.perf_counter() - started) * 1000 / len(labelled)
        requests = len(provider.requests)
        store.dispose()
    return {**score(found, labelled), "requests": requests, "ms_per_page": round(ms, 1)}


async def end_to_end(runs: int) -> dict[str, Any]:
    """``contacts research --wait`` over a posting, a team page and a pasted list."""
    from temporalio.testing import WorkflowEnvironment
    from tests.support.http import FixtureServer, Route
    from tests.support.profile import TEST_PROFILE

    from jobctrl.app import contact_research
    from jobctrl.app.home import init_home
    from jobctrl.app.jobs import add_job
    from jobctrl.home import Home
    from jobctrl.store.settings import Settings
    from jobctrl.store.store import Store
    from jobctrl.worker.devserver import temporal_binary
    from jobctrl.worker.run import build_worker
    from jobctrl.workflows.client import connect

    page = FIXTURES / "pages"
    with tempfile.TemporaryDirectory() as tmp, FixtureServer() as site:
        os.environ["JOBCTRL_HOME"] = tmp
        home = Home.resolve()
        init_home(home, profile=TEST_PROFILE)
        store = Store.open(home)
        settings = Settings(store)
        settings.set_values({"fetch.allow_hosts": ["127.0.0.1"], "preparation.materials": False,
                             "fetch.min_host_interval_seconds": 0.0})  # fmt: skip
        env = await WorkflowEnvironment.start_local(dev_server_existing_path=temporal_binary())
        os.environ["JOBCTRL_TEMPORAL_ADDRESS"] = env.client.service_client.config.target_host
        client = await connect(home)
        worker, ctx = build_worker(client, store, home)
        seconds: list[float] = []
        found = 0
        async with worker:
            for n in range(runs):
                body = (page / "p01_greenhouse_backend.html").read_bytes()
                job = await add_job(home, site.add(f"/jobs/{n}", Route(body=body)), wait=True)
                team = site.add(
                    f"/team/{n}", Route(body=(page / "t01_northwind_team.html").read_bytes())
                )
                paste = (page / "x01_paste_people_search.txt").read_text()
                started = time.perf_counter()
                task = await contact_research.research(
                    home, job.job_id, urls=[team], paste=paste, wait=True
                )
                seconds.append(time.perf_counter() - started)
                assert task.status == "succeeded", task.status
                found = len(task.candidates)
        ctx.close()
        await env.shutdown()
    return {
        "runs": runs,
        "sources": 3,
        "candidates": found,
        "median_s": round(statistics.median(seconds), 3),
        "max_s": round(max(seconds), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-e2e", action="store_true", help="Extraction figures only.")
    args = parser.parse_args()
    result: dict[str, Any] = {
        "offline": {name: offline(name) for name in SETS},
        "fake_model": {name: fake_model(name) for name in SETS},
    }
    if not args.no_e2e:
        result["end_to_end"] = asyncio.run(end_to_end(args.runs))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

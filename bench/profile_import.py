"""Benchmark: resume import (issue 28) — how long the offline section parser takes on a
two-page PDF, and how much of a real resume it gets right.

    .venv/bin/python bench/profile_import.py      # --rounds 20

1. **Time.** ``read_profile_file`` on each real two/three-page PDF of
   tests/fixtures/resumes (RenderCV's rendered examples): extraction (pdfplumber) and the
   section parser, p50 / p95 ms over ``--rounds`` runs after a warm-up.
2. **Precision and recall** of the offline parser per PDF against the RenderCV YAML it was
   rendered from (read by the structured importer): the fields compared are name, email,
   location, links, each role's employer / title / start / end / location / bullets, each
   education entry's institution / degree / field / start / end, skills, each project's
   name / start year / description, each award's title / date. A field is a (kind, value)
   pair after folding case and spaces; precision = parsed pairs found in the source /
   parsed pairs, recall = source pairs found in the parse / source pairs.
3. **With a fake model** (``--model-latency`` seconds, default 20: about what a small
   hosted model takes to write a two-page profile's ~2,500 output tokens): the same PDFs
   imported with the profile lane set to the test suite's OpenAI-compatible fake on
   loopback (real SDK, HTTP, pydantic-ai, spend authority, stored answer), answering a
   faithful reading plus an invented role and bullet. Per PDF: the paid import (a dry
   run), its time above the model's latency, the same file again (the stored answer
   reused: no request), how many values were dropped, and requests made; and, apart, the
   provider SDKs' import that the first paid call of a process pays once.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from jobctrl.domain.profile import Profile
from jobctrl.profile_import import load_profile_file, read_profile_file

RESUMES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "resumes"


def _n(text: str) -> str:
    return " ".join(text.replace("’", "'").split()).casefold()


def fields(p: Profile) -> set[tuple[str, ...]]:
    out: set[tuple[str, ...]] = {("name", _n(p.name)), ("email", _n(p.contact.email)),
                                 ("location", _n(p.contact.location))}  # fmt: skip
    out |= {("link", re.sub(r"^https?://(www\.)?", "", u.lower()).rstrip("/"))
            for u in p.contact.links}  # fmt: skip
    for r in p.experience:
        key = _n(r.company)
        out |= {("role", key, "employer", key), ("role", key, "title", _n(r.title)),
                ("role", key, "start", r.start), ("role", key, "end", r.end),
                ("role", key, "location", _n(r.location))}  # fmt: skip
        out |= {("role", key, "bullet", _n(b)) for b in r.bullets}
    for e in p.education:
        key = _n(e.institution)
        out |= {("edu", key, "institution", key), ("edu", key, "degree", _n(e.degree)),
                ("edu", key, "field", _n(e.field)), ("edu", key, "start", e.start),
                ("edu", key, "end", e.end)}  # fmt: skip
    out |= {("skill", _n(s)) for s in p.skills}
    for x in p.projects:
        out |= {("project", _n(x.name)), ("project", _n(x.name), "start", x.start[:4]),
                ("project", _n(x.name), "description", _n(x.description))}  # fmt: skip
    out |= {("award", _n(a.title), a.date) for a in p.awards}
    return {f for f in out if f[-1]}


def model_reading(pdf: Path) -> dict[str, Any]:
    """A model's answer: the resume read faithfully, one invented bullet and role."""
    faithful = read_profile_file(pdf).profile.model_dump(mode="json", exclude={"answers"})
    faithful["experience"][0]["bullets"].append("Mentored twelve engineers on three continents")
    faithful["experience"].append({"title": "Staff Engineer", "company": "Globex"})
    return faithful


def with_fake_model(latency: float) -> None:
    """Import each PDF with the profile lane on a fake model answering after ``latency``."""
    from jobctrl.app.lanes import set_lane
    from jobctrl.app.profile import import_profile
    from support import fresh_home

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the fake lives in tests/
    from tests.support.fake_openai import FakeOpenAI

    home, _ = fresh_home("jobctrl-bench-profile-")
    os.environ["BENCH_KEY"] = "sk-bench-not-a-real-key"
    t = time.perf_counter()
    from jobctrl.llm import remote_sdk  # noqa: F401  (what the first paid call imports)

    print(f"\nthe provider SDKs' import, once per process: {time.perf_counter() - t:.2f} s")
    print(f"with a fake model answering in {latency:.1f} s:")
    print(f"{'resume':34} {'paid s':>7} {'above':>7} {'again ms':>9} {'dropped':>7} {'asked':>5}")
    paid_all: list[float] = []
    for pdf in sorted(RESUMES.glob("*.pdf")):
        with FakeOpenAI("ok", model_reading(pdf), delay=latency) as fake:
            set_lane(home, "profile", "openai", "gpt-4o-mini", fake.base_url, "BENCH_KEY")
            t = time.perf_counter()
            paid = import_profile(home, pdf, dry_run=True)
            paid_s = time.perf_counter() - t
            t = time.perf_counter()
            import_profile(home, pdf, dry_run=True)
            again_ms = (time.perf_counter() - t) * 1000
            assert paid.structured_by == "model", paid.note
            paid_all.append(paid_s)
            print(f"{pdf.name:34} {paid_s:7.2f} {paid_s - latency:7.2f} {again_ms:9.0f} "
                  f"{len(paid.dropped):>7} {len(fake.requests):>5}")  # fmt: skip
    print(f"all: p50 {statistics.median(paid_all):.2f} s a paid import, "
          f"{statistics.median(paid_all) - latency:.2f} s above the model's latency")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--model-latency", type=float, default=20.0)
    parser.add_argument("--no-model", action="store_true", help="skip the fake-model rows")
    args = parser.parse_args()
    total_tp = total_parsed = total_truth = 0
    times: list[float] = []
    print(f"{'resume':34} {'pages':>5} {'p50 ms':>7} {'p95 ms':>7} {'prec':>6} {'recall':>6}")
    for pdf in sorted(RESUMES.glob("*.pdf")):
        read_profile_file(pdf)  # warm-up
        mine: list[float] = []
        for _ in range(args.rounds):
            t = time.perf_counter()
            parsed = read_profile_file(pdf)
            mine.append((time.perf_counter() - t) * 1000)
        times += mine
        truth = fields(load_profile_file(pdf.with_suffix(".yaml")))
        got = fields(parsed.profile)
        tp = len(got & truth)
        total_tp, total_parsed, total_truth = (
            total_tp + tp,
            total_parsed + len(got),
            total_truth + len(truth),
        )
        import pypdf

        pages = len(pypdf.PdfReader(pdf).pages)
        p95 = statistics.quantiles(mine, n=20)[-1]
        print(f"{pdf.name:34} {pages:>5} {statistics.median(mine):7.0f} {p95:7.0f} "
              f"{tp / len(got):6.3f} {tp / len(truth):6.3f}")  # fmt: skip
        for miss in sorted(truth - got)[:3]:
            print(f"    missed: {miss}")
        for extra in sorted(got - truth)[:3]:
            print(f"    extra:  {extra}")
    print(f"all: {len(times)} imports, p50 {statistics.median(times):.0f} ms, "
          f"p95 {statistics.quantiles(times, n=20)[-1]:.0f} ms; precision "
          f"{total_tp / total_parsed:.3f}, recall {total_tp / total_truth:.3f} "
          f"({total_truth} source fields)")  # fmt: skip
    if not args.no_model:
        with_fake_model(args.model_latency)


if __name__ == "__main__":
    main()

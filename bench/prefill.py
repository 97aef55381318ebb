"""Benchmark: how long the browser prefill takes per application form, headless.

    .venv/bin/python bench/prefill.py            # --rounds 5

The fixture forms of the browser tests (tests/fixtures/forms: the shapes of Greenhouse,
Lever, Ashby, Workable, SmartRecruiters, Recruitee and a company's own form) are served on
loopback; each round prefills every form once, as `jobctrl apply JOB --browser` does with
Debian's Chromium, headless:

- **to hand-over**: from the call to the moment the form is the person's (Playwright's
  driver and Chromium started, the page loaded under the guard, read, filled, read again,
  scrolled), the window then closed by the bench at once;
- **dry run**: the whole `--dry-run` (the same, plus the full-page screenshot and closing).

- **baseline**: starting Playwright's driver and Chromium, opening a blank page and closing
  it all again: the part of each prefill that is not the form's.

The first round is a warm-up (the OS's file cache, Chromium's first start) and is left
out. Wall time by ``perf_counter``; p50 / p95 over forms × rounds, and the p50 of each form.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from playwright.sync_api import sync_playwright  # noqa: E402
from tests.support.forms import ALL_FORMS, APPLICANT, FormSite, write_documents  # noqa: E402

from jobctrl.stages.apply_browser import (  # noqa: E402
    CHROMIUM,
    Handover,
    PrefillRequest,
    prefill_form,
)

LOOPBACK = frozenset({"127.0.0.1"})
LAUNCH_ARGS = ["--no-sandbox"] if os.geteuid() == 0 else []


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def to_hand_over(url: str, documents: dict[str, str]) -> tuple[float, int]:
    """Seconds until the form is handed over, and how many fields and files were done."""
    started = time.perf_counter()
    handed: list[float] = []
    counts: list[int] = []

    def hand_over(handover: Handover) -> None:
        handed.append(time.perf_counter() - started)
        counts.append(len(handover.result.filled) + len(handover.result.files))
        handover.page.close()

    request = PrefillRequest(url, APPLICANT, documents, allow_hosts=LOOPBACK, headless=True)
    result = prefill_form(request, on_handover=hand_over)
    assert result.status == "closed" and handed, result.to_json()
    return handed[0], counts[0]


def baseline() -> float:
    started = time.perf_counter()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        browser.new_context().new_page().goto("about:blank")
        browser.close()
    return time.perf_counter() - started


def dry_run(url: str, documents: dict[str, str]) -> float:
    started = time.perf_counter()
    request = PrefillRequest(url, APPLICANT, documents, allow_hosts=LOOPBACK, dry_run=True)
    result = prefill_form(request)
    assert result.status == "prefilled" and result.screenshot, result.to_json()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="measured rounds (after one warm-up)")
    args = parser.parse_args()
    if not CHROMIUM.exists():
        sys.exit(f"no Chromium at {CHROMIUM}")
    handover: dict[str, list[float]] = {name: [] for name in ALL_FORMS}
    dry: dict[str, list[float]] = {name: [] for name in ALL_FORMS}
    done: dict[str, int] = {}
    base: list[float] = []
    with tempfile.TemporaryDirectory() as tmp, FormSite() as site:
        documents = write_documents(Path(tmp))
        for round_no in range(args.rounds + 1):
            for name in ALL_FORMS:
                seconds, done[name] = to_hand_over(site.form(name), documents)
                dry_seconds = dry_run(site.form(name), documents)
                base_seconds = baseline()
                if round_no:
                    base.append(base_seconds)
                    handover[name].append(seconds)
                    dry[name].append(dry_seconds)
        submitted = [r for r in site.submissions()]
    assert submitted == [], "a form submission reached the server"
    every_handover = [s for values in handover.values() for s in values]
    every_dry = [s for values in dry.values() for s in values]
    report = {
        "rounds": args.rounds,
        "forms": len(ALL_FORMS),
        "loadavg": [round(x, 2) for x in os.getloadavg()],
        "to_hand_over_s": {
            "p50": round(pct(every_handover, 0.5), 2),
            "p95": round(pct(every_handover, 0.95), 2),
        },
        "baseline_s": {"p50": round(pct(base, 0.5), 2), "p95": round(pct(base, 0.95), 2)},
        "dry_run_s": {"p50": round(pct(every_dry, 0.5), 2), "p95": round(pct(every_dry, 0.95), 2)},
        "per_form_p50_s": {
            name: {
                "to_hand_over": round(statistics.median(handover[name]), 2),
                "dry_run": round(statistics.median(dry[name]), 2),
                "fields_and_files": done[name],
            }
            for name in ALL_FORMS
        },
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

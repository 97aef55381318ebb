"""Benchmark: what the truth check costs per document, and its share of the Tailor and
Cover stages with the offline provider.

    .venv/bin/python bench/truth_check.py       # --postings 40 --rounds 5 --jobs 60

Four measurements in one process, wall time by ``perf_counter`` (the check is pure CPU):

1. **Corpus.** The truthful documents of the truth corpus (tests/unit/truth_corpus: seven
   profiles, resumes and letters with every line cited), each checked ``--rounds`` times
   after one warm-up check per profile: p50 / p95 ms per resume and per letter. The
   corpus's detection and false-alarm rates come with it, and what the stage keeps once
   it repairs (``repair``): per kind of lie or rewrite, lies caught, documents that lost a
   line and documents too broken to keep by cutting; the truthful documents that lose a
   line (goal ≤ 2 %) or would be refused whole (goal: none); a check plus repair's time.
2. **Offline writer.** For each corpus profile and the demo profile, ``--postings`` demo
   postings (read as Enrich reads them) are scored offline (not timed); then
   ``tailor_offline`` and ``check_resume``, ``cover_offline`` and ``check_letter`` are
   timed one by one (the first posting per profile is a warm-up): p50 / p95 ms of each,
   the check's share of write + check, and any finding on the writer's output.
3. **At the limits.** A profile at the size limits built from the corpus's sentences: the
   check of a resume restating all of it, and of the offline writer's resume of it.
4. **The real stages.** ``--jobs`` demo postings through create, Enrich and Score, then
   the Tailor and Cover stages as the worker runs them (the store, the spend authority,
   the offline lane, the check, the generation and its check record), one job at a time,
   no Temporal, as bench/stages.py does; the check inside each stage is timed by wrapping
   the stage's check function: p50 / p95 of the stage and of its check, and the check's
   share of the stage's time.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from tests.unit.truth_corpus import SPECS  # noqa: E402
from tests.unit.truth_corpus.corpus import TODAY, load_profile  # noqa: E402
from tests.unit.truth_corpus.evaluate import (  # noqa: E402
    FABRICATIONS,
    TRUTHFUL,
    check,
    demo_postings,
    document,
    offline_context,
    rates,
    refused_whole,
    repair_by_kind,
    repaired,
)

from jobctrl.demo.postings import generate_postings  # noqa: E402
from jobctrl.demo.profile import DEMO_PROFILE  # noqa: E402
from jobctrl.demo.site import DemoSite  # noqa: E402
from jobctrl.domain.executions import WorkflowType  # noqa: E402
from jobctrl.domain.facts import profile_facts  # noqa: E402
from jobctrl.domain.materials import Cited, CoverLetter, TailoredResume  # noqa: E402
from jobctrl.domain.profile import Profile  # noqa: E402
from jobctrl.domain.truth.document import FabricationError, check_letter, check_resume  # noqa: E402
from jobctrl.llm.offline import score_offline  # noqa: E402
from jobctrl.llm.offline_materials import cover_offline, tailor_offline  # noqa: E402
from jobctrl.stages import materials as material_stages  # noqa: E402
from jobctrl.stages.context import StageContext  # noqa: E402
from jobctrl.stages.enrich import enrich  # noqa: E402
from jobctrl.stages.score import score  # noqa: E402
from jobctrl.store import jobs, workflow_runs  # noqa: E402
from support import LOOPBACK_FETCH, fresh_home  # noqa: E402


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def _ms(values: list[float]) -> dict[str, float]:
    """p50 / p95 / max of durations in seconds, as ms."""
    return {
        "p50_ms": round(1000 * statistics.median(values), 3),
        "p95_ms": round(1000 * _pct(values, 0.95), 3),
        "max_ms": round(1000 * max(values), 3),
    }


def _timed(fn: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    started = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - started


def _lines(doc: TailoredResume | CoverLetter) -> int:
    if isinstance(doc, TailoredResume):
        return material_stages.resume_lines(doc)
    return material_stages.letter_lines(doc)


# -- 1. the corpus ---------------------------------------------------------------------------


def corpus_figures(rounds: int) -> dict[str, Any]:
    docs = [(case, document(case)) for case in TRUTHFUL]
    first: dict[str, list[float]] = {"resume": [], "letter": []}
    seen: set[tuple[str, str]] = set()
    for case, doc in docs:  # the first check per profile and kind pays for what it caches
        if (case.profile, case.document) not in seen:
            seen.add((case.profile, case.document))
            first[case.document].append(_timed(check, case, doc)[1])
    warm: dict[str, list[float]] = {"resume": [], "letter": []}
    for _ in range(rounds):
        for case, doc in docs:
            warm[case.document].append(_timed(check, case, doc)[1])
    figures = rates()
    return {
        "documents": {k: sum(1 for c, _ in docs if c.document == k) for k in warm},
        "rounds": rounds,
        "lines_per_document_mean": {
            k: round(statistics.mean(_lines(d) for c, d in docs if c.document == k), 1)
            for k in warm
        },
        "resume_check": _ms(warm["resume"]),
        "letter_check": _ms(warm["letter"]),
        "first_check_per_profile_p50_ms": {
            k: round(1000 * statistics.median(v), 3) for k, v in first.items()
        },
        "fabrications_detected": round(figures.detection_rate, 4),
        "false_alarm_rate": round(figures.false_alarm_rate, 4),
        "missed": figures.missed,
        "false_alarms": figures.alarms,
        "repair": repair_figures(),
    }


def repair_figures() -> dict[str, Any]:
    """What the stage keeps: lies caught (each kind), truthful documents that lose a line
    or would be refused whole, and what a check plus its repair costs per lying resume."""
    lying_resumes = [(c, document(c)) for c in FABRICATIONS if c.document == "resume"]
    repaired.cache_clear()
    timed: list[float] = []
    for case, doc in lying_resumes:
        started = time.perf_counter()
        check(case, doc)
        repaired(case.id)
        timed.append(time.perf_counter() - started)
    truthful = [c.id for c in TRUTHFUL]
    lost = [c for c in truthful if repaired(c).removed]
    whole = [c for c in truthful if refused_whole(c)]
    return {
        "lies": len(FABRICATIONS),
        "lies_refused_whole": sum(refused_whole(c.id) for c in FABRICATIONS),
        "truthful": len(truthful),
        "truthful_losing_a_line": len(lost),
        "truthful_losing_a_line_rate": round(len(lost) / len(truthful), 4),
        "truthful_refused_whole": len(whole),
        "truthful_losing": lost,
        "lying_resume_check_and_repair": _ms(timed[1:]),
        "by_kind": repair_by_kind(),
    }


# -- 2. the offline writer -------------------------------------------------------------------


def offline_figures(n_postings: int) -> dict[str, Any]:
    profiles = {key: load_profile(key) for key in SPECS}
    profiles["demo"] = Profile.model_validate(DEMO_PROFILE)
    postings = demo_postings(n_postings)
    steps = ("tailor_offline", "check_resume", "cover_offline", "check_letter")
    times: dict[str, list[float]] = {k: [] for k in steps}
    findings: list[str] = []
    for name, profile in profiles.items():
        for i, posting in enumerate(postings):
            context = offline_context(posting)
            report = score_offline(posting.title, posting.description, profile, today=TODAY)
            args = (profile, report, posting.title, posting.company)
            resume, t_tailor = _timed(tailor_offline, *args)
            found, t_check_resume = _timed(check_resume, resume, profile, context)
            letter, t_cover = _timed(cover_offline, *args)
            found_letter, t_check_letter = _timed(check_letter, letter, profile, context)
            found += found_letter
            findings += [f"{name} / {posting.title}: {f.where} {f.claim!r}" for f in found]
            if i == 0:
                continue  # a warm-up per profile: the worker's caches are warm after one job
            times["tailor_offline"].append(t_tailor)
            times["check_resume"].append(t_check_resume)
            times["cover_offline"].append(t_cover)
            times["check_letter"].append(t_check_letter)
    share = {
        "tailor": sum(times["check_resume"])
        / (sum(times["tailor_offline"]) + sum(times["check_resume"])),
        "cover": sum(times["check_letter"])
        / (sum(times["cover_offline"]) + sum(times["check_letter"])),
    }
    return {
        "profiles": len(profiles),
        "postings": len(postings),
        "documents_timed_each": len(times["tailor_offline"]),
        **{k: _ms(v) for k, v in times.items()},
        "check_share_of_write_plus_check": {k: round(v, 3) for k, v in share.items()},
        "findings_on_offline_output": len(findings),
        "findings": findings[:20],
    }


# -- 3. a profile at the limits -------------------------------------------------------------


def limits_profile() -> Profile:
    """A profile at the size limits (as PERFORMANCE.md's Score figure): 9 roles of 9
    bullets of about 1,000 characters, 300 skills, a 4,000-character summary; its text is
    the corpus profiles' own sentences, joined and renumbered."""
    corpus = [load_profile(key) for key in SPECS]
    sentences = [b for p in corpus for e in p.experience for b in e.bullets]
    summary = " ".join(s for p in corpus for s in [p.summary])
    while len(summary) < 4_000:
        summary += " " + summary
    summary = summary[:4_000].rsplit(".", 1)[0] + "."

    def bullet(i: int) -> str:
        text, k = "", i
        while len(text) < 950:
            text += sentences[k % len(sentences)].replace("1", str(i % 9 + 1)) + " "
            k += 7
        return text.strip()[:1_000]

    experience = [
        {
            "title": f"Senior Engineer {chr(65 + r)}",
            "company": f"Company {chr(65 + r)}",
            "start": f"{2000 + 2 * r}-01",
            "end": f"{2001 + 2 * r}-12",
            "bullets": [bullet(9 * r + b) for b in range(9)],
        }
        for r in range(9)
    ]
    skills = [s for p in corpus for s in p.skills]
    skills += [f"Framework{chr(65 + i // 26)}{chr(97 + i % 26)}" for i in range(300 - len(skills))]
    return Profile.model_validate(
        {"name": "Ada Limits", "summary": summary, "skills": skills, "experience": experience}
    )


def limits_figures() -> dict[str, Any]:
    """The check of a resume restating a profile at the limits in full (what a model may
    write: every role, every bullet, every skill), and of the offline writer's output."""
    profile = limits_profile()
    posting = demo_postings(1)[0]
    context = offline_context(posting)
    report = score_offline(posting.title, posting.description, profile, today=TODAY)
    offline = tailor_offline(profile, report, posting.title, posting.company)
    entries = {f.id: f for f in profile_facts(profile)}
    full = offline.model_copy(
        update={
            "experience": [
                e.model_copy(
                    update={
                        "bullets": [
                            Cited(text=f.text, facts=[f.id])
                            for f in entries.values()
                            if f.parent == e.fact
                        ]
                    }
                )
                for e in offline.experience
            ]
        }
    )
    chars = len(profile.summary) + sum(map(len, profile.skills))
    chars += sum(len(e.title) + sum(map(len, e.bullets)) for e in profile.experience)
    out: dict[str, Any] = {"profile_chars": chars}
    for name, resume in (("full_restatement", full), ("offline_resume", offline)):
        times = [_timed(check_resume, resume, profile, context)[1] for _ in range(3)]
        out[name] = {
            "lines": material_stages.resume_lines(resume),
            "check_ms_median_of_3": round(1000 * statistics.median(times), 1),
        }
    return out


# -- 4. the real stages ----------------------------------------------------------------------


def stage_figures(n_jobs: int, seed: int) -> dict[str, Any]:
    """Tailor and Cover as the worker runs them (demo profile, offline provider)."""
    checks: dict[str, list[float]] = {"tailor": [], "cover": []}
    stages: dict[str, list[float]] = {"tailor": [], "cover": []}
    refused = {"tailor": 0, "cover": 0}
    saved = material_stages.RESUME, material_stages.LETTER

    def timing(stage: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed_check(*args: Any) -> Any:  # the check and its repair
            started = time.perf_counter()
            try:
                return fn(*args)
            finally:
                checks[stage].append(time.perf_counter() - started)

        return timed_check

    resume_kind, letter_kind = saved
    material_stages.RESUME = dataclasses.replace(
        resume_kind, repair=timing("tailor", resume_kind.repair)
    )
    material_stages.LETTER = dataclasses.replace(
        letter_kind, repair=timing("cover", letter_kind.repair)
    )
    home, store = fresh_home(
        "jobctrl-bench-truth-", settings={**LOOPBACK_FETCH, "min_fit_score": 0}
    )
    try:
        with DemoSite(extra_pages=generate_postings(n_jobs, seed=seed)) as site:
            urls = [u for u in site.urls() if "/jobs/" in u][-n_jobs:]
            ctx = StageContext(home=home, store=store)
            with ctx.fetcher() as fetcher:
                fetcher.fetch(urls[0])  # connections and robots.txt are not measured
            for url in urls:
                job = jobs.create_job(store, url)
                run = uuid.uuid4().hex
                workflow_runs.record_workflow_started(
                    store,
                    workflow_id=f"prep-{job.idempotency_key}",
                    run_id=run,
                    workflow_type=WorkflowType.PREPARATION,
                    job_id=job.job_id,
                )
                enrich(ctx, job.job_id, run)
                score(ctx, job.job_id, run, None)
                for stage, fn in (
                    ("tailor", material_stages.tailor),
                    ("cover", material_stages.cover),
                ):
                    started = time.perf_counter()
                    try:
                        fn(ctx, job.job_id, run, None)
                    except FabricationError:
                        refused[stage] += 1
                    stages[stage].append(time.perf_counter() - started)
            ctx.close()
    finally:
        material_stages.RESUME, material_stages.LETTER = saved
        store.dispose()
        shutil.rmtree(home.root, ignore_errors=True)
    out: dict[str, Any] = {"jobs": len(stages["tailor"]), "refused": refused}
    for stage in ("tailor", "cover"):
        timed = stages[stage][1:]  # the first job warms the caches
        checked = checks[stage][1:]
        out[stage] = {
            "stage": _ms(timed),
            "check": _ms(checked),
            "check_share_of_stage": round(sum(checked) / sum(timed), 3),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="checks of each corpus document")
    parser.add_argument("--postings", type=int, default=40, help="postings per profile")
    parser.add_argument("--jobs", type=int, default=60, help="jobs through the real stages")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    figures = {
        "corpus": corpus_figures(args.rounds),
        "offline_writer": offline_figures(args.postings),
        "profile_at_the_limits": limits_figures(),
        "stages": stage_figures(args.jobs, args.seed),
    }
    print(json.dumps(figures, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()

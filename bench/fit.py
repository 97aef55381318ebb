"""Benchmark: how far the fit score can be trusted, on the labelled corpus of issue 29.

    .venv/bin/python bench/fit.py                 # --json out.json --rounds 3

tests/fixtures/fit holds real public resumes (a junior, a mid-level and a senior engineer,
an engineering manager, an ML researcher, a product/program manager), real public postings
across families and levels, and a reviewer's label (strong / maybe / no) for each
(profile, posting) pair, written before any scorer ran on them. The offline scorer
(``llm.offline.score_offline``, called with the posting's title and text as the Score
stage calls it) scores every pair; printed per profile and overall:

- pairwise ordering accuracy — for pairs of the same profile with different labels, the
  better label scores strictly higher (a tie counts half); goal ≥ 0.90;
- the mean score per label;
- ``no`` pairs verdicted "Strong fit" (goal: none) and ``strong`` pairs below
  ``min_fit_score`` 50 (goal: none);
- the scorer's time per job (p50 / p95 / max ms over ``--rounds`` passes, after one
  warm-up pass).

``--model`` runs the model scorer too, as stages/score.py calls the score lane
(``run_structured`` with the score prompt, then ``fit_verdict.settle(from_model=True)``),
against tests/support/fake_openai.FakeOpenAI answering like a careless model: every
requirement bulleted in the posting "met", with evidence that quotes the requirement
itself rather than the profile, score 95 and "Strong fit" whatever the level. Its figures
show what the code-side checks correct; besides the same figures it counts the requirements
still "met" on evidence the profile does not contain.

``--json`` writes the figures (and every pair's score and verdict) for PERFORMANCE.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from tests.fixtures.fit.corpus import (  # noqa: E402
    MIN_FIT_SCORE,
    TODAY,
    Figures,
    Scored,
    figures,
    load_labels,
    per_profile,
    score_all,
)

from jobctrl.domain.profile import Profile  # noqa: E402
from jobctrl.domain.scoring import ScoreReport  # noqa: E402
from jobctrl.llm.offline import score_offline  # noqa: E402


def offline(title: str, description: str, profile: Profile) -> ScoreReport:
    return score_offline(title, description, profile, today=TODAY)


def _line(name: str, fig: Figures) -> str:
    means = " ".join(
        f"{label}={'-' if value is None else f'{value:5.1f}'}"
        for label, value in fig.mean_score.items()
    )
    return (
        f"{name:<20} pairs={fig.pairs:3d} pairwise={fig.pairwise_accuracy:.3f} "
        f"({fig.comparable_pairs:4d})  mean {means}  "
        f"no→Strong fit={len(fig.no_strong_fit):2d}  "
        f"strong<{MIN_FIT_SCORE}={len(fig.strong_below_min):2d}"
    )


def _ms(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50": round(1000 * statistics.median(ordered), 3),
        "p95": round(1000 * ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 3),
        "max": round(1000 * ordered[-1], 3),
    }


def report(scored: list[Scored], seconds: list[float]) -> dict[str, object]:
    overall = figures(scored)
    profiles = per_profile(scored)
    for name, fig in profiles.items():
        print(_line(name, fig))
    print(_line("overall", overall))
    for title, rows in (
        ("'no' pairs verdicted Strong fit", overall.no_strong_fit),
        (f"'strong' pairs below {MIN_FIT_SCORE}", overall.strong_below_min),
    ):
        print(f"{title}: {len(rows)}")
        for row in rows:
            print(f"  {row}")
    timing = _ms(seconds)
    print(f"time per job (ms): p50 {timing['p50']}  p95 {timing['p95']}  max {timing['max']}")
    return {
        "overall": overall.as_json(),
        "profiles": {name: fig.as_json() for name, fig in profiles.items()},
        "timePerJobMs": timing,
        "pairs": [
            {
                "profile": row.label.profile,
                "posting": row.label.posting,
                "label": row.label.label,
                "score": row.score,
                "verdict": row.verdict,
            }
            for row in scored
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    parser.add_argument("--rounds", type=int, default=3, help="timed passes over the corpus")
    parser.add_argument(
        "--model", action="store_true", help="also the model scorer against a careless fake"
    )
    parser.add_argument(
        "--first-review",
        action="store_true",
        help="score against the first review's labels (before the second, blind review)",
    )
    args = parser.parse_args()
    labels = load_labels(first_review=args.first_review)
    score_all(offline, labels)  # warm-up: imports, regexes, caches
    seconds: list[float] = []
    scored: list[Scored] = []
    for _ in range(max(1, args.rounds)):
        scored = score_all(offline, labels)
        seconds += [row.seconds for row in scored]
    review = "first review's" if args.first_review else "second review's"
    print(f"offline scorer, {len(scored)} labelled pairs ({review} labels), today={TODAY}")
    result: dict[str, object] = {"scorer": "offline", **report(scored, seconds)}
    if args.model:
        # Imported here: the offline figures also run on commits older than the model checks.
        from tests.fixtures.fit.careless import careless_model_run

        run = careless_model_run()
        print(f"\nmodel scorer against a careless fake, {len(run.scored)} labelled pairs")
        model = report(run.scored, [row.seconds for row in run.scored])
        print(
            "requirements still met on evidence not in the profile: "
            f"{run.unsupported_met} of {run.met}"
        )
        result["careless_model"] = {**model, "unsupportedMet": run.unsupported_met, "met": run.met}
    if args.json:
        args.json.write_text(
            json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()

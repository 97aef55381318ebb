"""Benchmark: what one prepared application costs in model tokens and dollars (issue 31).

    .venv/bin/python bench/cost.py            # --json out.json

A fake OpenAI-compatible provider on loopback (tests/support/fake_openai) logs every
request and answers like a careful model: the Score lane with the offline scorer's report
for the pair, Tailor and Cover with the offline writer's resume and letter (real shapes and
sizes, every claim cited). Each lane's request goes out exactly as the stages send it
(``llm.prompts.lane_request``, ``run_structured`` with the lane's output type and cap), for
one fixed realistic profile (the demo's: 3 roles, 10 bullets) and three real public
postings (tests/fixtures/fit/postings). Printed per lane and per prepared job:

- calls; input tokens (the request's characters ÷ 4: tool definitions and messages, as
  every tool is counted here) and output tokens (the answer's tool-call arguments ÷ 4);
- the identical leading tokens of a lane's requests for two different jobs (what a
  provider's prefix cache can reuse: tools first, then the messages in order);
- $ at two reference prices (gpt-4o-mini; claude-sonnet-4), uncached and with the
  identical leading tokens read from the cache (a burst of jobs: each request after the
  first reads the shared prefix; OpenAI caches from 1,024 identical leading tokens);
- $ per prepared application when 30 % of discovered jobs pass ``min_fit_score`` (Score
  is paid for the other 70 % too), and the same when the offline pre-score keeps the jobs
  it places far below the threshold from the paid lane (their share measured on the fit
  corpus's 193 pairs).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from tests.fixtures.fit.corpus import (  # noqa: E402
    TODAY,
    load_labels,
    load_postings,
    load_profiles,
)
from tests.support.fake_openai import FakeOpenAI, requested_fields  # noqa: E402

from jobctrl.demo.profile import DEMO_PROFILE  # noqa: E402
from jobctrl.domain.fit_verdict import requirement_label  # noqa: E402
from jobctrl.domain.profile import Profile  # noqa: E402
from jobctrl.llm import prompts  # noqa: E402
from jobctrl.llm.answers import answer_from_letter, answer_from_resume  # noqa: E402
from jobctrl.llm.lanes import MAX_OUTPUT_TOKENS  # noqa: E402
from jobctrl.llm.offline import score_offline  # noqa: E402
from jobctrl.llm.offline_materials import cover_offline, tailor_offline  # noqa: E402
from jobctrl.llm.remote import build_model, run_structured  # noqa: E402
from jobctrl.llm.remote_types import LaneModel  # noqa: E402

POSTINGS = ("eng_mid_backend", "eng_senior_backend_node", "eng_backend_general")
PASS_SHARE = 0.30  # of discovered jobs that reach min_fit_score
OPENAI_CACHE_MIN = 1024  # tokens: OpenAI caches a prompt's prefix from this length
# USD per million tokens: (input, output, cache read, cache write)
PRICES = {
    "gpt-4o-mini": (0.15, 0.60, 0.075, 0.15),
    "claude-sonnet-4": (3.00, 15.00, 0.30, 3.75),
}
LANES = ("score", "tailor", "cover")


@dataclass
class Call:
    lane: str
    job: str
    text: str  # the request as the provider reads it: tools, then messages
    input_tokens: int
    output_tokens: int


def _request_text(body: dict[str, Any]) -> str:
    tools = json.dumps(body.get("tools") or [], sort_keys=True, ensure_ascii=False)
    fmt = json.dumps(body.get("response_format") or {}, sort_keys=True, ensure_ascii=False)
    messages = "\n".join(
        m["content"] if isinstance(m.get("content"), str) else json.dumps(m.get("content"))
        for m in body.get("messages") or []
    )
    return tools + fmt + messages


def _answers(profile: Profile, posting: Any) -> dict[str, dict[str, Any]]:
    report = score_offline(posting.title, posting.description, profile, today=TODAY)
    resume = tailor_offline(profile, report, posting.title, posting.company)
    letter = cover_offline(profile, report, posting.title, posting.company)
    # A careful model names each requirement in a few words, as the Score prompt asks.
    named = report.model_copy(
        update={
            "requirements": [
                r.model_copy(update={"requirement": requirement_label(r.requirement, 12)})
                for r in report.requirements
            ]
        }
    )
    return {
        "score": prompts.score_answer(named, profile),
        "tailor": answer_from_resume(resume).model_dump(mode="json"),
        "cover": answer_from_letter(letter).model_dump(mode="json"),
        "_report": report.model_dump(mode="json"),
    }


def run() -> list[Call]:
    profile = Profile.model_validate(DEMO_PROFILE)
    postings = load_postings()
    calls: list[Call] = []
    current: dict[str, Any] = {}

    def answer(request: dict[str, Any]) -> dict[str, Any]:
        fields = requested_fields(request)
        lane = (
            "cover" if "paragraphs" in fields else "tailor" if "experience" in fields else "score"
        )
        current["lane"] = lane
        return current["answers"][lane]

    with FakeOpenAI("ok", answer=answer) as server:
        for key in POSTINGS:
            posting = postings[key]
            current["answers"] = answers = _answers(profile, posting)
            from jobctrl.domain.scoring import ScoreReport

            report = ScoreReport.model_validate(answers["_report"])
            for lane in LANES:
                model = build_model(LaneModel("openai", "gpt-4o-mini", server.base_url))
                request = prompts.lane_request(
                    lane,
                    title=posting.title,
                    company=posting.company,
                    description=posting.description,
                    profile=profile,
                    report=report,
                )
                before = len(server.requests)
                run_structured(
                    model,
                    request.output_type,
                    system=request.system,
                    prompt=request.prompt,
                    max_output_tokens=MAX_OUTPUT_TOKENS[lane],
                )
                body = server.requests[before]
                text = _request_text(body)
                out = json.dumps(answers[lane], ensure_ascii=False)
                calls.append(Call(lane, key, text, len(text) // 4, len(out) // 4))
    return calls


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _usd(model: str, input_tokens: float, output_tokens: float, cached: float = 0.0) -> float:
    pin, pout, pread, _pwrite = PRICES[model]
    return ((input_tokens - cached) * pin + cached * pread + output_tokens * pout) / 1e6


def report(calls: list[Call], far_below: float) -> dict[str, Any]:
    jobs = sorted({c.job for c in calls}, key=POSTINGS.index)
    lanes: dict[str, Any] = {}
    for lane in LANES:
        mine = [c for c in calls if c.lane == lane]
        shared = _common_prefix(mine[0].text, mine[1].text) // 4
        cached = shared if shared >= OPENAI_CACHE_MIN else 0
        lanes[lane] = {
            "calls": len(mine) / len(jobs),
            "inputTokens": round(sum(c.input_tokens for c in mine) / len(jobs)),
            "outputTokens": round(sum(c.output_tokens for c in mine) / len(jobs)),
            "identicalLeadingTokens": shared,
            "cacheableLeadingTokens": cached,
        }
    per_job = {
        "calls": sum(v["calls"] for v in lanes.values()),
        "inputTokens": sum(v["inputTokens"] for v in lanes.values()),
        "outputTokens": sum(v["outputTokens"] for v in lanes.values()),
    }
    usd: dict[str, Any] = {}
    for model in PRICES:
        plain = sum(_usd(model, v["inputTokens"], v["outputTokens"]) for v in lanes.values())
        cached = sum(
            _usd(model, v["inputTokens"], v["outputTokens"], v["cacheableLeadingTokens"])
            for v in lanes.values()
        )
        score = lanes["score"]
        score_only = _usd(model, score["inputTokens"], score["outputTokens"])
        # 30 % of discovered jobs are prepared; Score is paid for the other 70 % as well,
        # except those the offline pre-score keeps from the paid lane.
        per_application = plain + score_only * (1 - PASS_SHARE) / PASS_SHARE
        unpaid = min(far_below, 1 - PASS_SHARE)
        gated = plain + score_only * (1 - PASS_SHARE - unpaid) / PASS_SHARE
        usd[model] = {
            "perPreparedJob": round(plain, 5),
            "perPreparedJobCacheReads": round(cached, 5),
            "perApplicationAt30PercentPass": round(per_application, 5),
            "perApplicationAt30PercentPassPrescored": round(gated, 5),
        }
    return {
        "lanes": lanes,
        "perPreparedJob": per_job,
        "usd": usd,
        "jobs": jobs,
        "farBelowShare": round(far_below, 3),
    }


def far_below_share() -> float:
    """The share of the fit corpus's 193 (profile, posting) pairs that the offline scorer
    places ``score.offline_margin`` (20) or more below ``min_fit_score`` (50): jobs a paid
    Score lane is not asked about."""
    profiles, postings = load_profiles(), load_postings()
    scores = [
        score_offline(postings[lb.posting].title, postings[lb.posting].description,
                      profiles[lb.profile], today=TODAY).score
        for lb in load_labels()
    ]  # fmt: skip
    return sum(s < 50 - 20 for s in scores) / len(scores)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    args = parser.parse_args()
    figures = report(run(), far_below_share())
    print(f"profile: the demo's; postings: {', '.join(figures['jobs'])}")
    for lane, v in figures["lanes"].items():
        print(
            f"{lane:<7} calls/job={v['calls']:.0f}  in={v['inputTokens']:6d}  "
            f"out={v['outputTokens']:5d}  identical leading={v['identicalLeadingTokens']:5d}"
        )
    job = figures["perPreparedJob"]
    calls, tokens_in, tokens_out = job["calls"], job["inputTokens"], job["outputTokens"]
    print(f"per prepared job: calls={calls:.0f}  in={tokens_in}  out={tokens_out}")
    for model, v in figures["usd"].items():
        print(
            f"{model:<16} ${v['perPreparedJob']:.4f} per prepared job  "
            f"${v['perPreparedJobCacheReads']:.4f} with cache reads  "
            f"${v['perApplicationAt30PercentPass']:.4f} per application (30 % pass), "
            f"${v['perApplicationAt30PercentPassPrescored']:.4f} with the offline pre-score"
        )
    print(
        f"jobs the offline pre-score keeps from a paid Score lane: {figures['farBelowShare']:.0%}"
    )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()

"""Benchmark: a lane's output modes and output caps (issue 31).

    .venv/bin/python bench/output_modes.py            # --json out.json

1. What each output mode sends (`jobctrl llm set … --output tool|json|prompted`): each
   lane's request for three real public postings and the demo's profile goes out through
   the SDK to the loopback fake (tests/support/fake_openai), as the stages send it
   (``llm.prompts.lane_request``, ``run_structured`` with the lane's output type and cap),
   once per mode; printed per lane and mode, the request's tokens (its JSON body's
   characters ÷ 4: tool definitions, ``response_format`` and messages alike), relative to
   ``tool`` measured in the same run, and whether the answer read back equals the tool
   mode's.
2. Whether the caps fit the answers (``llm.lanes.MAX_OUTPUT_TOKENS``): a careful model's
   answer in each lane's output schema (the offline scorer's and writer's documents as
   answers, ``llm.answers``) for every posting of tests/fixtures/fit/postings; printed per
   lane, the answer's tokens (characters ÷ 4) at the median, the 95th percentile and the
   largest, the cap, the cap's headroom over each, and how many answers the cap would cut.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from tests.fixtures.fit.corpus import TODAY, load_postings  # noqa: E402
from tests.support.fake_openai import FakeOpenAI, requested_fields  # noqa: E402

from jobctrl.demo.profile import DEMO_PROFILE  # noqa: E402
from jobctrl.domain.profile import Profile  # noqa: E402
from jobctrl.llm import prompts  # noqa: E402
from jobctrl.llm.answers import (  # noqa: E402
    answer_from_letter,
    answer_from_report,
    answer_from_resume,
)
from jobctrl.llm.lanes import MAX_OUTPUT_TOKENS  # noqa: E402
from jobctrl.llm.offline import score_offline  # noqa: E402
from jobctrl.llm.offline_materials import cover_offline, tailor_offline  # noqa: E402
from jobctrl.llm.remote import build_model, run_structured  # noqa: E402
from jobctrl.llm.remote_types import LaneModel  # noqa: E402

POSTINGS = ("eng_mid_backend", "eng_senior_backend_node", "eng_backend_general")
LANES = ("score", "tailor", "cover")
MODES = ("tool", "json", "prompted")


def _answers(profile: Profile, posting: Any) -> dict[str, Any]:
    report = score_offline(posting.title, posting.description, profile, today=TODAY)
    resume = tailor_offline(profile, report, posting.title, posting.company)
    letter = cover_offline(profile, report, posting.title, posting.company)
    return {
        "report": report,
        "score": answer_from_report(report, profile).model_dump(mode="json"),
        "tailor": answer_from_resume(resume).model_dump(mode="json"),
        "cover": answer_from_letter(letter).model_dump(mode="json"),
    }


def modes(profile: Profile) -> list[dict[str, Any]]:
    """Each lane's request in each mode: its tokens, and whether the answer read back is
    the tool mode's."""
    postings = load_postings()
    current: dict[str, Any] = {}

    def answer(request: dict[str, Any]) -> dict[str, Any]:
        fields = requested_fields(request)
        lane = (
            "cover" if "paragraphs" in fields else "tailor" if "experience" in fields else "score"
        )
        return dict(current["answers"][lane])

    rows = []
    with FakeOpenAI("ok", answer=answer) as server:
        for key in POSTINGS:
            posting = postings[key]
            current["answers"] = answers = _answers(profile, posting)
            for lane in LANES:
                request = prompts.lane_request(
                    lane, title=posting.title, company=posting.company,
                    description=posting.description, profile=profile, report=answers["report"],
                )  # fmt: skip
                outputs = {}
                for mode in MODES:
                    lane_model = LaneModel("openai", "gpt-4o-mini", server.base_url, output=mode)
                    before = len(server.requests)
                    outputs[mode], _usage = run_structured(
                        build_model(lane_model), request.output_type, system=request.system,
                        prompt=request.prompt, max_output_tokens=MAX_OUTPUT_TOKENS[lane],
                        lane=lane_model,
                    )  # fmt: skip
                    body = server.requests[before]
                    rows.append(
                        {
                            "lane": lane,
                            "posting": key,
                            "mode": mode,
                            "input_tokens": len(json.dumps(body, ensure_ascii=False)) // 4,
                            "same_answer": outputs[mode] == outputs["tool"],
                        }
                    )
    return rows


def caps(profile: Profile) -> dict[str, list[int]]:
    """A careful answer's tokens per lane, for every posting of the corpus."""
    sizes: dict[str, list[int]] = {lane: [] for lane in LANES}
    for posting in load_postings().values():
        answers = _answers(profile, posting)
        for lane in LANES:
            sizes[lane].append(len(json.dumps(answers[lane], ensure_ascii=False)) // 4)
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    args = parser.parse_args()
    profile = Profile.model_validate(DEMO_PROFILE)
    figures: dict[str, Any] = {"modes": {}, "caps": {}}

    rows = modes(profile)
    print("request tokens per lane and output mode (mean of 3 postings; ratio to tool)")
    for lane in LANES:
        tool = statistics.mean(
            r["input_tokens"] for r in rows if (r["lane"], r["mode"]) == (lane, "tool")
        )
        for mode in MODES:
            mine = [r for r in rows if (r["lane"], r["mode"]) == (lane, mode)]
            mean = statistics.mean(r["input_tokens"] for r in mine)
            same = all(r["same_answer"] for r in mine)
            figures["modes"][f"{lane}.{mode}"] = {"input_tokens": mean, "same_answer": same}
            print(
                f"  {lane:<7}{mode:<9}{mean:>8.0f} tokens  {mean / tool:5.2f}x  same answer: {same}"
            )

    sizes = caps(profile)
    print(f"careful answers' output tokens over {len(sizes['score'])} postings vs the lane's cap")
    for lane in LANES:
        values = sorted(sizes[lane])
        median = statistics.median(values)
        p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
        top, cap = values[-1], MAX_OUTPUT_TOKENS[lane]
        over = sum(v > cap for v in values)
        figures["caps"][lane] = {
            "median": median, "p95": p95, "max": top, "cap": cap, "over_cap": over
        }  # fmt: skip
        print(
            f"  {lane:<7} median {median:>6.0f}  p95 {p95:>6}  max {top:>6}  cap {cap:>6}"
            f"  cap/p95 {cap / p95:5.1f}x  cap/max {cap / top:5.1f}x  cut by the cap: {over}"
        )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()

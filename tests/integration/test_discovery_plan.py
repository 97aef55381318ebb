"""A discovery run's plan member by member (issue 34), through the worker and `jobctrl
runs --plan`: every job the run linked has a state, the ones left out a reason with a
sentence (filtered by the target search, already prepared by an earlier run, hidden), and
the counts add up without calling anything unknown waiting or done — in `runs --plan` and
on the web Runs page, which lists the left-out ones grouped by reason."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest
from markupsafe import escape

from jobctrl.app.discovery import discovery_gate
from jobctrl.app.job_removal import hide_job
from jobctrl.app.sources import add_source
from jobctrl.app.target_search import change_target_search
from jobctrl.demo.boards import DemoBoards, build_boards
from tests.integration.test_json_contract import RECORDED, key_paths
from tests.support.app import app_client
from tests.support.processes import run_cli
from tests.support.waiting import eventually_async


@pytest.fixture
def boards(home, fast_settings) -> Iterator[DemoBoards]:
    fast_settings.set_value("min_fit_score", 0)
    with DemoBoards(build_boards(boards=2, per_board=4)[:-1]) as b:
        for s in b.sources():
            add_source(home, s["kind"], s["name"], s["base_url"])
        yield b


async def _cli_json(*args: str) -> dict:
    done = await asyncio.to_thread(run_cli, *args, "--json", timeout=180)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


async def test_every_member_has_a_state_and_the_left_out_ones_a_reason(home, store, worker, boards):
    first = await _cli_json("discover", "--wait")
    await eventually_async(lambda: not discovery_gate(home).busy, 120, what="run 1 prepared")
    plan = await _cli_json("runs", "--plan", first["runId"])
    assert plan["runId"] == first["runId"] and plan["members"]
    assert {m["state"] for m in plan["members"]} == {"done"}, plan["members"]
    assert plan["counts"]["done"] == len(plan["members"]) and plan["notEligible"] == []

    hidden = next(m["jobId"] for m in plan["members"] if "Backend" in (m["title"] or ""))
    hide_job(home, hidden, "not for me")
    change_target_search(home, {"excludeTitles": ["Designer"]})
    second = await _cli_json("discover", "--wait")
    plan = await _cli_json("runs", "--plan")  # the newest run's
    assert plan["runId"] == second["runId"]
    text = (await asyncio.to_thread(run_cli, "runs", "--plan")).stdout
    hidden_title = next(m["title"] for m in plan["members"] if m["jobId"] == hidden)
    assert f"  {hidden}  {hidden_title} at " in text, "a left-out job by its title, too"
    states = {m["jobId"]: (m["state"], m["reason"]) for m in plan["members"]}
    assert states[hidden] == ("not_eligible", "hidden")
    others = {v for k, v in states.items() if k != hidden}
    assert others == {("not_eligible", "duplicate")}, "prepared by run 1: not repeated"
    groups = {g["reason"]: g for g in plan["notEligible"]}
    assert groups["filtered_title"]["postings"] == 2 and groups["filtered_title"]["jobIds"] == []
    assert groups["hidden"]["jobIds"] == [hidden]
    assert (
        groups["duplicate"]["sentence"].endswith(".")
        and "earlier run" in groups["duplicate"]["sentence"]
    )
    recorded = set(json.loads(RECORDED.read_text())["jobctrl runs --plan"])
    assert key_paths(plan) <= recorded, "its --json keys are recorded (json_keys.json)"
    counts = plan["counts"]
    assert counts["not_eligible"] == len(states) + 2
    assert counts["unknown"] == counts["waiting"] == counts["done"] == 0
    assert sum(counts.values()) == len(states) + 2, "each member and posting counted once"

    async with app_client(home) as api:
        page = (await api.get("/runs")).text
    assert 'id="run-plan"' in page and 'data-reason="filtered_title"' in page
    assert "already found and prepared" in page and "not interested" in page
    # The web Runs page lists the left-out ones by reason, each group with its sentence,
    # its count and its jobs, and counts nothing as waiting or done.
    for reason, group in groups.items():
        start = page.index(f'data-reason="{reason}"')
        section = page[start : page.index("</details>", start)]
        assert str(escape(group["sentence"])) in section, reason
        assert f"<strong>{group['postings'] + len(group['jobIds'])}</strong>" in section
        assert all(f'href="/jobs/{j}"' in section for j in group["jobIds"]), reason
    assert f"not eligible <strong>{counts['not_eligible']}</strong>" in page
    assert ">waiting <strong>" not in page and ">done <strong>" not in page

"""Resetting an abandoned application (`jobctrl apply reset JOB`, ``POST
/v1/apply/{job_id}/reset``) restores the job's eligibility for the apply loop: abandoned,
the loop's candidates leave it out and automatic Tailor/Cover are vetoed; reset, it is an
unprepared draft the loop claims like any other, and the veto is lifted. Any other status
is refused and left as it was."""

from __future__ import annotations

import json

from jobctrl.domain.clock import utcnow
from jobctrl.store import applications, apply_claims, events, recovery_admission
from tests.support.app import app_client
from tests.support.apply import approved_job
from tests.support.processes import run_cli


def _candidates(store) -> list[str]:
    found = apply_claims.candidates(
        store, utcnow(), min_fit_score=0, approval_required=True, limit=10
    )
    return found.job_ids


def _vetoed(store, job_id: str) -> bool:
    with store.read() as conn:
        return recovery_admission.declined(conn, job_id, "tailor")


async def test_a_reset_abandoned_application_is_the_loops_to_prepare_again(
    home, store, site, fast_settings
):
    job_id = approved_job(home, store, site, "/jobs/reset")
    assert job_id in _candidates(store)
    prepared = run_cli("apply", "prepare", job_id, "--channel", "browser", "--json")
    assert prepared.returncode == 0, prepared.stderr
    assert job_id not in _candidates(store)  # prepared: not the loop's any more

    refused = run_cli("apply", "reset", job_id)  # a draft is not abandoned
    assert refused.returncode == 1 and "only an abandoned application" in refused.stderr
    assert applications.get(store, job_id)["channel"] == "browser"

    assert run_cli("apply", "resolve", job_id, "abandoned").returncode == 0
    assert job_id not in _candidates(store) and _vetoed(store, job_id)

    done = run_cli("apply", "reset", job_id, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "draft"
    row = applications.get(store, job_id)
    assert (row["status"], row["channel"], row["approval_digest"]) == ("draft", None, None)
    shown = run_cli("apply", "show", job_id)  # in words, never "channel: None"
    assert "channel: not chosen yet" in shown.stdout and "None" not in shown.stdout
    assert "next: choose how to apply: `jobctrl apply prepare JOB --channel" in shown.stdout
    assert json.loads(run_cli("apply", "show", job_id, "--json").stdout)["channel"] is None
    assert job_id in _candidates(store) and not _vetoed(store, job_id)
    claimed = apply_claims.claim(
        store, job_id, workflow_id="apply-test", run_id="run-1", min_fit_score=0,
        approval_required=True,
    )  # fmt: skip
    assert claimed.claim_id and claimed.code is None
    kinds = [e["type"] for e in events.job_events(store, job_id)]
    assert kinds[-1] == "ApplicationCancelled"


async def test_the_reset_route_refuses_what_is_not_abandoned(home, store, site, fast_settings):
    job_id = approved_job(home, store, site, "/jobs/route")
    run_cli("apply", "prepare", job_id, "--channel", "browser")
    async with app_client(home) as http:
        token = home.token_path.read_text().strip()
        auth = {"Authorization": f"Bearer {token}"}
        answer = await http.post(f"/v1/apply/{job_id}/reset", headers=auth)
        assert answer.status_code == 409
        assert answer.json()["error"]["code"] == "APPLY_BAD_RESOLUTION"
        run_cli("apply", "resolve", job_id, "abandoned")
        answer = await http.post(f"/v1/apply/{job_id}/reset", headers=auth)
        assert answer.status_code == 200 and answer.json()["status"] == "draft"
        page = (await http.get(f"/jobs/{job_id}")).text  # in words, never "by ?"
        assert "how to apply: not chosen yet" in page and "by ?" not in page

"""`jobctrl apply JOB --browser` through the application layer, on a real job with
rendered PDFs: what is recorded on the job's application at hand-over and after it, the
readable PDFs uploaded, the dry run's screenshot artifact, the refusals; and no page text
or field value in any event."""

from __future__ import annotations

import json
import os
import socket

import pytest
from click.testing import CliRunner

from jobctrl.app.activity import event_log
from jobctrl.app.apply import resolve_application
from jobctrl.app.apply_browser import FormResult, prefill
from jobctrl.app.materials import decide_materials
from jobctrl.cli import main
from jobctrl.domain.applications import AttemptState
from jobctrl.domain.errors import (
    APPLY_ATTEMPT_LIVE,
    APPLY_CAPTCHA,
    APPLY_FORM_UNAVAILABLE,
    APPLY_MATERIALS_NOT_APPROVED,
    APPLY_PREFILL_INTERRUPTED,
    JobctrlError,
)
from jobctrl.domain.processes import process_owner
from jobctrl.stages.apply_browser import CHROMIUM
from jobctrl.stages.material_files import material_files
from jobctrl.store import applications, apply_attempts
from tests.support.forms import FormSite
from tests.support.materials import prepared_job

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists() and not os.environ.get("JOBCTRL_REQUIRE_BROWSER"),
    reason=f"browser tests need Chromium at {CHROMIUM}",
)


@pytest.fixture
def site():
    with FormSite() as server:
        yield server


@pytest.fixture
def job(home, store, site, fast_settings) -> str:
    job_id = prepared_job(home, store, site, "/jobs/backend.html")
    decide_materials(home, job_id, "approve")
    return job_id


def _types(home, job_id: str) -> list[str]:
    return [e.type for e in event_log(home, 0) if e.job_id == job_id]


def _submit(result: FormResult, page) -> None:
    area = page.locator("#q116")
    area.fill("Because I like building reliable systems.")
    page.locator("#submit_app").click()


def test_a_prefill_is_recorded_at_hand_over_and_the_persons_submission_after_it(
    home, store, site, job
):
    seen = {}

    def person(result, page):
        seen["application"] = applications.get(store, job)
        _submit(result, page)

    result = prefill(home, job, url=site.form("greenhouse"), headless=True, on_handover=person)

    assert seen["application"]["status"] == "prefilled"  # recorded before the person acts
    assert result.status == "submitted" and result.handed_over == "prefilled"
    row = applications.get(store, job)
    assert (row["status"], row["channel"], row["form_url"]) == (
        "submitted", "browser", site.form("greenhouse")
    )  # fmt: skip
    assert row["applied_at"] is not None
    [attempt] = apply_attempts.attempts_of(store, row["id"])
    assert (attempt["kind"], attempt["state"]) == ("browser", "submitted")
    types = _types(home, job)
    assert types.index("ApplicationPrefilled") < types.index("ApplicationSubmitted")
    # the PDFs went up under their readable names
    names = {f.kind: f.name for f in material_files(store, job, approved_only=True)}
    assert {f.slot: f.file for f in result.files} == {
        "resume": names["resume"], "cover_letter": names["cover"]
    }  # fmt: skip
    [submission] = site.submissions()
    assert names["resume"].encode() in submission.body


def test_closing_the_window_leaves_the_application_prefilled(home, store, site, job):
    result = prefill(
        home, job, url=site.form("lever"), headless=True,
        on_handover=lambda result, page: page.close(),
    )  # fmt: skip

    assert result.status == "closed"
    row = applications.get(store, job)
    assert row["status"] == "prefilled"
    assert "ApplicationSubmitted" not in _types(home, job)
    assert site.submissions() == []


def test_a_captcha_is_handed_over_with_its_code(home, store, site, job):
    result = prefill(
        home, job, url=site.form("captcha"), headless=True,
        on_handover=lambda result, page: page.close(),
    )  # fmt: skip

    assert (result.handed_over, result.code) == ("captcha", APPLY_CAPTCHA)
    row = applications.get(store, job)
    assert (row["status"], row["error_code"]) == ("prefilled", APPLY_CAPTCHA)


def test_a_form_that_fails_to_load_fails_the_attempt_and_can_be_tried_again(home, store, site, job):
    result = prefill(home, job, url=site.base_url + "/gone", headless=True)

    assert (result.status, result.code) == ("form_unavailable", APPLY_FORM_UNAVAILABLE)
    row = applications.get(store, job)
    assert (row["status"], row["error_code"]) == ("failed", APPLY_FORM_UNAVAILABLE)
    again = prefill(
        home, job, url=site.form("lever"), headless=True,
        on_handover=lambda result, page: page.close(),
    )  # fmt: skip
    assert again.handed_over == "prefilled"


def test_a_dry_run_keeps_a_screenshot_artifact_and_records_nothing(
    home, store, site, fast_settings
):
    job_id = prepared_job(home, store, site, "/jobs/draft.html")  # materials not approved

    result = prefill(home, job_id, url=site.form("workable"), dry_run=True)

    assert result.dry_run is True and result.status == "prefilled"
    shot = result.screenshot
    assert shot.media_type == "image/png"
    assert store.artifacts.get(shot.artifact_id).startswith(b"\x89PNG")
    assert applications.get(store, job_id) is None
    assert result.filled  # each with the value typed or chosen
    letter = {f.slot: f.value for f in result.filled}["cover_letter_text"]
    assert letter.startswith("Dear") and "Kind regards" in letter  # the letter's own text
    assert site.submissions() == []


def test_a_real_run_needs_approved_materials(home, store, site, fast_settings):
    job_id = prepared_job(home, store, site, "/jobs/draft.html")
    with pytest.raises(JobctrlError) as refused:
        prefill(home, job_id, url=site.form("lever"), headless=True)
    assert refused.value.code == APPLY_MATERIALS_NOT_APPROVED


def test_one_live_prefill_per_application_and_a_dead_ones_is_settled(home, store, site, job):
    first = prefill(home, job, url=site.base_url + "/gone", headless=True)  # makes the row
    app_id = first.application_id
    with store.write() as tx:  # a prefill running in another (live) process: this one
        live = apply_attempts.start_attempt(tx, app_id, kind="browser", owner=process_owner())
    with pytest.raises(JobctrlError) as refused:
        prefill(home, job, url=site.form("lever"), headless=True)
    assert refused.value.code == APPLY_ATTEMPT_LIVE

    with store.write() as tx:  # its process died: the next prefill settles it
        apply_attempts.finish_attempt(tx, live, AttemptState.FAILED)
        dead = apply_attempts.start_attempt(
            tx, app_id, kind="browser", owner=f"{socket.gethostname()}/1/0.0"
        )
    result = prefill(
        home, job, url=site.form("lever"), headless=True,
        on_handover=lambda result, page: page.close(),
    )  # fmt: skip
    assert result.handed_over == "prefilled"
    settled = {a["id"]: a for a in apply_attempts.attempts_of(store, app_id)}[dead]
    assert (settled["state"], settled["error_code"]) == ("failed", APPLY_PREFILL_INTERRUPTED)


def test_no_field_value_page_text_or_address_is_in_an_application_event(home, store, site, job):
    prefill(home, job, url=site.form("greenhouse"), headless=True, on_handover=_submit)

    ours = [e for e in event_log(home, 0) if e.type.startswith("Application")]
    assert {e.type for e in ours} >= {"ApplicationPrepared", "ApplicationPrefilled"}
    payloads = json.dumps([e.payload for e in ours])
    for secret in ("ada@example.org", "Ada", "Why do you want", "127.0.0.1", "greenhouse"):
        assert secret not in payloads


def _cli(*args: str):
    return CliRunner().invoke(main, list(args))


def test_the_cli_dry_run_prints_the_fields_and_the_screenshot(home, store, site, job):
    ran = _cli("apply", job, "--browser", "--dry-run", "--url", site.form("recruitee"), "--json")

    assert ran.exit_code == 0, ran.stderr
    result = json.loads(ran.stdout)
    assert (result["jobId"], result["status"], result["dryRun"]) == (job, "prefilled", True)
    assert {"field", "name", "slot", "value"} <= set(result["filled"][0])
    assert "consent" in [f["reason"] for f in result["left"]]
    assert result["screenshot"]["mediaType"] == "image/png"

    text = _cli("apply", job[:6], "--browser", "--dry-run", "--url", site.form("recruitee"))
    assert text.exit_code == 0
    assert "filled    Full name: Ada Example" in text.stdout
    assert "screenshot (PNG): " in text.stdout


def test_the_cli_says_what_went_wrong_with_a_form(home, store, site, job):
    gone = _cli("apply", job, "--browser", "--dry-run", "--url", site.base_url + "/gone")
    no_browser_flag = _cli("apply", job)
    bad_url = _cli("apply", job, "--browser", "--url", "ftp://example.com/form")

    assert gone.exit_code == 1
    assert f"error: {APPLY_FORM_UNAVAILABLE}" in gone.stderr
    assert no_browser_flag.exit_code == 1 and "--browser" in no_browser_flag.stderr
    assert bad_url.exit_code == 1 and "http(s)" in bad_url.stderr


def test_a_dead_prefill_never_holds_its_job(home, store, site, job):
    """Resolve (and the worker's heartbeat) end a prefill whose process died, so the
    person can say what happened without opening the form again."""
    first = prefill(home, job, url=site.base_url + "/gone", headless=True)  # makes the row
    with store.write() as tx:
        dead = apply_attempts.start_attempt(
            tx, first.application_id, kind="browser", owner=f"{socket.gethostname()}/1/0.0"
        )
    resolved = resolve_application(home, job, "abandoned")
    assert resolved.status == "abandoned"
    ended = {a["id"]: a for a in apply_attempts.attempts_of(store, first.application_id)}
    assert (ended[dead]["state"], ended[dead]["error_code"]) == (
        "failed",
        APPLY_PREFILL_INTERRUPTED,
    )

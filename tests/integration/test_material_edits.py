"""Editing a job's resume and letter before approving: the edit is checked claim by claim
against the profile, kept as written, saved as a new draft with its own PDF, and an
unsupported sentence holds approval back until it is removed or the profile has the fact
— through the app, the CLI (`--file` and `$EDITOR`) and the API."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator

import httpx
import pytest

from jobctrl.app import material_edits as app_edits
from jobctrl.app import materials as app_materials
from jobctrl.app import profile_edit
from jobctrl.config import load_config
from jobctrl.domain.availability import Availability
from jobctrl.domain.clock import utcnow
from jobctrl.domain.errors import MATERIALS_UNSUPPORTED, JobctrlError
from jobctrl.store import materials as stored
from jobctrl.store import truth_checks
from jobctrl.store.availability import record_check
from tests.support.app import app_client
from tests.support.materials import prepared_job
from tests.support.processes import run_cli

UNSUPPORTED = "I hold a PhD in Astrophysics from the University of Mars."


def _with(text: str, sentence: str) -> str:
    """The letter's text with ``sentence`` as the first paragraph's first line."""
    lines = text.splitlines()
    return "\n".join([*lines[:2], sentence, *lines[2:]]) + "\n"


def test_an_unsupported_edit_is_kept_as_written_and_blocks_approval(
    home, store, site, fast_settings
):
    job_id = prepared_job(home, store, site, "/jobs/edit-blocked")
    before = app_edits.material_text(home, job_id, "letter")
    assert before.generation == 1 and before.approval == "draft"

    edited = app_edits.edit_material(home, job_id, "letter", _with(before.text, UNSUPPORTED))
    assert edited.generation == 2 and not edited.passed
    assert {f.sentence for f in edited.findings} == {UNSUPPORTED}
    assert all(f.reason for f in edited.findings)
    row = stored.latest(store, job_id, "cover")
    assert row["provider"] == "person" and row["pdf_artifact"], "a new generation, rendered"
    assert store.artifacts.get(row["pdf_artifact"]).startswith(b"%PDF")
    assert UNSUPPORTED in app_edits.material_text(home, job_id, "letter").text, "not repaired"
    check = truth_checks.latest(store, job_id)
    assert check["run_id"].startswith("edit-") and not check["passed"]

    with pytest.raises(JobctrlError) as refused:
        app_materials.decide_materials(home, job_id, "approve")
    assert refused.value.code == MATERIALS_UNSUPPORTED and UNSUPPORTED in str(refused.value)
    assert stored.latest(store, job_id, "cover")["state"] == "draft"

    fixed = app_edits.edit_material(home, job_id, "letter", before.text)
    assert fixed.passed and fixed.generation == 3 and fixed.findings == []
    decided = app_materials.decide_materials(home, job_id, "approve")
    assert {(d.kind, d.generation, d.state) for d in decided} == {
        ("resume", 1, "approved"),
        ("cover", 3, "approved"),
    }


def test_a_fact_added_to_the_profile_releases_the_edit(home, store, site, fast_settings):
    job_id = prepared_job(home, store, site, "/jobs/edit-fact")
    text = app_edits.material_text(home, job_id, "letter").text
    sentence = "I hold a PhD in Astrophysics from the University of Mars."
    assert not app_edits.edit_material(home, job_id, "letter", _with(text, sentence)).passed
    assert app_edits.approval_blockers(home, job_id)[0].kind == "letter"

    profile = load_config(home).profile.model_dump(mode="json")
    profile["education"].append(
        {"institution": "University of Mars", "degree": "PhD", "field": "Astrophysics"}
    )
    profile_edit.save_profile(home, profile)
    assert app_edits.approval_blockers(home, job_id) == []
    decided = app_materials.decide_materials(home, job_id, "approve")
    assert ("cover", 2, "approved") in {(d.kind, d.generation, d.state) for d in decided}


def test_a_resume_edit_round_trips_and_an_unreadable_text_saves_nothing(
    home, store, site, fast_settings
):
    job_id = prepared_job(home, store, site, "/jobs/edit-resume")
    text = app_edits.material_text(home, job_id, "resume").text
    same = app_edits.edit_material(home, job_id, "resume", text)
    assert same.passed and same.generation == 2
    first = next(m for m in stored.list_materials(store, job_id) if m["kind"] == "resume")
    assert stored.latest(store, job_id, "resume")["content"] == first["content"], (
        "an unchanged text is the same document, citations included"
    )
    with pytest.raises(JobctrlError) as refused:
        app_edits.edit_material(home, job_id, "resume", "no name here\n")
    assert refused.value.code == "invalid_input"
    assert stored.latest(store, job_id, "resume")["generation"] == 2


def test_the_cli_edits_from_a_file_and_in_the_editor(
    home, store, site, fast_settings, tmp_path, monkeypatch
):
    job_id = prepared_job(home, store, site, "/jobs/edit-cli")
    text = app_edits.material_text(home, job_id, "letter").text
    draft = tmp_path / "letter.txt"
    draft.write_text(_with(text, UNSUPPORTED))
    result = run_cli("materials", "edit", job_id, "--kind", "letter", "--file", str(draft))
    assert result.returncode == 0, result.stderr
    assert UNSUPPORTED in result.stdout and "approval waits" in result.stdout
    refused = run_cli("materials", "approve", job_id)
    assert refused.returncode == 1 and "not approved" in refused.stderr

    # $EDITOR: a script that deletes the unsupported line, as a person would
    editor = tmp_path / "editor.py"
    editor.write_text(
        "import sys, pathlib\n"
        "p = pathlib.Path(sys.argv[1])\n"
        "lines = p.read_text().splitlines(True)\n"
        f"p.write_text(''.join(l for l in lines if {UNSUPPORTED!r} not in l))\n"
    )
    monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
    result = run_cli("materials", "edit", job_id, "--kind", "letter", "--json")
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["passed"] and answer["generation"] == 3 and answer["kind"] == "letter"
    assert run_cli("materials", "approve", job_id).returncode == 0

    missing = run_cli("materials", "edit", job_id)
    assert missing.returncode == 1 and "--kind" in missing.stderr


@pytest.fixture
async def api(home) -> AsyncIterator[httpx.AsyncClient]:
    async with app_client(home) as client:
        yield client


async def test_the_api_reads_and_saves_an_edit(home, store, site, fast_settings, api):
    job_id = prepared_job(home, store, site, "/jobs/edit-api")
    shown = (await api.get(f"/v1/jobs/{job_id}/materials/letter/text")).json()
    assert shown["kind"] == "letter" and shown["generation"] == 1
    put = await api.put(
        f"/v1/jobs/{job_id}/materials/letter", json={"text": _with(shown["text"], UNSUPPORTED)}
    )
    assert put.status_code == 200, put.text
    body = put.json()
    assert not body["passed"] and body["findings"][0]["sentence"] == UNSUPPORTED
    assert body["findings"][0]["reason"]
    pdf = await api.get(body["pdfUrl"])
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
    approve = await api.post(f"/v1/jobs/{job_id}/materials/approve")
    assert approve.status_code == 409 and approve.json()["error"]["code"] == MATERIALS_UNSUPPORTED
    page = (await api.get(f"/jobs/{job_id}")).text
    assert "Approval waits for you" in page and "University of Mars" in page
    bad = await api.put(f"/v1/jobs/{job_id}/materials/memo", json={"text": "x"})
    assert bad.status_code in (400, 422)
    report = await api.get(f"/v1/jobs/{job_id}/report")
    assert report.status_code == 200 and "Acme Robotics" in report.text


def test_approving_for_a_posting_not_known_online_says_so_first(home, store, site, fast_settings):
    unchecked = prepared_job(home, store, site, "/jobs/approve-unchecked")
    result = run_cli("materials", "approve", unchecked)
    assert result.returncode == 0, result.stderr
    assert result.stderr.startswith("warning: whether the posting is still online has not")
    assert "approved" in result.stdout

    closed = prepared_job(home, store, site, "/jobs/approve-closed")
    record_check(store, closed, Availability.UNAVAILABLE, "ENRICH_HTTP_NOT_FOUND", utcnow())
    assert "no longer online" in app_edits.posting_warning(home, closed).warning
    decided = json.loads(run_cli("materials", "approve", closed, "--json").stdout)
    assert {d["postingAvailability"] for d in decided} == {"unavailable"}
    assert all("no longer online" in d["warning"] for d in decided)

    online = prepared_job(home, store, site, "/jobs/approve-online")
    record_check(store, online, Availability.ACTIVE, None, utcnow())
    assert app_edits.posting_warning(home, online).warning is None
    quiet = run_cli("materials", "approve", online)
    assert quiet.returncode == 0 and quiet.stderr == ""

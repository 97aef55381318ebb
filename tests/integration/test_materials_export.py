"""`jobctrl materials export`: the approved (else newest) resume and letter PDFs written
under readable names, through the CLI a person runs; the web app's download uses the
same names."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import httpx
import pytest

from jobctrl.api.app import create_app
from jobctrl.app.materials import decide_materials, export_materials, material_files
from jobctrl.domain.errors import ARTIFACT_MISSING, JobctrlError
from jobctrl.store import artifacts, jobs, tenancy
from jobctrl.store import materials as stored
from tests.support.materials import prepared_job
from tests.support.processes import JOBCTRL, run_cli

RESUME = "Ada_Example_Resume_Acme_Robotics_Senior_Backend_Engineer.pdf"
LETTER = "Ada_Example_Cover_Letter_Acme_Robotics_Senior_Backend_Engineer.pdf"


def _pdfs(store, job_id: str) -> dict[str, bytes]:
    """The newest rendered PDF of each kind, as the artifact store holds it."""
    newest = {}
    for m in stored.list_materials(store, job_id):
        if m["pdf_artifact"]:
            newest[m["kind"]] = store.artifacts.get(m["pdf_artifact"])
    return newest


def _refused(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr and result.stdout == ""
    return result.stderr


def test_export_writes_both_pdfs_under_readable_names(home, store, site, fast_settings, tmp_path):
    job_id = prepared_job(home, store, site, "/jobs/export")
    out = tmp_path / "out" / "new"  # made if missing
    result = run_cli("materials", "export", job_id[:8], "--dir", str(out))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [str(out / RESUME), str(out / LETTER)]
    pdfs = _pdfs(store, job_id)
    assert (out / RESUME).read_bytes() == pdfs["resume"]
    assert (out / LETTER).read_bytes() == pdfs["cover"]
    assert sorted(p.name for p in out.iterdir()) == sorted([RESUME, LETTER]), "no leftovers"

    again = json.loads(run_cli("materials", "export", job_id, "--dir", str(out), "--json").stdout)
    assert again == {
        "jobId": job_id,
        "files": [
            {"kind": "resume", "path": str(out / RESUME), "size": len(pdfs["resume"])},
            {"kind": "cover", "path": str(out / LETTER), "size": len(pdfs["cover"])},
        ],
    }, "the same bytes already there are reused, not copied again"
    assert len(list(out.iterdir())) == 2


def test_a_different_file_of_that_name_is_never_overwritten(
    home, store, site, fast_settings, tmp_path
):
    job_id = prepared_job(home, store, site, "/jobs/keep")
    (tmp_path / RESUME).write_bytes(b"the person's own edited resume")
    (tmp_path / "Ada_Example_Resume_Acme_Robotics_Senior_Backend_Engineer-2.pdf").write_bytes(
        b"another one"
    )
    paths = export_materials(home, job_id, tmp_path)
    assert [p.name for p in paths] == [
        "Ada_Example_Resume_Acme_Robotics_Senior_Backend_Engineer-3.pdf",
        LETTER,
    ]
    assert (tmp_path / RESUME).read_bytes() == b"the person's own edited resume"
    assert paths[0].read_bytes() == _pdfs(store, job_id)["resume"]


def test_export_defaults_to_the_current_directory(home, store, site, fast_settings, tmp_path):
    job_id = prepared_job(home, store, site, "/jobs/cwd")
    result = subprocess.run(
        [JOBCTRL, "materials", "export", job_id],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env=os.environ.copy(),
    )
    assert result.returncode == 0, result.stderr
    assert [Path(p).name for p in result.stdout.splitlines()] == [RESUME, LETTER]
    assert (tmp_path / RESUME).is_file() and (tmp_path / LETTER).is_file()


def test_the_approved_generation_is_exported_before_a_newer_draft(
    home, store, site, fast_settings, tmp_path
):
    job_id = prepared_job(home, store, site, "/jobs/approved")
    first = _pdfs(store, job_id)
    decide_materials(home, job_id, "approve")
    newer = {"resume": b"%PDF-1.7 generation 2 resume", "cover": b"%PDF-1.7 generation 2 cover"}
    with store.write() as tx:
        ids = {}
        for kind in ("resume", "cover"):
            content = stored.latest(store, job_id, kind)["content"]
            stored.add_generation(
                tx, job_id, kind, content=content, provider="t", model="t",
                profile_version=None, run_id="run-2",
            )  # fmt: skip
            ids[kind] = (
                tx.conn.execute(
                    stored.M.select().where(
                        tenancy.scoped(stored.M, tx.conn),
                        stored.M.c.job_id == job_id,
                        stored.M.c.kind == kind,
                    )
                )
                .all()[-1]
                .id
            )
        shas = {k: store.artifacts.put(v) for k, v in newer.items()}
        for kind, sha in shas.items():
            artifacts.record(tx, sha, f"{kind}_pdf", "application/pdf", len(newer[kind]))
        stored.attach_pdfs(
            tx, job_id, resume_id=ids["resume"], resume_pdf=shas["resume"],
            letter_id=ids["cover"], letter_pdf=shas["cover"], key="rendered-2",
        )  # fmt: skip

    assert [(f.kind, f.generation, f.approval) for f in material_files(home, job_id)] == [
        ("resume", 1, "approved"),
        ("cover", 1, "approved"),
    ]
    paths = export_materials(home, job_id, tmp_path / "approved")
    assert [p.read_bytes() for p in paths] == [first["resume"], first["cover"]]

    decide_materials(home, job_id, "reject")  # generation 2 rejected: 1 stays approved
    assert [f.generation for f in material_files(home, job_id)] == [1, 1]
    assert material_files(home, job_id, approved_only=True)[0].approval == "approved"


def test_a_job_without_pdfs_is_a_clear_error(home, store, tmp_path):
    job = jobs.create_job(store, "https://jobs.example.com/acme/no-pdfs")
    out = tmp_path / "out"
    said = _refused(run_cli("materials", "export", job.job_id, "--dir", str(out)))
    assert "no PDFs" in said and job.job_id in said
    assert not out.exists(), "nothing written, not even the directory"
    _refused(run_cli("materials", "export", "nosuchjob", "--dir", str(out)))
    _refused(run_cli("materials", job.job_id, "--dir", str(out)))  # --dir needs export


def test_a_pdf_file_gone_from_the_home_is_refused_with_the_command_that_makes_it_again(
    home, store, site, fast_settings, tmp_path
):
    job_id = prepared_job(home, store, site, "/jobs/gone")
    resume = next(m for m in stored.list_materials(store, job_id) if m["kind"] == "resume")
    store.artifacts.path_for(resume["pdf_artifact"]).unlink()
    with pytest.raises(JobctrlError) as caught:
        export_materials(home, job_id, tmp_path / "out")
    assert caught.value.code == ARTIFACT_MISSING
    assert f"jobctrl reset {job_id} --stage pdf && jobctrl retry {job_id}" in str(caught.value)
    assert not (tmp_path / "out").exists()


def test_a_file_in_place_of_the_directory_is_refused(home, store, site, fast_settings, tmp_path):
    job_id = prepared_job(home, store, site, "/jobs/notdir")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    said = _refused(run_cli("materials", "export", job_id, "--dir", str(blocker / "sub")))
    assert "not a directory" in said or "cannot write" in said
    assert blocker.read_text() == "x"


async def test_a_downloaded_pdf_carries_the_readable_name(home, store, site, fast_settings):
    job_id = prepared_job(home, store, site, "/jobs/download")
    transport = httpx.ASGITransport(app=create_app(home, port=8765))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as c:
        for f in material_files(home, job_id):
            r = await c.get(f"/v1/artifacts/{f.sha256}")
            assert r.status_code == 200
            name = RESUME if f.kind == "resume" else LETTER
            assert r.headers["content-disposition"] == f'inline; filename="{name}"'
            assert r.content.startswith(b"%PDF")

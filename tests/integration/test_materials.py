"""Enrich → Score → Tailor → Cover → PDF with the offline provider, then approval."""

from __future__ import annotations

from pathlib import Path

from jobctrl.app.jobs import add_job
from jobctrl.app.materials import decide_materials, regenerate_materials
from jobctrl.app.queries import job_materials, show_job
from jobctrl.render.pdf import pdf_pages, pdf_text
from tests.support.http import Route, posting_html
from tests.support.profile import TEST_PROFILE

GOOD = posting_html(
    "Senior Backend Engineer",
    "Acme Robotics",
    ["5+ years of Python", "Experience with PostgreSQL", "Kubernetes and Docker", "FastAPI"],
)

# Every test on SQLite and on PostgreSQL (tests/conftest.py): materials, approvals and
# report numbers are rows the workflows write through the store.
BOTH_STORES = True


async def test_a_good_match_gets_a_truthful_resume_and_letter_as_pdfs(
    home, worker, site, fast_settings
):
    fast_settings.set_value("min_fit_score", 50)
    view = await add_job(home, site.add("/jobs/m", Route(body=GOOD)), wait=True)
    states = {s.stage: s.state for s in view.stages}
    assert states == {
        "enrich": "succeeded",
        "score": "succeeded",
        "tailor": "succeeded",
        "cover": "succeeded",
        "pdf": "succeeded",
    }, view.stages
    items = {m.kind: m for m in job_materials(home, view.job_id)}
    assert set(items) == {"resume", "cover"}
    assert all(m.generation == 1 and m.approval == "draft" for m in items.values())
    resume = Path(items["resume"].pdf_path).read_bytes()
    text = pdf_text(resume)
    assert TEST_PROFILE["name"] in text and "Example GmbH" in text
    assert TEST_PROFILE["experience"][0]["bullets"][0].split()[0] in text
    assert 1 <= pdf_pages(resume) <= 2
    letter = Path(items["cover"].pdf_path).read_bytes()
    assert pdf_pages(letter) == 1 and "Acme Robotics" in pdf_text(letter)

    decided = decide_materials(home, view.job_id, "approve")
    assert {d.kind: d.state for d in decided} == {"resume": "approved", "cover": "approved"}
    assert {m.approval for m in job_materials(home, view.job_id)} == {"approved"}


async def test_a_low_score_gets_no_materials(home, worker, site, fast_settings):
    fast_settings.set_value("min_fit_score", 95)
    poor = posting_html("Embedded Engineer", "Chips", ["Rust", "FPGA design", "Verilog"])
    view = await add_job(home, site.add("/jobs/p", Route(body=poor)), wait=True)
    assert job_materials(home, view.job_id) == []
    assert {s.stage: s.error_code for s in view.stages[2:]} == {
        "tailor": "MIN_SCORE",
        "cover": "MIN_SCORE",
        "pdf": "MIN_SCORE",
    }


async def test_each_scored_job_gets_a_numbered_report(home, worker, site, fast_settings):
    first = await add_job(home, site.add("/jobs/r1", Route(body=GOOD)), wait=True)
    second = await add_job(home, site.add("/jobs/r2", Route(body=GOOD)), wait=True)
    reports = sorted(home.reports_dir.glob("*.md"))
    assert [p.name[:4] for p in reports] == ["001-", "002-"]
    text = reports[0].read_text()
    assert "Machine Summary" in text and "Acme Robotics" in text
    detail = show_job(home, second.job_id)
    assert first.job_id != second.job_id and detail.score is not None


async def test_regenerating_keeps_the_approved_generation_until_the_new_one_is_approved(
    home, worker, site, fast_settings
):
    view = await add_job(home, site.add("/jobs/g", Route(body=GOOD)), wait=True)
    decide_materials(home, view.job_id, "approve")
    result = await regenerate_materials(home, view.job_id, wait=True)
    assert result.generation == 2

    def states() -> dict[tuple[str, int], str]:
        return {(m.kind, m.generation): m.approval for m in job_materials(home, view.job_id)}

    assert states() == {
        ("resume", 1): "approved",
        ("cover", 1): "approved",
        ("resume", 2): "draft",
        ("cover", 2): "draft",
    }
    decide_materials(home, view.job_id, "reject")
    assert states()[("resume", 1)] == "approved", "a rejected regeneration leaves gen 1"
    await regenerate_materials(home, view.job_id, wait=True)
    decide_materials(home, view.job_id, "approve")
    assert states() == {
        ("resume", 1): "superseded",
        ("cover", 1): "superseded",
        ("resume", 2): "rejected",
        ("cover", 2): "rejected",
        ("resume", 3): "approved",
        ("cover", 3): "approved",
    }


GAP = posting_html(
    "Senior Backend Engineer",
    "Gapwise",
    ["5+ years of Python", "Experience with PostgreSQL", "Experience with Rust"],
)


async def test_a_letter_names_a_missing_must_have_only_when_the_setting_allows_it(
    home, worker, site, fast_settings
):
    # Issue 29: materials.mention_gaps (off by default): a letter does not volunteer gaps.
    # Prepared although Rust is missing: the person turned the must-have cap off.
    fast_settings.set_value("fit.unmet_must_have_caps_score", False)
    letters = {}
    for mention in (False, True):
        fast_settings.set_value("materials.mention_gaps", mention)
        url = site.add(f"/jobs/gap-{mention}", Route(body=GAP))
        view = await add_job(home, url, wait=True)
        cover = next(m for m in job_materials(home, view.job_id) if m.kind == "cover")
        letters[mention] = pdf_text(Path(cover.pdf_path).read_bytes())
    assert "Rust" not in letters[False] and "not yet" not in letters[False]
    assert "have not yet worked with Rust" in " ".join(letters[True].split())

"""The truth check in the Tailor, Cover and PDF stages, run directly (no Temporal): a
document with a few unsupported lines is kept without them (recorded with what was
removed); one with too many is sent back to the model once with the findings, and kept
if the answer can be; else the stage fails with the code, recorded with its findings in
the same transaction, and nothing of it is saved; a passed one is recorded with its
generation; PDF renders only the generation this preparation wrote; findings are stored
bounded and never reach an event, a projection or a stage row's message.

The lanes point at the loopback OpenAI-compatible fake (tests/support/fake_openai.py)
answering with tests/support/cited.py's documents.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import httpx
import pytest
import yaml
from markupsafe import escape
from sqlalchemy import select

from jobctrl.api.app import create_app
from jobctrl.app import profile_edit, truth
from jobctrl.app.lanes import set_lane
from jobctrl.config import load_config
from jobctrl.domain.errors import (
    COVER_FABRICATION,
    MATERIALS_MISSING,
    PROFILE_EMPTY,
    PROVIDER_INVALID_OUTPUT,
    TAILOR_FABRICATION,
    StageError,
)
from jobctrl.domain.materials import TailoredResume
from jobctrl.domain.plain_words import sentence
from jobctrl.domain.truth.document import FabricationError, Finding
from jobctrl.stages import materials
from jobctrl.stages.context import StageContext
from jobctrl.stages.enrich import enrich
from jobctrl.stages.score import score
from jobctrl.store import jobs, schema, stage_states, tenancy, truth_checks
from jobctrl.store import materials as stored
from tests.support.cited import (
    BROKEN_LETTER,
    COMPANY,
    LETTER_LIE,
    LIE_MARKERS,
    LYING_LETTER,
    LYING_RESUME,
    POSTING,
    ROLE,
    TRUE_LETTER,
    TRUE_MIGRATION,
    TRUE_RESUME,
    TRUE_SERVICES,
    as_resume,
    is_repair,
    prompt_text,
    scripted,
)
from tests.support.fake_openai import FakeOpenAI
from tests.support.http import Route


@pytest.fixture
def script() -> dict[str, dict]:
    return {"resume": TRUE_RESUME, "letter": TRUE_LETTER}


@pytest.fixture
def provider(home, script, monkeypatch) -> Iterator[FakeOpenAI]:
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    with FakeOpenAI("ok", answer=scripted(script)) as server:
        for lane in ("tailor", "cover"):
            set_lane(home, lane, "openai", "gpt-4o-mini", server.base_url, "FAKE_KEY")
        yield server


@pytest.fixture
def ctx(home, store) -> Iterator[StageContext]:
    context = StageContext(home=home, store=store)
    yield context
    context.close()


@pytest.fixture
def job_id(ctx, store, site, fast_settings) -> str:
    fast_settings.set_value("min_fit_score", 0)
    job = jobs.create_job(store, site.add("/jobs/truth", Route(body=POSTING)))
    enrich(ctx, job.job_id, "run-0")
    score(ctx, job.job_id, "run-0")
    return job.job_id


def _states(store, job_id: str) -> dict[str, dict]:
    return {r["stage"]: r for r in stage_states.stage_rows(store, job_id)}


def _event_text(store) -> str:
    with store.read() as conn:
        ev, lp = schema.job_events, schema.job_list_projections
        events = conn.execute(select(ev.c.payload).where(tenancy.scoped(ev, conn))).scalars()
        lists = conn.execute(select(lp).where(tenancy.scoped(lp, conn))).mappings()
        return json.dumps([*events, *(dict(r) for r in lists)], default=str)


def test_a_refused_resume_fails_tailor_with_its_findings_and_nothing_is_saved(
    ctx, store, job_id, script, provider
):
    # A third of the resume lies (over truth.max_dropped_share): one repair request, whose
    # answer lies the same way, so the stage fails.
    script["resume"] = LYING_RESUME
    with pytest.raises(FabricationError) as caught:
        materials.tailor(ctx, job_id, "run-1", None)

    error = caught.value
    assert error.code == TAILOR_FABRICATION and error.retryable is False and error.findings
    assert error.repair_requested is True
    assert [is_repair(r) for r in provider.requests] == [False, True]
    asked = prompt_text(provider.requests[1])
    for f in error.findings:
        assert f.where in asked and f.claim in asked, "the repair request names each finding"
    row = _states(store, job_id)["tailor"]
    assert (row["state"], row["error_code"], row["retryable"]) == (
        "failed",
        TAILOR_FABRICATION,
        False,
    )
    check = truth_checks.latest(store, job_id)
    assert check is not None
    assert (check["stage"], check["run_id"], check["attempt"], check["generation"]) == (
        "tailor",
        "run-1",
        1,
        1,
    )
    assert check["passed"] is False and check["finding_count"] == len(error.findings)
    assert check["repair_requested"] is True and check["changes"] == []
    assert check["checked"] == materials.resume_lines(as_resume(LYING_RESUME))
    assert check["findings"] == [
        {"where": f.where, "sentence": f.sentence, "kind": f.kind, "claim": f.claim}
        for f in error.findings
    ]
    assert stored.list_materials(store, job_id) == []
    with store.read() as conn:
        failed = conn.execute(
            select(schema.job_events.c.payload).where(
                tenancy.scoped(schema.job_events, conn), schema.job_events.c.type == "StageFailed"
            )
        ).scalar_one()
    assert failed["errorCode"] == TAILOR_FABRICATION and failed["findings"] == len(error.findings)
    leaked = [m for m in LIE_MARKERS if m in _event_text(store) + (row["error_message"] or "")]
    assert not leaked, "events, projections and the stage's message carry codes and counts only"


def test_a_passed_check_is_recorded_with_the_generation_it_wrote(ctx, store, job_id, provider):
    outcome = materials.tailor(ctx, job_id, "run-1", None)

    assert outcome.generation == 1
    check = truth_checks.latest(store, job_id)
    assert check is not None and check["passed"] is True and check["findings"] == []
    assert (check["stage"], check["generation"], check["finding_count"]) == ("tailor", 1, 0)
    assert check["checked"] == materials.resume_lines(as_resume(TRUE_RESUME))
    assert _states(store, job_id)["tailor"]["state"] == "succeeded"


def test_an_unsupported_sentence_is_removed_and_the_rest_kept(ctx, store, job_id, script, provider):
    materials.tailor(ctx, job_id, "run-1", None)
    script["letter"] = LYING_LETTER  # one lying sentence of four

    outcome = materials.cover(ctx, job_id, "run-1", None)

    assert len(provider.requests) == 2, "no repair request for one sentence"
    letter = stored.latest(store, job_id, "cover")
    assert letter is not None and letter["generation"] == outcome.generation == 1
    text = json.dumps(letter["content"])
    assert LETTER_LIE not in text and "Microsoft" not in text
    assert TRUE_SERVICES[1:] in text, "the true sentences stay"
    check = truth_checks.latest(store, job_id)
    assert check is not None and (check["stage"], check["passed"]) == ("cover", True)
    assert check["repair_requested"] is False
    assert [c["where"] for c in check["changes"]] == ["paragraphs[1].sentences[0]"]
    assert check["changes"][0]["action"] == "removed"
    assert check["changes"][0]["sentence"] == LETTER_LIE and check["changes"][0]["reasons"]
    view = truth.latest_truth_check(store, job_id)
    assert view is not None and [d.sentence for d in view.dropped] == [LETTER_LIE]
    assert view.dropped[0].document == "letter" and view.to_json()["dropped"][0]["reasons"]


def test_too_broken_a_resume_is_asked_for_once_more_and_kept_when_the_repair_holds(
    ctx, store, job_id, script, provider
):
    script.update(resume=LYING_RESUME, resume_repair=TRUE_RESUME)

    outcome = materials.tailor(ctx, job_id, "run-1", None)

    assert [is_repair(r) for r in provider.requests] == [False, True]
    resume = stored.latest(store, job_id, "resume")
    assert resume is not None and resume["generation"] == outcome.generation
    assert TailoredResume.model_validate(resume["content"]) == as_resume(TRUE_RESUME)
    check = truth_checks.latest(store, job_id)
    assert check is not None and check["passed"] is True and check["repair_requested"] is True
    assert check["changes"] == [], "the repaired answer needed no cut"
    assert len(check["findings"]) == 4, "the first answer's findings, which the repair was about"

    # The same step again (a retried attempt of the run): both answers reused, none paid.
    stage_states.reset_stages(store, job_id, ("tailor",), "retry")
    materials.tailor(ctx, job_id, "run-1", None)
    assert len(provider.requests) == 2, "the first answer and the repair are paid once"


def test_letters_are_checked_too(ctx, store, job_id, script, provider):
    materials.tailor(ctx, job_id, "run-1", None)
    script["letter"] = BROKEN_LETTER
    with pytest.raises(FabricationError) as caught:
        materials.cover(ctx, job_id, "run-1", None)

    assert caught.value.code == COVER_FABRICATION
    check = truth_checks.latest(store, job_id)
    assert check is not None and (check["stage"], check["passed"]) == ("cover", False)
    assert [m["kind"] for m in stored.list_materials(store, job_id)] == ["resume"]


def test_pdf_never_renders_an_older_generation_in_place_of_a_refused_one(
    ctx, store, job_id, script, provider
):
    materials.tailor(ctx, job_id, "run-1", None)
    materials.cover(ctx, job_id, "run-1", None)
    materials.render(ctx, job_id, "run-1")
    first = {m["kind"]: m["pdf_artifact"] for m in stored.list_materials(store, job_id)}
    assert all(first.values())

    # A regeneration whose letter is refused: the newest stored letter is generation 1's.
    later = ("tailor", "cover", "pdf")
    stage_states.reset_stages(store, job_id, later, "regenerate")
    script["letter"] = BROKEN_LETTER
    materials.tailor(ctx, job_id, "run-2", None)
    with pytest.raises(FabricationError):
        materials.cover(ctx, job_id, "run-2", None)
    with pytest.raises(StageError) as caught:
        materials.render(ctx, job_id, "run-2")

    assert caught.value.code == MATERIALS_MISSING
    assert _states(store, job_id)["pdf"]["error_code"] == MATERIALS_MISSING
    rows = {
        (m["kind"], m["generation"]): m["pdf_artifact"]
        for m in stored.list_materials(store, job_id)
    }
    assert rows == {
        ("resume", 1): first["resume"],
        ("cover", 1): first["cover"],
        ("resume", 2): None,  # its letter was refused: this generation has no PDF
    }


def test_stored_findings_are_bounded_in_count_and_size(store, job_id):
    many = [
        Finding(where=f"summary[{i}]", sentence="s" * 5_000, kind="quantity", claim="c" * 900)
        for i in range(250)
    ]
    with store.write() as tx:
        truth_checks.record(
            tx,
            job_id=job_id,
            stage="tailor",
            run_id="run-9",
            attempt=1,
            generation=1,
            checked=250,
            findings=many,
            profile_version=None,
        )

    check = truth_checks.latest(store, job_id)
    assert check is not None and check["finding_count"] == 250
    assert len(check["findings"]) == truth_checks.MAX_FINDINGS == 200
    first = check["findings"][0]
    assert len(first["sentence"]) == truth_checks.LIMITS["sentence"]
    assert len(first["claim"]) == truth_checks.LIMITS["claim"] and first["claim"].endswith("…")


def test_the_claim_context_names_the_job_and_carries_config_aliases(ctx, home, job_id):
    data = yaml.safe_load(home.config_path.read_text())
    home.config_path.write_text(yaml.safe_dump({**data, "aliases": {"PostgreSQL": "PG"}}))
    job = jobs.job_row(ctx.store, job_id)

    context = materials.claim_context(ctx, job)

    assert context.free_names == (COMPANY, ROLE)
    assert context.extra_aliases == {"PostgreSQL": ("PG",)}
    assert load_config(home).aliases == {"PostgreSQL": ["PG"]}
    assert context.today == ctx.now().date()


async def test_the_job_page_shows_each_line_beside_the_facts_it_cites(
    ctx, home, store, job_id, provider
):
    # The stages call the provider synchronously: off this test's event loop.
    await asyncio.to_thread(materials.tailor, ctx, job_id, "run-1", None)
    await asyncio.to_thread(materials.cover, ctx, job_id, "run-1", None)
    documents = {d.kind: d for d in truth.material_citations(home, job_id)}

    bullets = [ln for ln in documents["resume"].lines if ".bullets[" in ln.where]
    assert [ln.text for ln in bullets] == [TRUE_SERVICES, TRUE_MIGRATION]
    assert [[f.text for f in ln.facts] for ln in bullets] == [
        [TRUE_SERVICES],
        [TRUE_MIGRATION],
    ], "each bullet beside the highlight it cites, resolved in the profile"
    letter = documents["cover"].lines
    assert letter[0].where == "paragraphs[0].sentences[0]" and letter[0].facts == []
    assert any(f.kind == "highlight" for ln in letter for f in ln.facts)

    transport = httpx.ASGITransport(app=create_app(home, port=8765))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as http:
        page = (await http.get(f"/jobs/{job_id}")).text
        api = (await http.get(f"/v1/jobs/{job_id}")).json()
    assert "Where each line of the resume" in page and "Where each line of the letter" in page
    assert page.count(str(escape(TRUE_MIGRATION))) >= 2, "the line and the fact it cites"
    assert "cites nothing" in page
    assert "Truth check" in page and "passed" in page
    assert api["truthCheck"]["stage"] == "cover" and api["truthCheck"]["passed"] is True


def test_a_repair_answer_that_leaves_everything_out_is_no_document(
    ctx, store, job_id, script, provider
):
    # Asked to repair, the model leaves every line out: nothing of the person is left, so
    # the stage refuses rather than render an empty resume; both answers' findings kept.
    empty = {**TRUE_RESUME, "headline": {"text": "", "facts": []}, "summary": [],
             "experience": [], "education": [], "skills": []}  # fmt: skip
    script.update(resume=LYING_RESUME, resume_repair=empty)
    with pytest.raises(FabricationError) as caught:
        materials.tailor(ctx, job_id, "run-1", None)

    assert caught.value.repair_requested and len(provider.requests) == 2
    assert stored.list_materials(store, job_id) == []
    check = truth_checks.latest(store, job_id)
    assert check is not None and check["passed"] is False and check["repair_requested"]
    assert {f["where"] for f in check["findings"]} >= {"summary[0]", "experience[0].bullets[1]"}, (
        "the first answer's findings, which the repair request was about"
    )


def test_an_empty_profile_is_refused_up_front_and_never_called_a_fabrication(
    ctx, home, store, job_id
):
    # A fresh home (no resume imported): nothing of the person to write from. Tailor says
    # so with the command that fixes it, records no truth check (none ran) and is not
    # retried automatically; it never reports a fabrication of "0 unsupported claims".
    profile_edit.save_profile(home, {})
    with pytest.raises(StageError) as caught:
        materials.tailor(ctx, job_id, "run-1", None)

    assert not isinstance(caught.value, FabricationError)
    assert caught.value.code == PROFILE_EMPTY and caught.value.retryable is False
    row = _states(store, job_id)["tailor"]
    assert (row["state"], row["error_code"], row["retryable"]) == ("failed", PROFILE_EMPTY, False)
    said = row["error_message"]
    assert "is empty" in said and "jobctrl profile import" in said
    assert f"jobctrl retry {job_id}" in said  # a retry runs Tailor on the current profile
    assert "jobctrl profile import" in sentence(PROFILE_EMPTY)
    assert truth_checks.latest(store, job_id) is None


def test_an_answer_saying_nothing_of_the_person_is_unusable_never_a_fabrication_of_0_claims(
    ctx, store, job_id, script, provider
):
    empty = {**TRUE_RESUME, "headline": {"text": "", "facts": []}, "summary": [],
             "experience": [], "education": [], "skills": []}  # fmt: skip
    script.update(resume=empty, resume_repair=empty)
    with pytest.raises(StageError) as caught:
        materials.tailor(ctx, job_id, "run-1", None)

    assert not isinstance(caught.value, FabricationError)
    assert caught.value.code == PROVIDER_INVALID_OUTPUT and caught.value.retryable is False
    assert truth_checks.latest(store, job_id) is None, "no check refused it: nothing was found"
    with pytest.raises(ValueError):
        FabricationError(TAILOR_FABRICATION, [])

"""Nothing untrue reaches a PDF or the approved materials, with a model that lies.

End to end through `jobctrl worker` and the real preparation workflow: the Tailor and
Cover lanes point at a loopback OpenAI-compatible server (tests/support/fake_openai.py)
that answers in the cited materials schema, citing real profile facts, and lies:

1. a resume with a new employer in the summary, "12 years" of experience, a changed number
   in a real highlight that cites that highlight, and "using Apache Flink" appended to
   another (a third of its lines): too much to cut, so the model is asked once to repair
   it, and answers the same; Tailor fails with TAILOR_FABRICATION, not retried; nothing is
   stored or rendered; `jobctrl show --json`, the API and the Job page name each claim and
   sentence;
2. (regenerate) a truthful resume and a letter three of whose four sentences lie ("five
   years as Principal Engineer at Microsoft, I have led platform teams of 40 people", a
   Turing Award): Cover fails with COVER_FABRICATION after its repair request; no PDF is
   rendered from an older generation in its place;
3. (regenerate) the resume is true, the letter has one lying sentence: the sentence is
   removed and the rest kept; both PDFs render, the Job page and `show --json` say what
   was removed and why, and they can be approved — with none of the lies in any material
   row, any PDF (read back with pypdf), any event, projection, workflow history or log.
"""

from __future__ import annotations

import asyncio
import io
import json
from typing import Any

import httpx
import pypdf
from markupsafe import escape
from sqlalchemy import select

from jobctrl.api.app import create_app
from jobctrl.app.lanes import set_lane
from jobctrl.store import schema, tenancy
from tests.support.cited import (
    BROKEN_LETTER,
    COMPANY,
    LETTER_LIE,
    LIE_MARKERS,
    LYING_LETTER,
    LYING_RESUME,
    POSTING,
    RESUME_LIES,
    TRUE_LETTER,
    TRUE_RESUME,
    scripted,
)
from tests.support.fake_openai import FakeOpenAI
from tests.support.http import Route
from tests.support.processes import WorkerProcess, run_cli


def cli_json(*args: str) -> Any:
    result = run_cli(*args, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def stage_rows(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["stage"]: s for s in view["stages"]}


def material_rows(store) -> list[dict[str, Any]]:
    with store.read() as conn:
        m = schema.materials
        return [dict(r) for r in conn.execute(select(m).where(tenancy.scoped(m, conn))).mappings()]


def pdf_texts(store) -> list[str]:
    """The text of every PDF in the artifact store, read back with pypdf."""
    with store.read() as conn:
        shas = conn.execute(
            select(schema.artifacts.c.sha256).where(
                schema.artifacts.c.media_type == "application/pdf"
            )
        ).scalars()
        blobs = [store.artifacts.get(sha) for sha in shas]
    return [
        "\n".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(b)).pages)
        for b in blobs
    ]


def everything_but_the_check(store) -> str:
    """Every table the lies must never reach, as text: all but the truth check's own
    record and the paid-call cache (a provider's answer, stored before it is checked)."""
    skip = {"truth_checks", "provider_results"}
    parts = []
    with store.read() as conn:
        for table in schema.metadata.sorted_tables:
            if table.name not in skip:
                # Every row of every tenant: no lie anywhere in the store.
                rows = conn.execute(tenancy.all_tenants(select(table))).mappings()
                parts += [json.dumps(dict(r), default=str, ensure_ascii=False) for r in rows]
    return "\n".join(parts)


def assert_no_lies(text: str, where: str) -> None:
    found = [m for m in LIE_MARKERS if m in text]
    assert not found, f"{where} holds {found}"


async def history_text(client, workflow_id: str) -> str:
    history = await client.get_workflow_handle(workflow_id).fetch_history()
    return history.to_json()


async def test_a_lying_model_never_reaches_a_pdf_or_the_approved_materials(
    home, store, client, task_queue, fast_settings, site, monkeypatch
):
    fast_settings.set_value("min_fit_score", 0)
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-a-real-key")
    script = {"resume": LYING_RESUME, "letter": TRUE_LETTER}
    with FakeOpenAI("ok", answer=scripted(script)) as provider:
        for lane in ("tailor", "cover"):
            set_lane(home, lane, "openai", "gpt-4o-mini", provider.base_url, "FAKE_KEY")
        url = site.add("/jobs/truth", Route(body=POSTING))
        worker = WorkerProcess()
        try:
            worker.wait_ready()

            # 1. The resume lies: Tailor refuses it, once, and nothing follows from it.
            result = await asyncio.to_thread(
                run_cli, "add", url, "--wait", "--timeout", "120", "--json"
            )
            assert result.returncode == 1, result.stderr  # --wait: a job ended failed
            added = json.loads(result.stdout)
            job_id = added["jobId"]
            view = await asyncio.to_thread(cli_json, "show", job_id)
            stages = stage_rows(view)
            assert stages["tailor"]["state"] == "failed"
            assert stages["tailor"]["errorCode"] == "TAILOR_FABRICATION"
            assert stages["tailor"]["retryable"] is False and stages["tailor"]["attempts"] == 1
            assert stages["cover"]["state"] == stages["pdf"]["state"] == "pending"
            assert len(provider.requests) == 2, "one repair request; never retried in its run"
            check = view["truthCheck"]
            first_count = check["findingCount"]
            assert check["stage"] == "tailor" and check["passed"] is False
            assert check["checked"] > 0 and check["findingCount"] == len(check["findings"])
            for where, sentence, word in RESUME_LIES:
                named = [f for f in check["findings"] if f["where"] == where]
                assert named, f"no finding at {where}: {check['findings']}"
                assert all(f["sentence"] == sentence for f in named)
                assert any(word in f["claim"] for f in named), (where, named)
            for f in check["findings"]:
                assert {"where", "sentence", "kind", "claim"} <= set(f) and f["kind"]
            assert material_rows(store) == [] and pdf_texts(store) == []
            text = (await asyncio.to_thread(run_cli, "show", job_id)).stdout
            assert "TAILOR_FABRICATION" in text and "refused" in text
            for _, sentence, _ in RESUME_LIES:
                assert sentence in text
            refused = run_cli("materials", "approve", job_id)
            assert refused.returncode == 1 and refused.stderr.startswith("error: ")
            assert "Traceback" not in refused.stderr

            # The API and the Job page show the same check (the page escapes its text).
            transport = httpx.ASGITransport(app=create_app(home, port=8765))
            async with httpx.AsyncClient(
                transport=transport, base_url="http://127.0.0.1:8765"
            ) as http:
                api = (await http.get(f"/v1/jobs/{job_id}")).json()
                page = (await http.get(f"/jobs/{job_id}")).text
            assert api["truthCheck"] == check
            assert "Truth check" in page and "refused" in page
            for f in check["findings"]:
                assert str(escape(f["claim"])) in page and str(escape(f["sentence"])) in page

            # 2. A truthful resume, a lying letter: Cover refuses it; no PDF at all.
            script.update(resume=TRUE_RESUME, letter=BROKEN_LETTER)
            second = await asyncio.to_thread(cli_json, "materials", "regenerate", job_id)
            assert second["generation"] == 1
            view = await asyncio.to_thread(cli_json, "show", job_id)
            stages = stage_rows(view)
            assert stages["tailor"]["state"] == "succeeded"
            assert stages["cover"]["errorCode"] == "COVER_FABRICATION"
            assert stages["pdf"]["state"] == "pending", "no older letter is rendered instead"
            assert len(provider.requests) == 5, "the resume, the letter and its repair"
            check = view["truthCheck"]
            second_count = check["findingCount"]
            assert check["stage"] == "cover" and check["passed"] is False
            lie = [f for f in check["findings"] if f["sentence"] == LETTER_LIE]
            assert {f["where"] for f in lie} == {"paragraphs[1].sentences[0]"}
            claims = " | ".join(f["claim"] for f in lie)
            for word in ("Microsoft", "Principal", "40"):
                assert word in claims, claims
            rows = material_rows(store)
            assert [(r["kind"], r["generation"], r["state"]) for r in rows] == [
                ("resume", 1, "draft")
            ]
            assert all(r["pdf_artifact"] is None for r in rows) and pdf_texts(store) == []

            # 3. One lying sentence: removed, the rest kept and rendered.
            script.update(letter=LYING_LETTER)
            third = await asyncio.to_thread(cli_json, "materials", "regenerate", job_id)
            assert third["generation"] == 2 and third["workflowId"] != second["workflowId"]
            view = await asyncio.to_thread(cli_json, "show", job_id)
            assert {s["stage"]: s["state"] for s in view["stages"]} == dict.fromkeys(
                ("enrich", "score", "tailor", "cover", "pdf"), "succeeded"
            )
            check = view["truthCheck"]
            assert check["stage"] == "cover" and check["passed"]
            assert check["repairRequested"] is False and len(provider.requests) == 7
            assert [(d["document"], d["sentence"], d["action"]) for d in check["dropped"]] == [
                ("letter", LETTER_LIE, "removed")
            ]
            assert check["dropped"][0]["reasons"] and check["restored"] == []
            assert {f["where"] for f in check["findings"]} == {"paragraphs[1].sentences[0]"}
            text = (await asyncio.to_thread(run_cli, "show", job_id)).stdout
            assert "1 sentence removed: not supported by your profile" in text
            async with httpx.AsyncClient(
                transport=httpx.ASGITransport(app=create_app(home, port=8765)),
                base_url="http://127.0.0.1:8765",
            ) as http:
                page = (await http.get(f"/jobs/{job_id}")).text
            assert "1 sentence removed: not supported by your profile" in page
            assert str(escape(LETTER_LIE)) in page
            approved = await asyncio.to_thread(cli_json, "materials", "approve", job_id)
            assert {(d["kind"], d["generation"]) for d in approved} == {
                ("resume", 2),
                ("cover", 1),
            }
        finally:
            worker.stop(15)

    rows = material_rows(store)
    assert {(r["kind"], r["generation"]): (r["state"], bool(r["pdf_artifact"])) for r in rows} == {
        ("resume", 1): ("superseded", False),  # superseded when generation 2 was approved
        ("resume", 2): ("approved", True),
        ("cover", 1): ("approved", True),
    }
    for row in rows:
        assert_no_lies(json.dumps(row["content"], ensure_ascii=False), f"material {row['id']}")
    texts = pdf_texts(store)
    assert len(texts) == 2
    assert any("Example GmbH" in t for t in texts), "the resume rendered"
    assert any(COMPANY in t for t in texts), "the letter rendered"
    for text in texts:
        assert_no_lies(" ".join(text.split()), "a PDF")
    assert_no_lies(everything_but_the_check(store), "the store (events, projections, rows)")
    with store.read() as conn:
        failed = [
            json.loads(p) if isinstance(p, str) else p
            for p in conn.execute(
                select(schema.job_events.c.payload)
                .where(
                    tenancy.scoped(schema.job_events, conn),
                    schema.job_events.c.type == "StageFailed",
                )
                .order_by(schema.job_events.c.seq)
            ).scalars()
        ]
    assert [(e["stage"], e["errorCode"], e["findings"]) for e in failed] == [
        ("tailor", "TAILOR_FABRICATION", first_count),
        ("cover", "COVER_FABRICATION", second_count),
    ], "the failure events carry the code and the number of findings"
    for workflow_id in (added["workflowId"], second["workflowId"], third["workflowId"]):
        assert_no_lies(await history_text(client, workflow_id), f"history {workflow_id}")
    logs = "\n".join(p.read_text(errors="replace") for p in home.logs_dir.glob("*.log"))
    assert_no_lies(logs + "\n".join(worker.lines), "the logs")

"""`jobctrl mcp` with the MCP SDK's own client: over stdio (a `jobctrl mcp` child process)
against a real worker, every tool called once, a PDF read by URI, a refused send and
approval, bad arguments; over streamable HTTP (a `jobctrl mcp --http` child process),
each tenant's token sees only its tenant;
and no tool reaches the SMTP send, the approval or a form's submission."""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import dis
import inspect
import os
import re
import signal
import types
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import BlobResourceContents, CallToolResult, TextResourceContents

from jobctrl.app import apply, materials, outreach
from jobctrl.app.tenants import ensure_token
from jobctrl.mcp import tools_act, tools_people, tools_read
from jobctrl.mcp.base import PERSON_ONLY
from jobctrl.mcp.http import MCP_PATH
from jobctrl.store import jobs
from tests.support.http import FixtureServer, Route, posting_html
from tests.support.materials import prepared_job
from tests.support.processes import JOBCTRL, WorkerProcess
from tests.support.tenants import ACME_TOKEN

TO = "jobs@acme-robotics.example"
CODED = re.compile(r"^[A-Za-z_]+: \S")  # "code: sentence", as the CLI prints it


def _text(result: CallToolResult) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


CALLED: set[str] = set()  # the tools the stdio test called


async def _call(client: Client, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    CALLED.add(name)
    result = await client.call_tool(name, arguments)
    assert not result.is_error, (name, _text(result))
    assert result.structured_content is not None, name
    return result.structured_content


async def _refused(client: Client, name: str, arguments: dict[str, Any]) -> str:
    CALLED.add(name)
    result = await client.call_tool(name, arguments)
    assert result.is_error, (name, result.structured_content)
    text = _text(result)
    assert CODED.match(text) and "Traceback" not in text, text
    return text


@contextlib.asynccontextmanager
async def jobctrl_mcp() -> AsyncIterator[Client]:
    """The SDK's client of a `jobctrl mcp` child process with this test's environment (its
    home, Temporal server and task queue)."""
    params = StdioServerParameters(command=JOBCTRL, args=["mcp"], env=os.environ.copy())
    async with Client(params, read_timeout_seconds=60) as client:
        yield client


async def test_an_assistant_searches_explains_and_prepares_over_stdio_but_never_sends(
    home, store, site, fast_settings, worker
):
    job_id = await asyncio.to_thread(prepared_job, home, store, site, "/jobs/mcp")
    materials.decide_materials(home, job_id, "approve")
    async with jobctrl_mcp() as stdio:
        await _assist(stdio, site, job_id)
        listed = {tool.name for tool in (await stdio.list_tools()).tools}
    assert listed <= CALLED, f"tools never called: {sorted(listed - CALLED)}"


async def _assist(stdio: Client, site: FixtureServer, job_id: str) -> None:
    # The tools, each with schemas generated from the app models (camelCase on the wire).
    listed = {tool.name: tool for tool in (await stdio.list_tools()).tools}
    acting = [*tools_act.TOOLS, *tools_people.TOOLS]
    expected = {fn.__name__ for fn in tools_read.TOOLS} | {fn.__name__ for fn, _ in acting}
    assert set(listed) == expected
    assert not [name for name in listed if re.search(r"approve|send|submit", name)]
    for fn, _ in acting:
        assert PERSON_ONLY in (listed[fn.__name__].description or "")
    assert {"q", "min_score", "action", "limit"} <= set(
        listed["list_jobs"].input_schema["properties"]
    )
    assert {"jobId", "scoreReport", "availability", "materials"} <= set(
        listed["show_job"].output_schema["properties"]
    )

    # Reads.
    page = await _call(stdio, "list_jobs", {"q": "Backend", "min_score": 1})
    assert [item["jobId"] for item in page["items"]] == [job_id] and page["total"] == 1
    detail = await _call(stdio, "show_job", {"job": job_id[:8]})
    assert detail["jobId"] == job_id and detail["scoreReport"] and "availability" in detail
    shown = await _call(stdio, "show_materials", {"job": job_id})
    pdfs = [m["pdfArtifact"] for m in shown["materials"] if m["kind"] == "resume"]
    assert pdfs and pdfs[0] and "truthCheck" in shown
    resume = await _call(stdio, "material_text", {"job": job_id, "kind": "resume"})
    assert (await _call(stdio, "operations_status", {}))["phase"]
    assert "lanes" in await _call(stdio, "spend", {})
    assert (await _call(stdio, "discovery_runs", {}))["items"] == []
    profile = await _call(stdio, "show_profile", {})
    assert [q["jobId"] for q in (await _call(stdio, "apply_queue", {}))["items"]] == [job_id]
    assert (await _call(stdio, "list_applications", {}))["items"] == []

    # Resources: the resume's PDF, the evaluation report, the profile.
    pdf = (await stdio.read_resource(f"jobctrl://artifacts/{pdfs[0]}")).contents[0]
    assert isinstance(pdf, BlobResourceContents) and pdf.mime_type == "application/pdf"
    assert pdf.blob.startswith("JVBERi0")  # base64 of "%PDF-"
    report = (await stdio.read_resource(f"jobctrl://jobs/{job_id}/report")).contents[0]
    assert isinstance(report, TextResourceContents) and "Backend" in report.text
    assert '"version"' in (await stdio.read_resource("jobctrl://profile")).contents[0].text
    with pytest.raises(MCPError, match="artifact_not_found"):
        await stdio.read_resource("jobctrl://artifacts/0123456789abcdef")

    # Preparing: an email draft, an edited resume (truth-checked), an outcome.
    draft = await _call(
        stdio,
        "prepare_application",
        {"job": job_id, "channel": "email", "to": [TO], "subject": "Hello"},
    )
    assert draft["subject"] == "Hello" and draft["to"] == [TO]
    assert not draft["approvalValid"]
    edited = await _call(
        stdio, "edit_material", {"job": job_id, "kind": "resume", "text": resume["text"]}
    )
    assert edited["generation"] == 2 and "findings" in edited
    outcome = await _call(
        stdio, "record_outcome", {"application": job_id, "outcome": "screening", "note": "call"}
    )
    assert outcome["outcome"] == "screening"
    saved = await _call(
        stdio, "edit_profile", {"profile": {**profile["profile"], "summary": "Backend engineer."}}
    )
    assert saved == {"version": profile["version"] + 1, "changed": True}

    # Commands that start work on the worker.
    url = site.add("/jobs/mcp-added", Route(body=posting_html("Data Engineer", "Beta", ["SQL"])))
    added = await _call(stdio, "add_postings", {"urls": [url]})
    assert added["items"][0]["url"] == url and added["items"][0]["workflowId"]
    assert (await _call(stdio, "regenerate_materials", {"job": job_id}))["jobId"] == job_id
    assert (await _call(stdio, "start_discovery", {}))["result"]["runId"]
    CALLED.add("cancel_discovery")
    await stdio.call_tool("cancel_discovery", {})  # done or stopped: either answers
    await _refused(stdio, "write_cover_letter", {"job": job_id})  # it has a letter
    await _refused(stdio, "retry_stage", {"job": job_id})  # nothing failed
    # A real dry run opens Chromium (~9 s, tests/integration/test_apply_browser*.py run it):
    # here the tool is called cheaply, for a job this tenant does not have.
    dry = await _refused(stdio, "prefill_form_dry_run", {"job": "ffffffff"})
    assert dry.startswith("job_not_found:")

    # The people behind the posting, and messages to them (drafts only).
    people = await _call(stdio, "job_people", {"job": job_id})
    assert people["jobId"] == job_id and people["contacts"] == []
    assert (await _call(stdio, "list_contacts", {}))["items"] == []
    assert (await _call(stdio, "list_followups", {}))["items"] == []
    missing = {"contact": "ffffffff", "job": job_id}
    assert (await _refused(stdio, "draft_outreach", missing)).startswith("contact_not_found:")
    await _refused(stdio, "draft_followup", {"job": job_id})  # none is due yet
    # Starting a research run is cheap to refuse: a job this tenant does not have.
    no_job = await _refused(stdio, "research_contacts", {"job": "ffffffff"})
    assert no_job.startswith("job_not_found:")

    # Refused: sending and approving are no tools; bad arguments name what is wrong.
    for name in ("send_application", "approve_application", "approve_materials", "send_outreach"):
        assert PERSON_ONLY in await _refused(stdio, name, {"job": job_id})
    application = (await _call(stdio, "show_application", {"job": job_id}))["result"]
    assert application["status"] != "sent" and not application["approvalValid"]
    too_many = await _refused(stdio, "list_jobs", {"limit": 5000})
    assert too_many.startswith("invalid_input:") and "limit" in too_many
    assert "job" in await _refused(stdio, "show_job", {})
    assert (await _refused(stdio, "show_job", {"job": "ffffffff"})).startswith("job_not_found:")
    assert await _refused(stdio, "record_outcome", {"application": job_id, "outcome": "won"})


async def test_over_http_each_token_acts_for_its_own_tenant_only(two_tenants):
    local_home, store = two_tenants.local_home, two_tenants.local
    job = jobs.create_job(store, "https://jobs.example/mcp-isolation")
    local_token = ensure_token(local_home)
    server = WorkerProcess("mcp", "--http", "--port", "0", ready="jobctrl MCP server on")
    try:
        server.wait_ready()
        url = next(line for line in server.lines if "MCP server on" in line).split()[-1]
        assert url.startswith("http://127.0.0.1:") and url.endswith(MCP_PATH)

        async def as_tenant(token: str) -> tuple[dict[str, Any], str, bool]:
            headers = {"Authorization": f"Bearer {token}"}
            async with (
                httpx2.AsyncClient(headers=headers) as http,
                Client(streamable_http_client(url, http_client=http)) as client,
            ):
                listed = await client.call_tool("list_jobs", {})
                shown = await client.call_tool("show_job", {"job": job.job_id})
                try:
                    await client.read_resource(f"jobctrl://jobs/{job.job_id}/report")
                    report_found = True
                except MCPError as exc:
                    report_found = "job_not_found" not in str(exc)
            return listed.structured_content or {}, _text(shown), report_found

        mine, _, _ = await as_tenant(local_token or "")
        assert [item["jobId"] for item in mine["items"]] == [job.job_id]
        theirs, shown, report_found = await as_tenant(ACME_TOKEN)
        assert theirs["items"] == [] and theirs["total"] == 0
        assert shown.startswith("job_not_found:") and not report_found

        async with httpx.AsyncClient() as plain:
            body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
            assert (await plain.post(url, json=body)).status_code == 401  # no token
            wrong = {"Authorization": "Bearer not-a-token"}
            assert (await plain.post(url, json=body, headers=wrong)).status_code == 403
            rebound = {"Authorization": f"Bearer {ACME_TOKEN}", "Host": "evil.example"}
            assert (await plain.post(url, json=body, headers=rebound)).status_code == 403
    finally:
        if server.proc.poll() is None:
            server.stop(signal.SIGTERM)


# -- no tool reaches the send, the approval or a submission ------------------------------

PERSON_ONLY_FUNCTIONS = {
    "jobctrl.app.apply.send_application",
    "jobctrl.app.apply.approve_application",
    "jobctrl.app.apply.resolve_application",
    "jobctrl.app.materials.decide_materials",
    "jobctrl.app.apply_loop.set_apply_loop",
    "jobctrl.app.apply_loop.apply_in_worker",
    "jobctrl.app.outreach.approve_outreach",
    "jobctrl.app.outreach.send_outreach",
    "jobctrl.app.outreach.resolve_outreach",
    "jobctrl.app.followups.approve_followup",
    "jobctrl.app.followups.send_followup",
    "jobctrl.app.followups.resolve_followup",
    "jobctrl.stages.apply_email.send_application",
    "jobctrl.stages.smtp_session.connect",
    "jobctrl.stages.smtp_session.send_data",
}


def _reachable(start: Callable[..., Any]) -> set[str]:
    """The jobctrl functions ``start`` can call, by walking the bytecode: every global
    name (and ``module.attr`` chain) each function loads, and the functions, methods and
    nested code they name, transitively."""
    seen: set[str] = set()
    todo: list[Any] = [start]
    while todo:
        fn = inspect.unwrap(todo.pop())
        code = getattr(fn, "__code__", None)
        name = f"{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', '')}"
        if code is None or name in seen or not name.startswith("jobctrl."):
            continue
        seen.add(name)
        codes = [code]
        while codes:
            current = codes.pop()
            codes += [c for c in current.co_consts if isinstance(c, types.CodeType)]
            todo += _named(current, fn.__globals__)
    return seen


def _named(code: types.CodeType, scope: dict[str, Any]) -> list[Any]:
    found: list[Any] = []
    target: Any = None
    for ins in dis.get_instructions(code):
        if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
            target = scope.get(ins.argval, getattr(builtins, str(ins.argval), None))
        elif ins.opname in ("LOAD_ATTR", "LOAD_METHOD") and target is not None:
            target = getattr(target, str(ins.argval), None)
        else:
            target = None
            continue
        if isinstance(target, type) and target.__module__.startswith("jobctrl."):
            found += [v for v in vars(target).values() if inspect.isfunction(v)]
        elif callable(target):
            found.append(target)
    return found


def test_no_tool_reaches_the_send_the_approval_or_a_submission() -> None:
    assert PERSON_ONLY_FUNCTIONS & _reachable(apply.send_application)  # the walk sees them
    assert PERSON_ONLY_FUNCTIONS & _reachable(outreach.send_outreach)
    # Every tool the server registers (the stdio test proves the server lists exactly these).
    acting = [*tools_act.TOOLS, *tools_people.TOOLS]
    for tool in [*tools_read.TOOLS, *(fn for fn, _ in acting)]:
        reached = _reachable(tool)
        assert len(reached) > 1, tool.__name__  # it reaches its app function
        assert not reached & PERSON_ONLY_FUNCTIONS, (tool.__name__, reached & PERSON_ONLY_FUNCTIONS)

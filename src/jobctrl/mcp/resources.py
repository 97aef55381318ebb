"""Resources by URI: a material's PDF, a job's evaluation report and the profile.

- ``jobctrl://artifacts/{artifact_id}``: a resume or letter PDF (the ``pdfArtifact`` of
  show_materials / show_job), ``application/pdf``.
- ``jobctrl://jobs/{job}/report``: the job's evaluation report, Markdown.
- ``jobctrl://profile``: the profile and its version, JSON (show_profile's answer).

Each reads as the calling tenant (``base.tenant_home``); a reference the tenant does not
have answers "not found" with the CLI's code and sentence.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError

from jobctrl.app import configuration, queries, reports
from jobctrl.domain.errors import INVALID_INPUT, JobctrlError, NotFoundError
from jobctrl.mcp.base import JobctrlMCP, tenant_home

__all__ = ["RESOURCES", "register"]

T = TypeVar("T")


async def _read(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in a worker thread; its ``JobctrlError`` as the resource's error."""
    try:
        return await asyncio.to_thread(fn, *args)
    except NotFoundError as exc:
        raise ResourceNotFoundError(f"{exc.code}: {exc.message}") from None
    except JobctrlError as exc:
        raise ResourceError(f"{exc.code}: {exc.message}") from None


async def material_pdf(artifact_id: str, ctx: Context) -> bytes:
    """A resume or cover letter as PDF."""
    data, _name = await _read(queries.material_pdf, tenant_home(ctx), artifact_id)
    return data


async def evaluation_report(job: str, ctx: Context) -> str:
    """A job's evaluation report (Markdown): the fit, requirement by requirement."""
    report = await _read(reports.evaluation_report_text, tenant_home(ctx), job)
    return report.text


async def profile(ctx: Context, format: str = "json") -> str:
    """The person's profile and its version (JSON)."""
    if format != "json":
        raise ResourceError(f"{INVALID_INPUT}: the profile is read as format=json")
    view = await _read(configuration.show_profile, tenant_home(ctx))
    return view.model_dump_json(by_alias=True, indent=2)


RESOURCES = (
    ("jobctrl://artifacts/{artifact_id}", material_pdf, "application/pdf"),
    ("jobctrl://jobs/{job}/report", evaluation_report, "text/markdown"),
    ("jobctrl://profile{?format}", profile, "application/json"),
)


def register(server: JobctrlMCP) -> None:
    for uri, fn, mime in RESOURCES:
        server.resource(uri, mime_type=mime)(fn)

"""The MCP server's shared parts: who each call acts for, and errors as the CLI says them.

Over stdio the server acts for one tenant, the one `jobctrl mcp` was started as
(``JOBCTRL_TENANT``, default ``local``), exactly like a CLI command. Over HTTP every request
carries a tenant's API token and acts for that tenant only (``mcp.http`` puts the tenant in
the request's state with the API's own token check, ``api.security.LocalSecurity``).

A tool that fails with a ``JobctrlError`` answers as an MCP tool error (``isError``) whose
text is ``code: sentence``, the same code and sentence the CLI prints; arguments that do
not fit a tool's input schema answer ``invalid_input: …`` naming the argument. A tool the
server does not have (an assistant asking to approve, send or submit) is refused in words
that say those stay with the person.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, InputRequiredResult
from pydantic import ValidationError

from jobctrl import __version__
from jobctrl.api.deps import TENANT_STATE
from jobctrl.domain.errors import FORBIDDEN, INTERNAL_ERROR, INVALID_INPUT, NOT_FOUND, JobctrlError
from jobctrl.home import Home

__all__ = [
    "INSTRUCTIONS",
    "PERSON_ONLY",
    "JobctrlMCP",
    "error_text",
    "tenant_home",
]

PERSON_ONLY = (
    "Approving, sending an application and submitting a form stay with the person, "
    "in jobctrl itself: no tool here can do them."
)

INSTRUCTIONS = (
    "jobctrl is the person's own job-search pipeline: it finds postings, scores them "
    "against the person's profile, writes truth-checked resumes and cover letters, and "
    "prepares applications. Use these tools to search and explain jobs, add postings, run "
    "discovery, edit the profile and the materials, and prepare applications as drafts. "
    + PERSON_ONLY
)


class JobctrlMCP(MCPServer[Any]):
    """The server for ``home``: its tenant acts in every call (``per_request`` False, the
    stdio server), or each HTTP request's own tenant does (``per_request`` True)."""

    def __init__(self, home: Home, *, per_request: bool) -> None:
        super().__init__(
            name="jobctrl",
            title="jobctrl",
            version=__version__,
            instructions=INSTRUCTIONS,
            log_level="WARNING",
        )
        self.home = home
        self.per_request = per_request

    def home_for(self, ctx: Context[Any, Any]) -> Home:
        """The home of the tenant this call acts for; an HTTP request the transport named
        no tenant for is refused, never served as the server's own tenant."""
        if not self.per_request:
            return self.home
        request = ctx.request_context.request
        state = getattr(request, "scope", {}).get("state", {})
        tenant = state.get(TENANT_STATE)
        if not tenant:
            raise JobctrlError("this request acts for no tenant", code=FORBIDDEN)
        return self.home.with_tenant(tenant)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        if self._tool_manager.get_tool(name) is None:
            raise ToolError(f"{NOT_FOUND}: jobctrl has no tool {name!r}. {PERSON_ONLY}")
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if (
                not isinstance(exc.__cause__, JobctrlError | ValidationError)
                and type(exc) is not ToolError
            ):
                Home.resolve().log_exception(exc.__cause__ or exc)  # the home's log, as the CLI
            raise ToolError(error_text(exc)) from None


def error_text(exc: ToolError) -> str:
    """A failed call's text: ``code: sentence`` as the CLI prints it, or which argument
    did not fit; an unexpected failure says only that (the details stay in the server)."""
    cause = exc.__cause__
    if isinstance(cause, JobctrlError):
        return f"{cause.code}: {cause.message}"
    if isinstance(cause, ValidationError):
        problems = []
        for error in cause.errors(include_url=False, include_input=False):
            where = ".".join(str(part) for part in error["loc"]) or "arguments"
            problems.append(f"{where}: {error['msg']}")
        return f"{INVALID_INPUT}: the arguments do not fit this tool ({'; '.join(problems)})"
    if type(exc) is ToolError:
        return str(exc)
    return f"{INTERNAL_ERROR}: an unexpected internal error (details in jobctrl's log)"


def tenant_home(ctx: Context[Any, Any]) -> Home:
    """The home a tool or resource acts in: the calling tenant's."""
    server = ctx.mcp_server
    if not isinstance(server, JobctrlMCP):
        raise JobctrlError("this server serves no jobctrl home", code=FORBIDDEN)
    return server.home_for(ctx)

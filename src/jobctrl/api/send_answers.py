"""A send route's answer, the same for an application, a follow-up and an outreach email:
``sent`` or ``unknown`` is the result itself; a send refused before its data (``failed``:
nothing was sent) is an error with its code (``{"error": {"code", "message"}}``), the
result's fields beside it, under the code's HTTP status."""

from __future__ import annotations

from typing import TypeVar

from fastapi.responses import JSONResponse

from jobctrl.app.apply import SendView
from jobctrl.app.outbound import OutboundSendView
from jobctrl.domain.errors import status_of

__all__ = ["send_answer"]

# What an application's send came to, or a follow-up's or outreach message's.
Sent = TypeVar("Sent", SendView, OutboundSendView)


def send_answer(result: Sent) -> Sent | JSONResponse:
    """The result, or the refusal as an error answer (see the module's docstring)."""
    if result.status == "failed":
        code = result.error_code or ""
        refused = {"error": {"code": code, "message": result.message}, **result.to_json()}
        return JSONResponse(refused, status_of(code).http)
    return result

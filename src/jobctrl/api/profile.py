"""The profile's saved application answers over HTTP: ``GET /v1/profile/answers`` and
``PATCH /v1/profile/answers`` (the same ``app.answers`` functions the Settings page's form
calls; config.yaml is edited in place with its comments kept)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Body

from jobctrl.api.deps import TenantHome, tenant_router
from jobctrl.app import answers
from jobctrl.app.answers import AnswersChanged, SavedAnswers

__all__ = ["router"]


router = tenant_router()
"""``/v1/profile/answers``."""


@router.get("/v1/profile/answers", tags=["profile"], response_model=SavedAnswers)
def saved_answers(home: TenantHome) -> SavedAnswers:
    """The saved application answers (unanswered ones empty)."""
    return SavedAnswers(answers=answers.saved_answers(home))


@router.patch("/v1/profile/answers", tags=["profile"], response_model=AnswersChanged)
def change_answers(
    home: TenantHome,
    changes: Annotated[
        dict[str, Any],
        Body(examples=[{"notice_period": "3 months", "needs_sponsorship": False}]),
    ],
) -> AnswersChanged:
    """Change saved answers (all validated, with the whole config, before any is
    written; a refused value changes nothing). ``null``/``""``/``[]`` clears one."""
    return answers.change_answers(home, changes)

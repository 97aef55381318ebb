"""Activities of the preparation recovery workflow (issue 13, being built)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jobctrl.stages.context import StageContext


class RecoveryActivities:
    def __init__(self, ctx: StageContext) -> None:
        self.ctx = ctx

    def all(self) -> list[Callable[..., Any]]:
        return []

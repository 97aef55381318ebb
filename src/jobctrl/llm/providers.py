"""Score providers. The built-in offline provider is deterministic and needs no network.

A provider returns its validated output and the usage it reports (``None`` when it
reports none: such calls create no token usage in the ledger).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from jobctrl.domain.fit_verdict import FitRules
from jobctrl.domain.profile import Profile
from jobctrl.domain.scoring import ScoreReport
from jobctrl.llm.offline import score_offline
from jobctrl.llm.spend import Usage


class ScoreProvider(Protocol):
    name: str
    model: str

    def score(
        self, title: str | None, description: str, profile: Profile
    ) -> tuple[ScoreReport, Usage | None]: ...


@dataclass
class OfflineScoreProvider:
    """Extractive scoring (requirements matched against the profile's own words).

    ``latency_seconds`` simulates a remote model's latency for benchmarks and crash
    drills; ``heartbeat`` is called while waiting so a live attempt is never taken over.
    """

    model: str = "offline-extractive-v1"
    latency_seconds: float = 0.0
    heartbeat: Callable[..., None] = lambda *details: None
    name: str = "offline"
    rules: FitRules | None = None  # the person's verdict settings (default: the defaults)

    def score(
        self, title: str | None, description: str, profile: Profile
    ) -> tuple[ScoreReport, Usage | None]:
        deadline = time.monotonic() + self.latency_seconds
        while (left := deadline - time.monotonic()) > 0:
            self.heartbeat("provider")
            time.sleep(min(0.5, left))
        return score_offline(title, description, profile, rules=self.rules), None

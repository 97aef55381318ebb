"""Pipeline stages and the states a stage row moves through."""

from __future__ import annotations

from enum import StrEnum


class Stage(StrEnum):
    ENRICH = "enrich"
    SCORE = "score"
    TAILOR = "tailor"
    COVER = "cover"
    PDF = "pdf"
    APPLY = "apply"


class StageState(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    SKIPPED = "skipped"


TERMINAL_STATES = frozenset({StageState.SUCCEEDED, StageState.FAILED, StageState.SKIPPED})

# The stages a JobPreparationWorkflow runs, in order.
PREPARATION_STAGES: tuple[Stage, ...] = (Stage.ENRICH, Stage.SCORE)

# Stages after Score; a job below ``min_fit_score`` has them skipped with ``MIN_SCORE``.
LATER_STAGES: tuple[Stage, ...] = (Stage.TAILOR, Stage.COVER, Stage.PDF)

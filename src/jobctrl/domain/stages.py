"""Pipeline stages, the states a stage row moves through, and a job's status.

These enums are the only spellings of stage names, stage states and job statuses; the
stored values are their string values.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from jobctrl.domain.errors import COVER_ON_REQUEST, MATERIALS_OFF


class Stage(StrEnum):
    """The stages of one job, in pipeline order."""

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


class JobStatus(StrEnum):
    """A job's status in the list: the state of its first unfinished stage."""

    PENDING = "pending"
    RUNNING = "running"
    PREPARED = "prepared"
    SKIPPED = "skipped"
    FAILED = "failed"


TERMINAL_STATES = frozenset({StageState.SUCCEEDED, StageState.FAILED, StageState.SKIPPED})

# The stages a JobPreparationWorkflow runs first, in order.
PREPARATION_STAGES: tuple[Stage, ...] = (Stage.ENRICH, Stage.SCORE)

# Stages after Score; a job below ``min_fit_score`` has them skipped with ``MIN_SCORE``.
LATER_STAGES: tuple[Stage, ...] = (Stage.TAILOR, Stage.COVER, Stage.PDF)

STAGE_ORDER: dict[str, int] = {stage.value: i for i, stage in enumerate(Stage)}

# Skip reasons that mean "not asked for", not "not good enough": such a stage counts as
# done when a job's status is decided (a job prepared without materials is prepared).
NOT_ASKED_FOR = frozenset({MATERIALS_OFF, COVER_ON_REQUEST})


def letter_not_asked_for(stages: Mapping[str, tuple[str, str | None]]) -> bool:
    """Whether the job's Cover was skipped as ``COVER_ON_REQUEST`` (it scored below
    ``materials.cover_min_score``), from ``stage -> (state, error code)``."""
    cover = stages.get(Stage.COVER.value)
    return cover is not None and cover[0] == StageState.SKIPPED and cover[1] == COVER_ON_REQUEST


def letter_failed_alone(stages: Mapping[str, tuple[str, str | None]]) -> bool:
    """Whether a letter asked for on top of a prepared job failed (or the truth check
    refused it): Cover failed while the PDF stands. A letter written when the person asks
    (below ``materials.cover_min_score``, or again after they rejected one) runs after the
    resume's PDF was made, and a new letter puts the PDF back to pending only once it is
    written; a letter that failed in the preparation itself stopped it before the PDF. So
    the resume goes out alone and the job stays prepared, with its letter to ask for again.
    """
    cover, pdf = stages.get(Stage.COVER.value), stages.get(Stage.PDF.value)
    return (
        cover is not None
        and pdf is not None
        and cover[0] == StageState.FAILED
        and pdf[0] == StageState.SUCCEEDED
    )


def letter_on_request(stages: Mapping[str, tuple[str, str | None]]) -> bool:
    """Whether the job's cover letter waits for the person to ask for it, from ``stage ->
    (state, error code)``: not asked for yet (``letter_not_asked_for``) or asked for and
    failed (``letter_failed_alone``). The Job page offers "Write the cover letter" then."""
    return letter_not_asked_for(stages) or letter_failed_alone(stages)


def in_stage_order(stages: Mapping[str, object]) -> list[str]:
    """The stage names of ``stages`` in pipeline order (unknown names last)."""
    return sorted(stages, key=lambda name: STAGE_ORDER.get(name, len(STAGE_ORDER)))


def job_status(stages: Mapping[str, tuple[str, str | None]]) -> tuple[JobStatus, str, str | None]:
    """(status, current stage, error code) of a job from ``stage -> (state, error code)``.

    The first stage (in pipeline order) that has not succeeded decides: a failed stage
    makes the job failed, a running one running, a pending one pending and a skipped one
    skipped (with the skip's reason as the code); a job whose stages all succeeded (or
    were not asked for, or are a letter asked for later that failed: ``letter_failed_alone``)
    is prepared, at its last stage.
    """
    known = [name for name in in_stage_order(stages) if name in STAGE_ORDER]
    done = {StageState.SUCCEEDED.value}
    optional = {Stage.COVER.value} if letter_failed_alone(stages) else set()
    for name in known:
        state, code = stages[name]
        if (state == StageState.SKIPPED and code in NOT_ASKED_FOR) or name in optional:
            continue
        if state == StageState.FAILED:
            return JobStatus.FAILED, name, code
        if state == StageState.RUNNING:
            return JobStatus.RUNNING, name, None
        if state == StageState.PENDING:
            return JobStatus.PENDING, name, None
        if state == StageState.SKIPPED:
            return JobStatus.SKIPPED, name, code
    if known and all(
        stages[name][0] in done or stages[name][1] in NOT_ASKED_FOR or name in optional
        for name in known
    ):
        return JobStatus.PREPARED, known[-1], None
    return JobStatus.PENDING, known[0] if known else Stage.ENRICH.value, None

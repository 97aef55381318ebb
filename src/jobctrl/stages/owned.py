"""Running one attempt of a stage under its ownership rules, shared by every stage.

The attempt claims the stage row for its run; a stage an earlier attempt already finished
is not done again (its committed result is reused, so a retry never pays twice). A stage
error is recorded on the row unless ownership was lost to a newer attempt, whose row this
attempt must not touch. A document the truth check refused is recorded with its findings
(``refused``) in the transaction that fails the stage, so the two never disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from jobctrl.domain.errors import CONFIG_INVALID, OWNERSHIP_LOST, ConfigError, StageError
from jobctrl.domain.truth.document import FabricationError
from jobctrl.stages.context import StageContext
from jobctrl.store import stage_states
from jobctrl.store.store import WriteTx

T = TypeVar("T")
# Records a refused document's check, given the failing transaction, attempt and error.
Refused = Callable[[WriteTx, int, FabricationError], None]


def run_owned(
    ctx: StageContext,
    job_id: str,
    stage: str,
    run_id: str,
    *,
    work: Callable[[int], T],
    reuse: Callable[[], T],
    refused: Refused | None = None,
    claimed: Callable[[stage_states.Claim], None] | None = None,
) -> T:
    """Claim ``stage`` and run ``work(attempt)``, or ``reuse()`` a finished result.
    ``claimed`` is shown the claim before ``work`` runs (a paid stage reads which
    interrupted run's answer it may reuse)."""
    claim = stage_states.claim_stage(ctx.store, job_id, stage, run_id, clock=ctx.clock)
    if claim.already is not None:
        return reuse()
    if claimed is not None:
        claimed(claim)
    try:
        return work(claim.attempt)
    except ConfigError as exc:  # config.yaml (or a stored profile) cannot be read
        error = StageError(CONFIG_INVALID, exc.message)
        stage_states.fail_stage(
            ctx.store, job_id, stage, run_id, claim.attempt, error, clock=ctx.clock
        )
        raise error from None
    except FabricationError as error:  # the truth check refused the document
        attempt = claim.attempt
        stage_states.fail_stage(
            ctx.store,
            job_id,
            stage,
            run_id,
            attempt,
            error,
            clock=ctx.clock,
            findings=len(error.findings),
            also=(lambda tx: refused(tx, attempt, error)) if refused is not None else None,
        )
        raise
    except StageError as error:
        if error.code != OWNERSHIP_LOST:
            stage_states.fail_stage(
                ctx.store, job_id, stage, run_id, claim.attempt, error, clock=ctx.clock
            )
        raise

"""The activities the workflows call, declared once: name, input type and result type.

A workflow references an activity by one of these functions (Temporal's typed form), so a
misspelt name is an import error and the result type comes from the declaration. The
bodies run nowhere: the worker registers the implementations (``activities.py``,
``discover_activities.py``) under the same names, and a test holds each implementation's
name and types equal to its declaration. This module imports no database, fetch or LLM
code, so a workflow module stays light and deterministic in Temporal's sandbox.
"""

from __future__ import annotations

from temporalio import activity

from jobctrl.domain.discovery import DiscoverFinish, DiscoveryPlan, ExecutionRef
from jobctrl.workflows.models import (
    ApplyClaimInput,
    ApplyClaimResult,
    ApplyFinishInput,
    ApplyPrepareInput,
    ApplyPrepareResult,
    ContactClaimInput,
    ContactClaimResult,
    ContactFinishInput,
    ContactSourceInput,
    EnrichResult,
    FamilyInput,
    FinalizeInput,
    RecoveryBeginInput,
    RecoveryFinishInput,
    ScoreResult,
    StageInput,
    StepResult,
    SweepInput,
    SweepResult,
)

ENRICH = "enrich"
SCORE = "score"
TAILOR = "tailor"
COVER = "cover"
RENDER_PDF = "render_pdf"
FINALIZE_PREPARATION = "finalize_preparation"
DISCOVERY_PLAN = "discovery_plan"
DISCOVERY_FAMILY = "discovery_family"
DISCOVERY_ENRICHMENT_PASS = "discovery_enrichment_pass"
DISCOVERY_PREPARATION_FANOUT = "discovery_preparation_fanout"
DISCOVERY_FINISH = "discovery_finish"
DISCOVERY_BACKLOG_SWEEP = "discovery_backlog_sweep"
AVAILABILITY_SWEEP = "availability_sweep"
APPLY_CLAIM = "apply_claim"
APPLY_PREPARE = "apply_prepare"
APPLY_FINISH = "apply_finish"
RECOVERY_BEGIN = "recovery_begin"
RECOVERY_FINISH = "recovery_finish"
CONTACT_RESEARCH_CLAIM = "contact_research_claim"
CONTACT_RESEARCH_SOURCE = "contact_research_source"
CONTACT_RESEARCH_FINISH = "contact_research_finish"


# -- JobPreparationWorkflow ----------------------------------------------------------------


@activity.defn(name=ENRICH)
def enrich(inp: StageInput) -> EnrichResult:
    """Fetch the posting safely, extract its fields, store page and text."""
    raise NotImplementedError


@activity.defn(name=SCORE)
def score(inp: StageInput) -> ScoreResult:
    """Match the posting's requirements against the profile."""
    raise NotImplementedError


@activity.defn(name=TAILOR)
def tailor(inp: StageInput) -> int:
    """Write a tailored resume; its generation."""
    raise NotImplementedError


@activity.defn(name=COVER)
def cover(inp: StageInput) -> int:
    """Write a cover letter; its generation."""
    raise NotImplementedError


@activity.defn(name=RENDER_PDF)
def render_pdf(inp: StageInput) -> int:
    """Render the newest resume and letter to PDFs; the resume's generation."""
    raise NotImplementedError


@activity.defn(name=FINALIZE_PREPARATION)
def finalize_preparation(inp: FinalizeInput) -> None:
    """Settle the run's stage rows, write the evaluation report, record the outcome."""
    raise NotImplementedError


# -- DiscoverWorkflow ----------------------------------------------------------------------


@activity.defn(name=DISCOVERY_PLAN)
def discovery_plan(ref: ExecutionRef) -> DiscoveryPlan:
    """Plan the source families and record the run."""
    raise NotImplementedError


@activity.defn(name=DISCOVERY_FAMILY)
def discovery_family(inp: FamilyInput) -> StepResult:
    """Read one family's sources, link what was found, start new jobs' preparations."""
    raise NotImplementedError


@activity.defn(name=DISCOVERY_ENRICHMENT_PASS)
def discovery_enrichment_pass(ref: ExecutionRef) -> StepResult:
    """Terminal pass: every member has its preparation started."""
    raise NotImplementedError


@activity.defn(name=DISCOVERY_PREPARATION_FANOUT)
def discovery_preparation_fanout(ref: ExecutionRef) -> StepResult:
    """Close membership: the run's jobs are all accounted for."""
    raise NotImplementedError


@activity.defn(name=DISCOVERY_BACKLOG_SWEEP)
def discovery_backlog_sweep(ref: ExecutionRef) -> StepResult:
    """After the fan-out: re-admit stale pending jobs (existing_backlog) and prepare them."""
    raise NotImplementedError


@activity.defn(name=DISCOVERY_FINISH)
def discovery_finish(fin: DiscoverFinish) -> None:
    """Record how the run ended."""
    raise NotImplementedError


# -- AvailabilitySweepWorkflow -------------------------------------------------------------


@activity.defn(name=AVAILABILITY_SWEEP)
def availability_sweep(inp: SweepInput) -> SweepResult:
    """Check the saved postings that are due, within the input's limit and budget."""
    raise NotImplementedError


# -- ApplyWorkflow -------------------------------------------------------------------------


@activity.defn(name=APPLY_CLAIM)
def apply_claim(inp: ApplyClaimInput) -> ApplyClaimResult:
    """Spend preflight (lane apply), then claim the named job or the loop's next jobs."""
    raise NotImplementedError


@activity.defn(name=APPLY_PREPARE)
def apply_prepare(inp: ApplyPrepareInput) -> ApplyPrepareResult:
    """Prepare a claimed job's application (a draft for approval); never sends."""
    raise NotImplementedError


@activity.defn(name=APPLY_FINISH)
def apply_finish(inp: ApplyFinishInput) -> None:
    """Release the run's live claims and record how the run ended."""
    raise NotImplementedError


# -- PreparationRecoveryWorkflow (its members run the preparation's stage activities) ----


@activity.defn(name=RECOVERY_BEGIN)
def recovery_begin(inp: RecoveryBeginInput) -> bool:
    """Bind the frozen cohort to this run, so its members' claims are recognised; False
    when the cohort is closed or gone (nothing to do)."""
    raise NotImplementedError


@activity.defn(name=RECOVERY_FINISH)
def recovery_finish(inp: RecoveryFinishInput) -> None:
    """Settle the members this run still owns, release the ones it never claimed, close
    the cohort and record how the run ended."""
    raise NotImplementedError


# -- ContactResearchWorkflow (issue 33) ---------------------------------------------------


@activity.defn(name=CONTACT_RESEARCH_CLAIM)
def contact_research_claim(inp: ContactClaimInput) -> ContactClaimResult:
    """Spend preflight (a paid contact_research lane), then own the research task."""
    raise NotImplementedError


@activity.defn(name=CONTACT_RESEARCH_SOURCE)
def contact_research_source(inp: ContactSourceInput) -> int:
    """Read one source the policy allows and record its candidates; how many."""
    raise NotImplementedError


@activity.defn(name=CONTACT_RESEARCH_FINISH)
def contact_research_finish(inp: ContactFinishInput) -> None:
    """End the task and record how the run ended."""
    raise NotImplementedError


PREPARATION = (enrich, score, tailor, cover, render_pdf, finalize_preparation)
UPKEEP = (availability_sweep,)
APPLY = (apply_claim, apply_prepare, apply_finish)
RECOVERY = (recovery_begin, recovery_finish)
DISCOVERY = (
    discovery_plan,
    discovery_family,
    discovery_enrichment_pass,
    discovery_preparation_fanout,
    discovery_backlog_sweep,
    discovery_finish,
)
CONTACTS = (contact_research_claim, contact_research_source, contact_research_finish)

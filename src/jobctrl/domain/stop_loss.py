"""Stop-loss rules: when consecutive failures in one lane or source pause its automation.

A *window* is the current streak of one lane (a stage name: enrich, score, tailor, cover,
pdf) or one source (a config source name): how many different jobs (or source reads; for
Enrich's network failures, different hosts) in a row failed with the same code. The
rules, in one place:

- a failure with a counting code extends the streak when it has the streak's code (one
  job counts once, however many attempts it used), and *restarts* it at 1 with the new
  code when the code differs;
- a success *restarts* the streak at 0;
- a code in ``NEVER_COUNTS`` (rate limits: a 429 is not a failure of the key; a spent
  budget; a broken config.yaml; the person's own cancel; a refusal because automation is
  already paused; a lost ownership fence; a below-threshold score), a code that is one
  posting's own problem or no fault of the lane (``NOT_THE_LANE``), and a stage skip
  leave the window as it is: they neither count nor break a streak;
- when the streak reaches the threshold, the lane or source is paused with that code
  until the person resumes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from jobctrl.domain.errors import (
    AUTOMATION_PAUSED,
    BUDGET_EXCEEDED,
    CANCELED,
    CONFIG_INVALID,
    DATABASE_BUSY,
    ENRICH_HTTP_CLIENT_ERROR,
    ENRICH_HTTP_SERVER_ERROR,
    ENRICH_RATE_LIMITED,
    ENRICH_TIMEOUT,
    ENRICH_UNREACHABLE,
    MATERIALS_MISSING,
    MIN_SCORE,
    MISSING_INPUT,
    OWNERSHIP_LOST,
    POSTING_EXPIRED,
    POSTING_REFUSALS,
    POSTING_UNAVAILABLE,
    PROFILE_EMPTY,
    PROVIDER_RATE_LIMITED,
    REQUIREMENT_FIT_MISSING,
    SOURCE_RATE_LIMITED,
    STAGE_INTERRUPTED,
)

LANE = "lane"
SOURCE = "source"
KINDS = (LANE, SOURCE)
LANES = ("enrich", "score", "tailor", "cover", "pdf")

NEVER_COUNTS = frozenset(
    {
        PROVIDER_RATE_LIMITED,
        SOURCE_RATE_LIMITED,
        ENRICH_RATE_LIMITED,
        BUDGET_EXCEEDED,
        CONFIG_INVALID,
        CANCELED,
        AUTOMATION_PAUSED,
        OWNERSHIP_LOST,
        MIN_SCORE,
    }
)
# Not the lane's fault either: the posting's own problem (a removed page, a robots rule,
# an unsafe or unsupported address, a closed posting, a missing input of this job), a
# database another process held, a worker that stopped mid-attempt. A queue of dead
# postings must not pause Enrich for the live ones.
NOT_THE_LANE = POSTING_REFUSALS | frozenset(
    {
        DATABASE_BUSY,
        STAGE_INTERRUPTED,
        ENRICH_HTTP_CLIENT_ERROR,  # the posting's site refused this page (403, 410...)
        MATERIALS_MISSING,
        MISSING_INPUT,
        POSTING_EXPIRED,
        POSTING_UNAVAILABLE,
        PROFILE_EMPTY,  # the person's profile, not the lane: import a resume
        REQUIREMENT_FIT_MISSING,
    }
)
# Enrich's network failures are one site's problem until several sites fail in a row: a
# dead careers site must not pause Enrich for every other one, a network that is down
# fails them all. For these codes an Enrich streak counts hosts, not jobs.
HOST_FAULTS = frozenset({ENRICH_UNREACHABLE, ENRICH_TIMEOUT, ENRICH_HTTP_SERVER_ERROR})
STREAK_JOBS_KEPT = 50  # the job ids (or source reads) of a streak kept on its row, at least


def source_window(kind: str, name: str) -> str:
    """The window name of a configured source: ``KIND:NAME`` (``greenhouse:acme``), so
    two boards of one company on different ATSs (same name) each have their own."""
    return f"{kind}:{name}"


def streak_item(lane: str, code: str, job_id: str, url: str | None) -> str:
    """What one failure counts as in ``lane``'s streak: the job, or for Enrich's network
    failures the posting's host (``host:NAME``), so one site's jobs count once."""
    if lane == "enrich" and code in HOST_FAULTS and url:
        try:
            host = urlsplit(url).hostname
        except ValueError:  # not a URL one can take a host from: the job, as before
            host = None
        if host:
            return f"host:{host}"
    return job_id


def counts(code: str) -> bool:
    """True when a failure with ``code`` counts toward a streak."""
    return code not in NEVER_COUNTS and code not in NOT_THE_LANE


@dataclass(frozen=True)
class Window:
    """One lane's or source's streak: ``code`` of ``streak`` consecutive failures (of the
    distinct ``jobs``), and the code it is paused with (None: it runs)."""

    code: str | None = None
    streak: int = 0
    jobs: tuple[str, ...] = field(default_factory=tuple)
    paused: str | None = None


def after_success(window: Window) -> Window:
    """A success restarts the streak (a pause stays until the person resumes)."""
    return Window(paused=window.paused)


def after_failure(window: Window, code: str, item: str, threshold: int) -> tuple[Window, bool]:
    """The window after ``item`` (a job id, or a source read) failed with ``code``, and
    whether this failure is the one that pauses it."""
    if not counts(code):
        return window, False
    if window.code == code:
        if item in window.jobs:  # another attempt of a job already in the streak
            return window, False
        # Every item of a streak that can still pause is kept, so none counts twice.
        jobs = (*window.jobs, item)[-max(STREAK_JOBS_KEPT, threshold) :]
        streak = window.streak + 1
    else:  # a different code restarts the streak with this failure
        jobs, streak = (item,), 1
    pauses = window.paused is None and streak >= threshold
    paused = code if pauses else window.paused
    return Window(code, streak, jobs, paused), pauses


def paused_message(kind: str, name: str, code: str) -> str:
    """What a refused attempt says: why, and the one command that resumes it."""
    return (
        f"automation of the {name} {kind} is paused by stop-loss after repeated {code} "
        f"failures; fix the cause, then run `jobctrl resume {name}`"
    )

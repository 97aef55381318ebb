"""Errors are values with codes: one root, stable codes as constants, one status table.

Every error jobctrl reports is a ``JobctrlError``: a stable ``code`` (a constant below:
a typo is an import error, never a silent default), a short human message that never
quotes raw page, prompt or provider text, and whether another attempt could succeed.
``STATUS`` maps a code to its CLI exit status and HTTP status in one place; the CLI and
the API both read it (``exit_status``, ``http_status``).
"""

from __future__ import annotations

import errno
from datetime import timedelta
from typing import NamedTuple

# -- stage codes: recorded on stage rows and in events. Scripts match on these; add, never
# rename.
DETAIL_UNSAFE_URL = "DETAIL_UNSAFE_URL"
ENRICH_ROBOTS_DISALLOWED = "ENRICH_ROBOTS_DISALLOWED"
ENRICH_INVALID_URL = "ENRICH_INVALID_URL"
ENRICH_UNSUPPORTED_SCHEME = "ENRICH_UNSUPPORTED_SCHEME"
ENRICH_UNSUPPORTED_CONTENT = "ENRICH_UNSUPPORTED_CONTENT"
ENRICH_TOO_LARGE = "ENRICH_TOO_LARGE"
ENRICH_UNREACHABLE = "ENRICH_UNREACHABLE"
ENRICH_TIMEOUT = "ENRICH_TIMEOUT"
ENRICH_HTTP_NOT_FOUND = "ENRICH_HTTP_NOT_FOUND"
ENRICH_HTTP_CLIENT_ERROR = "ENRICH_HTTP_CLIENT_ERROR"
ENRICH_HTTP_SERVER_ERROR = "ENRICH_HTTP_SERVER_ERROR"
ENRICH_RATE_LIMITED = "ENRICH_RATE_LIMITED"
ENRICH_TOO_MANY_REDIRECTS = "ENRICH_TOO_MANY_REDIRECTS"
ENRICH_NO_CONTENT = "ENRICH_NO_CONTENT"
# 401/403 (or LinkedIn's 999): a login or bot wall; the person's own browser can read it.
ENRICH_LOGIN_WALL = "ENRICH_LOGIN_WALL"
SCORE_NO_DESCRIPTION = "SCORE_NO_DESCRIPTION"
REQUIREMENT_FIT_MISSING = "REQUIREMENT_FIT_MISSING"  # Tailor/Cover before a score exists
MATERIALS_MISSING = "MATERIALS_MISSING"  # PDF before a tailored resume exists
BUDGET_EXCEEDED = "budget_exceeded"
MIN_SCORE = "MIN_SCORE"
MATERIALS_OFF = "MATERIALS_OFF"  # a later stage skipped: preparation.materials was off
# Cover skipped: the job scored below materials.cover_min_score; written when asked for.
COVER_ON_REQUEST = "COVER_ON_REQUEST"
OWNERSHIP_LOST = "OWNERSHIP_LOST"
STAGE_BUSY = "STAGE_BUSY"  # a reset was asked for while the stage runs
STAGE_INTERRUPTED = "STAGE_INTERRUPTED"  # the attempt ended without a result
STAGE_TIMEOUT = "STAGE_TIMEOUT"  # Temporal timed the activity out
STAGE_ERROR = "STAGE_ERROR"  # the activity failed without a code of ours
STAGE_INTERNAL_ERROR = "INTERNAL_ERROR"  # a bug inside a stage (retryable)
# A run the reconciler found closed without its own finish (issue 13): how Temporal ended it.
WORKFLOW_FAILED = "WORKFLOW_FAILED"  # Temporal reports it failed; its finish never ran
WORKFLOW_TERMINATED = "WORKFLOW_TERMINATED"  # terminated (by a person or a tool)
WORKFLOW_TIMED_OUT = "WORKFLOW_TIMED_OUT"  # its execution timeout passed
CANCELED = "canceled"  # the person cancelled the job's preparation (not retried automatically)
AUTOMATION_PAUSED = "automation_paused"  # stop-loss paused this lane or source: resume it
POSTING_UNAVAILABLE = "POSTING_UNAVAILABLE"  # a stage skipped: the posting is closed
POSTING_EXPIRED = "POSTING_EXPIRED"  # a check found validThrough in the past
JOB_HIDDEN = "JOB_HIDDEN"  # hidden by the person: never prepared, checked or applied to
TAILOR_FABRICATION = "TAILOR_FABRICATION"  # a tailored resume claims what its facts lack
COVER_FABRICATION = "COVER_FABRICATION"  # a cover letter claims what its facts lack
PROFILE_EMPTY = "PROFILE_EMPTY"  # Tailor/Cover refused: no role nor summary to write from
CONFIGURATION = "configuration"  # a lane's provider or its key variable
CONFIG_INVALID = "config_invalid"  # config.yaml cannot be read: waits until it is fixed
PROVIDER_RATE_LIMITED = "provider_rate_limited"  # 429: retry after the provider's delay
PROVIDER_UNAVAILABLE = "provider_unavailable"  # 5xx, connection error or timeout: retry
PROVIDER_AUTH = "provider_auth"  # 401/403: the key is wrong or lacks access
PROVIDER_REQUEST_REJECTED = "provider_request_rejected"  # other 4xx: resending will not help
PROVIDER_INVALID_OUTPUT = "provider_invalid_output"  # output failed validation: retry in cap
# The model (a local server's, often) refuses tool calls: `llm set … --output json|prompted`.
PROVIDER_TOOLS_UNSUPPORTED = "provider_tools_unsupported"
# The answer hit its output-token cap before it was whole: billed, kept, never asked again.
PROVIDER_OUTPUT_TRUNCATED = "provider_output_truncated"

# -- discovery source codes (a run's error code)
SOURCE_NOT_FOUND = "SOURCE_NOT_FOUND"  # the board/feed does not exist (404)
SOURCE_MALFORMED = "SOURCE_MALFORMED"  # the response is not the provider's shape
SOURCE_UNAVAILABLE = "SOURCE_UNAVAILABLE"  # 5xx, timeouts, refused: try again later
SOURCE_RATE_LIMITED = "SOURCE_RATE_LIMITED"  # 429: the provider asked us to slow down
SOURCE_CONFIG = "SOURCE_CONFIG"  # the source's own configuration is unusable

# -- rendering codes
RENDER_INVALID_INPUT = "render_invalid_input"
RENDER_TOO_LARGE = "render_too_large"
RENDER_LETTER_TOO_LONG = "render_letter_too_long"
RENDER_FAILED = "render_failed"  # a template problem
RENDER_NOT_A_PDF = "render_not_a_pdf"

# -- command codes: what a CLI command or an HTTP request can fail with
INVALID_INPUT = "invalid_input"
PAYLOAD_TOO_LARGE = "payload_too_large"  # a request body over its route's limit
UNKNOWN_SETTING = "unknown_setting"
INVALID_SETTING = "invalid_setting"
PROFILE_IMPORT = "profile_import"
EXISTS = "exists"  # e.g. a source that is already configured
NOT_FOUND = "not_found"  # an HTTP route that does not exist
METHOD_NOT_ALLOWED = "method_not_allowed"
HTTP_ERROR = "http_error"
JOB_NOT_FOUND = "job_not_found"
AMBIGUOUS_JOB = "ambiguous_job"
JOB_NOT_SCORED = "job_not_scored"
ARTIFACT_NOT_FOUND = "artifact_not_found"
ARTIFACT_MISSING = "artifact_missing"
MISSING_INPUT = "missing_input"
NOTHING_TO_RETRY = "nothing_to_retry"
NOT_RUNNING = "not_running"
# A discovery run is still discovering or draining (its preparations run): no second one.
DISCOVERY_BUSY = "discovery_busy"
NO_DRAFT = "no_draft"
# An edited resume or letter says what the profile does not support: approval waits until
# the sentence is removed or the fact is added to the profile.
MATERIALS_UNSUPPORTED = "materials_unsupported"
NO_WORKER = "no_worker"  # queued, but --wait found no worker polling
WAIT_TIMEOUT = "wait_timeout"
TEMPORAL = "temporal"  # Temporal answered, but not as it should (no run id)
TEMPORAL_UNAVAILABLE = "temporal_unavailable"
WORKER_RUNTIME_UNAVAILABLE = "worker_runtime_unavailable"
PORT_UNAVAILABLE = "port_unavailable"
DATABASE_BUSY = "database_busy"  # another process held the write lock too long: try again
DATABASE_DAMAGED = "database_damaged"  # the SQLite file is not a sound database
DISK_FULL = "disk_full"  # no space left where the home is: nothing could be written
HOME_READ_ONLY = "home_read_only"  # the home is on a read-only disk, or its files are
INTERNAL_ERROR = "internal_error"  # a bug: details only in the home's log
# `jobctrl store copy`: the target already holds jobctrl data (never overwritten), cannot be
# reached, or refused the copy (rolled back: nothing of it was written); a worker still writes
# to the source (what it wrote after the copy began would be lost: stop it, or --force).
STORE_SOURCE_IN_USE = "store_source_in_use"
STORE_TARGET_NOT_EMPTY = "store_target_not_empty"
STORE_TARGET_UNREACHABLE = "store_target_unreachable"
STORE_COPY_FAILED = "store_copy_failed"
# The local API's security refusals (api/security.py).
FORBIDDEN_HOST = "forbidden_host"
FORBIDDEN = "forbidden"
UNAUTHORIZED = "unauthorized"
CROSS_SITE = "cross_site"
# Tenants (issue 14): JOBCTRL_TENANT or a request names a tenant never added, a name that
# cannot be a tenant's, or a setting only the operator (the CLI) may change for a tenant.
TENANT_UNKNOWN = "tenant_unknown"
INVALID_TENANT = "invalid_tenant"
SETTING_OPERATOR_ONLY = "setting_operator_only"
# Contact research (issue 33): a contact or candidate that does not exist; a source the
# person's contacts.sources policy does not allow.
CONTACT_NOT_FOUND = "contact_not_found"
CONTACT_SOURCE_REFUSED = "contact_source_refused"


# -- applying (issue 12): refusals of an apply command, and what a send ended with
APPLY_MATERIALS_NOT_APPROVED = "APPLY_MATERIALS_NOT_APPROVED"  # approve the PDFs first
APPLY_NOT_PREPARED = "APPLY_NOT_PREPARED"  # no application (or no email) prepared yet
APPLY_MATERIALS_CHANGED = "APPLY_MATERIALS_CHANGED"  # attachments are not the approved PDFs now
APPLY_NOT_APPROVED = "APPLY_NOT_APPROVED"  # the message has no approval
APPLY_APPROVAL_EXPIRED = "APPLY_APPROVAL_EXPIRED"  # older than 15 minutes: approve again
APPLY_APPROVAL_MISMATCH = "APPLY_APPROVAL_MISMATCH"  # changed since it was approved
APPLY_ATTEMPT_LIVE = "APPLY_ATTEMPT_LIVE"  # another attempt of this application is live
APPLY_ALREADY_DONE = "APPLY_ALREADY_DONE"  # sent or submitted already
APPLY_OUTCOME_UNKNOWN = "APPLY_OUTCOME_UNKNOWN"  # resolve the unknown send first
APPLY_NO_RECIPIENT = "APPLY_NO_RECIPIENT"  # no address to send to: use --to
APPLY_BAD_RESOLUTION = "APPLY_BAD_RESOLUTION"  # that resolution does not fit the status
# The browser prefill: what stopped it (a result's code), or why it could not start.
APPLY_CAPTCHA = "APPLY_CAPTCHA"  # a CAPTCHA or bot challenge: handed over, never solved
APPLY_FORM_UNAVAILABLE = "APPLY_FORM_UNAVAILABLE"  # the form page failed to load (or 4xx/5xx)
APPLY_NO_FORM = "APPLY_NO_FORM"  # the page has no form to fill (moved or changed)
APPLY_NO_FORM_URL = "APPLY_NO_FORM_URL"  # the job has no URL to open: use --url
# Applied to on the job site's own form (LinkedIn Easy Apply, Indeed): a terminal
# target-readiness outcome, never retried nor looked up as a missing address (issue 32).
APPLY_ON_SITE = "APPLY_ON_SITE"
APPLY_BROWSER_UNAVAILABLE = "APPLY_BROWSER_UNAVAILABLE"  # no Chromium to drive
APPLY_NO_DISPLAY = "APPLY_NO_DISPLAY"  # no display for a visible window (try --dry-run)
APPLY_PREFILL_INTERRUPTED = "APPLY_PREFILL_INTERRUPTED"  # stopped (or its process died) mid-fill
SMTP_NOT_CONFIGURED = "SMTP_NOT_CONFIGURED"  # smtp.host / smtp.from not set
SMTP_PASSWORD_MISSING = "SMTP_PASSWORD_MISSING"  # the smtp.password_env variable is unset
SMTP_UNREACHABLE = "SMTP_UNREACHABLE"  # no connection (refused, timeout, DNS)
SMTP_TLS_FAILED = "SMTP_TLS_FAILED"  # TLS/STARTTLS failed or is not offered
SMTP_AUTH_FAILED = "SMTP_AUTH_FAILED"  # the login was refused
SMTP_SENDER_REFUSED = "SMTP_SENDER_REFUSED"  # MAIL FROM refused
SMTP_RECIPIENT_REFUSED = "SMTP_RECIPIENT_REFUSED"  # RCPT TO refused
SMTP_MESSAGE_TOO_LARGE = "SMTP_MESSAGE_TOO_LARGE"  # over the server's SIZE limit (552)
SMTP_TEMPORARY = "SMTP_TEMPORARY"  # a 4xx before the data: try again later
SMTP_REFUSED = "SMTP_REFUSED"  # another refusal before or of the data: nothing delivered
SEND_CONNECTION_LOST = "SEND_CONNECTION_LOST"  # after the data, before the reply: unknown
SEND_SENDER_DIED = "SEND_SENDER_DIED"  # the sending process died mid-send: unknown
SEND_INTERRUPTED = "SEND_INTERRUPTED"  # the send stopped unexpectedly (a bug, Ctrl-C)
# Follow-ups and outreach (issue 33): the same send; these are what refuses a draft or a send.
FOLLOWUP_NOT_DUE = "FOLLOWUP_NOT_DUE"  # no follow-up is due for the application (yet, or any more)
MESSAGE_UNSUPPORTED_CLAIM = "MESSAGE_UNSUPPORTED_CLAIM"  # a claim the profile does not support
OUTREACH_DAILY_CAP = "OUTREACH_DAILY_CAP"  # outreach.max_per_day emails sent today already


class Status(NamedTuple):
    exit: int  # the CLI's exit status
    http: int  # the API's HTTP status


# A posting's own refusal: its address is unsafe or unusable, its page is gone, refused
# by robots, too large, not a posting, or has no description. Trying again (automatic
# recovery) cannot change it, and it is no failure of a lane (stop-loss): a queue of dead
# postings must neither be retried nor pause Enrich for the live ones.
POSTING_REFUSALS = frozenset(
    {
        DETAIL_UNSAFE_URL,
        ENRICH_HTTP_NOT_FOUND,
        ENRICH_INVALID_URL,
        ENRICH_LOGIN_WALL,
        ENRICH_NO_CONTENT,
        ENRICH_ROBOTS_DISALLOWED,
        ENRICH_TOO_LARGE,
        ENRICH_TOO_MANY_REDIRECTS,
        ENRICH_UNSUPPORTED_CONTENT,
        ENRICH_UNSUPPORTED_SCHEME,
        SCORE_NO_DESCRIPTION,
    }
)

DEFAULT_STATUS = Status(exit=1, http=400)

# The one table from code to CLI exit status and HTTP status; a code not listed is a
# refused command: exit 1, HTTP 400.
STATUS: dict[str, Status] = {
    JOB_NOT_FOUND: Status(1, 404),
    AMBIGUOUS_JOB: Status(1, 404),
    ARTIFACT_NOT_FOUND: Status(1, 404),
    ARTIFACT_MISSING: Status(1, 404),
    NOT_FOUND: Status(1, 404),
    METHOD_NOT_ALLOWED: Status(1, 405),
    INVALID_INPUT: Status(1, 400),
    PAYLOAD_TOO_LARGE: Status(1, 413),
    NOTHING_TO_RETRY: Status(1, 409),
    AUTOMATION_PAUSED: Status(1, 409),  # stop-loss paused the lane: resume it first
    BUDGET_EXCEEDED: Status(1, 409),  # today's budget is spent: a paid start must wait
    NOT_RUNNING: Status(1, 409),
    DISCOVERY_BUSY: Status(1, 409),
    NO_DRAFT: Status(1, 409),
    MATERIALS_UNSUPPORTED: Status(1, 409),
    STAGE_BUSY: Status(1, 409),
    MISSING_INPUT: Status(1, 409),
    TEMPORAL_UNAVAILABLE: Status(2, 503),
    WORKER_RUNTIME_UNAVAILABLE: Status(2, 503),
    DATABASE_BUSY: Status(75, 503),  # 75: EX_TEMPFAIL, "try again later"
    DATABASE_DAMAGED: Status(1, 503),
    DISK_FULL: Status(1, 507),
    HOME_READ_ONLY: Status(1, 503),
    STORE_SOURCE_IN_USE: Status(1, 409),
    STORE_TARGET_NOT_EMPTY: Status(1, 409),
    STORE_TARGET_UNREACHABLE: Status(2, 503),  # like an unreachable Temporal server
    INTERNAL_ERROR: Status(1, 500),
    UNAUTHORIZED: Status(1, 401),
    FORBIDDEN: Status(1, 403),
    FORBIDDEN_HOST: Status(1, 403),
    CROSS_SITE: Status(1, 403),
    TENANT_UNKNOWN: Status(1, 404),
    INVALID_TENANT: Status(1, 400),
    SETTING_OPERATOR_ONLY: Status(1, 403),
    CONTACT_NOT_FOUND: Status(1, 404),
    CONTACT_SOURCE_REFUSED: Status(1, 403),
    APPLY_MATERIALS_NOT_APPROVED: Status(1, 409),
    APPLY_NOT_PREPARED: Status(1, 409),
    APPLY_MATERIALS_CHANGED: Status(1, 409),
    APPLY_NOT_APPROVED: Status(1, 409),
    APPLY_APPROVAL_EXPIRED: Status(1, 409),
    APPLY_APPROVAL_MISMATCH: Status(1, 409),
    APPLY_ATTEMPT_LIVE: Status(1, 409),
    APPLY_ALREADY_DONE: Status(1, 409),
    APPLY_OUTCOME_UNKNOWN: Status(1, 409),
    APPLY_BAD_RESOLUTION: Status(1, 409),
    APPLY_NO_FORM_URL: Status(1, 409),
    APPLY_ON_SITE: Status(1, 409),
    APPLY_BROWSER_UNAVAILABLE: Status(1, 503),
    APPLY_NO_DISPLAY: Status(1, 503),
    POSTING_UNAVAILABLE: Status(1, 409),
    JOB_HIDDEN: Status(1, 409),
    SMTP_UNREACHABLE: Status(1, 502),
    SMTP_TLS_FAILED: Status(1, 502),
    SMTP_AUTH_FAILED: Status(1, 502),
    SMTP_SENDER_REFUSED: Status(1, 502),
    SMTP_RECIPIENT_REFUSED: Status(1, 502),
    SMTP_MESSAGE_TOO_LARGE: Status(1, 502),
    SMTP_TEMPORARY: Status(1, 502),
    SMTP_REFUSED: Status(1, 502),
    SEND_CONNECTION_LOST: Status(3, 502),
    SEND_SENDER_DIED: Status(3, 502),
    SEND_INTERRUPTED: Status(3, 502),
    FOLLOWUP_NOT_DUE: Status(1, 409),
    MESSAGE_UNSUPPORTED_CLAIM: Status(1, 422),
    OUTREACH_DAILY_CAP: Status(1, 429),
}


def status_of(code: str) -> Status:
    return STATUS.get(code, DEFAULT_STATUS)


class JobctrlError(Exception):
    """The root of every error jobctrl reports.

    ``code`` is one of the constants above; ``retryable`` says whether a later attempt
    could succeed (a 503, a timeout); ``retry_after`` is a delay the other side asked for.
    """

    def __init__(
        self,
        message: str,
        *,
        code: str,
        retryable: bool = False,
        retry_after: timedelta | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.retryable = retryable
        self.retry_after = retry_after

    @property
    def exit_status(self) -> int:
        return status_of(self.code).exit

    @property
    def http_status(self) -> int:
        return status_of(self.code).http


class ConfigError(JobctrlError):
    """The home, config.yaml or a setting is invalid."""

    def __init__(self, message: str, *, code: str = CONFIGURATION) -> None:
        super().__init__(message, code=code)


class NotFoundError(JobctrlError):
    """A job, setting, profile version or artifact that was asked for does not exist."""


class UnavailableError(JobctrlError):
    """No Temporal server (or no worker) would run a command's work: nothing was changed."""

    def __init__(self, message: str, *, code: str = TEMPORAL_UNAVAILABLE) -> None:
        super().__init__(message, code=code)


class StageError(JobctrlError):
    """A stage attempt failed with a stable code.

    A non-retryable error (an unsafe URL, a 404, a spent budget) ends the stage at once.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        retryable: bool = False,
        retry_after: timedelta | None = None,
    ) -> None:
        super().__init__(message, code=code, retryable=retryable, retry_after=retry_after)

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"

    @property
    def uses_attempt(self) -> bool:
        """False when the attempt was refused before any work (a spent budget, a broken
        config.yaml): it does not count against the stage's attempts."""
        return self.code not in (BUDGET_EXCEEDED, CONFIG_INVALID)


class DatabaseBusyError(StageError):
    """Another process held the database's write lock past the busy timeout. A stage
    attempt that meets it is retried; a command says so and exits 75 (HTTP 503)."""

    def __init__(self) -> None:
        super().__init__(
            DATABASE_BUSY,
            "the database is locked by another process; try again in a moment",
            retryable=True,
        )


class DatabaseDamagedError(JobctrlError):
    """The home's SQLite file is damaged (or is not a database at all): every command
    says so in a sentence, and `jobctrl doctor` reports it as its failed database check."""

    def __init__(self, detail: str) -> None:
        super().__init__(
            f"the database file is damaged ({detail}): restore it from a backup",
            code=DATABASE_DAMAGED,
        )
        self.detail = detail


class DiskFullError(JobctrlError):
    """No space left on the disk that holds the home (``disk_full``)."""

    def __init__(self) -> None:
        super().__init__(
            "the disk that holds the home is full: free some space, then try again",
            code=DISK_FULL,
        )


class HomeReadOnlyError(JobctrlError):
    """The home's files cannot be written: a read-only disk, or the database file's
    permissions (``home_read_only``)."""

    def __init__(self) -> None:
        super().__init__(
            "the home's files cannot be written (a read-only disk, or their permissions): "
            "check the disk and the files of the home",
            code=HOME_READ_ONLY,
        )


def storage_error(exc: BaseException) -> JobctrlError | None:
    """The full disk or read-only home that ``exc`` (or an error it was raised from) is,
    as the error a person reads; None for anything else. The system's ENOSPC and EROFS,
    SQLite's "database or disk is full" and "attempt to write a readonly database" (as
    the driver or SQLAlchemy words them)."""
    seen: BaseException | None = exc
    for _ in range(8):  # a short chain of causes: never loop on a cycle
        if seen is None:
            return None
        code = seen.errno if isinstance(seen, OSError) else None
        if code == errno.ENOSPC or "database or disk is full" in str(seen):
            return DiskFullError()
        if code == errno.EROFS or "readonly database" in str(seen):
            return HomeReadOnlyError()
        seen = seen.__cause__ or seen.__context__
    return None


class BudgetExceededError(StageError):
    """The UTC day's spend or a lane's token total already meets its ceiling."""

    def __init__(self, message: str) -> None:
        super().__init__(BUDGET_EXCEEDED, message, retryable=False)

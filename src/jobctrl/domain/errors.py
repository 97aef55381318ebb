"""Errors are values with codes: raised as typed exceptions, mapped once to exit codes.

A ``StageError`` carries a stable ``code`` (``DETAIL_UNSAFE_URL``, ``budget_exceeded``),
a short human message that never quotes raw page, prompt or provider text, and whether
another attempt could succeed.
"""

from __future__ import annotations

from datetime import timedelta


class JobctrlError(Exception):
    """Base for errors jobctrl reports to a user (CLI exit code 1 unless said otherwise)."""

    exit_code = 1

    def __init__(self, message: str, *, code: str = "error") -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class ConfigError(JobctrlError):
    """The home, config.yaml or a setting is invalid."""


class NotFoundError(JobctrlError):
    """A job, setting or artifact that was asked for does not exist."""


class ServerUnavailableError(JobctrlError):
    """No Temporal server could be reached (exit code 2)."""

    exit_code = 2

    def __init__(self, message: str, *, code: str = "temporal_unavailable") -> None:
        super().__init__(message, code=code)


class StageError(Exception):
    """A stage attempt failed with a stable code.

    ``retryable`` says whether a later attempt could succeed (a 503, a timeout); a
    non-retryable error (an unsafe URL, a 404, a spent budget) ends the stage at once.
    ``retry_after`` is the server-requested delay, when it named one.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        retryable: bool = False,
        retry_after: timedelta | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.retryable = retryable
        self.retry_after = retry_after

    @property
    def uses_attempt(self) -> bool:
        """False when the attempt was refused before any work (a spent budget): it does not
        count against the stage's attempts."""
        return self.code != BUDGET_EXCEEDED


class BudgetExceededError(StageError):
    """The UTC day's spend or a lane's token total already meets its ceiling."""

    def __init__(self, message: str) -> None:
        super().__init__(BUDGET_EXCEEDED, message, retryable=False)


# Stable stage error codes. Scripts match on these; add, never rename.
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
SCORE_NO_DESCRIPTION = "SCORE_NO_DESCRIPTION"
BUDGET_EXCEEDED = "budget_exceeded"
MIN_SCORE = "MIN_SCORE"
OWNERSHIP_LOST = "OWNERSHIP_LOST"
POSTING_UNAVAILABLE = "POSTING_UNAVAILABLE"  # a stage skipped: the posting is closed
POSTING_EXPIRED = "POSTING_EXPIRED"  # a check found validThrough in the past
TAILOR_FABRICATION = "TAILOR_FABRICATION"  # a tailored resume added facts the profile lacks
CONFIGURATION = "configuration"  # a lane names an unknown provider or lacks its key variable
PROVIDER_RATE_LIMITED = "provider_rate_limited"  # 429: retry after the provider's delay
PROVIDER_UNAVAILABLE = "provider_unavailable"  # 5xx, connection error or timeout: retry
PROVIDER_AUTH = "provider_auth"  # 401/403: the key is wrong or lacks access
PROVIDER_REQUEST_REJECTED = "provider_request_rejected"  # other 4xx: resending will not help
PROVIDER_INVALID_OUTPUT = "provider_invalid_output"  # output failed validation: retry in cap

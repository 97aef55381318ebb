"""Every test hook of jobctrl, read in one place: the faults the crash and fault tests
inject, the timings they shorten and the guard they turn on.

A hook is an environment variable, so it reaches a `jobctrl worker` or CLI child process
as well as the test's own. Production never sets one: unset, every hook is off and every
timing is production's. A production module never reads one from the environment itself;
it asks ``hook`` (or ``seconds``) for a name listed here, so this list is the whole
surface a test can switch, and ``test_architecture`` fails on a hook read anywhere else.
"""

from __future__ import annotations

import os

# -- faults: the process exits as if killed (status 137), or stops until it is killed ----

# A lane's name: exit right after a paid call's result is stored (llm.lanes); "tailor:repair"
# names a lane's repair request.
EXIT_AFTER_PROVIDER_CALL = "JOBCTRL_FAULT_EXIT_AFTER_PROVIDER_CALL"
# A lane's name: exit right after a paid call's answer and usage are committed, unparsed.
EXIT_AFTER_PROVIDER_RESPONSE = "JOBCTRL_FAULT_EXIT_AFTER_PROVIDER_RESPONSE"
# Any value: exit right after an automatic-recovery cohort's reservation commits.
EXIT_AFTER_RECOVERY_RESERVE = "JOBCTRL_FAULT_EXIT_AFTER_RECOVERY_RESERVE"
# before_intent | after_intent | before_data | after_data: an email send stops there.
PAUSE_SEND_AT = "JOBCTRL_TEST_PAUSE_AT"
# A JSON file {host: [address, ...]}: the public-fetch recheck's DNS, read at each check.
RESOLVER_FILE = "JOBCTRL_FAULT_RESOLVER_FILE"

# -- timings, in seconds (production's when unset) -----------------------------------------

RECOVERY_BACKOFF_BASE_SECONDS = "JOBCTRL_RECOVERY_BACKOFF_BASE_SECONDS"  # production: 60
RECOVERY_PENDING_GRACE_SECONDS = "JOBCTRL_RECOVERY_PENDING_GRACE_SECONDS"  # production: 30
PUBLIC_FETCH_RECHECK_BASE_SECONDS = "JOBCTRL_PUBLIC_FETCH_RECHECK_BASE_SECONDS"  # 60

# -- guards ----------------------------------------------------------------------------------

# "1": a statement on a tenant's table without its tenant predicate raises (store.tenancy).
TENANT_GUARD = "JOBCTRL_TENANT_GUARD"

HOOKS = frozenset(
    {
        EXIT_AFTER_PROVIDER_CALL,
        EXIT_AFTER_PROVIDER_RESPONSE,
        EXIT_AFTER_RECOVERY_RESERVE,
        PAUSE_SEND_AT,
        RESOLVER_FILE,
        RECOVERY_BACKOFF_BASE_SECONDS,
        RECOVERY_PENDING_GRACE_SECONDS,
        PUBLIC_FETCH_RECHECK_BASE_SECONDS,
        TENANT_GUARD,
    }
)


def hook(name: str) -> str | None:
    """The value a test set for hook ``name``; None when it is unset (always, in
    production). A name not listed here is a programming error."""
    if name not in HOOKS:
        raise ValueError(f"{name} is not a test hook (jobctrl.testing.hooks)")
    return os.environ.get(name) or None


def seconds(name: str, production: float) -> float:
    """A timing hook's seconds, or ``production``'s when no test shortened it."""
    value = hook(name)
    return float(value) if value is not None else production

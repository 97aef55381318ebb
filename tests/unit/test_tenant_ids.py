"""Ids per tenant: the local tenant's are byte for byte what they were before tenants, and
every id a builder makes names its tenant for ``ids.tenant_of``."""

from datetime import UTC, datetime

import pytest

from jobctrl.domain import ids, recovery
from jobctrl.domain.tenants import LOCAL

CANONICAL = "https://boards.example.com/acme/jobs/123"
KEY = ids.idempotency_key(CANONICAL, "local")
JOB = ids.job_id_for(KEY)
RESERVED_AT = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)
MEMBERS = [(JOB, 1, 0)]


def _builders(tenant: str) -> dict[str, str]:
    key = ids.idempotency_key(CANONICAL, tenant)
    job = ids.job_id_for(key)
    return {
        "prep": ids.prep_workflow_id(key, tenant),
        "discover": ids.discover_workflow_id(tenant),
        "schedule": ids.discovery_schedule_id(tenant),
        "sweep": ids.availability_sweep_id(tenant),
        "sweep-queue": f"{ids.availability_sweep_id(tenant)}-jobctrl-test-1f2e",
        "apply-loop": ids.apply_loop_id(tenant),
        "apply": ids.apply_workflow_id(job, "materials-7", tenant),
        "auto": ids.stage_workflow_id(ids.AUTO_KIND, "score", job, "2026-12-01", tenant),
        "config": ids.stage_workflow_id(ids.CONFIG_KIND, "tailor", job, "v3", tenant),
        "backlog": ids.stage_workflow_id(ids.SWEEP_KIND, "enrich", job, "run-1", tenant),
        "retry": ids.stage_workflow_id(ids.RETRY_KIND, "cover", job, "seen", tenant),
        "regenerate": ids.regenerate_workflow_id(job, 2, 0, tenant),
        "regenerate-refused": ids.regenerate_workflow_id(job, 2, 1, tenant),
        "letter": ids.letter_workflow_id(job, 1, 0, tenant),
        "letter-refused": ids.letter_workflow_id(job, 1, 2, tenant),
        "cohort": recovery.cohort_workflow_id("pdf", MEMBERS, RESERVED_AT, tenant),
    }


def test_the_local_tenants_ids_are_todays() -> None:
    # Golden: computed by the builders before tenants existed.
    assert KEY == "c86b6da04406c0ce88719dc94fa7abb2"
    local = _builders(LOCAL)
    assert local["prep"] == f"prep-{KEY}"
    assert local["discover"] == "discover-local" == ids.DISCOVER_WORKFLOW_ID
    assert local["schedule"] == "jobctrl-discovery-local" == ids.DISCOVERY_SCHEDULE_ID
    assert local["sweep"] == "availability-sweep-local" == ids.AVAILABILITY_SWEEP_ID
    assert local["apply-loop"] == "apply-auto-local" == ids.APPLY_LOOP_ID
    assert local["apply"] == "apply-c86b6da04406-9e39a6b12b3e"
    assert local["auto"] == "prepare-auto-local-score-e94daa1ee4e3241fc7fd0303"
    assert local["config"] == "prepare-config-local-tailor-40c21b909e0f924bacb6045d"
    assert local["backlog"] == "prepare-sweep-local-enrich-3eeea9d600ddefc1cfa6e64f"
    assert local["retry"] == "prepare-retry-cover-904efd54701d687d7122fc3e"
    assert local["regenerate"] == "prepare-regenerate-c86b6da04406-2"
    assert local["regenerate-refused"] == "prepare-regenerate-c86b6da04406-2-r1"
    assert local["letter"] == "prepare-letter-c86b6da04406-1"
    assert local["letter-refused"] == "prepare-letter-c86b6da04406-1-r2"
    assert local["cohort"] == "prepare-auto-local-pdf-be0c9bb1a3cec803dfc06e4c"


def test_the_old_kind_spellings_still_give_the_local_ids() -> None:
    """The kinds' old spellings (``"auto-local"``, from before tenants) give the same ids."""
    for kind in ("auto", "config", "sweep"):
        assert ids.stage_workflow_id(f"{kind}-local", "score", JOB, "x", LOCAL) == (
            ids.stage_workflow_id(kind, "score", JOB, "x", LOCAL)
        )


@pytest.mark.parametrize("tenant", [LOCAL, "acme", "x9", "bootcamp2026"])
def test_every_id_names_its_tenant(tenant: str) -> None:
    for what, workflow_id in _builders(tenant).items():
        assert ids.tenant_of(workflow_id) == tenant, (what, workflow_id)


def test_a_tenant_other_than_local_gets_other_keys_and_ids() -> None:
    acme, local = _builders("acme"), _builders(LOCAL)
    assert ids.idempotency_key(CANONICAL, "acme") != KEY
    assert len(ids.idempotency_key(CANONICAL, "acme")) == 32
    assert not set(acme.values()) & set(local.values())
    assert acme["prep"].startswith("prep-acme-")
    assert acme["retry"].startswith("prepare-retry-acme-cover-")
    assert acme["cohort"].startswith(recovery.workflow_prefix("acme") + "-pdf-")


@pytest.mark.parametrize(
    "workflow_id",
    [
        "prep-nothex",
        "prep-ACME-c86b6da04406c0ce88719dc94fa7abb2",
        "discover-",
        "discover-abc123",  # hex only: never a tenant
        "apply-auto-retry",  # a reserved word
        "prepare-retry-x",
        "something-else",
        "",
    ],
)
def test_an_id_jobctrl_does_not_make_has_no_tenant(workflow_id: str) -> None:
    assert ids.tenant_of(workflow_id) is None

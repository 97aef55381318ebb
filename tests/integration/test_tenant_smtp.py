"""A tenant's email send never logs in with the deployment's SMTP password: the default
variable (JOBCTRL_SMTP_PASSWORD) is local's, and another tenant's is named by the operator
(smtp.password_env is operator-only). Otherwise a tenant that chose its own SMTP host would
receive the operator's password there."""

from __future__ import annotations

import pytest

from jobctrl.domain.errors import SMTP_PASSWORD_MISSING, JobctrlError
from jobctrl.stages.apply_email import send_application
from jobctrl.store import applications, jobs
from jobctrl.store.settings import Settings
from tests.support.tenants import TwoTenants

OPERATOR_ENV = {"JOBCTRL_SMTP_PASSWORD": "operator-secret", "ACME_SMTP": "acme-secret"}
ACCOUNT = {"smtp.host": "127.0.0.1", "smtp.username": "someone", "smtp.from": "me@example.org"}


def _application(store, url: str) -> str:
    job = jobs.create_job(store, url)
    with store.write() as tx:
        return str(applications.ensure_for_job(tx, job.job_id, company="Acme")["id"])


def _refusal(store, app_id: str) -> JobctrlError:
    with pytest.raises(JobctrlError) as refused:
        send_application(store, app_id, env=OPERATOR_ENV)
    return refused.value


def test_a_tenant_never_sends_with_the_deployments_smtp_password(two_tenants: TwoTenants):
    t = two_tenants
    for s in (t.local, t.acme):
        Settings(s).set_values(ACCOUNT)
    acme_app = _application(t.acme, "https://jobs.example.com/acme/smtp")
    refused = _refusal(t.acme, acme_app)
    assert refused.code == SMTP_PASSWORD_MISSING
    assert "smtp.password_env" in refused.message and "operator-secret" not in refused.message

    # local keeps its default variable: its send goes past the password (to the approval).
    local_app = _application(t.local, "https://jobs.example.com/local/smtp")
    assert _refusal(t.local, local_app).code != SMTP_PASSWORD_MISSING

    # Once the operator names acme's own variable, acme goes past the password too.
    Settings(t.acme).set_values({"smtp.password_env": "ACME_SMTP"})
    assert _refusal(t.acme, acme_app).code != SMTP_PASSWORD_MISSING

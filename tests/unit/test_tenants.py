"""Tenant names, and where a tenant's files are: ``local``'s where they always were."""

from pathlib import Path

import pytest

from jobctrl.domain.errors import JobctrlError
from jobctrl.domain.tenants import LOCAL, checked_name, is_valid_name, token_sha256
from jobctrl.home import Home


@pytest.mark.parametrize("name", [LOCAL, "acme", "x9", "bootcamp2026", "z" * 32])
def test_plain_short_names_are_tenant_names(name: str) -> None:
    assert is_valid_name(name) and checked_name(name) == name


@pytest.mark.parametrize(
    "name",
    [
        "", "a", "Acme", "9lives", "acme-corp", "acme_corp", "z" * 33, "ac me",
        "abc", "deadbeef", "a1b",  # hex digits only: would read as a job id
        "auto", "retry", "score", "all", "default",  # words ids are made of
    ],
)  # fmt: skip
def test_other_names_are_refused_with_the_reason(name: str) -> None:
    assert not is_valid_name(name)
    with pytest.raises(JobctrlError, match="invalid tenant name"):
        checked_name(name)


def test_a_token_is_kept_as_its_sha256_only() -> None:
    digest = token_sha256("s3cret\n")
    assert digest == token_sha256("s3cret") and len(digest) == 64 and "s3cret" not in digest


def test_the_local_tenants_files_are_the_home_root(tmp_path: Path) -> None:
    home = Home(tmp_path)
    assert home.tenant == LOCAL and home.tenant_root == tmp_path
    assert home.config_path == tmp_path / "config.yaml"
    assert home.token_path == tmp_path / "api-token"
    assert home.reports_dir == tmp_path / "reports"


def test_another_tenants_files_are_its_own_and_the_rest_is_shared(tmp_path: Path) -> None:
    home = Home(tmp_path).with_tenant("acme")
    mine = tmp_path / "tenants" / "acme"
    assert (home.config_path, home.token_path, home.reports_dir) == (
        mine / "config.yaml",
        mine / "api-token",
        mine / "reports",
    )
    local = Home(tmp_path)
    shared = ("database_url", "artifacts_dir", "run_dir", "temporal_db_path", "logs_dir")
    for name in shared:
        assert getattr(home, name) == getattr(local, name), name
    assert home.with_tenant(LOCAL) == local


def test_jobctrl_tenant_picks_the_tenant_and_local_is_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JOBCTRL_HOME", str(tmp_path))
    monkeypatch.delenv("JOBCTRL_TENANT", raising=False)
    assert Home.resolve().tenant == LOCAL == Home(tmp_path).tenant
    monkeypatch.setenv("JOBCTRL_TENANT", "acme")
    assert Home.resolve().tenant == "acme"

"""`jobctrl tenants add|list|token` and JOBCTRL_TENANT, through the CLI a person runs: the shapes
of their text and JSON, an idempotent add, and one line (never a traceback) for a name
that cannot be a tenant's or a tenant never added."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from jobctrl.app.tenants import TokenResolver
from jobctrl.domain.tenants import token_sha256
from jobctrl.store import tenants
from tests.support.processes import JOBCTRL


def _cli(*args: str, tenant: str | None = None) -> subprocess.CompletedProcess[str]:
    env = os.environ.copy()
    env.pop("JOBCTRL_TENANT", None)
    if tenant is not None:
        env["JOBCTRL_TENANT"] = tenant
    return subprocess.run([JOBCTRL, *args], capture_output=True, text=True, timeout=120, env=env)


def _refused(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    return done.stderr


def test_add_prints_the_token_path_and_list_shows_every_tenant(home, store) -> None:
    added = _cli("tenants", "add", "acme")
    assert added.returncode == 0, added.stderr
    token_path = home.root / "tenants" / "acme" / "api-token"
    assert added.stdout == f"{token_path}\n"
    assert oct(token_path.stat().st_mode)[-3:] == "600"
    token = token_path.read_text().strip()
    assert len(token) >= 40
    assert tenants.by_token_hash(store, token_sha256(token)) == "acme"
    assert (home.root / "tenants" / "acme" / "config.yaml").read_text().startswith("#")

    again = _cli("tenants", "add", "acme", "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout) == {
        "tenant": "acme",
        "tokenPath": str(token_path),
        "config": str(home.root / "tenants" / "acme" / "config.yaml"),
        "created": False,
    }
    assert token_path.read_text().strip() == token, "an existing tenant's token stays"

    fresh = json.loads(_cli("tenants", "add", "beta", "--json").stdout)
    assert fresh["created"] is True and fresh["tenant"] == "beta"

    listed = json.loads(_cli("tenants", "list", "--json", tenant="acme").stdout)
    items = listed["items"]
    assert [i["tenant"] for i in items] == ["local", "acme", "beta"]
    assert set(items[0]) == {"tenant", "createdAt", "tokenPath", "current"}
    assert [i["current"] for i in items] == [False, True, False]
    assert items[1]["tokenPath"] == str(token_path) and items[1]["createdAt"]
    assert items[0]["tokenPath"] is None, "local's token is made by `jobctrl up`"

    text = _cli("tenants", "list").stdout.splitlines()
    assert text[0].split()[:2] == ["*", "local"]
    assert text[1].split()[0] == "acme" and text[1].split()[-1] == str(token_path)


@pytest.mark.parametrize("name", ["Acme", "a1b", "retry", "x", "../etc"])
def test_a_name_that_cannot_be_a_tenant_is_refused_in_one_line(home, name: str) -> None:
    said = _refused(_cli("tenants", "add", name))
    assert "invalid tenant name" in said
    assert not (home.root / "tenants").exists()


def test_an_unknown_or_invalid_jobctrl_tenant_is_one_line_and_exit_1(home: Path) -> None:
    said = _refused(_cli("jobs", tenant="zeta"))
    assert said == "error: unknown tenant zeta (jobctrl tenants add zeta)\n"
    _refused(_cli("settings", "set", "min_fit_score", "70", tenant="zeta"))
    _refused(_cli("init", tenant="zeta"))
    assert not (home.root / "tenants" / "zeta").exists(), "nothing of it was made"
    assert "invalid tenant name" in _refused(_cli("jobs", tenant="Zeta"))
    # Once added, the same commands act for it.
    assert _cli("tenants", "add", "zeta").returncode == 0
    done = _cli("settings", "set", "min_fit_score", "70", tenant="zeta")
    assert done.returncode == 0, done.stderr
    local = json.loads(_cli("settings", "get", "min_fit_score", "--json").stdout)
    zeta = json.loads(_cli("settings", "get", "min_fit_score", "--json", tenant="zeta").stdout)
    assert (local["value"], zeta["value"]) == (50, 70)


def test_the_operator_sets_an_operator_only_setting_for_a_tenant_on_the_cli(home, store) -> None:
    assert _cli("tenants", "add", "acme").returncode == 0
    done = _cli("settings", "set", "fetch.allow_hosts", "127.0.0.1", tenant="acme")
    assert done.returncode == 0, done.stderr  # the shell is the operator's (HTTP is refused)
    shown = _cli("settings", "get", "fetch.allow_hosts", "--json", tenant="acme").stdout
    local = _cli("settings", "get", "fetch.allow_hosts", "--json").stdout
    assert "127.0.0.1" in shown and "127.0.0.1" not in local, (shown, local)


def test_token_rotate_replaces_the_token_and_the_old_one_stops_resolving(home, store) -> None:
    assert _cli("tenants", "add", "acme").returncode == 0
    token_path = home.root / "tenants" / "acme" / "api-token"
    old = token_path.read_text().strip()

    shown = _cli("tenants", "token", "acme")
    assert (shown.returncode, shown.stdout) == (0, f"{token_path}\n"), shown.stderr
    assert token_path.read_text().strip() == old, "without --rotate nothing changes"

    rotated = _cli("tenants", "token", "acme", "--rotate", "--json")
    assert rotated.returncode == 0, rotated.stderr
    assert json.loads(rotated.stdout) == {
        "tenant": "acme",
        "tokenPath": str(token_path),
        "rotated": True,
    }
    new = token_path.read_text().strip()
    assert new != old and len(new) >= 40
    assert oct(token_path.stat().st_mode)[-3:] == "600"
    assert sorted(p.name for p in token_path.parent.iterdir()) == ["api-token", "config.yaml"]
    resolve = TokenResolver(home)
    assert resolve(new) == "acme"
    assert resolve(old) is None
    assert tenants.by_token_hash(store, token_sha256(old)) is None


def test_token_of_a_tenant_never_added_is_refused_in_one_line(home) -> None:
    assert "unknown tenant nobody" in _refused(_cli("tenants", "token", "nobody", "--rotate"))

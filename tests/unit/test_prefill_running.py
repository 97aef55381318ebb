"""The prefills under way in a web app's process are listed per tenant: one home serves
every tenant, so keyed by the home alone a tenant would see another's."""

from __future__ import annotations

from pathlib import Path

from jobctrl.app import apply_browser_runs as runs
from jobctrl.home import Home


def test_a_prefill_is_listed_only_for_its_tenant(tmp_path: Path) -> None:
    local = Home(tmp_path)
    acme = local.with_tenant("acme")
    key = runs._claim(local, "0123456789ab")
    try:
        assert runs.running(local) == ["0123456789ab"]
        assert runs.running(acme) == []
    finally:
        runs._release(key)
    assert runs.running(local) == []

"""Two tenants on one database: ``local`` (the test's home) and ``acme``."""

from __future__ import annotations

from dataclasses import dataclass

from jobctrl.home import Home
from jobctrl.store.store import Store

ACME = "acme"
ACME_TOKEN = "test-token-of-acme"


@dataclass(frozen=True)
class TwoTenants:
    """The stores and homes of ``local`` and ``acme``: one database, one engine pair,
    each tenant's own ``config.yaml`` (``acme``'s in ``tenants/acme/``)."""

    local: Store
    acme: Store
    local_home: Home
    acme_home: Home

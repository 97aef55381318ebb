"""Typed runtime settings stored in the database (``jobctrl settings get|set``); the
declarations (defaults, parsers, descriptions) are ``domain.settings``."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import bindparam, select

from jobctrl.domain.errors import INVALID_SETTING, ConfigError
from jobctrl.domain.events import SettingChanged
from jobctrl.domain.settings import SPECS, SettingSpec, check_combination, spec_for
from jobctrl.store import schema, tenancy
from jobctrl.store.db import upsert
from jobctrl.store.store import Store

__all__ = ["SPECS", "SettingSpec", "Settings", "check_combination", "spec_for"]


ST = schema.settings
# Read at every stage: built once, for the tenant passed as ``{"tenant": …}``.
_ALL = select(ST.c.key, ST.c.value).where(ST.c.tenant_id == tenancy.tenant_param())
_ONE = select(ST.c.value).where(
    ST.c.tenant_id == tenancy.tenant_param(), ST.c.key == bindparam("key")
)


class Settings:
    def __init__(self, store: Store) -> None:
        self.store = store

    def get(self, key: str) -> Any:
        spec = spec_for(key)
        with self.store.read() as conn:
            value = conn.execute(_ONE, {"tenant": tenancy.tenant_of(conn), "key": key}).scalar()
        return spec.default if value is None else value

    def all(self) -> dict[str, Any]:
        with self.store.read() as conn:
            stored = dict(conn.execute(_ALL, {"tenant": tenancy.tenant_of(conn)}).all())
        return {key: stored.get(key, spec.default) for key, spec in sorted(SPECS.items())}

    @staticmethod
    def parse(key: str, raw: str) -> Any:
        """``raw`` (the CLI's text, or JSON) as ``key``'s typed value, or ConfigError."""
        spec = spec_for(key)
        try:
            return spec.parse(raw)
        except (ValueError, TypeError, AttributeError, json.JSONDecodeError) as exc:
            raise ConfigError(f"invalid value for {key}: {exc}", code=INVALID_SETTING) from None

    def set_value(self, key: str, value: Any) -> None:
        self.set_values({key: value})

    def set_values(self, values: dict[str, Any]) -> None:
        """Write typed values (already parsed) in one transaction, one event each."""
        for key in values:
            spec_for(key)
        with self.store.write() as tx:
            stored = dict(tx.conn.execute(_ALL, {"tenant": tx.tenant}).all())
            merged = {k: stored.get(k, spec.default) for k, spec in SPECS.items()} | values
            refused = check_combination(merged)
            if refused:
                raise ConfigError(refused, code=INVALID_SETTING)
            for key, value in values.items():
                upsert(
                    tx.conn,
                    ST,
                    {"tenant_id": tx.tenant, "key": key, "value": value, "updated_at": tx.now},
                    keys=["tenant_id", "key"],
                    update=["value", "updated_at"],
                )
                tx.append(SettingChanged(key=key), key=f"setting:{key}:{tx.now.isoformat()}")

"""Where jobctrl keeps its files: ``JOBCTRL_HOME``, else the platform's user data dir.

A home serves one deployment: the database (or ``JOBCTRL_DATABASE_URL``), the
content-addressed ``artifacts/``, the live processes' ``run/``, ``temporal.db`` and
``logs/`` are shared by all its tenants. A tenant's own files (``config.yaml``, its API
token, its ``reports/``) are in ``tenants/NAME/``; the ``local`` tenant's are the home root
itself, where they always were. ``JOBCTRL_TENANT`` picks the tenant (default ``local``).
"""

from __future__ import annotations

import os
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

import platformdirs

# ``domain.tenants.LOCAL`` (this layer cannot import the domain's): the default tenant.
LOCAL_TENANT = "local"


@dataclass(frozen=True)
class Home:
    root: Path
    tenant: str = LOCAL_TENANT

    @classmethod
    def resolve(cls, explicit: str | os.PathLike[str] | None = None) -> Home:
        """The home of ``explicit``, else ``JOBCTRL_HOME``, else the user data dir, for
        the tenant ``JOBCTRL_TENANT`` names. Whether that is a tenant's name and one that
        exists is checked where it is used (``Store.open``)."""
        raw = explicit or os.environ.get("JOBCTRL_HOME")
        root = Path(raw) if raw else Path(platformdirs.user_data_dir("jobctrl", appauthor=False))
        tenant = os.environ.get("JOBCTRL_TENANT") or LOCAL_TENANT
        return cls(root.expanduser().resolve(), tenant)

    def with_tenant(self, tenant: str) -> Home:
        """This home acting for ``tenant``."""
        return self if tenant == self.tenant else Home(self.root, tenant)

    @property
    def tenant_root(self) -> Path:
        """The tenant's own files: the root for ``local``, else ``tenants/NAME``."""
        if self.tenant == LOCAL_TENANT:
            return self.root
        if not self.tenant.isalnum():  # a name, never a path ("..", "a/b"): checked before
            raise ValueError(f"not a tenant name: {self.tenant!r}")
        return self.root / "tenants" / self.tenant

    @property
    def config_path(self) -> Path:
        return self.tenant_root / "config.yaml"

    @property
    def database_path(self) -> Path:
        return self.root / "jobctrl.db"

    @property
    def database_url(self) -> str:
        return os.environ.get("JOBCTRL_DATABASE_URL") or f"sqlite:///{self.database_path}"

    @property
    def artifacts_dir(self) -> Path:
        return self.root / "artifacts"

    @property
    def run_dir(self) -> Path:
        """Runtime files of live processes (the embedded Temporal server's address)."""
        return self.root / "run"

    @property
    def temporal_db_path(self) -> Path:
        return self.root / "temporal.db"

    @property
    def temporal_runtime_file(self) -> Path:
        return self.run_dir / "temporal.json"

    @property
    def token_path(self) -> Path:
        """The tenant's API token (0600), sent as ``Authorization: Bearer TOKEN``."""
        return self.tenant_root / "api-token"

    @property
    def logs_dir(self) -> Path:
        return self.root / "logs"

    @property
    def reports_dir(self) -> Path:
        """The tenant's career-ops style evaluation reports,
        ``NNN-company-role-YYYY-MM-DD.md``."""
        return self.tenant_root / "reports"

    def log_exception(self, exc: BaseException) -> Path | None:
        """Append ``exc`` with its traceback to ``logs/jobctrl.log``; the file, or None when
        it cannot be written. Tracebacks go here, never to a user's screen or a response."""
        try:
            self.logs_dir.mkdir(parents=True, exist_ok=True)
            path = self.logs_dir / "jobctrl.log"
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(f"--- {time.strftime('%Y-%m-%dT%H:%M:%S')}\n")
                fh.write("".join(traceback.format_exception(exc)))
            return path
        except OSError:
            return None

    def ensure(self) -> None:
        for path in (self.root, self.artifacts_dir, self.run_dir, self.logs_dir, self.tenant_root):
            path.mkdir(parents=True, exist_ok=True)

"""A throwaway PostgreSQL server for tests, started from Debian's binaries.

One server per pytest process (each xdist worker has its own): ``initdb`` into a temp dir,
``postgres`` on a free 127.0.0.1 port with its unix socket in that dir (never any traffic
off loopback), fsync off. The schema is migrated once into a template database; each test
gets ``CREATE DATABASE … TEMPLATE`` and drops it afterwards. A copy takes 0.03-0.5 s on the
shared 2-core machine (mostly the server writing 9 MB), so the next test's copy is made in
the background while a test runs, and a test that takes one rarely waits for it.

Written here rather than taken from pytest-postgresql: CI runs as root and PostgreSQL
refuses to, so the server runs as the unprivileged ``postgres`` user Debian's package
creates (or ``nobody``), which pytest-postgresql does not do; the template step is the
rest of it. Without binaries the PostgreSQL variants skip, unless
``JOBCTRL_REQUIRE_POSTGRES=1`` (CI) makes that a failure.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

TEMPLATE = "jobctrl_template"
USER = "jobctrl"


def binaries() -> Path | None:
    """The newest installed PostgreSQL's bin dir (Debian keeps them off PATH)."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: (
            int(Path(p).parent.parent.name) if Path(p).parent.parent.name.isdigit() else 0
        ),
    )
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _run_as() -> pwd.struct_passwd | None:
    """PostgreSQL will not run as root: as root, run it as ``postgres`` (else ``nobody``)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise RuntimeError("running as root, and neither a postgres nor a nobody user exists")


@dataclass
class PostgresServer:
    bindir: Path
    root: Path = field(init=False)
    port: int = field(init=False)
    process: subprocess.Popen[bytes] | None = field(init=False, default=None)
    _names: itertools.count[int] = field(init=False, default_factory=itertools.count)
    # The next copy of the template, made while the test that took the last one runs.
    _copier: ThreadPoolExecutor | None = field(init=False, default=None)
    _next_copy: Future[str] | None = field(init=False, default=None)

    def start(self) -> PostgresServer:
        user = _run_as()
        # Run as another user, the server needs a dir that user can reach: /tmp, not a
        # TMPDIR under root's home.
        self.root = Path(tempfile.mkdtemp(prefix="jobctrl-pg-", dir="/tmp" if user else None))
        as_user: dict[str, object] = {}
        if user is not None:
            os.chown(self.root, user.pw_uid, user.pw_gid)
            as_user = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
        data = self.root / "data"
        subprocess.run(
            [str(self.bindir / "initdb"), "-D", str(data), "-U", USER, "--auth=trust",
             "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"],
            check=True, capture_output=True, cwd=self.root, **as_user,  # type: ignore[call-overload]
        )  # fmt: skip
        self.port = _free_port()
        log = open(self.root / "server.log", "ab")  # noqa: SIM115 - the server's for its life
        self.process = subprocess.Popen(
            [str(self.bindir / "postgres"), "-D", str(data), "-p", str(self.port),
             "-c", "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={self.root}",
             "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
             "-c", "max_connections=200", "-c", "shared_buffers=32MB"],
            stdout=log, stderr=log, cwd=self.root, **as_user,  # type: ignore[call-overload]
        )  # fmt: skip
        log.close()
        deadline = time.monotonic() + 30
        while True:
            try:
                psycopg.connect(self.dsn("postgres"), connect_timeout=2).close()
                break
            except psycopg.OperationalError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("the test PostgreSQL server did not start") from None
                time.sleep(0.05)
        return self

    def dsn(self, database: str) -> str:
        return f"host=127.0.0.1 port={self.port} user={USER} dbname={database}"

    def url(self, database: str) -> str:
        """The SQLAlchemy URL jobctrl takes (``JOBCTRL_DATABASE_URL``)."""
        return f"postgresql+psycopg://{USER}@127.0.0.1:{self.port}/{database}"

    def execute(self, sql: str) -> None:
        with psycopg.connect(self.dsn("postgres"), autocommit=True) as conn:
            conn.execute(sql)  # type: ignore[arg-type]

    def create_template(self) -> None:
        """A database migrated to head, the template every test's database is copied from."""
        # Imported here: the store is only needed once a PostgreSQL variant runs.
        from jobctrl.store.db import create_engines, migrate

        self.execute(f"CREATE DATABASE {TEMPLATE}")
        writer, reader = create_engines(self.url(TEMPLATE))
        migrate(writer, reader)
        writer.dispose()
        reader.dispose()

    def new_database(self, *, empty: bool = False) -> str:
        """A fresh database: a copy of the migrated template (made ahead, in the background,
        before this call), or ``empty``. Each copy is taken by one caller only."""
        if empty:
            return self._create(empty=True)
        if self._copier is None:
            self._copier = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pg-copy")
        name = self._next_copy.result() if self._next_copy is not None else self._create()
        self._next_copy = self._copier.submit(self._create)
        return name

    def _create(self, *, empty: bool = False) -> str:
        name = f"test_{os.getpid()}_{next(self._names)}"
        self.execute(f"CREATE DATABASE {name} TEMPLATE {'template0' if empty else TEMPLATE}")
        return name

    def drop_database(self, name: str) -> None:
        self.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def stop(self) -> None:
        if self._copier is not None:
            self._copier.shutdown(wait=True)  # a copy under way ends before its server
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(2)  # SIGINT: fast shutdown
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.root, ignore_errors=True)

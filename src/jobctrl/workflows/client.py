"""Finding and reaching the Temporal server: ``JOBCTRL_TEMPORAL_ADDRESS``, else the
embedded server a worker started for this home (its address is in ``run/temporal.json``).

A server named by ``JOBCTRL_TEMPORAL_ADDRESS`` (a cluster, Temporal Cloud) is reached with
``server_options``: its namespace (``JOBCTRL_TEMPORAL_NAMESPACE``), TLS with a CA and a
client certificate and key (``JOBCTRL_TEMPORAL_TLS_CA``, ``_TLS_CERT``, ``_TLS_KEY``: PEM
files; ``_TLS_SERVER_NAME`` when the certificate names another host than the address),
or an API key read from the variable ``JOBCTRL_TEMPORAL_API_KEY_ENV`` names (never the key
itself in a setting).

``connect`` gives one client per address and event loop; ``server_answers`` tells a
server that serves real calls from a port that merely accepts connections.

The SDK's own (Rust) log lines (a retried poll while the server is away, say) would go
to the console, where they corrupt a command's ``--json``: they are forwarded to the
``jobctrl.temporal`` logger instead, which writes them to ``logs/temporal-sdk.log`` in
the home and nowhere else.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import weakref
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from google.protobuf.duration_pb2 import Duration
from temporalio.api.namespace.v1 import NamespaceConfig
from temporalio.api.workflowservice.v1 import DescribeNamespaceRequest, UpdateNamespaceRequest
from temporalio.client import Client
from temporalio.runtime import (
    LogForwardingConfig,
    LoggingConfig,
    Runtime,
    TelemetryConfig,
    TelemetryFilter,
)
from temporalio.service import TLSConfig

from jobctrl.domain.errors import ConfigError, UnavailableError
from jobctrl.home import Home
from jobctrl.workflows.converter import DATA_CONVERTER

NAMESPACE = "default"
SDK_LOG = logging.getLogger("jobctrl.temporal")
SDK_LOG.propagate = False  # never the console: see the module docstring
SDK_LOG.addHandler(logging.NullHandler())
_sdk_log_files: set[str] = set()


def use_sdk_runtime(home: Home | None = None) -> None:
    """Make this process's Temporal clients forward the SDK's log lines to ``SDK_LOG`` (and
    that logger write to ``logs/temporal-sdk.log`` in ``home``). Called before a client
    is made; calling it again is harmless."""
    if home is not None and str(home.logs_dir) not in _sdk_log_files:
        with contextlib.suppress(OSError):
            home.logs_dir.mkdir(parents=True, exist_ok=True)
            handler = logging.FileHandler(home.logs_dir / "temporal-sdk.log", delay=True)
            handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
            SDK_LOG.addHandler(handler)
            _sdk_log_files.add(str(home.logs_dir))
    global _runtime_set
    if not _runtime_set:
        logging_config = LoggingConfig(
            filter=TelemetryFilter(core_level="WARN", other_level="ERROR"),
            forwarding=LogForwardingConfig(logger=SDK_LOG),
        )
        Runtime.set_default(
            Runtime(telemetry=TelemetryConfig(logging=logging_config)),
            error_if_already_set=False,
        )
        _runtime_set = True


_runtime_set = False


DEFAULT_TASK_QUEUE = "jobctrl"


def default_task_queue() -> str:
    """The task queue of this home's workers (``JOBCTRL_TASK_QUEUE``, default ``jobctrl``)."""
    return os.environ.get("JOBCTRL_TASK_QUEUE", DEFAULT_TASK_QUEUE)


@dataclass
class RuntimeRecord:
    """``run/temporal.json``: where the embedded server listens, its pid and its owner's."""

    address: str
    server_pid: int
    owner_pid: int

    @classmethod
    def load(cls, path: Path) -> RuntimeRecord | None:
        try:
            data = json.loads(path.read_text())
            return cls(str(data["address"]), int(data["serverPid"]), int(data["ownerPid"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(
            json.dumps(
                {"address": self.address, "serverPid": self.server_pid, "ownerPid": self.owner_pid}
            )
        )
        os.replace(tmp, path)


def configured_address(home: Home) -> tuple[str | None, str]:
    """(address, where it came from) without contacting it."""
    env = os.environ.get("JOBCTRL_TEMPORAL_ADDRESS")
    if env:
        return env, "JOBCTRL_TEMPORAL_ADDRESS"
    record = RuntimeRecord.load(home.temporal_runtime_file)
    if record:
        return record.address, str(home.temporal_runtime_file)
    return None, ""


ADDRESS_ENV = "JOBCTRL_TEMPORAL_ADDRESS"
_TLS_FILES = ("JOBCTRL_TEMPORAL_TLS_CA", "JOBCTRL_TEMPORAL_TLS_CERT", "JOBCTRL_TEMPORAL_TLS_KEY")
_CLUSTER_ONLY = (
    "JOBCTRL_TEMPORAL_NAMESPACE",
    *_TLS_FILES,
    "JOBCTRL_TEMPORAL_TLS_SERVER_NAME",
    "JOBCTRL_TEMPORAL_API_KEY_ENV",
)


@dataclass(frozen=True)
class ServerOptions:
    """How to reach the server: its namespace, TLS (off, on with the system's roots, or a
    ``TLSConfig``) and an API key."""

    namespace: str = NAMESPACE
    tls: bool | TLSConfig = field(default=False, repr=False)  # may hold a private key
    api_key: str | None = field(default=None, repr=False)

    def key(self) -> str:
        """What tells two client configurations apart: a digest, never a secret itself (a
        rotated key or certificate makes another client)."""
        tls = self.tls
        parts: list[object] = [self.namespace, self.api_key or ""]
        if isinstance(tls, TLSConfig):
            parts += [tls.server_root_ca_cert, tls.client_cert, tls.client_private_key]
            parts += [tls.domain]
        else:
            parts.append(tls)
        return hashlib.sha256(repr(parts).encode()).hexdigest()


def server_options() -> ServerOptions:
    """The connection options from the environment; ``ConfigError`` (one line naming the
    variable) for a value that cannot work. They apply only to a server named by
    ``JOBCTRL_TEMPORAL_ADDRESS``: the embedded server has the default namespace and no TLS."""
    env = os.environ
    if not env.get(ADDRESS_ENV):
        stray = [name for name in _CLUSTER_ONLY if env.get(name)]
        if stray:
            raise ConfigError(
                f"{stray[0]} applies to a server named by {ADDRESS_ENV}, which is not set "
                "(the embedded server has the default namespace and no TLS)"
            )
        return ServerOptions()
    namespace = env.get("JOBCTRL_TEMPORAL_NAMESPACE", "").strip() or NAMESPACE
    ca, cert, key = (_pem(name) for name in _TLS_FILES)
    if (cert is None) != (key is None):
        raise ConfigError(
            "JOBCTRL_TEMPORAL_TLS_CERT and JOBCTRL_TEMPORAL_TLS_KEY go together (a client "
            "certificate and its private key)"
        )
    server_name = env.get("JOBCTRL_TEMPORAL_TLS_SERVER_NAME", "").strip() or None
    api_key = None
    key_env = env.get("JOBCTRL_TEMPORAL_API_KEY_ENV", "").strip()
    if key_env:
        api_key = env.get(key_env, "").strip()
        if not api_key:
            raise ConfigError(
                f"JOBCTRL_TEMPORAL_API_KEY_ENV names {key_env}, which is not set or empty"
            )
    tls: bool | TLSConfig = False
    if ca or cert or server_name:
        tls = TLSConfig(
            server_root_ca_cert=ca, client_cert=cert, client_private_key=key, domain=server_name
        )
    elif api_key:
        tls = True  # an API key travels over TLS only (the system's roots)
    return ServerOptions(namespace, tls, api_key)


def _pem(name: str) -> bytes | None:
    path = os.environ.get(name, "").strip()
    if not path:
        return None
    try:
        data = Path(path).expanduser().read_bytes()
    except OSError as exc:
        raise ConfigError(
            f"{name}: cannot read {path} ({exc.strerror or type(exc).__name__})"
        ) from None
    if b"-----BEGIN " not in data:
        raise ConfigError(f"{name}: {path} is not a PEM file")
    return data


async def server_answers(address: str, timeout: float = 2.0) -> bool:
    """True when a Temporal frontend at ``address`` serves a real call."""
    use_sdk_runtime()
    try:
        client = await asyncio.wait_for(Client.connect(address, namespace=NAMESPACE), timeout)
        await client.workflow_service.describe_namespace(
            DescribeNamespaceRequest(namespace=NAMESPACE), timeout=timedelta(seconds=timeout)
        )
        return True
    except Exception:  # any failure means: not serving (yet)
        return False


async def namespace_retention(client: Client, timeout: float = 5.0) -> timedelta | None:
    """How long the client's namespace keeps a closed execution's history (None when the
    server does not say)."""
    answer = await client.workflow_service.describe_namespace(
        DescribeNamespaceRequest(namespace=client.namespace), timeout=timedelta(seconds=timeout)
    )
    if not answer.config.HasField("workflow_execution_retention_ttl"):
        return None
    return answer.config.workflow_execution_retention_ttl.ToTimedelta()


async def set_namespace_retention(client: Client, retention: timedelta) -> None:
    """Keep closed executions' histories in the client's namespace for ``retention``
    (the embedded server's own default namespace keeps them one day)."""
    ttl = Duration()
    ttl.FromTimedelta(retention)
    await client.workflow_service.update_namespace(
        UpdateNamespaceRequest(
            namespace=client.namespace,
            config=NamespaceConfig(workflow_execution_retention_ttl=ttl),
        )
    )


RESTART_PATIENCE = 10.0  # seconds


def _owner_alive(home: Home) -> bool:
    """True when the process that runs this home's embedded server is alive."""
    record = RuntimeRecord.load(home.temporal_runtime_file)
    if record is None:
        return False
    try:
        os.kill(record.owner_pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


# Clients are bound to the event loop that made them.
_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, Client]] = (
    weakref.WeakKeyDictionary()
)


_connecting: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[str, asyncio.Future[Client]]
] = weakref.WeakKeyDictionary()


async def _listening(address: str, timeout: float) -> bool:
    host, _, port = address.rpartition(":")
    try:
        _, writer = await asyncio.wait_for(
            asyncio.open_connection(host.strip("[]") or "127.0.0.1", int(port)), timeout
        )
    except (OSError, ValueError, TimeoutError):
        return False
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return True


async def connect(home: Home, timeout: float = 5.0) -> Client:
    """A client for this home's server; one per address and event loop in a process."""
    use_sdk_runtime(home)
    address, origin = configured_address(home)
    if address is None:
        raise UnavailableError(
            "no Temporal server is running for this home: start one with `jobctrl up` "
            "(or set JOBCTRL_TEMPORAL_ADDRESS)"
        )
    options = server_options()
    cache_key = f"{address}|{options.key()}"
    loop = asyncio.get_running_loop()
    loop_clients = _clients.setdefault(loop, {})
    if cache_key in loop_clients:
        return loop_clients[cache_key]
    # Callers that arrive while the first connects (a burst of `add`s through the API, or
    # at a command's start) share its attempt: one connection, and one wait when the
    # server is restarting rather than one after another.
    pending = _connecting.setdefault(loop, {})
    attempt = pending.get(cache_key)
    if attempt is None:
        attempt = pending[cache_key] = asyncio.ensure_future(
            _connect(home, address, origin, options, timeout)
        )
        attempt.add_done_callback(lambda done: _settled(pending, cache_key, loop_clients, done))
    return await asyncio.shield(attempt)


def _settled(
    pending: dict[str, asyncio.Future[Client]],
    cache_key: str,
    loop_clients: dict[str, Client],
    done: asyncio.Future[Client],
) -> None:
    pending.pop(cache_key, None)
    if not done.cancelled() and done.exception() is None:
        loop_clients[cache_key] = done.result()


async def _connect(
    home: Home, address: str, origin: str, options: ServerOptions, timeout: float
) -> Client:
    hint = (
        " (or check its namespace, TLS and API-key settings)" if options != ServerOptions() else ""
    )
    unavailable = UnavailableError(
        f"the Temporal server at {address} (from {origin}) does not answer: "
        f"start one with `jobctrl up` (or fix JOBCTRL_TEMPORAL_ADDRESS){hint}"
    )
    # A worker that runs the embedded server restarts it within moments if it died: while
    # the record's owner is alive, the server is given that long to come back.
    patience = (
        RESTART_PATIENCE if origin != "JOBCTRL_TEMPORAL_ADDRESS" and _owner_alive(home) else 0
    )
    deadline = asyncio.get_running_loop().time() + patience
    while not await _listening(address, timeout):
        # Refused before the SDK's runtime starts: a client left connecting in the
        # background could call into the interpreter while it exits (a crash at exit).
        if asyncio.get_running_loop().time() >= deadline:
            raise unavailable
        await asyncio.sleep(0.2)
    try:
        # Client.connect makes a real call, so a listening port alone does not pass.
        client = await asyncio.wait_for(
            Client.connect(
                address,
                namespace=options.namespace,
                tls=options.tls,
                api_key=options.api_key,
                data_converter=DATA_CONVERTER,
            ),
            timeout,
        )
    except Exception:
        raise unavailable from None
    return client

"""Reaching a Temporal server that is not the embedded one (issue 14): its namespace,
mutual TLS through a TLS front (tests/support/tls_proxy.py, as a cluster's load balancer
would be) and an API key, set in the environment; `jobctrl worker` and the CLI through the
entry points a person runs. A setting that cannot work is one line (exit 1); a server the
settings cannot reach is one line too (exit 2)."""

from __future__ import annotations

import asyncio
import json
import signal
import uuid

import pytest
from google.protobuf.duration_pb2 import Duration
from temporalio.api.workflowservice.v1 import DescribeNamespaceRequest, RegisterNamespaceRequest
from temporalio.client import Client

from jobctrl.workflows import client as temporal
from tests.support.http import Route, posting_html
from tests.support.processes import WorkerProcess, run_cli
from tests.support.tls_proxy import TlsProxy


async def test_a_worker_and_the_cli_work_over_mutual_tls_in_their_own_namespace(
    home, temporal_env, temporal_address, task_queue, fast_settings, site, tmp_path, monkeypatch
) -> None:
    name = f"jobctrl-{uuid.uuid4().hex[:8]}"
    await temporal_env.client.workflow_service.register_namespace(
        RegisterNamespaceRequest(
            namespace=name, workflow_execution_retention_period=Duration(seconds=86400)
        )
    )
    fast_settings.set_value("preparation.materials", False)
    with TlsProxy(temporal_address, tmp_path) as proxy:
        monkeypatch.setenv("JOBCTRL_TEMPORAL_ADDRESS", proxy.address)
        monkeypatch.setenv("JOBCTRL_TEMPORAL_NAMESPACE", name)
        monkeypatch.setenv("JOBCTRL_TEMPORAL_TLS_CA", str(proxy.files["ca"]))
        monkeypatch.setenv("JOBCTRL_TEMPORAL_TLS_CERT", str(proxy.files["cert"]))
        monkeypatch.setenv("JOBCTRL_TEMPORAL_TLS_KEY", str(proxy.files["key"]))
        monkeypatch.setenv("JOBCTRL_TEMPORAL_TLS_SERVER_NAME", "localhost")
        worker = WorkerProcess()
        try:
            worker.wait_ready()
            url = site.add("/jobs/tls", Route(body=posting_html("Engineer", "Tls", ["Python"])))
            added = await asyncio.to_thread(run_cli, "add", url, "--wait", "--json")
        finally:
            worker.stop(signal.SIGTERM)
        handshakes = proxy.handshakes
    assert added.returncode == 0, added.stderr
    view = json.loads(added.stdout)
    assert {s["stage"]: s["state"] for s in view["stages"]}["score"] == "succeeded"
    assert handshakes >= 2, "the worker and the CLI came through the TLS front"
    # The execution lives in the namespace asked for, not in "default".
    described = await temporal_env.client.workflow_service.describe_namespace(
        DescribeNamespaceRequest(namespace=name)
    )
    assert described.namespace_info.name == name
    other = await Client.connect(temporal_address, namespace=name)
    handle = other.get_workflow_handle(view["workflowId"])
    assert (await handle.describe()).status is not None


async def test_without_a_client_certificate_the_cli_says_so_in_one_line(
    home, temporal_address, task_queue, tmp_path, monkeypatch
) -> None:
    with TlsProxy(temporal_address, tmp_path) as proxy:
        monkeypatch.setenv("JOBCTRL_TEMPORAL_ADDRESS", proxy.address)
        monkeypatch.setenv("JOBCTRL_TEMPORAL_TLS_CA", str(proxy.files["ca"]))
        monkeypatch.setenv("JOBCTRL_TEMPORAL_TLS_SERVER_NAME", "localhost")
        result = await asyncio.to_thread(run_cli, "discover", "--json")
    assert result.returncode == 2, result.stdout
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert "namespace, TLS and API-key settings" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("env", "said"),
    [
        ({"JOBCTRL_TEMPORAL_TLS_CERT": "{cert}"}, "go together"),
        ({"JOBCTRL_TEMPORAL_TLS_CA": "{missing}"}, "cannot read"),
        ({"JOBCTRL_TEMPORAL_TLS_CA": "{not_pem}"}, "not a PEM file"),
        ({"JOBCTRL_TEMPORAL_API_KEY_ENV": "JOBCTRL_TEST_UNSET_KEY"}, "not set or empty"),
    ],
)
def test_cluster_settings_that_cannot_work_are_one_line(
    home, tmp_path, monkeypatch, env, said
) -> None:
    files = {
        "cert": tmp_path / "c.pem",
        "missing": tmp_path / "nope.pem",
        "not_pem": tmp_path / "x",
    }
    files["cert"].write_text("-----BEGIN CERTIFICATE-----\n")
    files["not_pem"].write_text("hello")
    monkeypatch.setenv("JOBCTRL_TEMPORAL_ADDRESS", "127.0.0.1:1")
    monkeypatch.delenv("JOBCTRL_TEST_UNSET_KEY", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value.format(**{k: str(v) for k, v in files.items()}))
    result = run_cli("discover", "--json")
    assert result.returncode == 1, (result.stdout, result.stderr)  # bad configuration
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert said in result.stderr


def test_cluster_settings_without_an_address_are_refused(home, monkeypatch) -> None:
    monkeypatch.delenv("JOBCTRL_TEMPORAL_ADDRESS", raising=False)
    monkeypatch.setenv("JOBCTRL_TEMPORAL_NAMESPACE", "team-a")
    with pytest.raises(temporal.ConfigError, match="JOBCTRL_TEMPORAL_ADDRESS"):
        temporal.server_options()


def test_an_api_key_is_read_from_the_variable_named_and_goes_over_tls(monkeypatch) -> None:
    monkeypatch.setenv("JOBCTRL_TEMPORAL_ADDRESS", "example.tmprl.cloud:7233")
    monkeypatch.setenv("JOBCTRL_TEMPORAL_API_KEY_ENV", "MY_TEMPORAL_KEY")
    monkeypatch.setenv("MY_TEMPORAL_KEY", "secret-key")
    options = temporal.server_options()
    assert (options.api_key, options.tls) == ("secret-key", True)
    assert "secret-key" not in options.key() and "secret-key" not in repr(options)


def test_no_secret_of_the_tls_settings_is_kept_in_a_repr_or_the_client_key(
    tmp_path, monkeypatch
) -> None:
    from tests.support.tls_proxy import TlsProxy as _Certs

    certs = _Certs("127.0.0.1:1", tmp_path)  # its files only; never started
    monkeypatch.setenv("JOBCTRL_TEMPORAL_ADDRESS", "127.0.0.1:7233")
    monkeypatch.setenv("JOBCTRL_TEMPORAL_TLS_CA", str(certs.files["ca"]))
    monkeypatch.setenv("JOBCTRL_TEMPORAL_TLS_CERT", str(certs.files["cert"]))
    monkeypatch.setenv("JOBCTRL_TEMPORAL_TLS_KEY", str(certs.files["key"]))
    options = temporal.server_options()
    assert "PRIVATE KEY" not in repr(options) and "PRIVATE KEY" not in options.key()

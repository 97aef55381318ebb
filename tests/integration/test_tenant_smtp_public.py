"""Another tenant's SMTP server must be on a public address: its smtp.host is no way into
the deployment's network (a tenant sets it over HTTP). The operator's own tenant, an
operator-set loopback test server (smtp.security=none) or a host in the tenant's
operator-only fetch.allow_hosts may be private. A public server is connected to by the
address that was checked, never by a second lookup of its name."""

from __future__ import annotations

import socket
import ssl
from pathlib import Path

import pytest

from jobctrl.domain.errors import SMTP_NOT_CONFIGURED, SMTP_TLS_FAILED
from jobctrl.stages import smtp_session as smtp
from jobctrl.store.settings import Settings
from tests.support.smtp import PASSWORD, SmtpServer
from tests.support.tenants import TwoTenants


@pytest.fixture
def connections(monkeypatch) -> list[tuple[str, int]]:
    """Every TCP connection opened (by address), and no name resolved but numeric ones."""
    made: list[tuple[str, int]] = []
    create, resolve = socket.create_connection, socket.getaddrinfo

    def recorded(address, *args, **kwargs):
        made.append(address)
        return create(address, *args, **kwargs)

    def numeric_only(host, *args, **kwargs):
        if host not in ("127.0.0.1", "::1"):
            raise AssertionError(f"{host} was resolved")
        return resolve(host, *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", recorded)
    monkeypatch.setattr(socket, "getaddrinfo", numeric_only)
    return made


def test_a_tenants_private_smtp_host_is_refused_before_any_connection(
    two_tenants: TwoTenants, tmp_path: Path, connections: list[tuple[str, int]], monkeypatch
) -> None:
    with SmtpServer(tmp_path) as server:
        monkeypatch.setenv("SSL_CERT_FILE", str(server.cert))
        for store in (two_tenants.local, two_tenants.acme):
            Settings(store).set_values(server.settings())  # 127.0.0.1, STARTTLS

        acme = smtp.smtp_account(Settings(two_tenants.acme))
        assert not acme.private_ok
        with pytest.raises(smtp.Refused) as refused:
            smtp.connect(acme, "")
        assert refused.value.code == SMTP_NOT_CONFIGURED
        assert "not a public address" in refused.value.message
        assert connections == []  # nothing reached the private host: no port to probe

        local = smtp.smtp_account(Settings(two_tenants.local))
        assert local.private_ok  # the operator's own tenant
        smtp.quit_quietly(smtp.connect(local, PASSWORD))
        assert connections == [("127.0.0.1", server.port)]

        # The operator may let a tenant use a private relay: its operator-only allow list.
        Settings(two_tenants.acme).set_values({"fetch.allow_hosts": ["127.0.0.1"]})
        allowed = smtp.smtp_account(Settings(two_tenants.acme))
        assert allowed.private_ok
        smtp.quit_quietly(smtp.connect(allowed, PASSWORD))
        assert len(connections) == 2


def test_a_public_server_is_connected_to_by_the_checked_address(
    tmp_path: Path, connections: list[tuple[str, int]]
) -> None:
    with SmtpServer(tmp_path, tls=False) as server:
        # The name is never looked up again (the fixture fails any lookup of it): a name
        # that answered public once cannot answer private at connect time.
        pinned = smtp._PinnedSMTP("mail.example.com", server.port, address="127.0.0.1")
        code, _ = pinned.ehlo()
        pinned.quit()
    assert code == 250
    assert connections == [("127.0.0.1", server.port)]


def test_a_pinned_implicit_tls_session_verifies_the_servers_name(
    tmp_path: Path, connections: list[tuple[str, int]]
) -> None:
    with SmtpServer(tmp_path, implicit_tls=True) as server:
        assert server.cert is not None
        context = ssl.create_default_context(cafile=str(server.cert))
        pinned = smtp._PinnedSMTPSSL(
            "127.0.0.1", server.port, address="127.0.0.1", context=context, timeout=10
        )
        code, _ = pinned.ehlo()
        pinned.quit()
    assert code == 250 and connections == [("127.0.0.1", server.port)]


def test_a_tenants_tls_failure_on_a_private_host_never_reaches_it(
    two_tenants: TwoTenants, tmp_path: Path, connections: list[tuple[str, int]]
) -> None:
    """The refusal is the same whatever listens there: no TLS/port distinction leaks."""
    with SmtpServer(tmp_path, tls=False) as server:
        settings = {**server.settings(), "smtp.security": "starttls"}
        Settings(two_tenants.acme).set_values(settings)
        with pytest.raises(smtp.Refused) as refused:
            smtp.connect(smtp.smtp_account(Settings(two_tenants.acme)), "")
        assert refused.value.code == SMTP_NOT_CONFIGURED != SMTP_TLS_FAILED
        assert connections == []

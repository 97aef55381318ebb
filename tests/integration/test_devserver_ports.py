"""The embedded Temporal server picks free ports, and another process may take one before
the server binds it: the start is tried again with other ports instead of failing the
worker (CI once lost a run to exactly that). A real dev server, loopback only."""

from __future__ import annotations

import socket
from collections.abc import Iterator

from jobctrl.worker import devserver
from jobctrl.worker.devserver import EmbeddedTemporal


async def test_a_port_taken_before_the_bind_is_tried_again_with_others(home, monkeypatch):
    taken = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    real = devserver.free_port

    def ports() -> Iterator[int]:
        yield real()  # the frontend port
        yield taken.getsockname()[1]  # the HTTP port: "free" when picked, taken at the bind
        while True:
            yield real()

    picks = ports()
    monkeypatch.setattr(devserver, "free_port", lambda: next(picks))
    server = EmbeddedTemporal(home)
    try:
        address = await server.ensure()
        assert address.startswith("127.0.0.1:") and server.running()
        log = (home.logs_dir / "temporal.log").read_text(errors="replace")
        assert "address already in use" in log, "the first start did meet the taken port"
    finally:
        server.stop()
        taken.close()

"""`make demo` ends with one application sent (issue 30): the demo, run in this process
against the test's Temporal server, prepares its postings, then applies to the best job
by email — approve, prepare, approve, send — to its loopback mail sink, shows it in
Applications, and runs the browser prefill as a dry run on its own form."""

from __future__ import annotations

import re
import shutil

from jobctrl.app import applications
from jobctrl.demo.run import run_demo
from jobctrl.home import Home
from tests.support.sqlite_template import copy_into


async def test_the_demo_ends_with_one_application_sent(
    tmp_path, monkeypatch, sqlite_template, temporal_address, task_queue
):
    monkeypatch.setenv("JOBCTRL_HOME", str(tmp_path / "demo-home"))
    monkeypatch.delenv("JOBCTRL_DATABASE_URL", raising=False)
    home = Home.resolve()
    copy_into(sqlite_template, home)  # a fresh demo home, migrated
    said: list[str] = []
    await run_demo(home, echo=said.append, boards_port=0)
    text = "\n".join(said)

    steps = [m.group(1) for line in said if (m := re.match(r"  (\d)\. ", line))]
    assert steps == ["1", "2", "3", "4"], "approve, prepare, approve, send: printed in order"
    assert "4. send: sent" in text and "received 1 message" in text, text
    assert "prepared the email to jobs@" in text and "_Resume_" in text, text
    sent = [a for a in applications.list_applications(home) if a.status == "sent"]
    assert len(sent) == 1 and sent[0].channel == "email", "one application, by email"
    assert f"Applications: {sent[0].company} — {sent[0].role}: sent via email" in text
    if shutil.which("chromium") or shutil.which("chromium-browser"):
        assert "browser prefill, as a dry run on the demo's form" in text, text
        assert "0 left for you" in text and "2 files attached" in text, text

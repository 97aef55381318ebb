"""A career-ops user brings portals.yml and the data/pipeline.md inbox over in one command."""

from __future__ import annotations

import json

from jobctrl.config import load_config
from tests.support.http import Route, posting_html
from tests.support.processes import WorkerProcess, run_cli

PORTALS = """\
tracked_companies:
  - name: Stripe
    careers_url: https://boards.greenhouse.io/stripe
    enabled: true
  - name: Palantir
    careers_url: https://jobs.lever.co/palantir
  - name: Ramp
    careers_url: https://jobs.ashbyhq.com/ramp
  - name: Old Co
    careers_url: https://oldco.example/careers
    enabled: false
"""


def test_import_career_ops(home, site, settings, tmp_path, monkeypatch):
    monkeypatch.setenv("JOBCTRL_TASK_QUEUE", f"careerops-{tmp_path.name}")
    monkeypatch.delenv("JOBCTRL_TEMPORAL_ADDRESS", raising=False)
    settings.set_value("fetch.allow_hosts", ["127.0.0.1"])
    settings.set_value("fetch.min_host_interval_seconds", 0.0)
    url = site.add("/jobs/inbox-1", Route(body=posting_html("SRE", "Inbox Co", ["Linux"])))
    career_ops = tmp_path / "career-ops"
    (career_ops / "data").mkdir(parents=True)
    (career_ops / "portals.yml").write_text(PORTALS)
    (career_ops / "data" / "pipeline.md").write_text(
        f"# Pipeline\n\n## Pending\n- [ ] {url} | Inbox Co | SRE\n- [x] https://done.example/1\n"
    )
    worker = WorkerProcess()
    try:
        worker.wait_ready()
        result = run_cli("sources", "import-career-ops", str(career_ops), "--json")
        assert result.returncode == 0, result.stderr
        imported = json.loads(result.stdout)
        again = json.loads(
            run_cli("sources", "import-career-ops", str(career_ops), "--json").stdout
        )
    finally:
        worker.stop(2)
    kinds = sorted((s.kind, s.name) for s in load_config(home).sources)
    assert kinds == [("ashby", "ramp"), ("greenhouse", "stripe"), ("lever", "palantir")]
    assert len(imported["jobsAdded"]) == 1
    assert again["sourcesSkipped"] == 3 and again["jobsAdded"] == imported["jobsAdded"]

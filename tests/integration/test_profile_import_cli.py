"""`jobctrl profile import` through the installed entry point: a real resume PDF, a dry
run that prints the parsed profile and what it could not place and writes nothing; then
the import itself, which records a version."""

from __future__ import annotations

import json
from pathlib import Path

from jobctrl.config import load_config
from tests.support.processes import run_cli

RESUME = Path(__file__).resolve().parents[1] / "fixtures" / "resumes" / "rendercv_classic.pdf"


def test_profile_import_of_a_pdf_dry_run_then_for_real(home):
    before = home.config_path.read_text()

    dry = run_cli("profile", "import", str(RESUME), "--dry-run", "--json", process=True)

    assert dry.returncode == 0, dry.stderr
    result = json.loads(dry.stdout)
    assert (result["dryRun"], result["version"], result["format"]) == (True, None, "pdf")
    assert result["profile"]["name"] == "John Doe"
    assert result["profile"]["experience"][0]["company"] == "Nexus AI"
    assert "Each section title is arbitrary." in result["unplaced"]
    assert home.config_path.read_text() == before

    done = run_cli("profile", "import", str(RESUME))

    assert done.returncode == 0, done.stderr
    assert "imported John Doe: 19 skills, 5 roles, 2 education entries" in done.stdout
    assert "could not be placed" in done.stdout
    assert load_config(home).profile.experience[1].company == "NVIDIA Research"


def test_a_scanned_pdf_is_refused_with_a_sentence(home, tmp_path):
    from PIL import Image

    scan = tmp_path / "scan.pdf"
    Image.new("RGB", (300, 400), "white").save(scan, "PDF")

    refused = run_cli("profile", "import", str(scan))

    assert refused.returncode != 0
    assert "no text layer" in refused.stderr + refused.stdout
    assert "Traceback" not in refused.stderr

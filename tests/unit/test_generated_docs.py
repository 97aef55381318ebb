"""docs/CLI.md and docs/API.md are made from the code (scripts/gen_docs.py): this fails
when a command, an option, a help text, a route or a model changed and `make docs` was
not run (issue 30: the README's reference tables drifted from the code)."""

import runpy
from pathlib import Path

from jobctrl.api.app import create_app
from jobctrl.cli import main

ROOT = Path(__file__).parents[2]
GENERATOR = runpy.run_path(str(ROOT / "scripts" / "gen_docs.py"))


def _same(path: str, made: str) -> None:
    written = (ROOT / path).read_text(encoding="utf-8")
    assert written == made, f"{path} is out of date: run `make docs` and commit it"


def test_the_command_reference_is_the_commands_help():
    made = GENERATOR["cli_markdown"](main).rstrip() + "\n"
    _same("docs/CLI.md", made)
    for command in ("jobctrl add", "jobctrl settings set", "jobctrl apply JOB --browser"):
        assert f"\n## {command}" in made, command


def test_the_api_reference_is_the_openapi_schema(home):
    made = GENERATOR["api_markdown"](create_app(home, port=8765).openapi())
    _same("docs/API.md", made)
    assert "### POST `/v1/jobs`" in made and "### AddJob" in made

"""docs/MCP.md is made from the MCP server (scripts/gen_mcp_docs.py): this fails when a
tool, an argument, a description or a resource changed and `make docs` was not run."""

import runpy
from pathlib import Path

from jobctrl.mcp import tools_act, tools_people, tools_read

ROOT = Path(__file__).parents[2]
GENERATOR = runpy.run_path(str(ROOT / "scripts" / "gen_mcp_docs.py"))


def test_the_mcp_page_lists_every_tool_and_the_client_snippet() -> None:
    made = GENERATOR["mcp_markdown"]()
    written = (ROOT / "docs" / "MCP.md").read_text(encoding="utf-8")
    assert written == made, "docs/MCP.md is out of date: run `make docs` and commit it"
    acting = [*tools_act.TOOLS, *tools_people.TOOLS]
    for tool in [*tools_read.TOOLS, *(fn for fn, _ in acting)]:
        assert f"\n### `{tool.__name__}`\n" in made, tool.__name__
    assert '"mcpServers"' in made and "claude mcp add jobctrl" in made

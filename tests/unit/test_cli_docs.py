"""The CLI is documented by construction: every command and option has help text, the
command reference (docs/CLI.md, generated) names every command, and `init`, `--help` and
the README name the same next step."""

from pathlib import Path

import click
from click.testing import CliRunner

from jobctrl.cli import main

README = Path(__file__).parents[2] / "README.md"
CLI_MD = Path(__file__).parents[2] / "docs" / "CLI.md"


def _commands(group: click.Group, prefix: str = ""):
    for name, command in group.commands.items():
        yield f"{prefix}{name}", command
        if isinstance(command, click.Group):
            yield from _commands(command, f"{prefix}{name} ")


def test_every_command_and_option_has_help():
    for name, command in _commands(main):
        assert (command.help or "").strip(), f"`jobctrl {name}` has no help"
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help, f"`jobctrl {name} {param.opts[0]}` has no help"


def test_help_runs_for_every_command():
    runner = CliRunner()
    for name, _ in _commands(main):
        result = runner.invoke(main, [*name.split(), "--help"])
        assert result.exit_code == 0, name
        assert "Usage:" in result.output


def test_the_command_reference_names_every_command():
    text = CLI_MD.read_text()
    for name, command in _commands(main):
        if command.hidden:  # reached another way (`jobctrl apply JOB`): its usage is named
            usage = click.Context(command, info_name=name).get_usage().split(":", 1)[1]
            assert " ".join(usage.split()[:3]) in text, f"docs/CLI.md does not show `{usage}`"
        elif not isinstance(command, click.Group):
            assert f"jobctrl {name}" in text, f"docs/CLI.md does not name `jobctrl {name}`"


def test_init_help_and_readme_name_the_same_next_step(tmp_path, monkeypatch):
    """Issue 30: `init` and `--help` said `jobctrl worker` while the README said `up`."""
    monkeypatch.setenv("JOBCTRL_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("JOBCTRL_DATABASE_URL", raising=False)
    runner = CliRunner()
    said = runner.invoke(main, ["init"])
    assert said.exit_code == 0, said.output
    assert said.output.splitlines()[-1].endswith("then `jobctrl up`")
    assert "then `jobctrl up`" in " ".join(runner.invoke(main, ["--help"]).output.split())
    assert "jobctrl up" in README.read_text().split("\n## ", 2)[1], "in the README's start"
    assert "jobctrl worker" not in said.output + runner.invoke(main, ["--help"]).output

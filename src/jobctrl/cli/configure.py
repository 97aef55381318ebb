"""Commands that set a home up and configure it: init, settings, spend, LLM lanes,
the profile, and projection maintenance."""

from __future__ import annotations

import json
from pathlib import Path

import click

from jobctrl.app import activity, configuration
from jobctrl.app import lanes as app_lanes
from jobctrl.app import profile as app_profile
from jobctrl.app import projections as app_projections
from jobctrl.app import settings as app_settings
from jobctrl.app import target_search as app_target
from jobctrl.app.home import init_home
from jobctrl.cli.base import echo_json, handle_errors, home
from jobctrl.domain.profile import Profile


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@handle_errors
def init(as_json: bool) -> None:
    """Create the home: a commented config.yaml and the database."""
    result = init_home(home())
    if as_json:
        echo_json(result)
        return
    verb = "wrote" if result.config_created else "kept existing"
    click.echo(f"{verb} {result.config}")
    click.echo(f"database ready at {result.database}")
    click.echo(
        "next: `jobctrl profile import my-resume.pdf` (or edit the profile in config.yaml),"
        " then `jobctrl up`"
    )


@click.group()
def settings() -> None:
    """Show or change runtime settings (budget, thresholds, fetch rules)."""


@settings.command("get")
@click.argument("key", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@handle_errors
def settings_get(key: str | None, as_json: bool) -> None:
    """Print one setting, or all of them with their descriptions."""
    here = home()
    values = configuration.settings_values(here, key)
    if as_json:
        echo_json(
            values if not key else configuration.SettingValue(key=key, value=values.root[key])
        )
    elif key:
        click.echo(json.dumps(values.root[key]))
    else:
        for item in configuration.settings_catalogue(here):
            click.echo(f"{item.key} = {json.dumps(item.value)}")
            click.echo(f"    {item.help}")


@settings.command("set", context_settings={"ignore_unknown_options": True})
@click.argument("key")
@click.argument("value")
@handle_errors
def settings_set(key: str, value: str) -> None:
    """Change a setting, e.g. `jobctrl settings set fetch.allow_hosts 127.0.0.1,intranet.local`."""
    values = app_settings.change_settings(home(), {key: value}, by_operator=True)
    click.echo(f"{key} = {json.dumps(values.root[key])}")


@settings.command("search")
@click.option("--titles", default=None, help="Roles to look for, comma-separated ('': any).")
@click.option("--exclude-titles", default=None, help="Roles never wanted, comma-separated.")
@click.option(
    "--places", default=None, help="Where the job may be, comma-separated ('': anywhere)."
)
@click.option(
    "--remote-only/--not-remote-only", default=None, help="Keep only remote jobs, or not."
)
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@handle_errors
def settings_search(
    titles: str | None,
    exclude_titles: str | None,
    places: str | None,
    remote_only: bool | None,
    as_json: bool,
) -> None:
    """Show or change what discovery looks for: the roles and places (config.yaml's
    target_search, rewritten with its comments kept; also the Settings page). Each option
    given replaces that list, e.g. `jobctrl settings search --titles "Backend Engineer,
    Data Engineer" --places "Berlin, Remote"`."""
    given = {
        "titles": titles,
        "exclude_titles": exclude_titles,
        "locations": places,
        "remote_only": remote_only,
    }
    changes = {key: value for key, value in given.items() if value is not None}
    here = home()
    view = (
        app_target.change_target_search(here, changes)
        if changes
        else app_target.target_search(here)
    )
    if as_json:
        echo_json(view)
        return
    click.echo(f"roles:        {', '.join(view.titles) or 'any'}")
    click.echo(f"never:        {', '.join(view.exclude_titles) or '-'}")
    places_text = ", ".join(view.locations) or "anywhere"
    click.echo(f"places:       {places_text}{' (remote only)' if view.remote_only else ''}")


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@handle_errors
def spend(as_json: bool) -> None:
    """Today's estimated LLM spend per lane against the daily ceiling (UTC day)."""
    summary = activity.spend_summary(home())
    if as_json:
        echo_json(summary)
        return
    budget = summary.daily_budget_usd
    ceiling = "unlimited" if budget == 0 else f"${budget:.2f}"
    click.echo(f"{summary.day} (UTC): ${summary.spent_usd:.4f} observed of {ceiling} (estimate)")
    if summary.assumed_calls:
        click.echo(
            f"  assumed: ${summary.assumed_usd:.4f} for {summary.assumed_calls} call(s) "
            "whose worker stopped before their usage was recorded (counted at worst case)"
        )
    held = summary.open_reservations
    mode = "strict: calls reserve their worst case" if summary.strict else "preflight only"
    click.echo(f"  open reservations: {held.count} (${held.amount_usd:.4f}); {mode}")
    limits = summary.lane_token_limits
    if not summary.lanes:
        click.echo("  no provider usage recorded today")
    for lane in summary.lanes:
        limit = limits.get(lane.lane) or "unlimited"
        tokens = lane.input_tokens + lane.output_tokens
        click.echo(
            f"  {lane.lane:<10} ${lane.cost_usd:.4f}  {tokens} tokens (limit {limit})"
            f"  {lane.calls} calls"
        )


@click.group()
def llm() -> None:
    """Choose the provider and model of each lane (score, tailor, cover, contact_research,
    apply, profile)."""


@llm.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the lanes as JSON.")
@handle_errors
def llm_list(as_json: bool) -> None:
    """Show each lane's provider and model, and whether its API key variable is set."""
    rows = configuration.list_lanes(home())
    if as_json:
        echo_json(rows)
        return
    for r in rows:
        where = f" at {r.base_url}" if r.base_url else ""
        key = ""
        if r.api_key_env:
            key = f"  key ${r.api_key_env} {'set' if r.api_key_set else 'NOT SET'}"
        output = f"  output {r.output}" if r.output != "tool" else ""
        click.echo(f"{r.lane:<17} {r.provider:<9} {r.model}{where}{key}{output}")


@llm.command("set")
@click.argument("lane")
@click.argument("provider")
@click.argument("model")
@click.option("--base-url", default=None, help="An OpenAI-compatible server (Ollama, vLLM, …).")
@click.option("--api-key-env", default=None, help="The environment variable holding the key.")
@click.option(
    "--output",
    type=click.Choice(app_lanes.OUTPUT_MODES),
    default="tool",
    show_default=True,
    help="How the model returns its structured answer: `tool` (a tool call), `json` (the "
    "server's JSON-schema output) or `prompted` (the schema in the instructions, JSON read "
    "from the text: works with any server, e.g. a local model without tool calling).",
)
@handle_errors
def llm_set(
    lane: str,
    provider: str,
    model: str,
    base_url: str | None,
    api_key_env: str | None,
    output: str,
) -> None:
    """Set LANE to PROVIDER (offline, openai, anthropic) and MODEL, e.g.
    `jobctrl llm set score openai gpt-4o-mini` or, for a local Ollama,
    `jobctrl llm set tailor openai llama3.1 --base-url http://127.0.0.1:11434/v1`.
    A local model that does not support tool calls (Ollama, llama.cpp, LM Studio) takes
    `--output json` or `--output prompted`.
    The profile lane reads an imported resume into fields (`jobctrl profile import`)."""
    row = app_lanes.set_lane(home(), lane, provider, model, base_url, api_key_env, output)
    shown = f" (output {row.output})" if row.output != "tool" else ""
    click.echo(f"{row.lane}: {row.provider} {row.model}{shown}")


@click.group()
def profile() -> None:
    """Show or import the candidate profile (versioned: work in flight keeps its version)."""


@profile.command("show")
@click.option("--json", "as_json", is_flag=True, help="Print the profile as JSON.")
@handle_errors
def profile_show(as_json: bool) -> None:
    """Show the current profile and its version."""
    result = configuration.show_profile(home())
    if as_json:
        echo_json(result)
        return
    click.echo(f"profile version {result.version} (edit it on the Profile page of `jobctrl up`)")
    _print_parsed_profile(result.profile)


@profile.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--dry-run",
    is_flag=True,
    help="Show the parsed profile; write nothing to it (a model on the profile lane is "
    "still asked, and paid once: the import after the dry run reuses its answer).",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the parsed profile, `unplaced`, and `dropped` (what a model returned that "
    "the resume does not say) as JSON.",
)
@handle_errors
def profile_import(file: Path, dry_run: bool, as_json: bool) -> None:
    """Replace the profile in config.yaml with a resume: PDF, Word (.docx), Markdown
    (.md), text (.txt), JSON Resume (resume.json) or RenderCV YAML. Your saved answers
    for application forms are kept. Text the parser could not place is listed, never
    dropped: check it, and add what belongs with `jobctrl profile show` / config.yaml.

    With a model on the profile lane (`jobctrl llm set profile openai gpt-4o-mini`), the
    model reads a PDF, Word, Markdown or text resume into fields (within the daily budget;
    the same file is never paid for twice); every value it returns must be in the
    resume's text, and any that is not is left out and listed. When the model fails, the
    section parser's reading is used, and the output says so."""
    result = app_profile.import_profile(home(), file, dry_run=dry_run)
    if as_json:
        echo_json(result)
        return
    if dry_run:
        _print_parsed_profile(result.profile)
    counts = (
        f"{result.name or '(no name)'}: {result.skills} skills, {result.experience} roles, "
        f"{result.education} education entries"
    )
    if result.model:
        click.echo(f"read by the profile lane's model ({result.model})")
    if result.note:
        click.echo(f"note: {result.note}")
    if dry_run:
        click.echo(f"dry run, nothing saved — would import {counts}")
    else:
        click.echo(
            f"imported {counts} (profile version {result.version})"
            + (f"; {result.answers_kept} saved answers kept" if result.answers_kept else "")
        )
    if result.unplaced:
        click.echo(f"{len(result.unplaced)} lines could not be placed in the profile:")
        for text in result.unplaced:
            click.echo(f"  ? {text}")
    if result.dropped:
        click.echo(
            f"{len(result.dropped)} values the model returned are not in the resume "
            "and were left out:"
        )
        for dropped in result.dropped:
            click.echo(f"  - {dropped.field}: {dropped.value}")


def _print_parsed_profile(p: Profile) -> None:
    """Every part of a profile, one line each (a role's bullets under it)."""
    click.echo(p.name or "(no name)")
    for value in (p.contact.email, p.contact.phone, p.contact.location, *p.contact.links):
        if value:
            click.echo(f"  {value}")
    if p.summary:
        click.echo(f"summary: {p.summary}")
    for role in p.experience:
        when = " – ".join(x for x in (role.start, role.end) if x)
        click.echo(f"role: {role.title} at {role.company} ({when}) {role.location}".rstrip())
        for bullet in role.bullets:
            click.echo(f"  • {bullet}")
    for edu in p.education:
        when = " – ".join(x for x in (edu.start, edu.end) if x)
        click.echo(f"education: {edu.degree} {edu.field}, {edu.institution} ({when})")
    if p.skills:
        click.echo("skills: " + ", ".join(p.skills))
    if p.languages:
        langs = (f"{x.language} ({x.fluency})" if x.fluency else x.language for x in p.languages)
        click.echo("languages: " + ", ".join(langs))
    for cert in p.certifications:
        click.echo(
            f"certification: {', '.join(x for x in (cert.name, cert.issuer, cert.date) if x)}"
        )
    for project in p.projects:
        click.echo(
            f"project: {project.name}"
            + (f" — {project.description}" if project.description else "")
        )
    for award in p.awards:
        click.echo(f"award: {', '.join(x for x in (award.title, award.awarder, award.date) if x)}")
    for role in p.volunteer:
        click.echo(f"volunteer: {role.title} at {role.company}")


@click.group()
def projections() -> None:
    """Maintain the read models folded from the event log."""


@projections.command("rebuild")
@handle_errors
def projections_rebuild() -> None:
    """Drop every projection and fold the whole event log again: every tenant's (the
    log is the deployment's), whichever JOBCTRL_TENANT names; an operator's command."""
    result = app_projections.rebuild_projections(home())
    click.echo(f"rebuilt projections from {result.events_folded} events")

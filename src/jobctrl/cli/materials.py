"""`jobctrl materials`: list, decide on or regenerate a job's resume and letter."""

from __future__ import annotations

import asyncio

import click

from jobctrl.app import materials as app_materials
from jobctrl.app import queries
from jobctrl.cli.base import echo_json, handle_errors, home
from jobctrl.domain.errors import INVALID_INPUT, JobctrlError


@click.command("materials")
@click.argument("args", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print the materials as JSON.")
@handle_errors
def materials_cmd(args: tuple[str, ...], as_json: bool) -> None:
    """Show a job's materials, or decide on them.

    `jobctrl materials JOB` lists each material with its kind, generation, approval state
    and PDF; `jobctrl materials approve JOB` / `jobctrl materials reject JOB` decide on the
    newest drafts; `jobctrl materials regenerate JOB` writes a new generation (an approved
    generation stays accepted until a newer one is approved).
    """
    if len(args) == 2 and args[0] == "regenerate":
        result = asyncio.run(app_materials.regenerate_materials(home(), args[1], wait=True))
        check = result.get("truthCheck")
        if as_json:
            echo_json(result)
        elif check and not check["passed"]:
            document = "resume" if check["stage"] == "tailor" else "letter"
            click.echo(
                f"the truth check refused the {document} of generation {check['generation']} "
                f"for job {result['jobId']} ({check['findingCount']} unsupported claims); "
                f"`jobctrl show {result['jobId']}` names them"
            )
        else:
            click.echo(
                f"wrote generation {result['generation']} for job {result['jobId']}; "
                "approve it with `jobctrl materials approve JOB`"
            )
        return
    if len(args) == 2 and args[0] in app_materials.DECISIONS:
        decided = app_materials.decide_materials(home(), args[1], args[0])
        if as_json:
            echo_json(decided)
        else:
            for item in decided:
                click.echo(f"{item['kind']} generation {item['generation']}: {item['state']}")
        return
    if len(args) != 1:
        raise JobctrlError(
            "use `jobctrl materials JOB` or `jobctrl materials approve|reject JOB`",
            code=INVALID_INPUT,
        )
    rows = queries.job_materials(home(), args[0])
    if as_json:
        echo_json(rows)
        return
    if not rows:
        click.echo("no materials yet (they are written after Score for jobs above min_fit_score)")
    for m in rows:
        click.echo(
            f"{m['kind']:<7} gen {m['generation']}  {m['approval']:<10} {m['pdfPath'] or ''}"
        )

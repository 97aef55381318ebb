"""`jobctrl materials`: list, decide on, regenerate or export a job's resume and letter."""

from __future__ import annotations

import asyncio
from pathlib import Path

import click

from jobctrl.app import materials as app_materials
from jobctrl.app import queries
from jobctrl.cli.base import echo_json, handle_errors, home
from jobctrl.domain.errors import INVALID_INPUT, JobctrlError


@click.command("materials")
@click.argument("args", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print the materials as JSON.")
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    help="With export: the directory to write the PDFs into (default: the current one).",
)
@handle_errors
def materials_cmd(args: tuple[str, ...], as_json: bool, directory: Path | None) -> None:
    """Show a job's materials, decide on them, or export their PDFs.

    `jobctrl materials JOB` lists each material with its kind, generation, approval state
    and PDF; `jobctrl materials approve JOB` / `jobctrl materials reject JOB` decide on the
    newest drafts; `jobctrl materials regenerate JOB` writes a new generation (an approved
    generation stays accepted until a newer one is approved); `jobctrl materials export JOB
    [--dir D]` writes the approved (else newest) resume and letter PDFs into D as
    `Firstname_Lastname_Resume_Company.pdf` and `..._Cover_Letter_Company.pdf` and prints
    their paths (a different file of that name is kept: the new one gets a suffix).
    """
    if directory is not None and (len(args) != 2 or args[0] != "export"):
        raise JobctrlError("--dir goes with `jobctrl materials export JOB`", code=INVALID_INPUT)
    if len(args) == 2 and args[0] == "export":
        report = app_materials.export_materials_report(home(), args[1], directory)
        if as_json:
            echo_json(report)
        else:
            for written in report.files:
                click.echo(written.path)
        return
    if len(args) == 2 and args[0] == "regenerate":
        result = asyncio.run(app_materials.regenerate_materials(home(), args[1], wait=True))
        check = result.truth_check
        if as_json:
            echo_json(result)
        elif check and not check.passed:
            document = "resume" if check.stage == "tailor" else "letter"
            click.echo(
                f"the truth check refused the {document} of generation {check.generation} "
                f"for job {result.job_id} ({check.finding_count} unsupported claims); "
                f"`jobctrl show {result.job_id}` names them"
            )
        else:
            click.echo(
                f"wrote generation {result.generation} for job {result.job_id}; "
                "approve it with `jobctrl materials approve JOB`"
            )
            removed = len(check.dropped) if check else 0
            if removed:
                click.echo(
                    f"the truth check removed {removed} sentence{'s' if removed != 1 else ''} "
                    f"your profile does not support: `jobctrl show {result.job_id}` lists them"
                )
        return
    if len(args) == 2 and args[0] in app_materials.DECISIONS:
        decided = app_materials.decide_materials(home(), args[1], args[0])
        if as_json:
            echo_json(decided)
        else:
            for item in decided:
                click.echo(f"{item.kind} generation {item.generation}: {item.state}")
        return
    if len(args) != 1:
        raise JobctrlError(
            "use `jobctrl materials JOB` or "
            "`jobctrl materials approve|reject|regenerate|export JOB`",
            code=INVALID_INPUT,
        )
    rows = queries.job_materials(home(), args[0])
    if as_json:
        echo_json(rows)
        return
    if not rows:
        click.echo("no materials yet (they are written after Score for jobs above min_fit_score)")
    for m in rows:
        click.echo(f"{m.kind:<7} gen {m.generation}  {m.approval:<10} {m.pdf_path or ''}")

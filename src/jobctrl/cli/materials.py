"""`jobctrl materials`: list, decide on, regenerate or export a job's resume and letter."""

from __future__ import annotations

import asyncio
from pathlib import Path

import click

from jobctrl.app import material_edits as app_edits
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
@click.option(
    "--kind",
    type=click.Choice(["resume", "letter"]),
    help="With edit: which document to edit.",
)
@click.option(
    "--file",
    "text_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="With edit: the edited text (default: open it in $EDITOR).",
)
@handle_errors
def materials_cmd(
    args: tuple[str, ...],
    as_json: bool,
    directory: Path | None,
    kind: str | None,
    text_file: Path | None,
) -> None:
    """Show a job's materials, decide on them, or export their PDFs.

    `jobctrl materials JOB` lists each material with its kind, generation, approval state
    and PDF; `jobctrl materials approve JOB` / `jobctrl materials reject JOB` decide on the
    newest drafts; `jobctrl materials regenerate JOB` writes a new generation (an approved
    generation stays accepted until a newer one is approved); `jobctrl materials letter
    JOB` writes the cover letter of a job whose letter waits for you to ask for it (it
    scored below the setting materials.cover_min_score); `jobctrl materials export JOB
    [--dir D]` writes the approved (else newest) resume and letter PDFs into D as
    `Firstname_Lastname_Resume_Company_Role.pdf` and `..._Cover_Letter_Company_Role.pdf`
    (the role shortened) and prints their paths (a different file of that name is kept:
    the new one gets a suffix);
    `jobctrl materials edit JOB --kind resume|letter [--file F]` saves your edit of the
    newest resume or letter (from F, else in $EDITOR) as a new draft: every sentence is
    checked against your profile, and one it does not support holds approval back until
    you remove it or add the fact to your profile.
    """
    if directory is not None and (len(args) != 2 or args[0] != "export"):
        raise JobctrlError("--dir goes with `jobctrl materials export JOB`", code=INVALID_INPUT)
    if (kind or text_file) and (len(args) != 2 or args[0] != "edit"):
        raise JobctrlError(
            "--kind and --file go with `jobctrl materials edit JOB`", code=INVALID_INPUT
        )
    if len(args) == 2 and args[0] == "edit":
        _edit(args[1], kind, text_file, as_json)
        return
    if len(args) == 2 and args[0] == "export":
        report = app_materials.export_materials_report(home(), args[1], directory)
        if as_json:
            echo_json(report)
        else:
            for written in report.files:
                click.echo(written.path)
        return
    if len(args) == 2 and args[0] in ("regenerate", "letter"):
        write = app_materials.regenerate_materials
        if args[0] == "letter":
            write = app_materials.write_letter
        result = asyncio.run(write(home(), args[1], wait=True))
        check = result.truth_check
        if not (check and not check.passed):
            _written_or_why(result.job_id, args[0])
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
            what = "the cover letter" if args[0] == "letter" else f"generation {result.generation}"
            click.echo(
                f"wrote {what} for job {result.job_id}; "
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
            warning = next((item.warning for item in decided if item.warning), None)
            if warning:  # said first: the person may want to check the posting
                click.echo(f"warning: {warning}", err=True)
            for item in decided:
                click.echo(f"{item.kind} generation {item.generation}: {item.state}")
        return
    if len(args) != 1:
        raise JobctrlError(
            "use `jobctrl materials JOB` or "
            "`jobctrl materials approve|reject|regenerate|letter|export JOB` or "
            "`jobctrl materials edit JOB --kind resume|letter [--file F]`",
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


def _written_or_why(job_id: str, what: str) -> None:
    """Raise, with the stage's own reason, when the run ended without writing: a stage of
    it failed or was cancelled for another reason than the truth check (said above)."""
    stages = {s.stage: s for s in queries.show_job(home(), job_id).stages}
    wanted = ("cover", "pdf") if what == "letter" else ("tailor", "cover", "pdf")
    for name in wanted:
        stage = stages.get(name)
        if stage is not None and stage.state not in ("succeeded", "skipped"):
            document = "cover letter" if what == "letter" else "resume and letter"
            why = stage.error_message or stage.error_code or stage.state
            raise JobctrlError(
                f"the {document} for job {job_id} was not written ({name}: {why}); "
                f"`jobctrl show {job_id}` says more, and asking again tries once more",
                code=stage.error_code or INVALID_INPUT,
            )


MAX_FILE_BYTES = 1_000_000  # an edited resume or letter is a few kilobytes


def _edit(ref: str, kind: str | None, text_file: Path | None, as_json: bool) -> None:
    """`jobctrl materials edit`: the text from ``text_file`` or from $EDITOR, saved."""
    if kind is None:
        raise JobctrlError("say which: --kind resume or --kind letter", code=INVALID_INPUT)
    if text_file is not None:
        if text_file.stat().st_size > MAX_FILE_BYTES:
            raise JobctrlError(
                f"{text_file} is too large for a resume or letter", code=INVALID_INPUT
            )
        try:
            text = text_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise JobctrlError(f"cannot read {text_file}: {exc}", code=INVALID_INPUT) from None
    else:
        current = app_edits.material_text(home(), ref, kind)
        edited = click.edit(current.text, extension=".md" if kind == "resume" else ".txt")
        if edited is None or edited == current.text:
            click.echo("no change: nothing saved", err=True)
            return
        text = edited
    result = app_edits.edit_material(home(), ref, kind, text)
    if as_json:
        echo_json(result)
        return
    click.echo(f"saved your {result.kind} as generation {result.generation} of job {result.job_id}")
    if result.passed:
        click.echo(
            f"every sentence is supported by your profile: approve it with "
            f"`jobctrl materials approve {result.job_id}`"
        )
        return
    count = len(result.findings)
    click.echo(
        f"{count} sentence{'s' if count != 1 else ''} your profile does not support "
        "(approval waits until you remove them or add the facts to your profile):"
    )
    for finding in result.findings:
        click.echo(f"  “{finding.sentence}”: it {finding.reason} ({finding.claim})")

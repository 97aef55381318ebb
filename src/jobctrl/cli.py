"""The jobctrl command line. Each command calls one application service.

Errors are mapped once, here: a ``JobctrlError`` prints ``error: <message>`` and exits with
its code (2 when no Temporal server can be reached); anything unexpected is written to
``logs/jobctrl.log`` in the home and reported in one line, never as a traceback.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from jobctrl import __version__, services
from jobctrl.domain.errors import JobctrlError, StageError
from jobctrl.home import Home

F = TypeVar("F", bound=Callable[..., Any])


def _home() -> Home:
    return Home.resolve()


def _echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, default=str))


def handle_errors(fn: F) -> F:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except JobctrlError as exc:
            click.echo(f"error: {exc.message}", err=True)
            sys.exit(exc.exit_code)
        except StageError as exc:
            click.echo(f"error: {exc.code}: {exc.message}", err=True)
            sys.exit(1)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            sys.exit(130)
        except Exception as exc:
            path = _home().log_exception(exc)
            where = f" (details in {path})" if path else ""
            click.echo(f"error: unexpected internal error{where}", err=True)
            sys.exit(1)

    return wrapper  # type: ignore[return-value]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="jobctrl")
def main() -> None:
    """jobctrl: discover, read, score and prepare job applications, durably.

    Files live in JOBCTRL_HOME (default: the platform's user data dir). Run
    `jobctrl init`, then `jobctrl worker` in one terminal and `jobctrl add URL` in another.
    """


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@handle_errors
def init(as_json: bool) -> None:
    """Create the home: a commented config.yaml and the database."""
    result = services.init_home(_home())
    if as_json:
        _echo_json(result)
        return
    verb = "wrote" if result["configCreated"] else "kept existing"
    click.echo(f"{verb} {result['config']}")
    click.echo(f"database ready at {result['database']}")
    click.echo("next: edit your profile in config.yaml, then run `jobctrl worker`")


def _profile_hint() -> None:
    """Say so when scores mean little because the profile is still empty."""
    from jobctrl.config import load_config

    try:
        profile = load_config(_home()).profile
    except JobctrlError:
        return
    if not profile.skills and not profile.experience:
        click.echo(
            "note: the profile in config.yaml has no skills or experience yet, so fit "
            "scores are low; fill it in before adding jobs",
            err=True,
        )


def _stage_summary(stages: list[dict[str, Any]]) -> str:
    parts = []
    for st in stages:
        text = f"{st['stage']}={st['state']}"
        if st.get("errorCode"):
            text += f"({st['errorCode']})"
        parts.append(text)
    return " ".join(parts)


@main.command()
@click.argument("url")
@click.option("--wait", is_flag=True, help="Wait until the job is enriched and scored.")
@click.option("--timeout", default=300.0, show_default=True, help="Seconds to wait with --wait.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (jobId, stages, …).")
@handle_errors
def add(url: str, wait: bool, timeout: float, as_json: bool) -> None:
    """Add a posting URL and start preparing it (Enrich, then Score).

    The same posting added twice (also with tracking parameters or a trailing slash) is
    one job with one workflow.
    """
    view = asyncio.run(services.add_job(_home(), url, wait=wait, wait_timeout=timeout))
    if as_json:
        _echo_json(view)
        return
    state = "added" if view["created"] else "already known"
    click.echo(f"{view['jobId']}  {state}: {view['url']}")
    click.echo(f"  stages: {_stage_summary(view['stages'])}")
    if view["title"] or view["score"] is not None:
        click.echo(f"  {view['title'] or '?'} at {view['company'] or '?'}; score {view['score']}")
    for st in view["stages"]:
        if st.get("errorMessage"):
            click.echo(f"  {st['stage']} failed: {st['errorCode']}: {st['errorMessage']}")


@main.command()
@click.argument("job")
@click.option("--stage", default=None, help="The failed stage to run again (default: the first).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@handle_errors
def retry(job: str, stage: str | None, as_json: bool) -> None:
    """Run a job's failed stage again, and the stages after it.

    A worker must be running (`jobctrl up`); without one nothing is changed (exit 2).
    """
    result = asyncio.run(services.retry_stage(_home(), job, stage))
    if as_json:
        _echo_json(result)
    else:
        click.echo(f"{result['jobId']}: retrying {result['stage']} ({result['workflowId']})")


@main.command("jobs")
@click.option("--json", "as_json", is_flag=True, help="Print the jobs as a JSON array.")
@handle_errors
def jobs_cmd(as_json: bool) -> None:
    """List jobs, best fit first."""
    rows = services.list_jobs(_home())
    if as_json:
        _echo_json(rows)
        return
    if not rows:
        click.echo("no jobs yet; add one with `jobctrl add URL`")
        return
    _profile_hint()
    click.echo(f"{'JOB':<12}  {'SCORE':>5}  {'STATUS':<19}  {'TITLE':<38}  COMPANY")
    for r in rows:
        score = "" if r["score"] is None else str(r["score"])
        status = r["status"] + (f" {r['errorCode']}" if r["errorCode"] else "")
        title = (r["title"] or r["url"])[:38]
        click.echo(f"{r['jobId']:<12}  {score:>5}  {status:<19}  {title:<38}  {r['company'] or ''}")


def _salary_text(salary: dict[str, Any]) -> str:
    amounts = [f"{v:,.0f}" for v in (salary["min"], salary["max"]) if v is not None]
    span = amounts[0] if len(set(amounts)) == 1 else "–".join(amounts)
    period = {"YEAR": "a year", "MONTH": "a month", "HOUR": "an hour"}.get(
        (salary["period"] or "").upper(), salary["period"] or ""
    )
    return " ".join(part for part in (span, salary["currency"] or "", period) if part)


@main.command()
@click.argument("job")
@click.option("--json", "as_json", is_flag=True, help="Print the job as JSON.")
@handle_errors
def show(job: str, as_json: bool) -> None:
    """Show one job: posting fields, stages (with errors) and the fit report."""
    view = services.show_job(_home(), job)
    if as_json:
        _echo_json(view)
        return
    click.echo(f"{view['jobId']}  {view['title'] or '(no title yet)'}")
    for label, key in (
        ("company", "company"),
        ("location", "location"),
        ("url", "url"),
        ("apply", "applyUrl"),
        ("posted", "datePosted"),
        ("valid through", "validThrough"),
    ):
        if view.get(key):
            click.echo(f"  {label:<14}{view[key]}")
    if view["remote"] is not None:
        click.echo(f"  {'remote':<14}{'yes' if view['remote'] else 'no'}")
    if view["salary"]:
        click.echo(f"  {'salary':<14}{_salary_text(view['salary'])}")
    click.echo(f"  {'status':<14}{view['status']}")
    click.echo("  stages:")
    for st in view["stages"]:
        line = f"    {st['stage']:<7} {st['state']:<10} attempts={st['attempts']}"
        if st["errorCode"]:
            line += f"  {st['errorCode']}"
            if st["errorMessage"]:
                line += f": {st['errorMessage']}"
            if st["retryable"] is not None and st["state"] == "failed":
                line += " (retryable)" if st["retryable"] else " (not retryable)"
        click.echo(line)
    report = view["scoreReport"]
    if report:
        _profile_hint()
        click.echo(
            f"  fit: {report['score']}/100 — {report['verdict']}. {report.get('summary', '')}"
        )
        for item in report["requirements"]:
            mark = "✓" if item["matched"] else "✗"
            click.echo(f"    {mark} [{item['kind']}] {item['requirement']}")
            for ev in item["evidence"][:2]:
                click.echo(f"        ↳ {ev['source']}: {ev['text'][:90]}")


@main.command()
@click.option("--follow", "-f", is_flag=True, help="Keep printing new events as they happen.")
@click.option("--after", default=0, show_default=True, help="Only events after this sequence.")
@click.option("--job", "job_ref", default=None, help="Only events of this job.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per line.")
@handle_errors
def events(follow: bool, after: int, job_ref: str | None, as_json: bool) -> None:
    """Print the event log (append-only), oldest first."""
    from jobctrl.domain.events import summary_fields
    from jobctrl.store import jobs as jobs_store
    from jobctrl.store.store import Store

    store = Store.open(_home())
    job_id = jobs_store.resolve_job_id(store, job_ref) if job_ref else None
    position = after
    try:
        while True:
            batch = store.events_after(position)
            for e in batch:
                position = e["seq"]
                if job_id and e["job_id"] != job_id:
                    continue
                if as_json:
                    click.echo(
                        json.dumps(
                            {
                                "seq": e["seq"],
                                "type": e["type"],
                                "jobId": e["job_id"],
                                "occurredAt": e["occurred_at"].isoformat(),
                                "payload": e["payload"],
                            }
                        )
                    )
                else:
                    brief = " ".join(f"{k}={v}" for k, v in summary_fields(e["payload"]).items())
                    when = e["occurred_at"].strftime("%H:%M:%S")
                    click.echo(
                        f"{e['seq']:>6} {when} {e['type']:<18} {e['job_id'] or '':<12} {brief}"
                    )
            if not follow:
                break
            if not batch:
                time.sleep(0.5)
    except KeyboardInterrupt:
        pass


@main.group()
def settings() -> None:
    """Show or change runtime settings (budget, thresholds, fetch rules)."""


@settings.command("get")
@click.argument("key", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@handle_errors
def settings_get(key: str | None, as_json: bool) -> None:
    """Print one setting, or all of them with their descriptions."""
    from jobctrl.store.settings import SPECS, Settings
    from jobctrl.store.store import Store

    store = Store.open(_home())
    values = {key: Settings(store).get(key)} if key else Settings(store).all()
    if as_json:
        _echo_json(values if not key else {"key": key, "value": values[key]})
    elif key:
        click.echo(json.dumps(values[key]))
    else:
        for k, v in values.items():
            click.echo(f"{k} = {json.dumps(v)}")
            click.echo(f"    {SPECS[k].help}")


@settings.command("set", context_settings={"ignore_unknown_options": True})
@click.argument("key")
@click.argument("value")
@handle_errors
def settings_set(key: str, value: str) -> None:
    """Change a setting, e.g. `jobctrl settings set fetch.allow_hosts 127.0.0.1,intranet.local`."""
    from jobctrl.store.settings import Settings
    from jobctrl.store.store import Store

    store = Store.open(_home())
    parsed = Settings(store).set(key, value)
    click.echo(f"{key} = {json.dumps(parsed)}")


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@handle_errors
def spend(as_json: bool) -> None:
    """Today's estimated LLM spend per lane against the daily ceiling (UTC day)."""
    from jobctrl.llm.spend import SpendAuthority
    from jobctrl.store.settings import Settings
    from jobctrl.store.store import Store

    store = Store.open(_home())
    summary = SpendAuthority(store, Settings(store)).summary()
    if as_json:
        _echo_json(summary)
        return
    budget = summary["dailyBudgetUsd"]
    ceiling = "unlimited" if budget == 0 else f"${budget:.2f}"
    click.echo(f"{summary['day']} (UTC): ${summary['spentUsd']:.4f} of {ceiling} (estimate)")
    held = summary["openReservations"]
    mode = "strict: calls reserve their worst case" if summary["strict"] else "preflight only"
    click.echo(f"  open reservations: {held['count']} (${held['amountUsd']:.4f}); {mode}")
    limits = summary["laneTokenLimits"]
    if not summary["lanes"]:
        click.echo("  no provider usage recorded today")
    for lane in summary["lanes"]:
        limit = limits.get(lane["lane"]) or "unlimited"
        tokens = lane["inputTokens"] + lane["outputTokens"]
        click.echo(
            f"  {lane['lane']:<10} ${lane['costUsd']:.4f}  {tokens} tokens (limit {limit})"
            f"  {lane['calls']} calls"
        )


def _run_line(run: dict[str, Any]) -> str:
    progress = run.get("progress") or {"done": 0, "total": 0}
    text = f"{run['runId']}  {run['status']:<9} {progress['done']}/{progress['total']} steps"
    counts = run.get("counts") or {}
    for key in ("found", "accepted", "jobs_created", "duplicates", "preparations_started"):
        if counts.get(key):
            text += f"  {key.replace('_', ' ')}={counts[key]}"
    if run.get("errorCode"):
        text += f"  error={run['errorCode']}"
    return text


@main.command()
@click.option("--wait", is_flag=True, help="Wait until the run has finished.")
@click.option("--cancel", is_flag=True, help="Cancel the run in progress (results so far stay).")
@click.option("--timeout", default=1800.0, show_default=True, help="Seconds to wait with --wait.")
@click.option("--json", "as_json", is_flag=True, help="Print the run as JSON.")
@handle_errors
def discover(wait: bool, cancel: bool, timeout: float, as_json: bool) -> None:
    """Discover postings from the configured sources (`discover-local`).

    Each accepted new job starts its preparation at once. Running it while a run is in
    progress joins that run.
    """
    if cancel:
        result = asyncio.run(services.cancel_discovery(_home()))
        if as_json:
            _echo_json(result)
        else:
            click.echo(f"cancel requested for discovery run {result['runId']}")
        return
    run = asyncio.run(services.start_discovery(_home(), wait=wait, wait_timeout=timeout))
    if as_json:
        _echo_json(run)
        return
    click.echo(f"discovery {_run_line(run)}")


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print the runs as JSON.")
@handle_errors
def runs(as_json: bool) -> None:
    """List recent discovery runs with their progress and counts."""
    rows = services.discovery_runs(_home())
    if as_json:
        _echo_json(rows)
        return
    if not rows:
        click.echo("no discovery runs yet; start one with `jobctrl discover`")
    for run in rows:
        click.echo(_run_line(run))


@main.group()
def sources() -> None:
    """Manage where discovery looks (the `sources:` list in config.yaml)."""


@sources.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the sources as JSON.")
@handle_errors
def sources_list(as_json: bool) -> None:
    """List the configured sources."""
    rows = services.list_sources(_home())
    if as_json:
        _echo_json(rows)
        return
    if not rows:
        click.echo("no sources yet; add one with `jobctrl sources add greenhouse TOKEN`")
    for s in rows:
        extra = f"  ({s['base_url']})" if s.get("base_url") else ""
        off = "" if s.get("enabled", True) else "  [disabled]"
        click.echo(f"{s['kind']:<16} {s['name']}{extra}{off}")


@sources.command("add")
@click.argument("kind")
@click.argument("name")
@click.option("--base-url", default=None, help="A mirror or test server with the provider's paths.")
@handle_errors
def sources_add(kind: str, name: str, base_url: str | None) -> None:
    """Add a source. KIND: greenhouse, lever, ashby, workable, smartrecruiters, recruitee,
    feed (NAME = feed URL) or careers-page (NAME = page URL)."""
    entry = services.add_source(_home(), kind, name, base_url)
    click.echo(f"added {entry['kind']} source {entry['name']}")


@sources.command("remove")
@click.argument("name")
@handle_errors
def sources_remove(name: str) -> None:
    """Remove every source with this NAME."""
    services.remove_source(_home(), name)
    click.echo(f"removed {name}")


@sources.command("import-career-ops")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print what was imported as JSON.")
@handle_errors
def sources_import_career_ops(directory: Path, as_json: bool) -> None:
    """Bring a career-ops setup over: portals.yml companies become sources and the URL
    inbox in data/pipeline.md is added as jobs (when a worker is running)."""
    result = asyncio.run(services.import_career_ops(_home(), directory))
    if as_json:
        _echo_json(result)
        return
    click.echo(
        f"imported {len(result['sourcesAdded'])} sources "
        f"({result['sourcesSkipped']} already configured) and {len(result['jobsAdded'])} URLs"
    )


@main.command("materials")
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
        result = asyncio.run(services.regenerate_materials(_home(), args[1], wait=True))
        if as_json:
            _echo_json(result)
        else:
            click.echo(
                f"wrote generation {result['generation']} for job {result['jobId']}; "
                "approve it with `jobctrl materials approve JOB`"
            )
        return
    if len(args) == 2 and args[0] in ("approve", "reject"):
        result = services.decide_materials(_home(), args[1], args[0])
        if as_json:
            _echo_json(result)
        else:
            for item in result:
                click.echo(f"{item['kind']} generation {item['generation']}: {item['state']}")
        return
    if len(args) != 1:
        raise JobctrlError("use `jobctrl materials JOB` or `jobctrl materials approve|reject JOB`")
    rows = services.job_materials(_home(), args[0])
    if as_json:
        _echo_json(rows)
        return
    if not rows:
        click.echo("no materials yet (they are written after Score for jobs above min_fit_score)")
    for m in rows:
        click.echo(
            f"{m['kind']:<7} gen {m['generation']}  {m['approval']:<10} {m['pdfPath'] or ''}"
        )


@main.group()
def llm() -> None:
    """Choose the provider and model of each lane (score, tailor, cover, contact_research)."""


@llm.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the lanes as JSON.")
@handle_errors
def llm_list(as_json: bool) -> None:
    """Show each lane's provider and model, and whether its API key variable is set."""
    rows = services.list_lanes(_home())
    if as_json:
        _echo_json(rows)
        return
    for r in rows:
        where = f" at {r['baseUrl']}" if r["baseUrl"] else ""
        key = ""
        if r["apiKeyEnv"]:
            key = f"  key ${r['apiKeyEnv']} {'set' if r['apiKeySet'] else 'NOT SET'}"
        click.echo(f"{r['lane']:<17} {r['provider']:<9} {r['model']}{where}{key}")


@llm.command("set")
@click.argument("lane")
@click.argument("provider")
@click.argument("model")
@click.option("--base-url", default=None, help="An OpenAI-compatible server (Ollama, vLLM, …).")
@click.option("--api-key-env", default=None, help="The environment variable holding the key.")
@handle_errors
def llm_set(
    lane: str, provider: str, model: str, base_url: str | None, api_key_env: str | None
) -> None:
    """Set LANE to PROVIDER (offline, openai, anthropic) and MODEL, e.g.
    `jobctrl llm set score openai gpt-4o-mini` or, for a local Ollama,
    `jobctrl llm set tailor openai llama3.1 --base-url http://127.0.0.1:11434/v1`."""
    row = services.set_lane(_home(), lane, provider, model, base_url, api_key_env)
    click.echo(f"{row['lane']}: {row['provider']} {row['model']}")


@main.group()
def profile() -> None:
    """Show or import the candidate profile (versioned: work in flight keeps its version)."""


@profile.command("show")
@click.option("--json", "as_json", is_flag=True, help="Print the profile as JSON.")
@handle_errors
def profile_show(as_json: bool) -> None:
    """Show the current profile and its version."""
    result = services.show_profile(_home())
    if as_json:
        _echo_json(result)
        return
    p = result["profile"]
    click.echo(f"profile version {result['version']}: {p['name'] or '(no name)'}")
    click.echo(
        f"  {len(p['skills'])} skills, {len(p['experience'])} roles, "
        f"{len(p['education'])} education entries"
    )


@profile.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@handle_errors
def profile_import(file: Path, as_json: bool) -> None:
    """Replace the profile in config.yaml with a JSON Resume (resume.json) or RenderCV
    YAML file."""
    result = services.import_profile(_home(), file)
    if as_json:
        _echo_json(result)
        return
    click.echo(
        f"imported {result['name']}: {result['skills']} skills, {result['experience']} roles, "
        f"{result['education']} education entries (profile version {result['version']})"
    )


@main.group()
def projections() -> None:
    """Maintain the read models folded from the event log."""


@projections.command("rebuild")
@handle_errors
def projections_rebuild() -> None:
    """Drop every projection and fold the whole event log again."""
    result = services.rebuild_projections(_home())
    click.echo(f"rebuilt projections from {result['eventsFolded']} events")


def _run_worker_cmd(app: tuple[str, int] | None = None) -> None:
    from jobctrl.worker.run import run_worker

    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(message)s")
    home = _home()
    alongside = None
    if app is not None:
        from jobctrl.api.server import bind, serve_app

        sock = bind(*app)  # before anything starts: a taken port is a clean error

        def app_ready(url: str) -> None:
            click.echo(f"jobctrl is up: {url}  (API token in {home.token_path})")

        async def alongside(stop: asyncio.Event) -> None:
            await serve_app(home, sock, stop, on_ready=app_ready)

    def ready(address: str) -> None:
        click.echo(f"worker ready: Temporal at {address}, home {home.root} (Ctrl-C to stop)")

    asyncio.run(run_worker(home, on_ready=ready, alongside=alongside))
    click.echo("stopped")


@main.command()
@handle_errors
def worker() -> None:
    """Run the worker (and the embedded Temporal server) until Ctrl-C / SIGTERM."""
    _run_worker_cmd()


@main.command()
@click.option("--port", default=8765, show_default=True, help="Port of the web app (0: any).")
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on; keep it loopback unless you know why not.",
)
@handle_errors
def up(port: int, host: str) -> None:
    """Run the worker, its Temporal server and the web app; prints the app's URL."""
    if host not in ("127.0.0.1", "::1", "localhost"):
        click.echo(f"warning: listening on {host}, not loopback", err=True)
    _run_worker_cmd(app=(host, port))


@main.command("demo-boards")
@click.option("--port", default=8766, show_default=True, help="Loopback port to serve on.")
@handle_errors
def demo_boards(port: int) -> None:
    """Serve demo job boards (Greenhouse, Lever and Ashby shapes) on 127.0.0.1."""
    from jobctrl.demo.boards import serve_forever

    serve_forever(port)


@main.command()
@click.option("--keep", is_flag=True, help="Keep running after the demo until Ctrl-C.")
@click.option(
    "--serve",
    "serve_port",
    type=int,
    default=None,
    help="End by serving the web app on this port until Ctrl-C (make demo uses 8765).",
)
@handle_errors
def demo(keep: bool, serve_port: int | None) -> None:
    """Run the demo: serve sample postings on loopback and prepare them end to end."""
    from jobctrl.demo.run import run_demo

    asyncio.run(run_demo(_home(), echo=click.echo, keep=keep, serve_port=serve_port))


def run() -> None:
    """The console entry point: ``main``, then ``os._exit`` with its exit code.

    The Temporal SDK's Rust threads can call into the interpreter while it finalizes and
    abort a command that had already finished (temporalio/sdk-python#300: "PyGILState_Release
    ... finalizing", exit 134). Everything a command writes is committed before it returns,
    and the worker stops its own server first, so skipping the teardown loses nothing.
    """
    try:
        main()
        code: int = 0
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            code = exc.code or 0
        else:
            click.echo(exc.code, err=True)
            code = 1
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    run()

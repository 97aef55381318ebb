"""`jobctrl apply JOB --browser`: prefill the job's application form and hand it to the
person, recording what came of it on the job's application.

The form is ``--url``, else the form recorded on the application, else the posting's
application URL, else the posting itself. A real run needs the approved resume PDF (and
the letter, when approved) and a posting not confirmed closed; it records a browser
attempt (at most one live per application), ``prefilled`` (or failed, with the code) at
hand-over, and ``submitted`` when the person's submission is seen — closing the window
records nothing more, and the person may `jobctrl apply resolve JOB submitted|abandoned`.
A dry run fills the form headless with the approved (else newest) PDFs, keeps a
screenshot as an artifact and records nothing on the application.

A form's cover letter box gets the letter's text (the generation whose PDF is attached).
The PDFs are copied under their readable names (``stages.material_files``) into a
temporary directory that lives as long as the browser: a form reads its files when the
person submits it.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Self
from urllib.parse import urlsplit

from jobctrl import config as config_file
from jobctrl.app.models import View
from jobctrl.domain import errors
from jobctrl.domain.applications import Channel
from jobctrl.domain.clock import Clock
from jobctrl.domain.errors import JobctrlError
from jobctrl.domain.extension import apply_on_site
from jobctrl.domain.materials import CoverLetter, MaterialKind
from jobctrl.domain.processes import process_owner
from jobctrl.home import Home
from jobctrl.stages.apply_browser import Handover, PrefillRequest, PrefillResult, prefill_form
from jobctrl.stages.apply_checks import check_not_done, check_posting_open
from jobctrl.stages.apply_email import settle_dead_prefills
from jobctrl.stages.context import fetch_policy
from jobctrl.stages.material_files import MaterialFile, material_files
from jobctrl.store import applications, apply_attempts, artifacts, jobs
from jobctrl.store import materials as stored_materials
from jobctrl.store.settings import Settings
from jobctrl.store.store import Store

__all__ = [
    "AttachedFile",
    "FilledField",
    "FormResult",
    "OnHandover",
    "PrefillView",
    "Screenshot",
    "UnfilledField",
    "prefill",
    "settle_dead_prefills",
]


class FilledField(View):
    """A form field filled from the profile, with the value typed or chosen."""

    field: str
    name: str
    slot: str | None
    value: str


class UnfilledField(View):
    """A form field left for the person, and why (``no_answer``, ``consent``, …)."""

    field: str
    name: str
    slot: str | None
    reason: str


class AttachedFile(View):
    """A PDF attached to a form's file field, under its readable name."""

    field: str
    name: str
    slot: str | None
    file: str
    size: int


class FormResult(View):
    """What a prefill came to: ``status`` prefilled, captcha, form_unavailable, submitted
    or closed (``handed_over``: the status at hand-over), the fields filled with their
    values, those left, the files attached, and the counts of what the guard kept out."""

    status: str
    code: str | None
    url: str
    handed_over: str | None
    filled: list[FilledField]
    left: list[UnfilledField]
    files: list[AttachedFile]
    hidden_skipped: int
    requests_blocked: int
    requests_refused: int
    elapsed_ms: int
    challenge: str | None

    @classmethod
    def of(cls, result: PrefillResult, **more: Any) -> Self:
        """The stage's result as the person and scripts see it (no file bytes, no
        screenshot), with ``more`` fields of a subclass."""
        return cls(
            status=result.status,
            code=result.code,
            url=result.url,
            handed_over=result.handed_over,
            filled=[FilledField.model_validate(f) for f in result.filled],
            left=[UnfilledField.model_validate(f) for f in result.left],
            files=[AttachedFile.model_validate(f) for f in result.files],
            hidden_skipped=result.hidden_skipped,
            requests_blocked=result.requests_blocked,
            requests_refused=result.requests_refused,
            elapsed_ms=result.elapsed_ms,
            challenge=result.challenge,
            **more,
        )


class Screenshot(View):
    """A dry run's screenshot, kept as an artifact."""

    artifact_id: str
    media_type: str
    size: int
    path: str


class PrefillView(FormResult):
    """A prefill of a job's form as `jobctrl apply JOB --browser` prints it: the result,
    the job, the application it was recorded on (None for a dry run) and a dry run's
    screenshot."""

    job_id: str
    application_id: str | None
    dry_run: bool
    screenshot: Screenshot | None


# Told at hand-over: the result so far and the browser page (tests act on it).
OnHandover = Callable[[FormResult, Any], None]
WATCH_SECONDS = 4 * 3600.0  # how long the person has to submit the form in the window
DOCUMENT_SLOTS = {MaterialKind.RESUME.value: "resume", MaterialKind.COVER.value: "cover_letter"}


def _form_url(job: dict[str, Any], row: dict[str, Any] | None, url: str | None) -> str:
    for candidate in (url, (row or {}).get("form_url"), job.get("apply_url"), job.get("url")):
        if candidate and urlsplit(str(candidate)).scheme in ("http", "https"):
            if candidate != url and apply_on_site(str(candidate)):
                # The site's own form (Easy Apply): the person applies there, terminal.
                raise JobctrlError(
                    f"job {job['id']} is applied to on its site's own form (LinkedIn Easy "
                    "Apply, Indeed): open the posting and apply there; jobctrl does not "
                    "fill it (--url names another form)",
                    code=errors.APPLY_ON_SITE,
                )
            return str(candidate)
        if candidate and candidate == url:
            raise JobctrlError("--url must be an http(s) address", code=errors.INVALID_INPUT)
    raise JobctrlError(
        f"job {job['id']} has no application form to open: add --url FORM_URL",
        code=errors.APPLY_NO_FORM_URL,
    )


def _files(store: Store, job_id: str, dry_run: bool) -> list[MaterialFile]:
    files = material_files(store, job_id, approved_only=not dry_run)
    if not dry_run and not any(f.kind == MaterialKind.RESUME for f in files):
        raise JobctrlError(
            f"job {job_id} has no approved resume PDF: check its materials and "
            "`jobctrl materials approve JOB` first",
            code=errors.APPLY_MATERIALS_NOT_APPROVED,
        )
    return files


def _letter_text(store: Store, job_id: str, files: list[MaterialFile]) -> str | None:
    """The cover letter as text (for a form's cover letter box): the generation whose PDF
    is attached."""
    cover = next((f for f in files if f.kind == MaterialKind.COVER), None)
    if cover is None:
        return None
    for row in stored_materials.list_materials(store, job_id):
        if row["kind"] == cover.kind and row["generation"] == cover.generation:
            letter = CoverLetter.model_validate(row["content"])
            body = "\n\n".join([letter.greeting, *letter.paragraph_texts(), letter.closing])
            return f"{body}\n{letter.signature}"
    return None


def _start(
    store: Store, job: dict[str, Any], form_url: str, clock: Clock | None
) -> tuple[str, str]:
    """Record the browser attempt (refused while another is live); (application, attempt)."""
    score = jobs.score_row(store, job["id"])
    with store.write(clock=clock) as tx:
        row = applications.ensure_for_job(
            tx,
            job["id"],
            company=job.get("company"),
            role=job.get("title"),
            url=job.get("url"),
            score=score["score"] if score else None,
        )
        check_not_done(row)
        check_posting_open(tx, row)
        if row["channel"] != Channel.BROWSER or row["form_url"] != form_url:
            applications.set_channel(tx, row["id"], Channel.BROWSER.value, form_url=form_url)
        attempt = apply_attempts.start_attempt(
            tx, row["id"], kind=Channel.BROWSER.value, owner=process_owner()
        )
    return row["id"], attempt


def _record(
    store: Store, attempt: str | None, result: PrefillResult, clock: Clock | None
) -> str | None:
    if attempt is None:
        return None
    with store.write(clock=clock) as tx:
        return applications.record_browser_result(
            tx, attempt, result.status, code=result.code,
            filled=len(result.filled) + len(result.files), left=len(result.left),
        )  # fmt: skip


def _screenshot(store: Store, png: bytes | None, clock: Clock | None) -> Screenshot | None:
    if png is None:
        return None
    sha = store.artifacts.put(png)
    with store.write(clock=clock) as tx:
        artifacts.record(tx, sha, "apply_screenshot", "image/png", len(png))
    path = str(store.artifacts.path_for(sha))
    return Screenshot(artifact_id=sha, media_type="image/png", size=len(png), path=path)


def prefill(
    home: Home,
    job_ref: str,
    *,
    url: str | None = None,
    dry_run: bool = False,
    headless: bool | None = None,
    on_handover: OnHandover | None = None,
    watch_seconds: float | None = None,
    clock: Clock | None = None,
) -> PrefillView:
    """Prefill job ``job_ref``'s application form; the result (``status``: prefilled,
    captcha, form_unavailable, submitted or closed; the fields filled with their values,
    those left, the files attached, the screenshot artifact of a dry run)."""
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, job_ref)
    job = jobs.job_row(store, job_id)
    form_url = _form_url(job, applications.get(store, job_id), url)
    files = _files(store, job_id, dry_run)
    profile = config_file.load_config(home).profile
    policy = fetch_policy(Settings(store))
    app_id = attempt = None
    if not dry_run:
        settle_dead_prefills(store, clock=clock)
        app_id, attempt = _start(store, job, form_url, clock)

    def handed(handover: Handover) -> None:
        _record(store, attempt, handover.result, clock)
        if on_handover:
            on_handover(FormResult.of(handover.result), handover.page)

    with tempfile.TemporaryDirectory(prefix="jobctrl-apply-") as tmp:
        documents: dict[str, str] = {}
        for f in files:
            target = Path(tmp) / f.name
            shutil.copyfile(f.source, target)
            documents[DOCUMENT_SLOTS[f.kind]] = str(target)
        letter = _letter_text(store, job_id, files)
        if letter:
            documents["cover_letter_text"] = letter
        request = PrefillRequest(
            form_url, profile, documents, allow_hosts=policy.allow_hosts, dry_run=dry_run,
            headless=dry_run if headless is None else headless,
            timeout_seconds=policy.timeout_seconds,
            watch_seconds=watch_seconds or WATCH_SECONDS,
            linger_seconds=0.0 if (headless or dry_run) else 3.0,
        )  # fmt: skip
        try:
            result = prefill_form(request, on_handover=handed)
        except BaseException as exc:  # no browser, Ctrl-C while filling, or a bug
            code = (
                exc.code
                if isinstance(exc, JobctrlError)
                else errors.APPLY_PREFILL_INTERRUPTED
                if isinstance(exc, KeyboardInterrupt)
                else errors.INTERNAL_ERROR
            )
            _record(store, attempt, PrefillResult("form_unavailable", code), clock)
            raise
    if result.status in ("form_unavailable", "submitted"):
        _record(store, attempt, result, clock)
    return PrefillView.of(
        result,
        job_id=job_id,
        application_id=app_id,
        dry_run=dry_run,
        screenshot=_screenshot(store, result.screenshot, clock),
    )

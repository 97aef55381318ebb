"""Browser prefills started over HTTP (the Apply page's "Open the form in a browser" and
"Dry run" buttons, ``POST /v1/apply/{job}/browser``): ``app.apply_browser.prefill`` run so
a request never waits on the person.

- One prefill per job at a time in this process: a second start while one runs (a dry run,
  or a window still open) is refused with ``APPLY_ATTEMPT_LIVE`` (409). (The store refuses a
  second live browser attempt across processes as well.)
- A dry run runs to its end in the caller's thread (the API runs it in its thread pool):
  the fields filled and left, and the screenshot artifact.
- A real run needs a display (``APPLY_NO_DISPLAY`` before anything is recorded); it runs in
  its own thread, and the call returns at hand-over — the window is the person's from then
  on (``watching: true``), and their submission is recorded when it is seen — or with the
  result when it ended before (the form could not be used), or after ``HANDOVER_SECONDS``
  with ``status: "opening"``.

Each result carries ``message``: one sentence for the page (counts and codes, no values).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from jobctrl.app.apply_browser import FormResult, PrefillView, prefill
from jobctrl.app.models import View
from jobctrl.domain.errors import APPLY_ATTEMPT_LIVE, APPLY_NO_DISPLAY, JobctrlError
from jobctrl.home import Home
from jobctrl.stages.apply_browser import display_available
from jobctrl.store import jobs
from jobctrl.store.store import Store

__all__ = ["FormHandedOver", "FormOpening", "FormRun", "open_form", "running"]

log = logging.getLogger("jobctrl.apply")

HANDOVER_SECONDS = 120.0  # how long a request waits for the window to be handed over
WINDOW_HEADLESS = False  # tests run the "window" headless
WATCH_SECONDS: float | None = None  # how long the person has (None: the default, 4 h)

_lock = threading.Lock()
# (home, tenant, job id) with a prefill under way
_running: set[tuple[str, str, str]] = set()


class FormRun(PrefillView):
    """A prefill that ended (a dry run, or a form that could not be used before the
    window was handed over), with ``message``: one sentence for the page."""

    watching: bool
    message: str


class FormHandedOver(FormResult):
    """A window handed over to the person (``watching``: their submission is recorded
    when it is seen)."""

    job_id: str
    dry_run: bool
    watching: bool
    message: str


class FormOpening(View):
    """A window still opening after ``HANDOVER_SECONDS``."""

    job_id: str
    status: str
    watching: bool
    message: str


OPENING = "the browser window is still opening"


def running(home: Home) -> list[str]:
    """The jobs of ``home``'s tenant with a prefill under way in this process."""
    with _lock:
        return sorted(job for root, tenant, job in _running if (root, tenant) == _at(home))


def _at(home: Home) -> tuple[str, str]:
    return str(home.root), home.tenant


def _claim(home: Home, job_id: str) -> tuple[str, str, str]:
    key = (*_at(home), job_id)
    with _lock:
        if key in _running:
            raise JobctrlError(
                f"a browser prefill of job {job_id} is already under way: finish it in its "
                "window (or wait for the dry run) first",
                code=APPLY_ATTEMPT_LIVE,
            )
        _running.add(key)
    return key


def _release(key: tuple[str, str, str]) -> None:
    with _lock:
        _running.discard(key)


def _message(result: FormResult, *, dry_run: bool) -> str:
    filled = len(result.filled) + len(result.files)
    left = len(result.left)
    status = result.handed_over or result.status
    if status == "captcha":
        return "a challenge to solve is on the form: handed to you as it is, nothing filled"
    if status == "form_unavailable":
        return f"the application form could not be used ({result.code})"
    said = f"{filled} field(s) filled, {left} left for you"
    if result.challenge == "invisible":
        said += "; an invisible CAPTCHA runs when you submit"
    if dry_run:
        return f"dry run: {said}; screenshot kept, nothing submitted"
    if result.status == "submitted":
        return f"{said}; your submission was seen and recorded"
    return f"{said}: check the form in its window and submit it yourself"


def _ended(result: PrefillView) -> FormRun:
    message = _message(result, dry_run=result.dry_run)
    return FormRun(**result.model_dump(by_alias=False), watching=False, message=message)


def open_form(
    home: Home,
    job_ref: str,
    *,
    url: str | None = None,
    dry_run: bool = False,
    screen_of: str | None = None,
) -> FormRun | FormHandedOver | FormOpening:
    """Prefill job ``job_ref``'s application form (see the module docstring).
    ``screen_of``: the tenant whose screen a window would open on (the web app's own; None
    where the caller is at the screen, the CLI): another tenant gets dry runs only."""
    if not dry_run and screen_of is not None and home.tenant != screen_of:
        raise JobctrlError(
            "a real run opens its window on the server's screen, which is not yours:"
            " ask for a dry run (dryRun: true)",
            code=APPLY_NO_DISPLAY,
        )
    job_id = jobs.resolve_job_id(Store.open(home), job_ref)
    headless = True if dry_run else WINDOW_HEADLESS
    if not headless and not display_available():
        raise JobctrlError(
            "no display for a browser window where jobctrl runs: use the dry run, or "
            f"`jobctrl apply {job_id} --browser` on a machine with a screen",
            code=APPLY_NO_DISPLAY,
        )
    key = _claim(home, job_id)
    if dry_run:
        try:
            result = prefill(home, job_id, url=url, dry_run=True)
        finally:
            _release(key)
        return _ended(result)
    return _open_window(home, job_id, key, url, headless)


def _open_window(
    home: Home, job_id: str, key: tuple[str, str, str], url: str | None, headless: bool
) -> FormRun | FormHandedOver | FormOpening:
    told = threading.Event()
    box: dict[str, Any] = {}

    def handed_over(result: FormResult, page: Any) -> None:
        said = _message(result, dry_run=False)
        fields = result.model_dump(by_alias=False)
        handed = FormHandedOver(**fields, job_id=job_id, dry_run=False, watching=True, message=said)
        box.setdefault("result", handed)
        told.set()

    def work() -> None:
        try:
            final = prefill(
                home, job_id, url=url, headless=headless, on_handover=handed_over,
                watch_seconds=WATCH_SECONDS,
            )  # fmt: skip
            box.setdefault("result", _ended(final))
        except BaseException as exc:  # recorded on the application by prefill itself
            box.setdefault("error", exc)
            if not told.is_set():
                log.warning("browser prefill of job %s stopped before hand-over", job_id)
        finally:
            _release(key)
            told.set()

    threading.Thread(target=work, name=f"jobctrl-prefill-{job_id}", daemon=True).start()
    told.wait(HANDOVER_SECONDS)
    if "result" in box:
        done: FormRun | FormHandedOver = box["result"]
        return done
    error = box.get("error")
    if isinstance(error, Exception):
        raise error
    return FormOpening(job_id=job_id, status="opening", watching=True, message=OPENING)

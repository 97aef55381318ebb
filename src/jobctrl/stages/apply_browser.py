"""Browser prefill: open an application form in Chromium, fill it from the profile, stop
for the person. The program never submits.

``prefill_form`` drives Debian's Chromium through Playwright (sync API; run it off any
asyncio loop, e.g. in a thread):

1. the form URL must be http(s) to a public address (or a host in ``fetch.allow_hosts``);
   every request the page makes is held to the same rule (``browser_guard``);
2. the page loads under the guard: until hand-over no form submission, non-GET request or
   top-level navigation leaves the browser (``browser_guard.NetworkGuard``, plus
   ``form_page.js`` cancelling submit events);
3. a CAPTCHA or bot challenge the person must solve (a visible widget or a challenge
   page, ``form_page.js`` ``captcha``) stops it here: status ``captcha``, code
   ``APPLY_CAPTCHA``, nothing filled; the challenge is the person's to answer, never the
   program's. An invisible one only (a reCAPTCHA v3/Enterprise or invisible hCaptcha
   script and badge, as Greenhouse and Lever load on every form) does not stop it: the
   result says ``challenge: "invisible"`` and the person's own submit click runs it;
4. every usable field of every frame is read (``form_page.js`` ``scan``: hidden and trap
   fields are never returned), matched to the profile (``domain.form_fill.plan``) and
   filled: text typed, options chosen by their text, the resume and letter PDFs attached;
5. the page is read again: the required fields still empty are listed for the person, and
   the first of them (else the submit button) is scrolled into view;
6. ``dry_run``: a full-page screenshot (PNG bytes in the result), then the browser closes.
   Otherwise the guard is lifted, ``on_handover`` is told (the CLI prints what was done),
   and the window stays the person's: their submission (``SubmissionWatch``) ends it as
   ``submitted``; closing the window without one, or ``watch_seconds`` passing, as ``closed``.

The result holds the fields filled with their values, those left, the files attached (name
and size, never bytes), counts of hidden fields skipped and requests stopped, and the code.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, Frame, Locator, Page, sync_playwright
from playwright.sync_api import Error as PlaywrightError

from jobctrl.domain.errors import (
    APPLY_BROWSER_UNAVAILABLE,
    APPLY_CAPTCHA,
    APPLY_FORM_UNAVAILABLE,
    APPLY_NO_DISPLAY,
    APPLY_NO_FORM,
    DETAIL_UNSAFE_URL,
    JobctrlError,
)
from jobctrl.domain.form_fill import Action, FormField, Option, plan
from jobctrl.domain.profile import Profile
from jobctrl.stages.browser_guard import NetworkGuard, SubmissionWatch

__all__ = [
    "CHROMIUM",
    "Handover",
    "PrefillRequest",
    "PrefillResult",
    "display_available",
    "prefill_form",
]

CHROMIUM = Path(os.environ.get("JOBCTRL_CHROMIUM", "/usr/bin/chromium"))
_SCRIPT = Path(__file__).with_name("form_page.js").read_text(encoding="utf-8")
_ARGS = [
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-quic",
]


@dataclass(frozen=True)
class PrefillRequest:
    url: str
    profile: Profile
    documents: dict[str, str] = field(default_factory=dict)  # resume/cover_letter → path
    allow_hosts: frozenset[str] = frozenset()
    dry_run: bool = False
    headless: bool = True
    timeout_seconds: float = 20.0  # the form page's load
    render_seconds: float = 5.0  # how long a single-page app may take to show its form
    watch_seconds: float = 4 * 3600.0  # how long the person has after hand-over
    linger_seconds: float = 0.0  # how long the window stays after a submission is seen


@dataclass
class PrefillResult:
    status: str  # prefilled | captcha | form_unavailable | submitted | closed
    code: str | None = None
    url: str = ""
    handed_over: str | None = None  # the status at hand-over (prefilled or captcha)
    filled: list[dict[str, Any]] = field(default_factory=list)
    left: list[dict[str, Any]] = field(default_factory=list)
    files: list[dict[str, Any]] = field(default_factory=list)
    hidden_skipped: int = 0
    requests_blocked: int = 0
    requests_refused: int = 0
    elapsed_ms: int = 0
    screenshot: bytes | None = None
    challenge: str | None = None  # "visible" (stopped), "invisible" (left to the submit)


@dataclass
class Handover:
    """What the person gets: the result so far and the page (tests act as the person)."""

    result: PrefillResult
    page: Page


def display_available() -> bool:
    """Whether a visible browser window can open here (an X11 or Wayland display)."""
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def prefill_form(
    request: PrefillRequest, *, on_handover: Callable[[Handover], None] | None = None
) -> PrefillResult:
    """Open, fill and hand over (or, for a dry run, screenshot and close) one form."""
    started = time.monotonic()
    guard = NetworkGuard(request.allow_hosts, timeout_seconds=request.timeout_seconds)
    if not guard.allowed(request.url):
        return PrefillResult("form_unavailable", DETAIL_UNSAFE_URL, url=request.url)
    if not CHROMIUM.exists():
        raise JobctrlError(
            f"no Chromium at {CHROMIUM}: install Debian's chromium package (or set "
            "JOBCTRL_CHROMIUM)",
            code=APPLY_BROWSER_UNAVAILABLE,
        )
    headless = request.headless or request.dry_run
    if not headless and not display_available():
        raise JobctrlError(
            "no display for a browser window here; try --dry-run", code=APPLY_NO_DISPLAY
        )
    with sync_playwright() as p:
        args = [*_ARGS, *(["--no-sandbox"] if os.geteuid() == 0 else [])]
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=headless, args=args)
        try:
            context = browser.new_context(
                service_workers="block",  # a service worker's requests are not routed
                accept_downloads=False,
                **(
                    {"viewport": {"width": 1280, "height": 900}}
                    if headless
                    else {"no_viewport": True}
                ),
            )
            context.route("**/*", guard.route)
            flag = f"__jobctrl_{secrets.token_hex(8)}"  # a page cannot guess it to lift the guard
            context.add_init_script(f"({_SCRIPT}).guard({json.dumps(flag)})")
            result = _fill(context, request, guard)
            result.requests_blocked = guard.blocked
            result.requests_refused = guard.refused
            result.elapsed_ms = int((time.monotonic() - started) * 1000)
            if result.status == "form_unavailable" or request.dry_run:
                return result
            return _hand_over(context, request, guard, flag, result, on_handover)
        finally:
            browser.close()


def _evaluate(frame: Frame, name: str, arg: Any = None) -> Any:
    return frame.evaluate(f"(arg) => ({_SCRIPT}).{name}(arg)", arg)


class _Form:
    """The form's page and its frames; a field's mark says which frame it is in."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.frames: dict[str, Frame] = {}
        self._tags = 0

    def each(self, name: str, arg: Any = None) -> list[Any]:
        """``name`` of form_page.js in every frame (a frame that went away is skipped)."""
        out = []
        for frame in self.page.frames:
            try:
                out.append(_evaluate(frame, name, arg))
            except PlaywrightError:
                continue
        return out

    def challenge(self) -> str | None:
        """``visible`` when a frame shows a challenge, ``invisible`` when one only has an
        invisible one, else None."""
        found = set(self.each("captcha"))
        return "visible" if "visible" in found else "invisible" if "invisible" in found else None

    def scan(self) -> tuple[list[FormField], int]:
        fields: list[FormField] = []
        hidden = 0
        for frame in self.page.frames:
            tag = next((t for t, f in self.frames.items() if f == frame), None)
            if tag is None:
                tag = str(self._tags)
                self._tags += 1
                self.frames[tag] = frame
            try:
                found = _evaluate(frame, "scan", tag)
            except PlaywrightError:
                continue
            hidden += found["hidden"]
            for f in found["fields"]:
                options = tuple(Option(o["mark"], o["text"]) for o in f.pop("options"))
                fields.append(FormField(options=options, **f))
        return fields, hidden

    def locate(self, mark: str) -> Locator:
        frame = self.frames[mark.split(":")[0]]
        return frame.locator(f'[data-jobctrl-field="{mark}"]').first


def _open(page: Page, request: PrefillRequest, guard: NetworkGuard) -> str | None:
    """Load the form page; the code when it could not be loaded."""
    try:
        response = page.goto(request.url, timeout=request.timeout_seconds * 1000)
    except PlaywrightError:
        return DETAIL_UNSAFE_URL if guard.unsafe_redirect else APPLY_FORM_UNAVAILABLE
    guard.loaded = True
    if response is None or response.status >= 400:
        return APPLY_FORM_UNAVAILABLE
    return None


def _fill(context: BrowserContext, request: PrefillRequest, guard: NetworkGuard) -> PrefillResult:
    form = _Form(context.new_page())
    result = PrefillResult("prefilled", url=request.url)
    code = _open(form.page, request, guard)
    if code:
        result.status, result.code = "form_unavailable", code
        return result
    result.url = form.page.url
    fields, hidden = form.scan()
    deadline = time.monotonic() + request.render_seconds
    while not fields and time.monotonic() < deadline and form.challenge() != "visible":
        form.page.wait_for_timeout(100)  # a single-page app still rendering its form
        fields, hidden = form.scan()
    result.challenge = form.challenge()
    if result.challenge == "visible":
        return _stopped(form, result, request)
    if not fields:
        result.status, result.code = "form_unavailable", APPLY_NO_FORM
        return result
    result.hidden_skipped = hidden
    todo = plan(fields, request.profile, request.documents)
    _do(form, todo.actions, result)
    if form.challenge() == "visible":  # a challenge the filling brought up
        result.challenge = "visible"
        return _stopped(form, result, request)
    after, _ = form.scan()
    reasons = {item.field.mark: (item.slot, item.reason) for item in todo.left}
    needed = [f for f in after if f.required and not f.filled]
    for f in needed:
        slot, reason = reasons.get(f.mark, (None, "no_answer"))
        result.left.append({"field": f.title, "name": f.name, "slot": slot, "reason": reason})
    _scroll(form, needed)
    if request.dry_run:
        result.screenshot = form.page.screenshot(full_page=True)
    return result


def _stopped(form: _Form, result: PrefillResult, request: PrefillRequest) -> PrefillResult:
    result.status, result.code = "captcha", APPLY_CAPTCHA
    if request.dry_run:
        result.screenshot = form.page.screenshot(full_page=True)
    return result


def _set_item(action: Action) -> dict[str, Any]:
    """How form_page.js ``setValues`` does ``action``."""
    f, option = action.field, action.option
    if action.kind == "type":
        return {"mark": f.mark, "kind": "type", "value": action.value}
    if action.kind == "check":
        return {"mark": f.mark, "kind": "check"}
    assert option is not None
    if f.control == "select":
        return {"mark": f.mark, "kind": "choose", "index": int(option.mark)}
    return {"mark": option.mark, "kind": "click" if f.control == "yesno" else "check"}


def _do(form: _Form, actions: list[Action], result: PrefillResult) -> None:
    """Attach the files, then set every other value, one call per frame."""
    by_frame: dict[str, list[Action]] = {}
    for action in actions:
        f = action.field
        if action.kind != "attach":
            by_frame.setdefault(f.mark.split(":")[0], []).append(action)
            continue
        path = Path(action.value)
        try:
            form.locate(f.mark).set_input_files(path, timeout=5_000)
        except PlaywrightError:
            result.left.append(_entry(action, reason="fill_failed"))
            continue
        result.files.append({**_entry(action), "file": path.name, "size": path.stat().st_size})
    for tag, group in by_frame.items():
        try:
            done = _evaluate(form.frames[tag], "setValues", [_set_item(a) for a in group])
        except PlaywrightError:
            done = [False] * len(group)
        for action, ok in zip(group, done, strict=True):
            if ok:
                result.filled.append({**_entry(action), "value": action.value})
            else:
                result.left.append(_entry(action, reason="fill_failed"))


def _entry(action: Action, **extra: str) -> dict[str, Any]:
    f = action.field
    return {"field": f.title, "name": f.name, "slot": action.slot, **extra}


def _scroll(form: _Form, left: list[FormField]) -> None:
    try:
        if left:
            form.locate(left[0].mark).scroll_into_view_if_needed(timeout=2_000)
        else:
            for frame in form.page.frames:
                if _evaluate(frame, "firstSubmit"):
                    break
    except PlaywrightError:
        pass  # scrolling is a courtesy


def _hand_over(
    context: BrowserContext,
    request: PrefillRequest,
    guard: NetworkGuard,
    flag: str,
    result: PrefillResult,
    on_handover: Callable[[Handover], None] | None,
) -> PrefillResult:
    page = context.pages[0]
    needles = [request.profile.contact.email] + [f["file"] for f in result.files]
    watch = SubmissionWatch(_actions(page), needles, page.url)
    context.add_init_script(f"window[{json.dumps(flag)}] = true")  # documents to come
    _Form(page).each("handOver", flag)
    guard.filling = False
    context.on("response", watch.on_response)
    context.on("page", watch.watch)
    for open_page in context.pages:
        watch.watch(open_page)
    result.handed_over = result.status
    if on_handover:
        on_handover(Handover(result, page))
    deadline = time.monotonic() + request.watch_seconds
    while not watch.submitted and time.monotonic() < deadline:
        pages = [p for p in context.pages if not p.is_closed()]
        if not pages:
            break
        try:
            pages[0].wait_for_timeout(200)
        except PlaywrightError:
            break  # the window was closed
    result.status = "submitted" if watch.submitted else "closed"
    if watch.submitted and request.linger_seconds > 0:
        with contextlib.suppress(PlaywrightError, IndexError):
            context.pages[0].wait_for_timeout(request.linger_seconds * 1000)
    return result


def _actions(page: Page) -> set[str]:
    actions: set[str] = set()
    for frame in page.frames:
        try:
            actions |= set(frame.evaluate("() => [...document.forms].map(f => f.action)"))
        except PlaywrightError:
            continue
    return actions

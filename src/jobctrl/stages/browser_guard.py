"""The browser prefill's network side: which requests a form page may make, and how the
person's own submission is noticed after hand-over.

Every request of the browser context passes ``NetworkGuard.route``:

- only http(s) to a public address, or a host named in ``fetch.allow_hosts`` (the safe
  fetcher's rule, ``fetch.addresses.AddressGuard``); the first document's redirect hops
  are fetched one at a time and each is checked, because Chromium follows a redirect
  without routing it again. Other requests' redirects are Chromium's own.
- while the program fills the form (``filling``), nothing but GET, HEAD and OPTIONS
  leaves, and no top-level page navigates away from the loaded form: a form submission,
  an autosave, a beacon, a script's ``location = …`` are all aborted and counted. This is
  the program's promise never to submit, held below the page's scripts (the in-page guard
  in ``form_page.js`` cancels submit events as well).

After hand-over only the address rule holds; ``SubmissionWatch`` then looks for the
person's submission: a POST/PUT/PATCH that answers below 400 and is a page navigation, goes
to a form's action, or carries the person's email or an uploaded file's name; or a page
that navigates to a confirmation address ("/thanks", "/confirmation", "/success" …).
"""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Frame, Page, Request, Response, Route

from jobctrl.domain.errors import StageError
from jobctrl.fetch.addresses import AddressGuard, Resolver

__all__ = ["NetworkGuard", "SubmissionWatch", "bare_url"]

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
SUBMIT_METHODS = frozenset({"POST", "PUT", "PATCH"})
REDIRECTS = frozenset({301, 302, 303, 307, 308})
MAX_HOPS = 10
CONFIRMATION = re.compile(
    r"thank|confirmation|confirmed|success|submitted|application[-_]received|applied", re.I
)


def bare_url(url: str) -> str:
    """``url`` without its query and fragment (how a form's action is compared)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}"


class NetworkGuard:
    """Routes every request of one browser context; counts what it stopped."""

    def __init__(
        self,
        allow_hosts: frozenset[str],
        resolver: Resolver | None = None,
        *,
        timeout_seconds: float = 20.0,
    ) -> None:
        self._addresses = AddressGuard(allow_hosts, resolver)
        self._timeout_ms = timeout_seconds * 1000
        self._verdicts: dict[tuple[str, int], bool] = {}
        self.filling = True  # until hand-over: no submission of any kind leaves
        self.loaded = False  # the form's page has loaded: top-level navigation now stops
        self.blocked = 0  # submissions, autosaves, beacons and navigations stopped
        self.refused = 0  # requests to addresses that are not public
        self.unsafe_redirect = False

    def allowed(self, url: str) -> bool:
        """Whether ``url`` is http(s) to a public (or explicitly allowed) host."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return False
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            return False
        key = (parts.hostname, port)
        if key not in self._verdicts:
            try:
                self._addresses.addresses(parts.hostname, port)
                self._verdicts[key] = True
            except StageError:
                self._verdicts[key] = False
        return self._verdicts[key]

    def route(self, route: Route, request: Request) -> None:
        if not self.allowed(request.url):
            self.refused += 1
            route.abort("blockedbyclient")
            return
        top = request.is_navigation_request() and request.frame.parent_frame is None
        if self.filling and (request.method not in SAFE_METHODS or (top and self.loaded)):
            self.blocked += 1
            route.abort("blockedbyclient")
            return
        if top and not self.loaded and request.method == "GET":
            self._first_document(route, request)
            return
        route.continue_()

    def _first_document(self, route: Route, request: Request) -> None:
        """Follow the form page's redirects by hand, checking each hop's address."""
        url = request.url
        for _ in range(MAX_HOPS):
            try:
                response = route.fetch(url=url, max_redirects=0, timeout=self._timeout_ms)
            except PlaywrightError:  # refused, reset, timed out: the page did not load
                route.abort("failed")
                return
            location = response.headers.get("location")
            if response.status not in REDIRECTS or not location:
                break
            url = urljoin(url, location)
            if not self.allowed(url):
                self.refused += 1
                self.unsafe_redirect = True
                route.abort("blockedbyclient")
                return
        else:
            route.abort("blockedbyclient")  # too many redirects
            return
        if url == request.url:
            route.fulfill(response=response)
        else:  # Chromium asks the checked last hop itself
            route.fulfill(status=302, headers={"Location": url})


class SubmissionWatch:
    """Notices the person's submission after hand-over (see the module docstring)."""

    def __init__(self, actions: set[str], needles: list[str], form_url: str = "") -> None:
        self.actions = {bare_url(a) for a in actions if a}
        self.needles = [n.encode() for n in needles if n]
        # The form page's own path segments say nothing about a submission: a job slug such
        # as "customer-success-manager" or "applied-scientist" is not a confirmation.
        self.form_segments = set(urlsplit(form_url).path.split("/"))
        self.submitted = False

    def watch(self, page: Page) -> None:
        page.on("framenavigated", self._navigated)

    def on_response(self, response: Response) -> None:
        request = response.request
        if request.method not in SUBMIT_METHODS or response.status >= 400:
            return
        if request.is_navigation_request() or bare_url(request.url) in self.actions:
            self.submitted = True
            return
        body = request.post_data_buffer or b""
        if any(needle in body for needle in self.needles):
            self.submitted = True

    def _navigated(self, frame: Frame) -> None:
        if frame.parent_frame is not None:
            return
        new = [p for p in urlsplit(frame.url).path.split("/") if p not in self.form_segments]
        if CONFIRMATION.search("/".join(new)):
            self.submitted = True

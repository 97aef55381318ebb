"""The browser prefill in a real headless Chromium against fixture application forms on
loopback, in the shapes of Greenhouse, Lever, Ashby, Workable, SmartRecruiters, Recruitee
and a company's own form: fields filled as expected, files attached, traps left alone,
and no submission from the program ever reaching the server; a CAPTCHA the person must
solve stops it with its code, an invisible one (as real Greenhouse and Lever forms load)
does not; the person's own submission in the same browser is noticed."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, sync_playwright

from jobctrl.app.apply_browser import FormResult
from jobctrl.domain.errors import (
    APPLY_FORM_UNAVAILABLE,
    APPLY_NO_DISPLAY,
    APPLY_NO_FORM,
    DETAIL_UNSAFE_URL,
    JobctrlError,
)
from jobctrl.stages.apply_browser import CHROMIUM, Handover, PrefillRequest, prefill_form
from tests.support.forms import APPLICANT, FormSite, write_documents
from tests.support.http import Route

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists() and not os.environ.get("JOBCTRL_REQUIRE_BROWSER"),
    reason=f"browser tests need Chromium at {CHROMIUM}",
)

LOOPBACK = frozenset({"127.0.0.1"})
RESUME, COVER = "Ada_Example_Resume_Acme.pdf", "Ada_Example_Cover_Letter_Acme.pdf"


@pytest.fixture
def site():
    with FormSite() as server:
        yield server


@pytest.fixture
def documents(tmp_path) -> dict[str, str]:
    return write_documents(tmp_path)


def run(
    url: str,
    documents: dict[str, str],
    person: Callable[[Page], None] | None = None,
    **options: Any,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Prefill ``url`` headless; at hand-over ``person`` acts on the page (the default
    reads nothing and closes the window). The result, and the page's values at hand-over."""
    seen: dict[str, Any] = {}

    def hand_over(handover: Handover) -> None:
        seen["status"] = handover.result.status
        seen["page"] = handover.page
        (person or (lambda page: page.close()))(handover.page)

    request = PrefillRequest(
        url, APPLICANT, documents, allow_hosts=LOOPBACK, headless=True, watch_seconds=15,
        render_seconds=2, **options,
    )  # fmt: skip
    result = prefill_form(request, on_handover=hand_over)
    return FormResult.of(result).to_json() | {"screenshot": result.screenshot}, seen


# What a person reads on the page: an input's value, a select's chosen text, a box's
# state, a Yes/No button's pressed state, a file input's file names.
READ = """e => e.type === 'file' ? [...e.files].map(f => f.name)
  : e.tagName === 'SELECT' ? e.options[e.selectedIndex].text.trim()
  : (e.type === 'checkbox' || e.type === 'radio') ? e.checked
  : e.tagName === 'BUTTON' ? e.getAttribute('aria-pressed') === 'true' : e.value"""

EXPECTED: dict[str, dict[str, Any]] = {
    "greenhouse": {
        "filled": {"first_name", "last_name", "email", "phone", "location", "linkedin",
                   "website", "needs_sponsorship", "work_authorised", "how_did_you_hear"},
        "files": {"resume": RESUME, "cover_letter": COVER},
        "left": ["Why do you want to work at Acme?"],
        "page": {"#first_name": "Ada", "#last_name": "Example", "#email": "ada@example.org",
                 "#job_application_location": "Berlin, Germany", "#q113": "No",
                 "#q114": "Yes", "#q115": "Company Website", "#resume": [RESUME],
                 "#cover_letter": [COVER], "#job_application_gender": "Please select",
                 "[name=b_secret_field]": ""},
    },
    "lever": {
        "filled": {"full_name", "email", "phone", "location", "current_company", "linkedin",
                   "github", "website", "willing_to_relocate", "notice_period"},
        "files": {"resume": RESUME},
        "left": [],
        "page": {"[name=name]": "Ada Example", "[name='urls[LinkedIn]']":
                 "https://linkedin.com/in/ada", "[name='urls[Other]']": "",
                 "input[value=Yes][type=radio]": True, "[name=org]": "Example GmbH",
                 "[name='consent[marketing]']": False, "[name='eeo[gender]']": "Select ...",
                 "#resume-upload-input": [RESUME]},
    },
    "ashby": {
        "filled": {"full_name", "email", "phone", "location", "linkedin",
                   "salary_expectation", "needs_sponsorship"},
        "files": {"resume": RESUME},
        "left": ["Tell us about a system you designed end to end."],
        "page": {"#_systemfield_name": "Ada Example", "._yesno button >> nth=1": True,
                 "._yesno button >> nth=0": False, "#_systemfield_resume": [RESUME]},
    },
    "workable": {
        "filled": {"first_name", "last_name", "email", "current_title", "phone", "location",
                   "work_authorised", "salary_expectation"},
        "files": {"resume": RESUME},
        "left": ["I have read and agree to the privacy policy of Acme."],
        "page": {"#firstname": "Ada", "#QA_5541234": "Yes", "[name=gdpr]": False,
                 "[data-ui=resume]": [RESUME], "#cover_letter": ""},
    },
    "smartrecruiters": {
        "filled": {"first_name", "last_name", "email", "city", "phone", "linkedin", "website",
                   "needs_sponsorship", "pronouns"},
        "files": {"resume": RESUME},
        "left": [],
        "page": {"#first-name-input input": "Ada", "#confirm-email-input input":
                 "ada@example.org", "#spl-city input": "Berlin",
                 "[name=q-sponsorship][value=no]": True, "[name=q-pronouns][value='1']": True,
                 "#resume-upload": [RESUME]},
    },
    "recruitee": {
        "filled": {"full_name", "email", "phone", "salary_expectation", "willing_to_relocate",
                   "pronouns", "how_did_you_hear"},
        "files": {"resume": RESUME, "cover_letter": COVER},
        "left": ["I agree to the processing of my personal data in line with the privacy policy."],
        "page": {"#candidate_name": "Ada Example", "#oq0": "EUR 85,000",
                 "[value='Company website']": True, "[value=LinkedIn]": False,
                 "[name='candidate[gdpr_consent]']": False, "#candidate_cv": [RESUME]},
    },
    "generic": {
        "filled": {"first_name", "last_name", "email", "phone", "city", "github",
                   "question:0", "notice_period"},
        "files": {"resume": RESUME, "cover_letter": COVER},
        "left": ["In two sentences, what would you improve in our platform?"],
        "page": {"[name=fld_01]": "Ada", "[name=fld_02]": "Example", "#hybrid": "Yes",
                 "#cv": [RESUME], "#motivation": [COVER],
                 # the bot traps, none of which a person can see
                 "[name=company_name]": "", "[name=email_confirm2]": "", "[name=phone_alt]": "",
                 "[name=first_name_x]": "", "[name=url_field]": "", "[name=hp_check]": ""},
    },
}  # fmt: skip


@pytest.mark.parametrize("name", list(EXPECTED))
def test_each_form_is_filled_from_the_profile_and_handed_over_unsubmitted(site, documents, name):
    expected = EXPECTED[name]
    values: dict[str, Any] = {}

    def person(page: Page) -> None:
        for selector in expected["page"]:
            values[selector] = page.locator(selector).first.evaluate(READ)
        page.close()

    result, seen = run(site.form(name), documents, person)

    assert seen["status"] == "prefilled"
    assert {f["slot"] for f in result["filled"]} == expected["filled"]
    assert {f["slot"]: f["file"] for f in result["files"]} == expected["files"]
    assert [f["field"] for f in result["left"]] == expected["left"]
    assert values == expected["page"]
    assert result["status"] == "closed"  # the window closed without a submission
    assert site.submissions() == []  # nothing the program did reached the server


def test_hidden_and_trap_fields_are_never_filled_and_are_counted(site, documents):
    result, _ = run(site.form("generic"), documents)

    assert result["hiddenSkipped"] == 6
    names = {f["name"] for f in result["filled"]}
    assert not names & {"company_name", "email_confirm2", "phone_alt", "first_name_x",
                        "url_field", "hp_check", "hidden_token"}  # fmt: skip


def test_a_form_that_submits_itself_on_every_change_never_reaches_the_server(site, documents):
    result, _ = run(site.form("autosubmit"), documents, dry_run=True)

    assert {f["slot"] for f in result["filled"]} == {"full_name", "email", "needs_sponsorship"}
    assert result["requestsBlocked"] >= 1
    assert [(r.method, r.path) for r in site.requests] == [("GET", "/autosubmit.html")]


def test_the_autosubmit_fixture_does_submit_without_the_guard(site):
    """The control: typing into the hostile form in a plain browser does submit it."""
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.goto(site.form("autosubmit"))
            page.fill("#n", "Ada Example")
            page.wait_for_timeout(300)
        finally:
            browser.close()
    assert any(r.method == "POST" for r in site.requests)


def test_a_dry_run_screenshots_the_filled_form_and_closes(site, documents):
    handed = []
    result = prefill_form(
        PrefillRequest(site.form("greenhouse"), APPLICANT, documents, allow_hosts=LOOPBACK,
                       dry_run=True),
        on_handover=handed.append,
    )  # fmt: skip

    assert result.status == "prefilled" and result.code is None
    assert result.screenshot is not None and result.screenshot.startswith(b"\x89PNG")
    assert handed == []  # nobody to hand over to
    assert len(result.filled) == 10
    assert site.submissions() == []


def _submit(extra: Callable[[Page], None] | None = None) -> Callable[[Page], None]:
    def person(page: Page) -> None:
        if extra:
            extra(page)
        page.locator("[type=submit]").first.click()

    return person


def _answer_the_rest(page: Page) -> None:
    for area in page.locator("textarea[required], textarea[aria-required=true]").all():
        if not area.input_value():
            area.fill("Because I like building reliable systems.")


@pytest.mark.parametrize(
    ("name", "path"),
    [
        ("greenhouse", "/greenhouse/embed/job_app"),  # a classic multipart POST
        ("ashby", "/ashby/api/non-user-graphql"),  # fetch() from the page, no navigation
        ("smartrecruiters", "/smartrecruiters/api/apply"),  # JSON, then a confirmation page
    ],
)
def test_the_persons_submission_in_the_same_browser_is_noticed(site, documents, name, path):
    result, seen = run(site.form(name), documents, _submit(_answer_the_rest))

    assert seen["status"] == "prefilled"
    assert result["status"] == "submitted"
    [submission] = site.submissions()
    assert (submission.method, submission.path) == ("POST", path)
    if name != "smartrecruiters":  # the file went with it, under its readable name
        assert RESUME.encode() in submission.body


def test_closing_the_window_without_submitting_records_no_submission(site, documents):
    result, _ = run(site.form("lever"), documents, lambda page: page.context.close())
    assert result["status"] == "closed"
    assert site.submissions() == []


def test_a_form_page_that_fails_to_load_has_a_clear_code(site, documents):
    missing, _ = run(site.base_url + "/gone.html", documents)
    empty_url = site.add("/empty.html", Route(body=b"<h1>This job is closed</h1>"))
    empty, _ = run(empty_url, documents)
    with FormSite() as down:
        refused_url = down.form("lever")
    refused, _ = run(refused_url, documents)

    assert (missing["status"], missing["code"]) == ("form_unavailable", APPLY_FORM_UNAVAILABLE)
    assert (empty["status"], empty["code"]) == ("form_unavailable", APPLY_NO_FORM)
    assert (refused["status"], refused["code"]) == ("form_unavailable", APPLY_FORM_UNAVAILABLE)


def test_a_private_address_is_refused_unless_allowed_and_nothing_is_asked_of_it(site, documents):
    request = PrefillRequest(site.form("lever"), APPLICANT, documents, dry_run=True)
    result = prefill_form(request)  # 127.0.0.1 is not in allow_hosts here

    assert (result.status, result.code) == ("form_unavailable", DETAIL_UNSAFE_URL)
    assert site.requests == []


def test_a_redirect_to_a_private_address_is_refused(site, documents):
    # localhost resolves to loopback but is not the allowed 127.0.0.1
    target = f"http://localhost:{site.port}/lever.html"
    url = site.add("/moved", Route(status=302, body=b"", headers={"Location": target}))

    result, _ = run(url, documents)

    assert (result["status"], result["code"]) == ("form_unavailable", DETAIL_UNSAFE_URL)
    assert [r.path for r in site.requests] == ["/moved"]


def test_a_page_asking_a_private_address_gets_nothing_from_it(site, documents):
    page = (
        f'<img src="http://localhost:{site.port}/pixel.png"><form action="/careers/apply" '
        'method="post"><label for=e>Email</label><input id=e name=email type=email></form>'
    )
    url = site.add("/probe.html", Route(body=page.encode()))

    result, _ = run(url, documents, dry_run=True)

    assert result["requestsRefused"] >= 1
    assert "/pixel.png" not in [r.path for r in site.requests]
    assert [f["slot"] for f in result["filled"]] == ["email"]


def test_the_result_holds_no_file_bytes(site, documents):
    result, _ = run(site.form("recruitee"), documents)
    for entry in result["files"]:
        assert set(entry) == {"field", "name", "slot", "file", "size"}
        assert entry["size"] == Path(documents[entry["slot"]]).stat().st_size


def test_a_form_inside_a_frame_is_filled_there(site, documents):
    # a company's careers page that embeds its ATS's form (Greenhouse's embed does this)
    page = (
        '<h1>Careers at Acme</h1><iframe id="grnhse_iframe" src="/greenhouse.html" '
        'width="900" height="1500"></iframe>'
    )
    url = site.add("/careers.html", Route(body=page.encode()))
    values = {}

    def person(page: Page) -> None:
        frame = page.frame_locator("#grnhse_iframe")
        values["first"] = frame.locator("#first_name").input_value()
        values["resume"] = frame.locator("#resume").evaluate(READ)
        page.close()

    result, _ = run(url, documents, person)

    assert values == {"first": "Ada", "resume": [RESUME]}
    assert len(result["filled"]) == 10
    assert site.submissions() == []


def test_a_window_needs_a_display(site, documents, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    request = PrefillRequest(
        site.form("lever"), APPLICANT, documents, allow_hosts=LOOPBACK, headless=False
    )
    with pytest.raises(JobctrlError) as refused:
        prefill_form(request)
    assert refused.value.code == APPLY_NO_DISPLAY
    assert site.requests == []

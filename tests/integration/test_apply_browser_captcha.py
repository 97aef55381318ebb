"""CAPTCHAs and bot challenges in the browser prefill (real headless Chromium, fixture forms
on loopback): a challenge the person must solve (a visible checkbox or widget, a challenge
frame that has come up, a "verify you are human" page) stops the prefill with
APPLY_CAPTCHA and nothing filled; an invisible one only (the reCAPTCHA v3/Enterprise
script and badge Greenhouse loads on every form, Lever's invisible hCaptcha) does not: the
form is filled and the result says ``challenge: "invisible"``. Nothing is ever solved,
bypassed or submitted."""

from __future__ import annotations

from pathlib import Path

import pytest

from jobctrl.domain.errors import APPLY_CAPTCHA
from tests.integration.test_apply_browser import EXPECTED, run
from tests.integration.test_apply_browser import pytestmark as pytestmark
from tests.support.forms import FormSite, write_documents
from tests.support.http import Route


@pytest.fixture
def site():
    with FormSite() as server:
        yield server


@pytest.fixture
def documents(tmp_path) -> dict[str, str]:
    return write_documents(tmp_path)


# Challenges the person must solve: each stops the prefill.
CAPTCHAS = {
    "hcaptcha": '<div class="h-captcha" data-sitekey="10000000-ffff-ffff-ffff-000000000001"></div>',
    "hcaptcha-frame": '<iframe src="/hcaptcha/static/hcaptcha.html#frame=checkbox&amp;id=0a" '
    'title="Widget containing checkbox for hCaptcha security challenge" width="303" '
    'height="78"></iframe>',
    "recaptcha-anchor": '<iframe title="reCAPTCHA" src="/recaptcha/api2/anchor?ar=1&amp;k=6Lc'
    'FIXTURE&amp;size=normal" width="304" height="78"></iframe>',
    "turnstile": '<iframe src="/cdn-cgi/challenge-platform/turnstile/if/ov2/av0" '
    'width="300" height="65"></iframe>',
    "turnstile-widget": '<div class="cf-turnstile" data-sitekey="1x00000000000000000000AA"></div>',
    "cloudflare": '<div id="challenge-form"></div><script src="/cdn-cgi/challenge.js"></script>',
    "verify-human": "<h2>Verify you are human by completing the action below.</h2>",
    "arkose": '<iframe src="/arkoselabs/fc/gc/?token=fixture" title="Verification challenge" '
    'width="400" height="300"></iframe>',
}

# Invisible challenges (what real forms load on every page): the form is filled, the
# person's own submit click runs them.
INVISIBLE = {
    "recaptcha-v3": '<script src="/recaptcha/api.js?render=6LcFIXTURE" async></script>',
    "recaptcha-invisible": '<div class="g-recaptcha" data-sitekey="6LcFIXTURE" '
    'data-size="invisible" data-callback="onSubmit"></div>',
    "recaptcha-button": '<button class="g-recaptcha" data-sitekey="6LcFIXTURE" '
    'data-callback="onSubmit" data-action="submit">Apply</button>',
    "hcaptcha-invisible": '<div class="h-captcha" data-sitekey="10000000-ffff-ffff-ffff-'
    '000000000001" data-size="invisible"></div><script src="/hcaptcha/1/api.js"></script>',
    "turnstile-script": '<script src="/turnstile/v0/api.js?render=explicit"></script>',
}


def _challenge_page(site: FormSite, kind: str, markup: str) -> str:
    page = (
        "<form action='/captcha/submit' method='post'><label for=n>Name</label>"
        f"<input id=n name=name required>{markup}<button>Apply</button></form>"
    )
    return site.add(f"/{kind}.html", Route(body=page.encode()))


@pytest.mark.parametrize("kind", ["recaptcha", *CAPTCHAS])
def test_a_captcha_stops_the_prefill_with_its_code_and_fills_nothing(site, documents, kind):
    url = site.form("captcha")
    if kind != "recaptcha":
        url = _challenge_page(site, kind, CAPTCHAS[kind])
    names: list[str] = []

    result, seen = run(url, documents, lambda page: (
        names.append(page.locator("#n").input_value()), page.close()
    ))  # fmt: skip

    assert seen["status"] == "captcha"
    assert (result["handedOver"], result["code"]) == ("captcha", APPLY_CAPTCHA)
    assert result["challenge"] == "visible"
    assert result["filled"] == [] and result["files"] == []
    assert names == [""]
    assert site.submissions() == []


@pytest.mark.parametrize("kind", list(INVISIBLE))
def test_an_invisible_captcha_does_not_stop_the_prefill(site, documents, kind):
    result, _ = run(_challenge_page(site, kind, INVISIBLE[kind]), documents, dry_run=True)

    assert (result["status"], result["code"]) == ("prefilled", None)
    assert result["challenge"] == "invisible"
    assert [f["slot"] for f in result["filled"]] == ["full_name"]
    assert site.submissions() == []


@pytest.mark.parametrize(
    ("name", "like"), [("greenhouse_recaptcha", "greenhouse"), ("lever_hcaptcha", "lever")]
)
def test_a_real_forms_invisible_captcha_leaves_it_filled_for_the_persons_submit(
    site, documents, name, like
):
    """Greenhouse loads reCAPTCHA Enterprise's invisible script and badge on every form,
    Lever an invisible hCaptcha: the form is filled as its plain twin, nothing submitted."""
    result, seen = run(site.form(name), documents)

    assert seen["status"] == "prefilled" and result["code"] is None
    assert result["challenge"] == "invisible"
    assert {f["slot"] for f in result["filled"]} == EXPECTED[like]["filled"]
    assert {f["slot"]: f["file"] for f in result["files"]} == EXPECTED[like]["files"]
    assert site.submissions() == []


def test_a_challenge_frame_that_comes_up_stops_the_prefill(site, documents):
    """The invisible reCAPTCHA's challenge frame, once shown, is the person's to answer."""
    show = (
        "<script>document.addEventListener('DOMContentLoaded', () => {"
        "const f = document.querySelector('iframe[title^=\"recaptcha challenge\"]');"
        "f.parentElement.parentElement.style.cssText = 'position:absolute;top:10px';"
        "f.parentElement.style.cssText = 'width:400px;height:580px';});</script>"
    )
    page = (Path(__file__).parents[1] / "fixtures/forms/greenhouse_recaptcha.html").read_text()
    url = site.add("/shown.html", Route(body=page.replace("</body>", show + "</body>").encode()))

    result, _ = run(url, documents, dry_run=True)

    assert (result["status"], result["code"], result["challenge"]) == (
        "captcha",
        APPLY_CAPTCHA,
        "visible",
    )
    assert result["filled"] == []


def test_a_captcha_dry_run_keeps_a_screenshot_for_the_person(site, documents):
    result, _ = run(site.form("captcha"), documents, dry_run=True)
    assert (result["status"], result["code"]) == ("captcha", APPLY_CAPTCHA)
    assert result["screenshot"].startswith(b"\x89PNG")

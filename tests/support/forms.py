"""The fixture application forms (tests/fixtures/forms/) served on loopback, a profile with
saved answers, and readable PDFs to upload: what the browser prefill tests and the bench
share.

``FormSite`` serves every fixture form at ``/<name>.html`` and answers each form's
submission (its action, or the request its script sends) with 200, so a person's
submission in the test's browser succeeds; every request is recorded (``submissions``).
"""

from __future__ import annotations

from pathlib import Path

from jobctrl.domain.profile import Profile
from tests.support.http import FixtureServer, Route
from tests.support.loopback import Request, Response
from tests.support.profile import TEST_PROFILE

FORMS = Path(__file__).resolve().parents[1] / "fixtures" / "forms"
ATS_FORMS = ("greenhouse", "lever", "ashby", "workable", "smartrecruiters", "recruitee")
ALL_FORMS = (*ATS_FORMS, "generic")

# Where each form's submission goes (the form's action, or its script's request).
SUBMISSIONS = {
    "greenhouse": "/greenhouse/embed/job_app",
    "lever": "/lever/acme/0b5e7c1a/apply",
    "ashby": "/ashby/api/non-user-graphql",
    "workable": "/workable/api/v1/jobs/ABC123/apply",
    "smartrecruiters": "/smartrecruiters/api/apply",
    "recruitee": "/recruitee/o/senior-backend-engineer/c",
    "generic": "/careers/apply",
    "autosubmit": "/auto/submit",
    "captcha": "/captcha/submit",
    "greenhouse_recaptcha": "/greenhouse/embed/job_app",  # invisible reCAPTCHA Enterprise
    "lever_hcaptcha": "/lever/acme/0b5e7c1a/apply",  # invisible hCaptcha
}

APPLICANT = Profile.model_validate(
    {
        **TEST_PROFILE,
        "contact": {
            "email": "ada@example.org",
            "phone": "+49 30 1234567",
            "location": "Berlin, Germany",
            "links": ["https://github.com/ada", "https://linkedin.com/in/ada", "https://ada.dev"],
        },
        "answers": {
            "work_authorised": True,
            "needs_sponsorship": False,
            "willing_to_relocate": True,
            "notice_period": "3 months",
            "salary_expectation": "EUR 85,000",
            "pronouns": "she/her",
            "how_did_you_hear": "Company website",
            "questions": [
                {"question": "Are you comfortable working in a hybrid setup?", "answer": "Yes"}
            ],
        },
    }
)


def write_documents(directory: Path) -> dict[str, str]:
    """A resume and a cover letter PDF under readable names: the prefill's documents."""
    resume = directory / "Ada_Example_Resume_Acme.pdf"
    cover = directory / "Ada_Example_Cover_Letter_Acme.pdf"
    resume.write_bytes(b"%PDF-1.4\n% resume of Ada Example\n%%EOF\n")
    cover.write_bytes(b"%PDF-1.4\n% cover letter of Ada Example\n%%EOF\n")
    return {"resume": str(resume), "cover_letter": str(cover)}


def _accepted(request: Request) -> Response:
    return Response(200, b"<h1>Thank you for applying</h1>", {"Content-Type": "text/html"})


class FormSite(FixtureServer):
    """Every fixture form, and 200 for each form's submission."""

    def __init__(self) -> None:
        super().__init__()
        for page in FORMS.glob("*.html"):
            self.add(f"/{page.name}", Route(body=page.read_bytes()))
        for path in SUBMISSIONS.values():
            self.on("POST", path, _accepted)
        self.add("/smartrecruiters/confirmation", Route(body=b"<h1>Thank you</h1>"))

    def form(self, name: str) -> str:
        return f"{self.base_url}/{name}.html"

    def submissions(self) -> list[Request]:
        """Every request that could be a submission: any method but GET, or a GET of a
        form's action (a form with method=get, or a script's navigation away)."""
        actions = set(SUBMISSIONS.values())
        return [r for r in self.requests if r.method != "GET" or r.path in actions]

"""The person's submission is read from where the page goes, never from the form's own URL."""

from __future__ import annotations

from dataclasses import dataclass

from jobctrl.stages.browser_guard import SubmissionWatch


@dataclass
class _Frame:  # a top frame as Playwright reports a navigation
    url: str
    parent_frame: None = None


def _after(form: str, *urls: str) -> bool:
    watch = SubmissionWatch(set(), [], form)
    for url in urls:
        watch._navigated(_Frame(url))  # type: ignore[arg-type]
    return watch.submitted


def test_a_job_slug_with_a_confirmation_word_is_no_submission() -> None:
    form = "https://acme.recruitee.com/o/customer-success-manager/c/new"
    assert not _after(form, form, form + "?step=2")
    assert not _after(
        "https://jobs.example.com/applied-scientist/apply",
        "https://jobs.example.com/applied-scientist/apply#top",
    )


def test_a_confirmation_page_after_the_form_is_a_submission() -> None:
    assert _after("https://jobs.lever.co/acme/123/apply", "https://jobs.lever.co/acme/123/thanks")
    assert _after(
        "https://acme.recruitee.com/o/customer-success-manager/c/new",
        "https://acme.recruitee.com/o/customer-success-manager/application-received",
    )

"""Plain words for codes: the one table from a code a job can carry (a stage's failure or
skip, a posting check, an application's refusal) to the sentence a job seeker reads.

Codes stay in ``--json`` and in a page's details disclosure; pages show ``sentence(code)``.
tests/unit/test_plain_words.py fails when a code that can land on a job has no sentence.
"""

from __future__ import annotations

from datetime import datetime

from jobctrl.domain import errors as e
from jobctrl.domain.clock import as_utc
from jobctrl.domain.discovery import NotEligible

__all__ = ["NOT_ELIGIBLE_SENTENCES", "SENTENCES", "ago", "sentence"]

SENTENCES: dict[str, str] = {
    # reading the posting
    e.DETAIL_UNSAFE_URL: "The link points to a private or unsafe address, so it was not opened.",
    e.ENRICH_ROBOTS_DISALLOWED: "The site asks robots not to read this page, so it was not read.",
    e.ENRICH_INVALID_URL: "This is not a web address jobctrl can open: check the link.",
    e.ENRICH_UNSUPPORTED_SCHEME: "Only http and https links can be read.",
    e.ENRICH_UNSUPPORTED_CONTENT: "The link is not a web page (a file or an image?).",
    e.ENRICH_TOO_LARGE: "The page is too large to read.",
    e.ENRICH_UNREACHABLE: "The site could not be reached; it will be tried again.",
    e.ENRICH_TIMEOUT: "The site took too long to answer; it will be tried again.",
    e.ENRICH_HTTP_NOT_FOUND: "The page does not exist (any more): the posting is gone.",
    e.ENRICH_HTTP_CLIENT_ERROR: "The site refused to show the page.",
    e.ENRICH_LOGIN_WALL: "The site shows this page only to a signed-in person: save it from "
    "your browser with the jobctrl extension.",
    e.ENRICH_HTTP_SERVER_ERROR: "The site had an error; it will be tried again.",
    e.ENRICH_RATE_LIMITED: "The site asked us to slow down; it will be tried again later.",
    e.ENRICH_TOO_MANY_REDIRECTS: "The link sends the browser round in circles.",
    e.ENRICH_NO_CONTENT: "The page has no job description to read.",
    e.SCORE_NO_DESCRIPTION: "The posting has no description to compare with your profile.",
    e.REQUIREMENT_FIT_MISSING: "The fit was not scored yet, so nothing was written.",
    e.MATERIALS_MISSING: "There is no tailored resume to turn into a PDF yet.",
    e.BUDGET_EXCEEDED: "Today's AI budget is spent; it continues tomorrow (or raise it).",
    e.MIN_SCORE: "Below your minimum fit score.",
    # a discovery run's error (a source family that failed; the others' jobs are kept)
    e.SOURCE_UNAVAILABLE: "A job board could not be reached; the next run tries it again.",
    e.SOURCE_RATE_LIMITED: "A job board asked us to slow down; the next run tries it again.",
    e.SOURCE_NOT_FOUND: "A job board does not exist (any more): check `jobctrl sources list`.",
    e.SOURCE_MALFORMED: "A job board answered with something that is not a list of postings.",
    e.SOURCE_CONFIG: "A source is set up wrong in config.yaml: check `jobctrl sources list`.",
    e.DISCOVERY_BUSY: (
        "Another discovery run was still finding jobs or preparing the jobs it found: this "
        "one started nothing (the next one starts once that one is done)."
    ),
    e.MATERIALS_OFF: "Writing a resume and letter is turned off in your settings.",
    e.COVER_ON_REQUEST: (
        "The cover letter is written when you ask for it: this job scored below the score "
        "at which letters are written on their own."
    ),
    e.OWNERSHIP_LOST: "Another run took this step over; nothing is lost.",
    e.STAGE_BUSY: "This step is being worked on right now.",
    e.STAGE_INTERRUPTED: "The work stopped before it finished; it will be tried again.",
    e.STAGE_TIMEOUT: "The work took too long and was stopped; it will be tried again.",
    e.STAGE_ERROR: "Something went wrong while preparing this job; try again.",
    e.STAGE_INTERNAL_ERROR: "jobctrl hit a bug while preparing this job; try again.",
    e.WORKFLOW_FAILED: "The preparation stopped unexpectedly; try again.",
    e.WORKFLOW_TERMINATED: "The preparation was stopped; try again.",
    e.WORKFLOW_TIMED_OUT: "The preparation ran out of time; try again.",
    e.CANCELED: "You cancelled the preparation of this job.",
    e.AUTOMATION_PAUSED: "Paused after repeated failures: resume it once the cause is fixed.",
    e.POSTING_UNAVAILABLE: "The posting is no longer online.",
    e.POSTING_EXPIRED: "The posting's closing date has passed.",
    e.JOB_HIDDEN: "You said you are not interested in this job.",
    e.TAILOR_FABRICATION: "The tailored resume claimed something your profile does not say.",
    e.COVER_FABRICATION: "The cover letter claimed something your profile does not say.",
    e.PROFILE_EMPTY: (
        "Your profile is empty: import your resume (`jobctrl profile import FILE`), then"
        " retry this job (`jobctrl retry JOB`) to write its resume and letter."
    ),
    e.CONFIGURATION: "The AI model is not set up (a provider or its key is missing).",
    e.CONFIG_INVALID: "Your config.yaml cannot be read: fix it and this continues.",
    e.PROVIDER_RATE_LIMITED: "The AI provider asked us to slow down; it will be tried again.",
    e.PROVIDER_UNAVAILABLE: "The AI provider did not answer; it will be tried again.",
    e.PROVIDER_AUTH: "The AI provider refused the key: check it in your settings.",
    e.PROVIDER_REQUEST_REJECTED: "The AI provider refused the request.",
    e.PROVIDER_INVALID_OUTPUT: "The AI model's answer was unusable; try again.",
    e.PROVIDER_TOOLS_UNSUPPORTED: (
        "This model does not support tool calls; run `jobctrl llm set … --output json`"
        " or `--output prompted`."
    ),
    e.PROVIDER_OUTPUT_TRUNCATED: (
        "The AI model's answer was cut off at its length limit (paid for once, not asked"
        " again by itself); retry to ask once more."
    ),
    # rendering the PDFs
    e.RENDER_INVALID_INPUT: "The resume or letter could not be laid out as a PDF.",
    e.RENDER_TOO_LARGE: "The resume or letter is too long for its PDF.",
    e.RENDER_LETTER_TOO_LONG: "The cover letter is longer than one page.",
    e.RENDER_FAILED: "Making the PDF failed; try again.",
    e.RENDER_NOT_A_PDF: "Making the PDF failed; try again.",
    # applying
    e.APPLY_MATERIALS_NOT_APPROVED: "Approve the resume first (and its letter, if it has one).",
    e.APPLY_NOT_PREPARED: "The application is not prepared yet.",
    e.APPLY_MATERIALS_CHANGED: "The attachments changed since you approved them: approve again.",
    e.APPLY_NOT_APPROVED: "The email is not approved yet.",
    e.APPLY_APPROVAL_EXPIRED: "Your approval is older than 15 minutes: approve again.",
    e.APPLY_APPROVAL_MISMATCH: "The email changed since you approved it: approve again.",
    e.APPLY_ATTEMPT_LIVE: "The application is being sent or filled in right now.",
    e.APPLY_ALREADY_DONE: "You already applied.",
    e.APPLY_OUTCOME_UNKNOWN: (
        "We cannot tell whether the email went out: check your Sent folder and say."
    ),
    e.APPLY_NO_RECIPIENT: "There is no email address to send the application to.",
    e.APPLY_BAD_RESOLUTION: "That answer does not fit the application's state.",
    e.APPLY_CAPTCHA: "The form asks you to prove you are human: finish it yourself.",
    e.APPLY_FORM_UNAVAILABLE: "The application form did not load.",
    e.APPLY_NO_FORM: "The page has no application form to fill in.",
    e.APPLY_NO_FORM_URL: "There is no application form address for this job.",
    e.APPLY_ON_SITE: "Apply on the site: it takes applications in its own form (LinkedIn "
    "Easy Apply, Indeed), which jobctrl does not fill. Open the posting and apply there.",
    e.APPLY_BROWSER_UNAVAILABLE: "No Chromium browser was found to fill in the form.",
    e.APPLY_NO_DISPLAY: "No screen to show the browser on (try a dry run).",
    e.APPLY_PREFILL_INTERRUPTED: "Filling in the form stopped before it finished.",
    e.SMTP_NOT_CONFIGURED: "Your email account is not set up yet (Settings).",
    e.SMTP_PASSWORD_MISSING: "Your email account's password is not set.",
    e.SMTP_UNREACHABLE: "Your mail server could not be reached; nothing was sent.",
    e.SMTP_TLS_FAILED: "A secure connection to your mail server failed; nothing was sent.",
    e.SMTP_AUTH_FAILED: "Your mail server refused the login; nothing was sent.",
    e.SMTP_SENDER_REFUSED: "Your mail server refused the sender address; nothing was sent.",
    e.SMTP_RECIPIENT_REFUSED: "The recipient's address was refused; nothing was sent.",
    e.SMTP_MESSAGE_TOO_LARGE: "The email is too large for the mail server; nothing was sent.",
    e.SMTP_TEMPORARY: "The mail server asked to try later; nothing was sent.",
    e.SMTP_REFUSED: "The mail server refused the email; nothing was sent.",
    e.SEND_CONNECTION_LOST: "The connection dropped mid-send: it may have gone out.",
    e.SEND_SENDER_DIED: "jobctrl stopped mid-send: the email may have gone out.",
    e.SEND_INTERRUPTED: "Sending stopped unexpectedly: the email may have gone out.",
    e.FOLLOWUP_NOT_DUE: "No follow-up is due for this application.",
    e.MESSAGE_UNSUPPORTED_CLAIM: "The message claims something your profile does not say.",
    e.OUTREACH_DAILY_CAP: "You reached today's limit of outreach emails; send more tomorrow.",
}

# Why a discovery run left a posting or a job out of preparation (domain/discovery.py).
NOT_ELIGIBLE_SENTENCES: dict[str, str] = {
    NotEligible.FILTERED_TITLE: "Its title (or words) is not what your target search asks for.",
    NotEligible.FILTERED_LOCATION: "Its location is not one your target search accepts.",
    NotEligible.DUPLICATE: "An earlier run already found and prepared this job.",
    NotEligible.BELOW_THRESHOLD: "Below your minimum fit score, so no resume or letter.",
    NotEligible.CLOSED: "The posting is closed or no longer online.",
    NotEligible.HIDDEN: "You said you are not interested in this job.",
}

_UNKNOWN = "Something went wrong; the details below say what."


def sentence(code: str | None) -> str:
    """The sentence for ``code`` (a general one for a code without its own)."""
    if not code:
        return _UNKNOWN
    return SENTENCES.get(code, _UNKNOWN)


def ago(then: datetime, now: datetime) -> str:
    """How long before ``now`` ``then`` was, in a person's words: "just now", "5 min ago",
    "2 h ago", "3 days ago" (the future reads "in 2 h")."""
    seconds = int((as_utc(now) - as_utc(then)).total_seconds())
    future = seconds < 0
    seconds = abs(seconds)
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        amount = f"{seconds // 60} min"
    elif seconds < 2 * 86400:
        amount = f"{seconds // 3600} h"
    else:
        amount = f"{seconds // 86400} days"
    return f"in {amount}" if future else f"{amount} ago"

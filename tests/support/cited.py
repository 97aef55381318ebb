"""Materials in the cited schema for TEST_PROFILE, truthful and lying, as an
OpenAI-compatible model would return them (the fake server in tests/support/fake_openai.py
answers with these): each line cites real profile facts, the lies included."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jobctrl.domain.facts import profile_facts
from jobctrl.domain.materials import TailoredResume
from jobctrl.domain.profile import Profile
from jobctrl.llm.answers import ResumeAnswer, to_resume
from tests.support.fake_openai import prompt_text, requested_fields
from tests.support.http import posting_html
from tests.support.profile import TEST_PROFILE

COMPANY, ROLE = "Acme Robotics", "Senior Backend Engineer"
POSTING = posting_html(
    ROLE,
    COMPANY,
    ["5+ years of Python", "Experience with PostgreSQL", "Kubernetes and Docker", "FastAPI"],
)

FACTS = profile_facts(Profile.model_validate(TEST_PROFILE))
SUMMARY = next(f.id for f in FACTS if f.kind == "summary")
ENTRY = next(f.id for f in FACTS if f.kind == "experience")
EDUCATION = next(f.id for f in FACTS if f.kind == "education")
SERVICES = next(f.id for f in FACTS if f.kind == "highlight" and f.text.startswith("Built"))
MIGRATION = next(f.id for f in FACTS if f.kind == "highlight" and f.text.startswith("Moved"))

TRUE_SUMMARY = "Backend engineer building reliable Python services on PostgreSQL."
TRUE_SERVICES = "Built Python and FastAPI services on PostgreSQL serving 2k requests per second."
TRUE_MIGRATION = "Moved 40 services to Kubernetes with Docker images and CI/CD pipelines."

# Each lie: (where the check must find it, the sentence, a word its claim must name).
RESUME_LIES = [
    (
        "summary[0]",
        "Backend engineer at Google building reliable Python services on PostgreSQL.",
        "Google",
    ),
    ("summary[1]", "12 years of experience building backend services.", "12"),
    ("experience[0].bullets[0]", TRUE_SERVICES[:-1] + " using Apache Flink.", "Flink"),
    ("experience[0].bullets[1]", TRUE_MIGRATION.replace("40", "400"), "400"),
]
LETTER_LIE = (
    "With five years as Principal Engineer at Microsoft, I have led platform teams of 40 people."
)
# Words only the lies use: none may be found anywhere but the truth check's own record.
LIE_MARKERS = (
    "Google",
    "12 years",
    "Apache Flink",
    "400 services",
    "Microsoft",
    "Principal",
    "Turing",
)


def _line(text: str, *facts: str) -> dict[str, Any]:
    return {"text": text, "facts": list(facts)}


def resume(summary: list[dict[str, Any]], bullets: list[dict[str, Any]]) -> dict[str, Any]:
    """A resume as the Tailor lane answers it (``llm.answers.ResumeAnswer``): the name,
    contact details and each entry's title, employer and dates are filled in by code."""
    return {
        "headline": _line("Senior Backend Engineer", ENTRY),
        "summary": summary,
        "skills": ["Python", "PostgreSQL", "Kubernetes", "FastAPI"],
        "experience": [{"fact": ENTRY, "bullets": bullets}],
        "education": [{"fact": EDUCATION}],
        "extras": [],
    }


TRUE_RESUME = resume(
    [_line(TRUE_SUMMARY, SUMMARY)],
    [_line(TRUE_SERVICES, SERVICES), _line(TRUE_MIGRATION, MIGRATION)],
)
LYING_RESUME = resume(
    [_line(RESUME_LIES[0][1], SUMMARY), _line(RESUME_LIES[1][1], ENTRY)],
    [_line(RESUME_LIES[2][1], SERVICES), _line(RESUME_LIES[3][1], MIGRATION)],
)


def letter(evidence: dict[str, Any]) -> dict[str, Any]:
    """A letter as the Cover lane answers it (``llm.answers.LetterAnswer``): its
    paragraphs; the greeting, closing and signature are filled in by code."""
    return {
        "paragraphs": [
            {"sentences": [_line(f"I am applying for the {ROLE} role at {COMPANY}.")]},
            {
                "sentences": [
                    evidence,
                    _line("I " + TRUE_SERVICES[0].lower() + TRUE_SERVICES[1:], SERVICES),
                ]
            },
            {"sentences": [_line("Thank you for your time.")]},
        ],
    }


TRUE_LETTER = letter(_line("I " + TRUE_MIGRATION[0].lower() + TRUE_MIGRATION[1:], MIGRATION))
LYING_LETTER = letter(_line(LETTER_LIE, ENTRY))


# A letter the check cannot keep by cutting: three of its four sentences lie.
BROKEN_LETTER = {
    "paragraphs": [
        {"sentences": [_line("I have led teams of 40 people at Microsoft.", ENTRY)]},
        {"sentences": [_line(LETTER_LIE, ENTRY)]},
        {"sentences": [_line("I won the Turing Award in 2020.", SUMMARY)]},
        {"sentences": [_line("I " + TRUE_MIGRATION[0].lower() + TRUE_MIGRATION[1:], MIGRATION)]},
    ],
}
REPAIR_MARKER = "A truth check found these lines"  # in the one repair request's prompt


def is_repair(request: dict[str, Any]) -> bool:
    return REPAIR_MARKER in prompt_text(request)


def scripted(script: dict[str, dict[str, Any]]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A fake server's ``answer``: ``script["letter"]`` to a request for a letter, else
    ``script["resume"]``; to the truth check's repair request, ``script["letter_repair"]``
    / ``script["resume_repair"]`` when given (else the same). Change the dict to change
    what the next answer says."""

    def answer(request: dict[str, Any]) -> dict[str, Any]:
        kind = "letter" if "paragraphs" in requested_fields(request) else "resume"
        if is_repair(request) and f"{kind}_repair" in script:
            return script[f"{kind}_repair"]
        return script[kind]

    return answer


def as_resume(answer: dict[str, Any]) -> TailoredResume:
    """The tailored resume the Tailor stage makes of ``answer`` (``llm.answers.to_resume``)."""
    return to_resume(ResumeAnswer.model_validate(answer), Profile.model_validate(TEST_PROFILE))

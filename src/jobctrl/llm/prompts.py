"""Prompts for the LLM lanes. They travel only to the provider: never into events,
projections, histories or logs."""

from __future__ import annotations

import json

from jobctrl.domain.profile import Profile
from jobctrl.domain.scoring import ScoreReport

SCORE_SYSTEM = (
    "You assess how well a candidate fits a job posting. List the posting's requirements "
    "(kind 'must' or 'nice'), and for each say whether the candidate's profile meets it, "
    "quoting the profile's own words as evidence (source: skills, experience, summary or "
    "education; ref like experience[0].bullets[2]). Never invent evidence. Give a score "
    "from 0 to 100, a short verdict and a one-sentence summary."
)
TAILOR_SYSTEM = (
    "You tailor a resume to a job. Use only facts from the candidate's profile: you may "
    "select, order and rephrase them, but never add an employer, title, date, degree, skill "
    "or number that the profile does not contain. Put the experience most relevant to the "
    "requirement-fit report first within each role."
)
COVER_SYSTEM = (
    "You write a short cover letter (under 350 words) addressed to the company, from the "
    "requirement-fit report and the candidate's profile. Mention only facts from the "
    "profile. Be specific and plain; no flattery."
)


def _profile_json(profile: Profile) -> str:
    return json.dumps(profile.model_dump(mode="json"), ensure_ascii=False)


def score_prompt(title: str | None, description: str, profile: Profile) -> str:
    return (
        f"Job title: {title or 'unknown'}\n\nPosting:\n{description}\n\n"
        f"Candidate profile (JSON):\n{_profile_json(profile)}"
    )


def materials_prompt(
    title: str | None, company: str | None, report: ScoreReport, profile: Profile
) -> str:
    return (
        f"Job: {title or 'unknown'} at {company or 'unknown company'}\n\n"
        f"Requirement-fit report (JSON):\n{report.model_dump_json()}\n\n"
        f"Candidate profile (JSON):\n{_profile_json(profile)}"
    )

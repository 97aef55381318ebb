"""Prompts for the LLM lanes. They travel only to the provider: never into events,
projections, histories or logs."""

from __future__ import annotations

import json
from collections.abc import Sequence

from pydantic import BaseModel

from jobctrl.domain.facts import profile_facts
from jobctrl.domain.profile import Profile
from jobctrl.domain.scoring import ScoreReport
from jobctrl.domain.truth.document import Finding

SCORE_SYSTEM = (
    "You assess how well a candidate fits a job posting. List the posting's requirements "
    "(kind 'must' or 'nice'; soft true for one a resume cannot show, such as communication "
    "or curiosity), and for each say whether the candidate's profile meets it, "
    "quoting the profile's own words as evidence (source: skills, experience, summary or "
    "education; ref like experience[0].bullets[2]). Never invent evidence: a requirement "
    "the profile's own words do not show is unmet. A requirement with alternatives ('A or "
    "B', 'A/B', 'one of A, B') is met by any one; a neighbouring technology is no evidence "
    "(Kubernetes is not Docker); managing people needs evidence of managing people (reports, "
    "hiring, a team managed), not collaboration; years of a kind of work count only roles of "
    "that kind. Give a score from 0 to 100, a short verdict and a one-sentence summary; the "
    "final score and verdict are decided from your requirements and the posting's level and "
    "job family by code, so judge each requirement carefully."
)
# Both materials prompts end with the same rule: every line cites the facts it rests on,
# and a checker holds each line to exactly those facts.
CITING = (
    " The profile's facts are listed with their ids. Every sentence or bullet about the "
    "candidate lists in `facts` the ids of the profile facts it rests on, and says nothing "
    "those facts do not say (no other employer, title, school, degree, award, tool, date, "
    "duration or number); a line about the employer, the role or politeness lists none."
)
TAILOR_SYSTEM = (
    "You tailor a resume to a job. Use only facts from the candidate's profile: you may "
    "select, order and rephrase them, but never add an employer, title, date, degree, skill "
    "or number that the profile does not contain. Put the experience most relevant to the "
    "requirement-fit report first within each role. Each experience and education entry "
    "gives in `fact` the id of the profile entry it is, with that entry's title, employer "
    "or school and dates; a bullet cites the highlights it restates; the summary is a list "
    "of sentences, each citing its facts; skills are the profile's own." + CITING
)
_COVER = (
    "You write a short cover letter (under 350 words) addressed to the company, from the "
    "requirement-fit report and the candidate's profile. Mention only facts from the "
    "profile. Be specific and plain; no flattery. Each paragraph is a list of sentences; "
    "the greeting names only the company, and the signature is the candidate's name."
)
# The setting materials.mention_gaps (default off): a letter does not volunteer what the
# candidate lacks unless the person asked for that.
NO_GAPS = (
    " Never mention a requirement the candidate does not meet, or experience, skills or "
    "tools they lack; write only about what they bring."
)
WITH_GAPS = " You may name at most one unmet must-have in one honest sentence, without apology."
COVER_SYSTEM = _COVER + NO_GAPS + CITING


def cover_system(*, mention_gaps: bool) -> str:
    """The cover lane's system prompt under the setting ``materials.mention_gaps``."""
    return _COVER + (WITH_GAPS if mention_gaps else NO_GAPS) + CITING


PROFILE_SYSTEM = (
    "You read the text of a person's resume and return it as a structured profile: name, "
    "contact (email, phone, location, links), summary, skills, experience (each role's "
    "employer as company, title, start, end, location, bullets), education (institution, "
    "degree, field, start, end), languages, certifications, projects, awards and "
    "volunteer roles. Copy every value exactly as the text writes it: names, titles, "
    "employers, schools and places in the text's words, each bullet word for word. Write "
    "dates as YYYY-MM or YYYY, and 'present' for a role that has not ended. Leave out "
    "anything the text does not say: a value not found in the text is discarded."
)


def profile_prompt(text: str) -> str:
    return f"Resume text:\n{text}"


def _profile_json(profile: Profile) -> str:
    return json.dumps(profile.model_dump(mode="json"), ensure_ascii=False)


def score_prompt(title: str | None, description: str, profile: Profile) -> str:
    return (
        f"Job title: {title or 'unknown'}\n\nPosting:\n{description}\n\n"
        f"Candidate profile (JSON):\n{_profile_json(profile)}"
    )


def facts_listing(profile: Profile) -> str:
    """The profile's facts, one a line: ``id [kind] text`` (a highlight also names its
    entry: ``hl-… [highlight of exp-…] text``)."""
    lines = []
    for fact in profile_facts(profile):
        kind = f"{fact.kind} of {fact.parent}" if fact.parent else fact.kind
        lines.append(f"{fact.id} [{kind}] {' '.join(fact.text.split())}")
    return "\n".join(lines)


def materials_prompt(
    title: str | None, company: str | None, report: ScoreReport, profile: Profile
) -> str:
    return (
        f"Job: {title or 'unknown'} at {company or 'unknown company'}\n\n"
        f"Requirement-fit report (JSON):\n{report.model_dump_json()}\n\n"
        f"Candidate profile (JSON):\n{_profile_json(profile)}\n\n"
        f"Profile facts to cite (id [kind] text):\n{facts_listing(profile)}"
    )


def repair_prompt(request: str, answer: BaseModel, findings: Sequence[Finding]) -> str:
    """The one repair request after a document the truth check could not keep by cutting:
    the first request, the answer, and each line the check found unsupported with what in
    it the cited facts do not say."""
    listed = "\n".join(
        f'- {f.where}: "{" ".join(f.sentence.split())}" ({f.kind}: {f.claim})' for f in findings
    )
    return (
        f"{request}\n\nYour previous answer (JSON):\n{answer.model_dump_json()}\n\n"
        "A truth check found these lines not supported by the profile facts they cite "
        f"(place: line (kind: the unsupported words)):\n{listed}\n\n"
        "Answer again with the whole document. Keep every line not listed. Rewrite each "
        "listed line so it says only what its cited facts say (cite the facts it rests on), "
        "or leave it out; never add anything the profile does not state."
    )

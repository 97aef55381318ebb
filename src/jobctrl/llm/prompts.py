"""Prompts for the LLM lanes. They travel only to the provider: never into events,
projections, histories or logs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from jobctrl.domain.facts import profile_facts
from jobctrl.domain.profile import Profile
from jobctrl.domain.scoring import ScoreReport
from jobctrl.domain.truth.document import Finding
from jobctrl.llm.answers import (
    FactFinder,
    LetterAnswer,
    ResumeAnswer,
    ScoreAnswer,
    answer_from_report,
)
from jobctrl.llm.remote_types import CACHE_BREAK
from jobctrl.llm.requirements import trim_boilerplate

SCORE_SYSTEM = (
    "You assess how well a candidate fits a job posting. List the posting's requirements, "
    "each named in a few words (at most 12, in the posting's terms: '5+ years of Python', "
    "'Snowflake or BigQuery') (kind 'must' or 'nice'; soft true for one a resume cannot "
    "show, such as communication "
    "or curiosity), and for each say whether the candidate's profile meets it, listing in "
    "`facts` the ids of the profile facts that show it. Never cite a fact that does not "
    "show it: a requirement no fact shows is unmet. A requirement with alternatives ('A or "
    "B', 'A/B', 'one of A, B') is met by any one; a neighbouring technology is no evidence "
    "(Kubernetes is not Docker); managing people needs evidence of managing people (reports, "
    "hiring, a team managed), not collaboration; years of a kind of work count only roles of "
    "that kind. Give a score from 0 to 100; the final score and "
    "verdict are decided from your requirements and the posting's level and job family by "
    "code, so judge each requirement carefully."
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
    "gives in `fact` the id of the profile entry it is (its title, employer or school and "
    "dates are filled in from the profile); a bullet cites the highlights it restates; the "
    "headline and each summary sentence cite their facts; skills are the profile's own." + CITING
)
_COVER = (
    "You write the paragraphs of a short cover letter (under 350 words) to the company, "
    "from the requirement-fit report and the candidate's profile. Mention only facts from "
    "the profile. Be specific and plain; no flattery. Each paragraph is a list of "
    "sentences; the greeting, closing and signature are added for you."
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


# Requests are laid out for the providers' prefix caches: the lane's instructions and the
# profile's facts first (the same for every job of a lane), the job's own text last.


def score_prompt(title: str | None, description: str, profile: Profile) -> str:
    return (
        f"Profile facts (id [kind] text):\n{facts_listing(profile)}\n\n{CACHE_BREAK}"
        f"Job title: {title or 'unknown'}\n\nPosting:\n{trim_boilerplate(description)}"
    )


def facts_listing(profile: Profile) -> str:
    """The profile's facts, one a line: ``id [kind] text`` (a highlight also names its
    entry: ``hl-… [highlight of exp-…] text``)."""
    lines = []
    for fact in profile_facts(profile):
        kind = f"{fact.kind} of {fact.parent}" if fact.parent else fact.kind
        lines.append(f"{fact.id} [{kind}] {' '.join(fact.text.split())}")
    return "\n".join(lines)


def report_listing(report: ScoreReport, profile: Profile, *, unmet: bool = True) -> str:
    """A score report as the materials lanes read it: one line a requirement, whether it
    is met and the facts that show it (``- [must] Python: met (hl-…, sk-…)``). Without
    ``unmet`` the requirements not shown are left out (a letter that must not name gaps
    is not told them)."""
    finder = FactFinder(profile)
    lines = []
    for r in report.requirements:
        if not r.matched and not unmet:
            continue
        shown = ", ".join(finder.ids(r.evidence))
        met = f"met ({shown})" if r.matched and shown else "met" if r.matched else "not shown"
        kind = f"{r.kind}, soft" if r.soft else r.kind
        lines.append(f"- [{kind}] {' '.join(r.requirement.split())}: {met}")
    return "\n".join(lines)


def materials_prompt(
    title: str | None,
    company: str | None,
    report: ScoreReport,
    profile: Profile,
    *,
    unmet: bool = True,
) -> str:
    listing = report_listing(report, profile, unmet=unmet)
    return (
        f"Profile facts to cite (id [kind] text):\n{facts_listing(profile)}\n\n{CACHE_BREAK}"
        f"Job: {title or 'unknown'} at {company or 'unknown company'}\n\n"
        f"Requirement-fit report (score {report.score}):\n{listing}"
    )


@dataclass(frozen=True)
class LaneRequest:
    """What a lane sends: the output it asks for, the instructions and the message."""

    output_type: type[BaseModel]
    system: str
    prompt: str


def lane_request(
    lane: str,
    *,
    title: str | None,
    company: str | None,
    description: str,
    profile: Profile,
    report: ScoreReport | None = None,
    mention_gaps: bool = False,
) -> LaneRequest:
    """The request a Score, Tailor or Cover lane sends for a job (bench/cost.py measures
    these)."""
    if lane == "score":
        return LaneRequest(ScoreAnswer, SCORE_SYSTEM, score_prompt(title, description, profile))
    assert report is not None, "materials are written from a score report"
    if lane == "tailor":
        prompt = materials_prompt(title, company, report, profile)
        return LaneRequest(ResumeAnswer, TAILOR_SYSTEM, prompt)
    prompt = materials_prompt(title, company, report, profile, unmet=mention_gaps)
    return LaneRequest(LetterAnswer, cover_system(mention_gaps=mention_gaps), prompt)


def score_answer(report: ScoreReport, profile: Profile) -> dict[str, Any]:
    """A careful model's answer in the Score lane's output schema, for ``report``."""
    return answer_from_report(report, profile).model_dump(mode="json")


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

"""The fit verdict, settled by code from the requirement-by-requirement report.

Every scorer (the offline one and a model) hands in a ``ScoreReport``; ``settle`` decides
its verdict and one-line reason (``fit_summary``) from the requirements and the factors
(level, family) alone, so a scorer's own overall verdict is never trusted over its report:
- a model's requirement "met" on evidence the profile does not contain is unmet
  (``supported_by_profile``);
- a model's score is at most the share its own requirements support (hard must x3, soft
  and nice x1): its overall judgment may lower a score, never raise it; its factors are
  dropped (code computes those);
- while a hard must-have is unmet the score stays below ``min_fit_score`` and the verdict
  is never "Strong fit", unless the person turned ``fit.unmet_must_have_caps_score`` off;
  either way the verdict names the unmet must-have;
- a soft requirement ("strong communication") never caps the score.
Settling is idempotent: settling a settled report with the same rules changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from jobctrl.domain.facts import profile_facts
from jobctrl.domain.fit_factors import MANAGEMENT_ASK, MANAGEMENT_EVIDENCE, fit_factors
from jobctrl.domain.job_family import families_counting_for, family_of
from jobctrl.domain.profile import Profile
from jobctrl.domain.scoring import Evidence, FitFactor, RequirementFit, ScoreReport
from jobctrl.domain.vocabulary import (
    GENERIC_TERMS,
    IMPLIES,
    SOFT_TERMS,
    TERMS,
    Term,
    significant_words,
    term_for,
)

__all__ = [
    "FitRules",
    "fit_summary",
    "model_share",
    "requirement_label",
    "requirement_weight",
    "rules_from",
    "score_from_requirements",
    "settle",
    "settle_model_report",
    "supported_by_profile",
    "unmet_must_haves",
    "verdict_for",
]

STRONG, GOOD, PARTIAL, WEAK = "Strong fit", "Good fit", "Partial fit", "Weak fit"
# The highest score of a posting with no requirement list (a rough estimate from the skills
# it mentions): below a strong fit, so it never tops jobs whose requirements were checked.
ROUGH_CAP = 70


@dataclass(frozen=True)
class FitRules:
    """The person's settings that shape a verdict (``min_fit_score`` and
    ``fit.unmet_must_have_caps_score``); the defaults are the settings' defaults."""

    min_fit_score: int = 50
    unmet_must_have_caps_score: bool = True


def rules_from(values: Mapping[str, Any]) -> FitRules:
    """The rules out of the settings' values (``Settings.all()``)."""
    return FitRules(
        min_fit_score=int(values["min_fit_score"]),
        unmet_must_have_caps_score=bool(values["fit.unmet_must_have_caps_score"]),
    )


def verdict_for(score: int) -> str:
    """The verdict word for a 0-100 score: >= 75 strong, >= 55 good, >= 35 partial."""
    if score >= 75:
        return STRONG
    if score >= 55:
        return GOOD
    if score >= 35:
        return PARTIAL
    return WEAK


def requirement_weight(fit: RequirementFit) -> int:
    """A hard must-have counts three times; a soft one and a nice-to-have once, so a soft
    requirement never outweighs a hard one."""
    return 3 if fit.kind == "must" and not fit.soft else 1


def score_from_requirements(requirements: list[RequirementFit]) -> int:
    """The weighted share of met requirements (``requirement_weight``), 0-100."""
    weights = [requirement_weight(r) for r in requirements]
    if not weights:
        return 0
    earned = sum(w for w, r in zip(weights, requirements, strict=True) if r.matched)
    return round(100 * earned / sum(weights))


def unmet_must_haves(report: ScoreReport) -> list[RequirementFit]:
    """The hard must-haves the profile does not meet, in the report's order."""
    return [r for r in report.requirements if r.kind == "must" and not r.matched and not r.soft]


_LEAD = re.compile(
    r"^(?:you have |you bring |you are |we are looking for |we need |must have |"
    r"strong |solid |proven |demonstrated |hands-on |deep )+",
    re.IGNORECASE,
)


def requirement_label(text: str, words: int = 8, *, keep_case: bool = False) -> str:
    """A requirement shortened for a one-line reason: lead-ins dropped, at most ``words``,
    its first word lower-cased for the middle of a sentence unless ``keep_case``.

    Only a word that began the posting's sentence is lower-cased, and only an ordinary
    one: a name keeps its capital ("Go", "Python", "English": a vocabulary term whose label
    is capitalised; "PhD", "AWS": not capitalised as a plain word), as does a word that
    followed a dropped lead-in ("Strong Go skills": the posting capitalised it mid-sentence,
    so it is a name)."""
    whole = " ".join(text.split())
    cleaned = _LEAD.sub("", whole).rstrip(" .;:,")
    parts = cleaned.split()
    short = " ".join(parts[:words]).rstrip(" .;:,")
    short = short + ("…" if len(parts) > words else "")
    first = parts[0] if parts else ""
    initial = cleaned == whole.rstrip(" .;:,")  # nothing dropped before it
    plain = first[:1].isupper() and (len(first) == 1 or first[1:].islower())  # not "PhD"
    term = term_for(first.rstrip(" .;:,()"))
    named = term is not None and term.label[:1].isupper()  # "Python", not "leadership"
    lower = plain and initial and not named and not keep_case
    return short[:1].lower() + short[1:] if lower else short


def _missing(unmet: list[RequirementFit]) -> str:
    if len(unmet) == 1:
        return f"missing must-have: {requirement_label(unmet[0].requirement)}"
    named = "; ".join(requirement_label(r.requirement, 6) for r in unmet[:2])
    more = f" and {len(unmet) - 2} more" if len(unmet) > 2 else ""
    return f"missing {len(unmet)} must-haves: {named}{more}"


def requirements_summary(requirements: list[RequirementFit]) -> str:
    """A report's summary sentence from its requirements: how many are met (and of the
    must-haves, when there are others too) and the unmet ones named
    ("Meets 4 of 6 requirements (3 of 4 must-haves); missing: Kubernetes; Go.")."""
    if not requirements:
        return "The posting lists no requirements to check."
    met = sum(r.matched for r in requirements)
    summary = (
        f"Meets {met} of {len(requirements)} requirement{'s' if len(requirements) > 1 else ''}"
    )
    musts = [r for r in requirements if r.kind == "must"]
    if musts and len(musts) < len(requirements):
        summary += f" ({sum(r.matched for r in musts)} of {len(musts)} must-haves)"
    unmet = [r for r in musts if not r.matched] + [
        r for r in requirements if r.kind != "must" and not r.matched
    ]
    named = "; ".join(requirement_label(r.requirement, 6, keep_case=True) for r in unmet[:3])
    more = f" and {len(unmet) - 3} more" if len(unmet) > 3 else ""
    return summary + (f"; missing: {named}{more}." if unmet else ".")


def fit_summary(report: ScoreReport) -> str:
    """The one-line reason for a report's verdict: its must-haves met or the ones missing,
    then its factors ("meets 6/6 must-haves; level matches")."""
    return _fit_summary(report, unmet_must_haves(report))


def _fit_summary(report: ScoreReport, unmet: list[RequirementFit]) -> str:
    musts = [r for r in report.requirements if r.kind == "must" and not r.soft]
    if not report.requirements:
        parts = ["no requirement list to check"]
    elif unmet:
        parts = [_missing(unmet)]
    else:
        met = sum(r.matched for r in musts)
        parts = [f"meets {met}/{len(musts)} must-haves"] if musts else ["no must-haves listed"]
    parts.extend(f.note for f in report.factors if f.note)
    return "; ".join(parts)


def model_share(report: ScoreReport) -> int:
    """A model's score held to what its own requirements support (0-100)."""
    if not report.requirements:
        return 0  # a model's number with no requirement behind it is not a fit score
    return min(max(0, min(100, report.score)), score_from_requirements(report.requirements))


def settle(
    report: ScoreReport,
    rules: FitRules,
    *,
    from_model: bool = False,
    factors: list[FitFactor] | None = None,
) -> ScoreReport:
    """The report with its score capped, its verdict and ``fit_summary`` decided by code.

    A scorer's report carries its factors with their points already taken off; a model's
    (``from_model``) is held to its ``model_share`` and gets ``factors`` (computed by code,
    ``domain.fit_factors``) with their points taken off here, once."""
    score = max(0, min(100, report.score))
    kept = report.factors
    if from_model:  # a model's own factors are not trusted: code's replace them
        kept = list(factors or [])
        score = max(0, model_share(report) - sum(f.points for f in kept))
    settled = report.model_copy(update={"factors": kept})
    unmet = unmet_must_haves(settled)
    if unmet and rules.unmet_must_have_caps_score:
        score = min(score, max(0, rules.min_fit_score - 1))
    if not settled.requirements:  # an estimate from the words alone is never a strong fit
        score = min(score, ROUGH_CAP)
    verdict = verdict_for(score)
    if unmet and rules.unmet_must_have_caps_score and verdict == STRONG:
        verdict = GOOD  # a high min_fit_score still never lets an unmet must-have be strong
    if unmet:
        first = requirement_label(unmet[0].requirement)
        more = f"{len(unmet)} must-haves, including" if len(unmet) > 1 else "must-have:"
        verdict = f"{verdict}: missing {more} {first}"
    return settled.model_copy(
        update={"score": score, "verdict": verdict, "fit_summary": _fit_summary(settled, unmet)}
    )


# -- a model's evidence, checked against the profile ------------------------------------------

_PUNCT = re.compile(r"[^\w+#]+")
_SHARED = 0.8  # of an evidence line's words one profile line must hold


def _normal(text: str) -> str:
    return " ".join(_PUNCT.sub(" ", text.lower()).split())


@dataclass(frozen=True)
class _ProfileText:
    joined: str  # every line, normalised, one per line
    lines: tuple[frozenset[str], ...]  # each line's significant words


def _profile_text(profile: Profile) -> _ProfileText:
    lines = [f.text for f in profile_facts(profile)]
    lines += [profile.summary, *profile.skills]
    for exp in profile.experience:
        lines += [exp.title, exp.company, *exp.bullets]
    for edu in profile.education:
        lines += [edu.degree, edu.field, edu.institution]
    lines = [line for line in lines if line.strip()]
    return _ProfileText(
        "\n".join(_normal(line) for line in lines),
        tuple(frozenset(significant_words(line)) for line in lines),
    )


def _supported(evidence: Evidence, text: _ProfileText) -> bool:
    quoted = _normal(evidence.text)
    if not quoted:
        return False
    if quoted in text.joined:
        return True
    words = set(significant_words(evidence.text))  # one word ("role") is no quotation
    return len(words) >= 2 and any(len(words & line) >= _SHARED * len(words) for line in text.lines)


# What an entry shows without naming it: years of work (an experience entry's dates), a
# degree (an education entry).
_YEARS_ASK = re.compile(r"\byears?\b|\byrs?\b", re.IGNORECASE)
_DEGREE_ASK = re.compile(
    r"\bdegree\b|\bbachelor|\bmaster|\bph\.?\s?d\b|\bbs\b|\bms\b|\bmba\b|\bgraduate",
    re.IGNORECASE,
)


# Words any requirement uses: sharing one says nothing about being about it.
_ANY = frozenset(
    significant_words(
        "experience years strong proven solid excellent good knowledge skills ability team "
        "teams work working role roles professional understanding background"
    )
)


def _skills(text: str) -> list[Term]:
    """The specific skills a text names (not broad areas, not soft skills)."""
    return [
        t
        for t in TERMS
        if t.key not in GENERIC_TERMS and t.key not in SOFT_TERMS and t.pattern.search(text)
    ]


def _shows(evidence: str, skill: Term) -> bool:
    """Whether a line shows ``skill``: it names it, or a skill that is an instance of it
    (``vocabulary.IMPLIES``: PostgreSQL shows SQL)."""
    if skill.pattern.search(evidence):
        return True
    return any(skill.key in _implied(t.key) for t in TERMS if t.pattern.search(evidence))


def _implied(key: str) -> set[str]:
    found: set[str] = set()
    frontier = list(IMPLIES.get(key, ()))
    while frontier:
        implied = frontier.pop()
        if implied not in found:
            found.add(implied)
            frontier.extend(IMPLIES.get(implied, ()))
    return found


def _relevant(evidence: Evidence, requirement: RequirementFit) -> bool:
    """Whether a cited fact shows the requirement at all, by the offline scorer's rules in
    short: a skill asked is shown only by a line naming it (or an instance of it);
    managing people only by management evidence; years of a kind of work only by a role
    of that kind; a degree by an education entry; else a word in common that is not one
    every requirement uses."""
    asked = requirement.requirement
    if MANAGEMENT_ASK.search(asked):
        return bool(MANAGEMENT_EVIDENCE.search(evidence.text)) or (
            evidence.ref.startswith("exp-") and family_of(evidence.text) == "management"
        )
    skills = _skills(asked)
    if skills:
        return any(_shows(evidence.text, skill) for skill in skills)
    if evidence.ref.startswith("exp-") and _YEARS_ASK.search(asked):
        kind = family_of(asked)
        return kind is None or family_of(evidence.text) in families_counting_for(kind)
    if evidence.ref.startswith("edu-") and _DEGREE_ASK.search(asked):
        return True
    shared = set(significant_words(evidence.text)) & set(significant_words(asked))
    return bool(shared - _ANY)


def _hard(requirement: RequirementFit) -> RequirementFit:
    """A requirement a model called soft that names a skill, years, a degree or managing
    people is a hard one: the model does not decide what may go unproven."""
    asked = requirement.requirement
    named = (
        _skills(asked)
        or _YEARS_ASK.search(asked)
        or _DEGREE_ASK.search(asked)
        or MANAGEMENT_ASK.search(asked)
    )
    return (
        requirement.model_copy(update={"soft": False})
        if requirement.soft and named
        else requirement
    )


def supported_by_profile(report: ScoreReport, profile: Profile) -> ScoreReport:
    """A model's report with every requirement it calls met on evidence the profile does
    not contain corrected to unmet: evidence must quote the profile (or hold most of one
    of its lines' words), never the posting or the model's own words; a fact cited by id
    (``llm.answers``) must be about the requirement (``_relevant``): citing "Python" for
    "Kubernetes" shows nothing."""
    text = _profile_text(profile)
    fixed = []
    for requirement in map(_hard, report.requirements):
        if requirement.matched and not requirement.soft:
            kept = [
                e for e in requirement.evidence if _supported(e, text) and _relevant(e, requirement)
            ]
            if kept:
                requirement = requirement.model_copy(update={"evidence": kept})
            else:
                requirement = requirement.model_copy(
                    update={"matched": False, "evidence": [], "matched_terms": []}
                )
        fixed.append(requirement)
    return report.model_copy(update={"requirements": fixed})


def settle_model_report(
    report: ScoreReport,
    rules: FitRules,
    *,
    title: str | None,
    description: str,
    profile: Profile,
    today: date,
) -> ScoreReport:
    """A model's report settled as the Score stage settles it: its evidence checked against
    the profile (``supported_by_profile``), held to what its own requirements support,
    with the posting's level and family weighed by code. A report without its own summary
    (a model is not asked for one) gets code's, from the requirements as settled."""
    report = supported_by_profile(report, profile)
    if not report.summary:
        report = report.model_copy(update={"summary": requirements_summary(report.requirements)})
    factors = fit_factors(title, description, profile, today, model_share(report))
    return settle(report, rules, from_model=True, factors=factors)

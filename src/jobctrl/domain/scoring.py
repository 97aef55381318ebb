"""The requirement-fit report: each requirement, whether the profile meets it, and why."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Evidence(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source: str  # "skills" | "experience" | "summary" | "education"
    text: str  # the profile's own words that meet the requirement
    ref: str = ""  # e.g. "experience[0].bullets[2]"


class RequirementFit(BaseModel):
    model_config = ConfigDict(extra="forbid")

    requirement: str
    kind: Literal["must", "nice"] = "must"
    matched: bool
    matched_terms: list[str] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)
    # A soft requirement ("strong communication", "a technical background") is judged from
    # the whole profile and never caps the score the way an unmet hard must-have does.
    soft: bool = False


class FitFactor(BaseModel):
    """A factor besides the requirement list: the posting's level or job family against
    the profile's, and the points it took off the score."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["level", "family"]
    matched: bool
    note: str  # one plain line, e.g. "posting is junior; you have 9 years"
    points: int = 0


class ScoreReport(BaseModel):
    """Score 0-100 with a short verdict, derived from the requirement items and factors
    (``domain.fit_verdict.settle`` decides the verdict and ``fit_summary``)."""

    model_config = ConfigDict(extra="forbid")

    score: int
    verdict: str
    requirements: list[RequirementFit]
    provider: str
    model: str
    summary: str = ""
    factors: list[FitFactor] = Field(default_factory=list)
    fit_summary: str = ""  # the one-line reason the Jobs list shows

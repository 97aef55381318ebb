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


class ScoreReport(BaseModel):
    """Score 0-100 with a short verdict, derived from the requirement items."""

    model_config = ConfigDict(extra="forbid")

    score: int
    verdict: str
    requirements: list[RequirementFit]
    provider: str
    model: str
    summary: str = ""

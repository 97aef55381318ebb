"""What Enrich extracts from a posting page."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, field_validator

from jobctrl.domain.shown_text import one_line, without_controls


class SalaryRange(BaseModel):
    model_config = ConfigDict(extra="forbid")

    min: float | None = None
    max: float | None = None
    currency: str | None = None
    period: str | None = None  # "YEAR", "MONTH", "HOUR", ... as the page states it

    @field_validator("currency", "period")
    @classmethod
    def _one_line(cls, value: str | None) -> str | None:
        return one_line(value)


class ExtractedPosting(BaseModel):
    """Fields read from one posting; ``method`` says where they came from."""

    model_config = ConfigDict(extra="forbid")

    title: str | None = None
    company: str | None = None
    location: str | None = None
    remote: bool | None = None
    salary: SalaryRange | None = None
    description: str = ""  # plain text
    apply_url: str | None = None
    date_posted: str | None = None  # ISO date as published
    valid_through: str | None = None
    method: str = "none"  # "json-ld" | "main-text" | "none"

    @field_validator("title", "company", "location", "apply_url", "date_posted", "valid_through")
    @classmethod
    def _one_line(cls, value: str | None) -> str | None:
        """A page's title may hold a NUL or a bidirectional override: never stored (nor
        could PostgreSQL store a NUL)."""
        return one_line(value)

    @field_validator("description")
    @classmethod
    def _no_controls(cls, value: str) -> str:
        return without_controls(value)

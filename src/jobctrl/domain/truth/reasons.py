"""What each kind of truth-check finding means, in the words a person reads ("not supported
by your profile: it names an employer your profile does not have"). Imports nothing, so a
page that shows a recorded check's reasons need not load the checker."""

from __future__ import annotations

__all__ = ["reason"]

# What each kind of finding means, as the person reads it ("not supported by your profile:
# it names an employer your profile does not have").
_REASONS: dict[str, str] = {
    "name": "names something your profile does not",
    "tool": "names a tool or technology your profile does not",
    "quantity": "states a number your profile does not",
    "date": "states a date your profile does not",
    "duration": "states a length of time your profile does not",
    "degree": "names a degree your profile does not",
    "claim": "claims something (an award, a promotion, a lead role…) your profile does not",
    "uncited": "claims something about you without citing your profile",
    "unknown_fact": "cites something that is not in your profile",
    "wrong_name": "gives another name than yours",
    "unknown_employer": "names an employer your profile does not have",
    "unknown_title": "gives a title your profile does not have for that job",
    "changed_dates": "changes the dates of that job or degree",
    "unknown_degree": "names a degree or school your profile does not have",
    "unknown_skill": "lists a skill your profile does not have",
    "wrong_entry": "mixes up two of your jobs or degrees",
    "changed_contact": "gives contact details that are not yours",
    "changed_location": "puts a job in a place your profile does not say",
    "fusion": "puts a number with work another line of your profile describes",
    "entry_name": "places work at an employer, title or place it did not happen at",
    "grade": "claims a bigger role (led, owned…) than your profile states",
    "invented": "adds duties or subjects your profile does not mention",
}


def reason(kind: str) -> str:
    """The plain words for a finding's kind (a kind added later reads generically)."""
    return _REASONS.get(kind, "says more than the facts it cites")

"""Claims of a connection or a referral: who referred, introduced or already knows the writer.

A message to someone at the company (an outreach note, a follow-up) must not claim a tie
jobctrl has no record of: "Jane referred me", "as we discussed", "a mutual friend", "you
suggested I apply". The profile records no one's ties, so every such claim is reported
(kind ``connection``); a person who does know the reader writes that line themselves.
"""

from __future__ import annotations

import re

__all__ = ["CONNECTION", "connection_claims"]

CONNECTION = "connection"

_PATTERNS = [
    r"\breferr(?:ed|al|ing)\b",
    r"\brecommended (?:me|that i|i)\b",
    r"\b(?:suggested|told me|asked me|encouraged me|invited me)\b",
    r"\bintroduc(?:ed|tion) (?:me|us)\b",
    r"\bput (?:me|us) in touch\b",
    r"\bwe (?:met|spoke|talked|chatted|worked together|have met|connected)\b",
    r"\bas (?:we|you) (?:discussed|mentioned|said|agreed)\b",
    r"\b(?:our|my) (?:recent |earlier |last )?(?:conversation|call|chat|meeting|talk)\b",
    r"\bmutual (?:friend|contact|connection|acquaintance)s?\b",
    r"\b(?:friend|colleague|classmate|acquaintance)s? of yours\b",
    r"\b(?:friend|colleague|classmate) (?:at|from) (?:your|the) (?:company|team)\b",
    r"\bpassed (?:along|on) my\b",
    r"\b(?:nice|great|good|lovely) (?:to|meeting|talking|speaking)\b.*\b(?:you|again)\b",
]
_CLAIMS = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE)


def connection_claims(text: str) -> list[str]:
    """The words of ``text`` that claim a connection or referral ([] when none)."""
    return [m.group(0) for m in _CLAIMS.finditer(text)]

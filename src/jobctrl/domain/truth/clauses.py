"""A sentence cut into clauses, and which cited fact each clause draws its words from.

A sentence that cites several facts may join them ("Published 4 papers and filed 2
patents"), but each clause must keep what one fact says together: a number with the thing
it counts, an employer with the work done there, a verb with its object. The claim
checker asks this module:

- ``clause_spans(text)``: the clauses, cut at ";", ":", "—", " – ", "·", "|", a sentence
  end, and before a word that starts a new clause: "and"/"but" before a subject or a past
  tense verb ("… and filed 2 patents"), a comma before "and", "while", "where", "which",
  "who", a subject pronoun; "while", "where", "which", "who" anywhere. A participle after
  a comma (", cutting cost by 38%") stays in its clause: it says what the clause did.
- ``word_keys(text, start, end)``: the keys (``content.content_key``) of the clause's
  words that are not function words, the words a clause is recognised by.
"""

from __future__ import annotations

import functools
import itertools
import re

from jobctrl.domain.truth.content import content_key

__all__ = ["FUNCTION_WORDS", "clause_spans", "word_keys"]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


FUNCTION_WORDS = _words(
    """a an the this that these those it its i me my we our us you your he she his her they
    them their and or but nor so yet for of in on at by to from with without within into onto
    over under above below across through during before after since until while when where
    which who whom whose what how if as than then also too very more most many much some any
    all each every both other such same own no not only just even now still per via up out
    am is are was were be been being have has had do does did will would can could should
    may might must about around including"""
)
_STRONG = re.compile(r"[;:·|•—]|\s[–-]\s|[.!?](?=\s|$)")
_SUBJECTS = r"(?:i|we|he|she|they)\b"
_CONNECT = r"(?:while|whereas|where|which|who|whom|whose)\b"
_COMMA_BEFORE = re.compile(
    r",\s+(?=(?:and|but|so|then|when|after|before|since|until|i|we|he|she|they)\b|"
    + _CONNECT
    + ")",
    re.IGNORECASE,
)
_BARE_BEFORE = re.compile(r"\s+(?=" + _CONNECT + ")", re.IGNORECASE)
_AND_CLAUSE = re.compile(
    r"\s+(?=(?:and|but)\s+(?:"
    + _SUBJECTS
    + r"|(?:have|has|had|am|was|were|will)\b|(?:then\s+|later\s+|also\s+)?[a-z]{3,}ed\b|"
    r"(?:then\s+|later\s+|also\s+)?(?:led|ran|built|wrote|won|grew|drove|made|took|shipped|"
    r"oversaw|taught|held|brought|cut|set|spent|sold|rebuilt|rewrote|filed|released|"
    r"shrank|shrunk|sped|began|became|gave|got|kept|put|hit|split|stood|undertook|upheld|"
    r"overcame|grown|won|drew|chose|fed|met|paid|rose|sent|shot|swept|threw|wore|"
    r"mentor|mentors|lead|leads|run|runs|manage|manages|own|owns|build|builds|write|writes|"
    r"teach|teaches|coach|coaches|enjoy|enjoys|care|cares|design|designs|develop|develops|"
    r"ship|ships|maintain|maintains|train|trains|speak|speaks|hold|holds|help|helps|keep|"
    r"keeps|love|loves|like|likes|use|uses|work|works|hire|hires|grow|grows|serve|serves)\b))",
    re.IGNORECASE,
)


@functools.lru_cache(maxsize=4096)
def clause_spans(text: str) -> tuple[tuple[int, int], ...]:
    """The clauses of ``text`` as (start, end) offsets, in order."""
    cuts = {0, len(text)}
    for pattern in (_STRONG, _COMMA_BEFORE, _BARE_BEFORE, _AND_CLAUSE):
        for m in pattern.finditer(text):
            cuts.add(m.start())
            cuts.add(m.end())
    ordered = sorted(cuts)
    return tuple((a, b) for a, b in itertools.pairwise(ordered) if text[a:b].strip())


_WORD = re.compile(r"[^\W\d_][\w'’]*")


@functools.lru_cache(maxsize=16384)
def word_keys(text: str) -> frozenset[str]:
    """The keys of ``text``'s words that are not function words (hyphenated words by piece)."""
    out: set[str] = set()
    for m in _WORD.finditer(text.casefold()):
        word = m.group()
        if word in FUNCTION_WORDS or len(word) < 2:
            continue
        out.add(content_key(word))
    return frozenset(out)

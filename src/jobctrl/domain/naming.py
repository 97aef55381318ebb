"""Readable file names for a job's materials:
``Firstname_Lastname_Resume_Company_Role.pdf`` and
``Firstname_Lastname_Cover_Letter_Company_Role.pdf``.

One function names a PDF wherever it leaves jobctrl — `jobctrl materials export`, a
download from the web app, an email attachment, a file uploaded to an application form —
so the person and a recruiter see the same name everywhere, and two applications to one
company keep apart by their role.

A name is ASCII letters, digits, ``_`` and ``-`` only, so it survives every file system,
mail client and upload form: diacritics are folded (``Łukasz Żółć`` → ``Lukasz_Zolc``),
words are joined by ``_``, anything else is dropped. Each part is bounded and cut at a
word, so the whole name stays well under file system limits; a role is shortened
sensibly first (what is in brackets and what follows a ``|`` — "(Remote)", "| Berlin"
— goes, so is the company's own name when the role repeats it). A part that folds to
nothing (a name in a script with no Latin spelling) falls back to a placeholder for the
name and is left out for the company and the role: a name is never empty.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

__all__ = [
    "KIND_LABELS",
    "MAX_PART",
    "MAX_ROLE",
    "ascii_words",
    "material_file_name",
    "short_role",
]

MaterialKindName = Literal["resume", "cover"]

KIND_LABELS: dict[str, str] = {"resume": "Resume", "cover": "Cover_Letter"}
MAX_PART = 40  # characters of the name and of the company, each
MAX_ROLE = 40  # characters of the role
FALLBACK_NAME = "Candidate"

# Latin letters with no Unicode decomposition, spelled the way they are usually
# transliterated (NFKD folds the rest: "Ż" is "Z" plus a combining dot).
_NO_DECOMPOSITION = str.maketrans(
    {
        "Ł": "L", "ł": "l", "Ø": "O", "ø": "o", "Đ": "D", "đ": "d", "Ð": "D", "ð": "d",
        "Ħ": "H", "ħ": "h", "ı": "i", "Æ": "AE", "æ": "ae", "Œ": "OE", "œ": "oe",
        "ß": "ss", "Þ": "Th", "þ": "th", "Ŧ": "T", "ŧ": "t", "Ŀ": "L", "ŀ": "l",
    }
)  # fmt: skip
# Marks inside a word that are dropped rather than split on: O'Brien, AT&T, Inc.
_JOINERS = re.compile(r"['’`´&.]")
_ASIDES = re.compile(r"\([^)]*\)?|\[[^\]]*\]?|\{[^}]*\}?")  # "(Remote)", "[m/f/d]"
_WORD = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")


def ascii_words(text: str) -> list[str]:
    """``text``'s words in plain ASCII: diacritics folded, marks inside a word dropped
    (``O'Brien`` → ``OBrien``), hyphenated words kept whole, anything else a separator."""
    folded = unicodedata.normalize("NFKD", text.translate(_NO_DECOMPOSITION))
    plain = "".join(c for c in folded if not unicodedata.combining(c))
    return _WORD.findall(_JOINERS.sub("", plain))


def _part(text: str, limit: int = MAX_PART) -> str:
    """``text``'s words joined by ``_``, cut at a word boundary to at most ``limit``."""
    joined = ""
    for word in ascii_words(text):
        candidate = f"{joined}_{word}" if joined else word
        if len(candidate) > limit:
            if not joined:  # one very long word: cut inside it
                joined = word[:limit].rstrip("-")
            break
        joined = candidate
    return joined


def short_role(role: str, company: str = "") -> str:
    """``role`` as a file name part: bracketed asides and what follows a ``|`` dropped,
    the company's own name dropped from its start, cut at a word to ``MAX_ROLE``."""
    text = _ASIDES.sub(" ", role).split("|", 1)[0]
    words, named = ascii_words(text), ascii_words(company)
    if named and [w.casefold() for w in words[: len(named)]] == [w.casefold() for w in named]:
        words = words[len(named) :] or words
    return _part(" ".join(words), MAX_ROLE)


def material_file_name(
    candidate_name: str, kind: MaterialKindName | str, company: str, role: str = ""
) -> str:
    """The PDF file name of a ``kind`` (``resume`` or ``cover``) material written for
    ``role`` at ``company`` by ``candidate_name``:
    ``Jane_Doe_Resume_Acme_Robotics_Backend_Engineer.pdf``. A company or role that gives
    no usable words is left out (``Jane_Doe_Cover_Letter.pdf``)."""
    if kind not in KIND_LABELS:
        raise ValueError(f"kind must be resume or cover, not {kind!r}")
    parts = [_part(candidate_name) or FALLBACK_NAME, KIND_LABELS[kind]]
    parts += [p for p in (_part(company), short_role(role, company)) if p]
    return "_".join(parts) + ".pdf"

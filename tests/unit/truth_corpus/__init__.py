"""The truth-check corpus (issues 11 and 27): seven real public profiles and documents
built from them, each a truthful base plus one fabrication or one truthful rewrite (the
issue-27 ones in ``paraphrase`` and ``lies27``; the seventh profile, ``thomas``, was
written before the check ran on it). See ``corpus`` for how."""

from __future__ import annotations

from tests.unit.truth_corpus import agnieszka, chiamaka, hang, luisa, sebastien, sebnem, thomas
from tests.unit.truth_corpus.corpus import Case, Spec

SPECS: dict[str, Spec] = {
    m.SPEC.profile: m.SPEC for m in (agnieszka, luisa, hang, sebastien, sebnem, chiamaka, thomas)
}
from tests.unit.truth_corpus import (  # noqa: E402  (each appends to the profiles' tables)
    lies27,  # noqa: F401
    paraphrase,  # noqa: F401
)

CASES: list[Case] = [case for spec in SPECS.values() for case in spec.table.cases]

__all__ = ["CASES", "SPECS"]

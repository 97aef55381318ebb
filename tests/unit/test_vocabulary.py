"""The shared vocabulary: aliases, case-sensitive terms, word boundaries and significant words."""

from __future__ import annotations

import re

import pytest

from jobctrl.domain.vocabulary import (
    GENERIC_TERMS,
    NUMBER_WORDS,
    TERMS,
    VOCABULARY,
    WORD_LEFT,
    WORD_RIGHT,
    significant_words,
    term_for,
)


def _keys_in(text: str) -> list[str]:
    return [t.key for t in TERMS if t.pattern.search(text)]


@pytest.mark.parametrize("alias", ["Kubernetes", "K8s", "EKS", "gke", "  OpenShift "])
def test_an_alias_names_its_term(alias: str) -> None:
    term = term_for(alias)
    assert term is not None
    assert (term.key, term.label) == ("kubernetes", "Kubernetes")


def test_go_needs_its_capital_letter_but_golang_does_not() -> None:
    go = term_for("Go")
    assert go is not None and go.label == "Go"
    assert term_for("go") is None
    assert term_for("golang") is go
    assert "go" in _keys_in("Services written in Go and Python")
    assert "go" not in _keys_in("ready to go live, a go-to person")


def test_ci_cd_is_one_term_and_not_ci_or_cd() -> None:
    ci_cd = term_for("CI/CD")
    assert ci_cd is not None and ci_cd.key == "ci/cd"
    assert term_for("CI") is None
    assert term_for("CD") is None
    assert _keys_in("We ship with CI/CD") == ["ci/cd"]


def test_a_term_that_is_only_mentioned_is_not_named() -> None:
    assert term_for("Go services") is None
    assert term_for("") is None


def test_word_boundaries_keep_plus_and_hash_inside_a_word() -> None:
    assert "java" not in _keys_in("JavaScript")
    assert term_for("c++") is not None and term_for("C#") is not None
    literal_c = re.compile(WORD_LEFT + "C" + WORD_RIGHT, re.IGNORECASE)
    assert literal_c.search("C++ and C#") is None
    assert literal_c.search("written in C, then Rust") is not None


def test_terms_follow_the_table_and_generic_keys_are_known_terms() -> None:
    assert [t.key for t in TERMS] == list(VOCABULARY)
    assert GENERIC_TERMS.issubset(VOCABULARY)
    assert "backend" in GENERIC_TERMS and "kubernetes" not in GENERIC_TERMS


def test_number_words_are_read_only() -> None:
    assert NUMBER_WORDS["five"] == 5
    assert NUMBER_WORDS["fifteen"] == 15
    with pytest.raises(TypeError):
        NUMBER_WORDS["eleven"] = 11  # type: ignore[index]


def test_significant_words_drop_stopwords_and_stem_lightly() -> None:
    words = significant_words("Experience with the deployed services; deploying more services")
    assert words == ["deploy", "servic"]  # stopwords gone, each stem once, in order
    assert significant_words("5 years of Go, uses AWS") == ["uses", "aws"]

"""The alias list and the normal form names are compared in (domain.truth.aliases)."""

from __future__ import annotations

import pytest

from jobctrl.domain.truth.aliases import ALIAS_GROUPS, alias_table, fold, spelling_key


def test_fold_ignores_case_and_diacritics() -> None:
    assert fold("Zoë Müller-Łukasik") == "zoe muller-lukasik"
    assert fold("Universidad Politécnica") == "universidad politecnica"
    assert fold("Şebnem Yıldız") == "sebnem yildiz"
    assert fold("Ørsted, Æsir, Straße") == "orsted, aesir, strasse"
    assert fold("東京大学") == "東京大学"
    assert fold("CI / CD") == "ci/cd"


def test_spelling_key_drops_trailing_dots_and_possessives() -> None:
    assert spelling_key("Sr.") == "sr"
    assert spelling_key("ING's") == "ing"
    assert spelling_key("  Node.js  ") == "node.js"
    assert spelling_key("C++ and C#") == "c++ and c#"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Postgres", "PostgreSQL"),
        ("K8s", "Kubernetes"),
        ("Golang", "Go"),
        ("JS", "JavaScript"),
        ("TS", "TypeScript"),
        ("GCP", "Google Cloud"),
        ("Google Cloud Platform", "GCP"),
        ("AWS", "Amazon Web Services"),
        ("CI/CD", "continuous integration"),
        ("ML", "machine learning"),
        ("NLP", "natural language processing"),
        ("ReactJS", "React"),
        ("React.js", "React"),
        ("Node", "Node.js"),
        ("dotnet", ".NET"),
        ("Sr.", "Senior"),
        ("Jr.", "Junior"),
        ("Eng.", "Engineer"),
        ("Mgr", "Manager"),
        ("SWE", "Software Engineer"),
        ("VP", "Vice President"),
        ("QPS", "queries per second"),
        ("RPS", "requests per second"),
        ("TPS", "transactions per second"),
        ("MTTR", "mean time to recovery"),
        ("SLOs", "service level objective"),
        ("GMV", "gross merchandise value"),
        ("AML", "anti-money-laundering"),
        ("SSR", "server-side rendering"),
        ("NER", "named-entity recognition"),
        ("k8s", "Kubernetes"),
    ],
)
def test_shipped_aliases_name_the_same_thing(a: str, b: str) -> None:
    table = alias_table()
    assert spelling_key(b) in table.spellings(spelling_key(a))
    assert spelling_key(a) in table.spellings(spelling_key(b))


def test_aliases_are_not_transitive_across_groups() -> None:
    table = alias_table()
    assert "engineering" in table.spellings("eng")
    assert "engineering" not in table.spellings("engineer")


def test_an_unknown_name_is_only_itself() -> None:
    assert alias_table().spellings("snowplow") == frozenset({"snowplow"})


def test_config_aliases_extend_and_join_shipped_groups() -> None:
    table = alias_table({"Kubernetes": ("kube-cluster",), "Snowflake": ("SF DWH",)})
    assert "kube-cluster" in table.spellings("k8s")
    assert "sf dwh" in table.spellings("snowflake")
    assert "kube-cluster" not in alias_table().spellings("k8s")
    assert table is alias_table({"Kubernetes": ("kube-cluster",), "Snowflake": ("SF DWH",)})


def test_the_shipped_list_is_a_few_dozen_groups_without_empty_spellings() -> None:
    assert len(ALIAS_GROUPS) >= 40
    assert all(spelling_key(s) for g in ALIAS_GROUPS for s in g.spellings)


def test_a_term_alias_is_no_tool_so_its_words_claim_nothing_in_lower_case() -> None:
    table = alias_table()
    assert table.kinds("qps") == frozenset({"term"})
    assert not table.is_tool("queries per second")
    assert "queries per second" not in table.tool_spellings
    # "ms" is no alias: spellings ignore case, and "MS" is a degree (quantities reads "180 ms")
    assert not table.known("ms")

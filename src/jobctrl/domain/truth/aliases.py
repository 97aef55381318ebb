"""When two spellings name the same thing: the normal form every comparison of names uses,
and the alias list that ships with jobctrl (extendable by config.yaml's ``aliases:``).

The normal form (``fold``) ignores case, diacritics and a few letter variants ("Zoë
Müller-Łukasik" is "zoe muller-lukasik"), typographic apostrophes and the spaces around a
slash ("CI / CD" is "ci/cd"). ``spelling_key`` is that form with the words joined by one
space, the key of a spelling in an ``AliasTable``.

An alias only says that two spellings are the same thing (``K8s`` is Kubernetes, ``Sr.``
is Senior). It is never a reason to accept a name: the claim checker still requires one of
the spellings in the facts a sentence cites.

A spelling may belong to several groups ("Eng." is Engineer and Engineering): its
spellings are the union of its groups, which is not transitive on purpose ("Engineer" is
not "Engineering").
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "ALIAS_GROUPS",
    "AliasGroup",
    "AliasKind",
    "AliasTable",
    "alias_table",
    "fold",
    "spelling_key",
    "word_tokens",
]

AliasKind = Literal["tool", "title", "org", "place", "field", "term"]


@dataclass(frozen=True)
class AliasGroup:
    kind: AliasKind
    spellings: tuple[str, ...]


def _g(kind: AliasKind, *spellings: str) -> AliasGroup:
    return AliasGroup(kind, spellings)


# The maintained list. Keep each group to spellings that mean exactly the same thing: a
# broader or related name ("EKS" for Kubernetes) is not an alias.
ALIAS_GROUPS: tuple[AliasGroup, ...] = (
    # languages and runtimes
    _g("tool", "Go", "Golang"),
    _g("tool", "JavaScript", "JS", "ECMAScript"),
    _g("tool", "TypeScript", "TS"),
    _g("tool", "C#", "CSharp", "C Sharp"),
    _g("tool", "C++", "CPP"),
    _g("tool", ".NET", "dotnet", "dot net"),
    _g("tool", "Objective-C", "ObjC", "Obj-C"),
    # frameworks and libraries
    _g("tool", "React", "React.js", "ReactJS"),
    _g("tool", "React Native"),
    _g("tool", "Node.js", "Node", "NodeJS"),
    _g("tool", "Vue", "Vue.js", "VueJS"),
    _g("tool", "Next.js", "NextJS"),
    _g("tool", "Express", "Express.js", "ExpressJS"),
    _g("tool", "Ruby on Rails", "Rails", "RoR"),
    _g("tool", "scikit-learn", "sklearn", "scikit learn"),
    _g("tool", "PyTorch", "Torch"),
    _g("tool", "Hugging Face", "HuggingFace"),
    _g("tool", "REST", "RESTful", "REST API", "REST APIs", "RESTful APIs", "RESTful API"),
    _g("tool", "API", "APIs"),
    # data
    _g("tool", "PostgreSQL", "Postgres", "psql"),
    _g("tool", "MongoDB", "Mongo"),
    _g("tool", "Elasticsearch", "Elastic Search"),
    _g("tool", "SQL Server", "MSSQL", "MS SQL", "Microsoft SQL Server"),
    _g("tool", "Apache Kafka", "Kafka"),
    _g("tool", "Apache Spark", "Spark", "PySpark"),
    _g("tool", "Apache Airflow", "Airflow"),
    _g("tool", "Apache Flink", "Flink"),
    _g("tool", "Apache Hadoop", "Hadoop"),
    _g("tool", "BigQuery", "Big Query", "Google BigQuery"),
    _g("tool", "DynamoDB", "Dynamo", "Amazon DynamoDB"),
    _g("tool", "ETL", "extract, transform, load", "extract-transform-load"),
    # cloud and infrastructure
    _g("tool", "Kubernetes", "K8s", "Kube"),
    _g("tool", "Amazon Web Services", "AWS"),
    _g("tool", "Google Cloud Platform", "Google Cloud", "GCP"),
    _g("tool", "Microsoft Azure", "Azure"),
    _g("tool", "Amazon S3", "S3", "AWS S3"),
    _g("tool", "Amazon EC2", "EC2", "AWS EC2"),
    _g("tool", "Amazon EKS", "EKS", "AWS EKS"),
    _g("tool", "Google Kubernetes Engine", "GKE"),
    _g("tool", "Azure Kubernetes Service", "AKS"),
    _g("tool", "Amazon RDS", "RDS", "AWS RDS"),
    _g("tool", "AWS Lambda", "Lambda"),
    _g("tool", "GitHub Actions", "GH Actions"),
    _g("tool", "GitLab CI", "GitLab CI/CD"),
    _g("tool", "Argo CD", "ArgoCD"),
    _g("tool", "OpenTelemetry", "OTel"),
    _g("tool", "infrastructure as code", "IaC"),
    _g(
        "tool",
        "CI/CD",
        "CICD",
        "CI-CD",
        "continuous integration",
        "continuous delivery",
        "continuous deployment",
        "continuous integration and delivery",
        "continuous integration and deployment",
        "continuous integration and continuous delivery",
        "continuous integration/continuous delivery",
        "continuous integration/continuous deployment",
    ),
    _g("tool", "SRE", "site reliability engineering", "site reliability"),
    _g("tool", "DevOps", "Dev Ops"),
    _g("tool", "SaaS", "software as a service"),
    _g("tool", "OOP", "object-oriented programming", "object oriented programming"),
    _g("tool", "TDD", "test-driven development", "test driven development"),
    _g("tool", "DDD", "domain-driven design", "domain driven design"),
    # machine learning and data science
    _g("tool", "machine learning", "ML"),
    _g("tool", "natural language processing", "NLP"),
    _g("tool", "artificial intelligence", "AI"),
    _g("tool", "large language models", "large language model", "LLMs", "LLM"),
    _g("tool", "automatic speech recognition", "speech recognition", "ASR"),
    _g("tool", "A/B testing", "AB testing", "split testing", "A/B tests"),
    # product, design and business
    _g("tool", "UX", "user experience"),
    _g("tool", "UI", "user interface"),
    _g("tool", "QA", "quality assurance"),
    _g("tool", "SEO", "search engine optimization", "search engine optimisation"),
    _g("tool", "CRM", "customer relationship management"),
    _g("tool", "ERP", "enterprise resource planning"),
    _g("tool", "BI", "business intelligence"),
    _g("tool", "OKRs", "OKR", "objectives and key results"),
    _g("tool", "KPIs", "KPI", "key performance indicators"),
    # units and abbreviations of ordinary terms: a capitalised abbreviation ("QPS", "MTTR")
    # is its spelled-out words, which a sentence may write in lower case without a claim.
    # (Not "ms": spellings ignore case, and "MS" is a degree or Microsoft; "180 ms" is read
    # as milliseconds by domain.truth.quantities, as "p99" is the 99th percentile.)
    _g("term", "QPS", "queries per second", "queries/s", "query per second"),
    _g("term", "RPS", "requests per second", "requests/s", "req/s", "request per second"),
    _g("term", "TPS", "transactions per second", "transactions/s"),
    _g("term", "SLO", "SLOs", "service level objective", "service-level objective"),
    _g("term", "SLA", "SLAs", "service level agreement", "service-level agreement"),
    _g("term", "SLI", "SLIs", "service level indicator", "service-level indicator"),
    _g(
        "term",
        "MTTR",
        "mean time to recovery",
        "mean time to recover",
        "mean time to restore",
        "mean time to repair",
    ),
    _g("term", "GMV", "gross merchandise value"),
    _g("term", "AML", "anti-money-laundering", "anti-money laundering", "anti money laundering"),
    _g("term", "SSR", "server-side rendering", "server side rendering"),
    _g("term", "CDN", "content delivery network"),
    _g("term", "NER", "named-entity recognition", "named entity recognition"),
    _g("term", "CER", "character error rate"),
    _g("term", "WER", "word error rate"),
    _g("term", "E2E", "end-to-end", "end to end"),
    _g("term", "VM", "VMs", "virtual machine", "virtual machines"),
    # titles and their words
    _g("title", "Senior", "Sr", "Snr"),
    _g("title", "Junior", "Jr", "Jnr"),
    _g("title", "Engineer", "Eng", "Engr"),
    _g("title", "Engineering", "Eng", "Engg"),
    _g("title", "Manager", "Mgr", "Mngr"),
    _g("title", "Management", "Mgmt"),
    _g("title", "Director", "Dir"),
    _g("title", "Associate", "Assoc"),
    _g("title", "Assistant", "Asst"),
    _g("title", "Developer", "Dev"),
    _g("title", "Administrator", "Admin"),
    _g("title", "Operations", "Ops"),
    _g("title", "Technical", "Tech"),
    _g("title", "Technology", "Tech"),
    _g("title", "Software Engineer", "SWE"),
    _g("title", "Software Development Engineer", "SDE"),
    _g("title", "Site Reliability Engineer", "SRE"),
    _g("title", "Vice President", "VP"),
    _g("title", "Senior Vice President", "SVP"),
    _g("title", "Executive Vice President", "EVP"),
    _g("title", "Chief Technology Officer", "CTO"),
    _g("title", "Chief Executive Officer", "CEO"),
    _g("title", "Chief Operating Officer", "COO"),
    _g("title", "Chief Financial Officer", "CFO"),
    _g("title", "Chief Product Officer", "CPO"),
    _g("title", "Chief Information Officer", "CIO"),
    _g("title", "Chief Data Officer", "CDO"),
    _g("title", "Engineering Manager", "EM"),
    _g("title", "Product Manager", "PM"),
    _g("title", "Technical Lead", "Tech Lead"),
    _g("title", "Human Resources", "HR"),
    _g("title", "Research and Development", "R&D", "R and D"),
    # fields of study
    _g("field", "Computer Science", "CS", "CompSci", "Comp Sci"),
    _g("field", "Electrical Engineering", "EE"),
    _g("field", "Information Technology", "IT"),
    # organisations and their suffixes
    _g("org", "Incorporated", "Inc"),
    _g("org", "Limited", "Ltd"),
    _g("org", "Corporation", "Corp"),
    _g("org", "Company", "Co"),
    _g("org", "University", "Univ", "Uni"),
    _g("org", "Institute", "Inst"),
    _g("org", "Massachusetts Institute of Technology", "MIT"),
    _g("org", "International Business Machines", "IBM"),
    _g("org", "Meta", "Facebook"),
    # places
    _g("place", "United States", "US", "USA", "U.S", "U.S.A", "United States of America"),
    _g("place", "United Kingdom", "UK", "U.K", "Great Britain", "Britain"),
    _g("place", "European Union", "EU"),
    _g("place", "New York", "NYC", "New York City", "NY"),
    _g("place", "San Francisco", "SF"),
    _g("place", "Los Angeles", "LA"),
    _g("place", "Kraków", "Krakow", "Cracow"),
    _g("place", "München", "Munich"),
    _g("place", "Köln", "Cologne"),
    _g("place", "Warszawa", "Warsaw"),
    _g("place", "Praha", "Prague"),
    _g("place", "Lisboa", "Lisbon"),
    _g("place", "Hà Nội", "Hanoi", "Ha Noi"),
)

# -- the normal form --------------------------------------------------------------------------

# Letters NFKD does not take apart, and typographic marks, mapped to what a reader treats
# them as. Each maps one character to one or two.
_LETTERS = str.maketrans(
    {
        "ł": "l",
        "Ł": "l",
        "ø": "o",
        "Ø": "o",
        "đ": "d",
        "Đ": "d",
        "ð": "d",
        "þ": "th",
        "æ": "ae",
        "Æ": "ae",
        "œ": "oe",
        "Œ": "oe",
        "ı": "i",
        "ħ": "h",
        "’": "'",
        "‘": "'",
        "ʼ": "'",
        "‐": "-",
        "‑": "-",
    }
)
_SLASH = re.compile(r"\s*/\s*")
# A word: letters/digits with inner . + # & ' / - (so "node.js", "c++", "ci/cd", "at&t",
# "o'brien" and "müller-łukasik" stay whole), or ".net"-like names after a space.
_WORD = re.compile(r"(?<![\w.])\.[^\W\d_]\w*|[^\W_](?:[\w.+#&'/-]*[\w+#])?")
_POSSESSIVE = re.compile(r"'s?$")


@functools.lru_cache(maxsize=8192)
def fold(text: str) -> str:
    """``text`` in the form names are compared in: casefolded, without diacritics."""
    if text.isascii():
        return _SLASH.sub("/", text.casefold())
    decomposed = unicodedata.normalize("NFKD", text.translate(_LETTERS))
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return _SLASH.sub("/", bare.casefold())


def word_tokens(folded: str) -> list[str]:
    """The words of a folded text, possessives dropped ("freight's" is "freight")."""
    return [_POSSESSIVE.sub("", w) if "'" in w else w for w in _WORD.findall(folded)]


@functools.lru_cache(maxsize=8192)
def spelling_key(text: str) -> str:
    """The key two spellings share when they are written alike: folded words, one space
    apart, trailing dots dropped ("Sr." and "sr" are "sr")."""
    return " ".join(word_tokens(fold(text)))


# -- the table --------------------------------------------------------------------------------


class AliasTable:
    """Spelling key -> every spelling key that names the same thing."""

    def __init__(self, groups: Iterable[AliasGroup]) -> None:
        by_key: dict[str, set[str]] = {}
        kinds: dict[str, set[AliasKind]] = {}
        groups_list = list(groups)
        for group in groups_list:
            keys = {spelling_key(s) for s in group.spellings} - {""}
            for key in keys:
                by_key.setdefault(key, set()).update(keys)
                kinds.setdefault(key, set()).add(group.kind)
        self._by_key = {k: frozenset(v) for k, v in by_key.items()}
        self._kinds = {k: frozenset(v) for k, v in kinds.items()}
        self.longest = max((k.count(" ") + 1 for k in self._by_key), default=1)
        # Tool spellings a reader finds in lower case too ("machine learning", "k8s").
        self.tool_spellings: tuple[str, ...] = tuple(
            sorted(
                {s for g in groups_list if g.kind == "tool" for s in g.spellings if len(s) >= 3},
                key=len,
                reverse=True,
            )
        )

    def spellings(self, key: str) -> frozenset[str]:
        """Every spelling key of ``key`` (a spelling key), itself included."""
        return self._by_key.get(key, frozenset((key,)))

    def known(self, key: str) -> bool:
        return key in self._by_key

    def kinds(self, key: str) -> frozenset[AliasKind]:
        return self._kinds.get(key, frozenset())

    def is_tool(self, key: str) -> bool:
        return "tool" in self._kinds.get(key, ())


def _extra_groups(extra: Mapping[str, Sequence[str]]) -> list[AliasGroup]:
    """config.yaml's entries, each joined with the shipped groups its name or a spelling
    is in ("Kubernetes: [kube-cluster]" makes "kube-cluster" a spelling of K8s too)."""
    groups: list[AliasGroup] = []
    for name, spellings in extra.items():
        keys = {spelling_key(s) for s in (name, *spellings)}
        shipped = [g for g in ALIAS_GROUPS if keys & {spelling_key(s) for s in g.spellings}]
        kind: AliasKind = shipped[0].kind if shipped else "tool"
        joined = (name, *spellings, *(s for g in shipped for s in g.spellings))
        groups.append(AliasGroup(kind, joined))
    return groups


@functools.lru_cache(maxsize=64)
def _table(extra: tuple[tuple[str, tuple[str, ...]], ...]) -> AliasTable:
    return AliasTable((*ALIAS_GROUPS, *_extra_groups(dict(extra))))


def alias_table(extra: Mapping[str, Sequence[str]] | None = None) -> AliasTable:
    """The shipped list plus ``extra`` (config.yaml's ``aliases:``: name -> spellings).

    A spelling an extra entry shares with a shipped group joins that group's spellings
    (the union of both); tables are built once per distinct ``extra``.
    """
    frozen = tuple(sorted((k, tuple(v)) for k, v in (extra or {}).items()))
    return _table(frozen)

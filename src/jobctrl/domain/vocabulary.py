"""The skill and tool vocabulary, and the word rules, that scoring and the truth check share.

``VOCABULARY`` is a curated table of the skills, tools and broad areas postings ask for and
profiles show, each with a display label and alias patterns ("K8s" and "EKS" are Kubernetes),
compiled once into ``TERMS``. Next to it are the plain-text rules every reader of a posting or
a profile applies the same way: word boundaries that treat "+" and "#" as word characters
(``WORD_LEFT``/``WORD_RIGHT``), number words, stopwords, light stemming and
``significant_words``.

Who uses it:
- the offline scorer (``llm.offline``): which requirements a profile meets;
- the offline materials provider (``llm.offline_materials``): which skills to list first and
  which missing skill to name in a cover letter;
- the fabrication check (``domain.truth``): which skills, tools and numbers a tailored resume
  may claim.

A change here changes all three, and that is the point: what counts as a skill when scoring
is what a resume is held to. Change it deliberately, with the tests of all three.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

__all__ = [
    "GENERIC_TERMS",
    "IMPLIES",
    "NUMBER_WORDS",
    "SOFT_TERMS",
    "STOPWORDS",
    "TERMS",
    "VOCABULARY",
    "WORD_LEFT",
    "WORD_RIGHT",
    "Term",
    "significant_words",
    "term_for",
]

# -- the vocabulary --------------------------------------------------------------------------
# key -> (label, alias patterns). Patterns are matched case-insensitively between word
# boundaries that also treat "+" and "#" as word characters (so "c++" and "c#" work);
# (?-i:...) marks the few aliases that are only safe with their capitalisation.

VOCABULARY: Mapping[str, tuple[str, tuple[str, ...]]] = MappingProxyType(
    {
        # languages
        "python": ("Python", (r"python",)),
        "javascript": ("JavaScript", (r"javascript", r"js", r"ecmascript")),
        "typescript": ("TypeScript", (r"typescript", r"ts")),
        "go": ("Go", (r"golang", r"(?-i:Go)(?!-)")),
        "java": ("Java", (r"java",)),
        "kotlin": ("Kotlin", (r"kotlin",)),
        "scala": ("Scala", (r"scala",)),
        "rust": ("Rust", (r"rust",)),
        "c++": ("C++", (r"c\+\+", r"cpp")),
        "c#": ("C#", (r"c#", r"csharp")),
        "dotnet": (".NET", (r"\.net", r"dotnet", r"asp\.net")),
        "ruby": ("Ruby", (r"ruby",)),
        "php": ("PHP", (r"php",)),
        "swift": ("Swift", (r"(?-i:Swift)",)),
        "html": ("HTML", (r"html5?",)),
        "css": ("CSS", (r"css3?", r"sass", r"tailwind")),
        "sql": ("SQL", (r"sqls?", r"t-sql")),
        # frameworks and libraries
        "django": ("Django", (r"django",)),
        "flask": ("Flask", (r"flask",)),
        "fastapi": ("FastAPI", (r"fast-?api",)),
        "rails": ("Ruby on Rails", (r"ruby on rails", r"rails")),
        "spring": ("Spring", (r"spring(?: boot)?",)),
        "react": ("React", (r"react(?:\.js|js)?", r"react native")),
        "vue": ("Vue", (r"vue(?:\.js|js)?",)),
        "angular": ("Angular", (r"angular(?:js)?",)),
        "node": ("Node.js", (r"node(?:\.js|js)?",)),
        "nextjs": ("Next.js", (r"next\.?js",)),
        "graphql": ("GraphQL", (r"graphql",)),
        "rest apis": ("REST APIs", (r"(?-i:REST)(?: ?apis?)?", r"restful(?: apis?)?", r"apis?")),
        "grpc": ("gRPC", (r"grpc",)),
        "microservices": ("microservices", (r"micro-?services?",)),
        "pandas": ("pandas", (r"pandas",)),
        "numpy": ("NumPy", (r"numpy",)),
        # data
        "postgresql": ("PostgreSQL", (r"postgres(?:ql)?", r"psql")),
        "mysql": ("MySQL", (r"mysql", r"mariadb")),
        "relational databases": (
            "relational databases",
            (r"relational databases?", r"rdbms", r"relational data\s?stores?"),
        ),
        "sqlite": ("SQLite", (r"sqlite",)),
        "nosql": ("NoSQL", (r"nosql",)),
        "mongodb": ("MongoDB", (r"mongo(?:db)?",)),
        "redis": ("Redis", (r"redis",)),
        "elasticsearch": ("Elasticsearch", (r"elastic(?:search)?", r"opensearch")),
        "kafka": ("Kafka", (r"kafka",)),
        "rabbitmq": ("RabbitMQ", (r"rabbitmq", r"amqp")),
        "event streaming": (
            "event streaming",
            (r"event[- ]streaming", r"event[- ]driven", r"stream processing"),
        ),
        "spark": ("Spark", (r"(?:apache |py)?spark",)),
        "hadoop": ("Hadoop", (r"hadoop", r"hive")),
        "airflow": ("Airflow", (r"airflow",)),
        "dagster": ("Dagster", (r"dagster",)),
        "dbt": ("dbt", (r"dbt",)),
        "snowflake": ("Snowflake", (r"snowflake",)),
        "bigquery": ("BigQuery", (r"big ?query",)),
        "redshift": ("Redshift", (r"redshift",)),
        "databricks": ("Databricks", (r"databricks",)),
        "data warehouse": ("data warehousing", (r"data ?warehous\w*", r"warehouse")),
        "etl": ("data pipelines", (r"etl", r"elt", r"(?:data|batch|streaming|event) pipelines?")),
        "data modeling": ("data modelling", (r"data model(?:l?ing|s)?", r"dimensional model\w*")),
        "data analysis": ("data analysis", (r"data analy\w+", r"analytics")),
        "tableau": ("Tableau", (r"tableau",)),
        "power bi": ("Power BI", (r"power ?bi",)),
        "looker": ("Looker", (r"looker",)),
        # "Excel in the art of…", "excel at": the verb, not the spreadsheet.
        "excel": ("Excel", (r"(?-i:Excel)(?! (?:in|at) )", r"spreadsheets?")),
        # infrastructure
        "docker": ("Docker", (r"docker", r"containeri[sz]\w*", r"podman")),
        "kubernetes": ("Kubernetes", (r"kubernetes", r"k8s", r"eks", r"gke", r"aks", r"openshift")),
        "helm": ("Helm", (r"helm",)),
        "terraform": ("Terraform", (r"terraform",)),
        "ansible": ("Ansible", (r"ansible",)),
        "pulumi": ("Pulumi", (r"pulumi",)),
        "infrastructure as code": ("infrastructure as code", (r"infrastructure as code", r"iac")),
        "aws": ("AWS", (r"aws", r"amazon web services", r"ec2", r"s3")),
        "gcp": ("GCP", (r"gcp", r"google cloud(?: platform)?")),
        "azure": ("Azure", (r"azure",)),
        "cloud": ("cloud", (r"cloud(?:[- ]native)?",)),
        "ci/cd": (
            "CI/CD",
            (
                r"ci\s*/\s*cd",
                r"continuous (?:integration|delivery|deployment)",
                r"github actions",
                r"gitlab ci",
                r"jenkins",
                r"circleci",
            ),
        ),
        "git": ("Git", (r"git", r"github", r"gitlab")),
        "linux": ("Linux", (r"linux", r"unix")),
        "observability": ("observability", (r"observability", r"monitoring", r"alerting")),
        "prometheus": ("Prometheus", (r"prometheus",)),
        "grafana": ("Grafana", (r"grafana",)),
        "opentelemetry": ("OpenTelemetry", (r"opentelemetry", r"otel")),
        "sre": ("site reliability", (r"site reliability", r"sre")),
        "infrastructure": (
            "infrastructure",
            (r"infrastructure", r"platform engineering", r"devops"),
        ),
        "on-call": ("on-call", (r"on-?call",)),
        "argo": ("Argo CD", (r"argo ?cd", r"argo")),
        "ebpf": ("eBPF", (r"ebpf",)),
        "security": ("security", (r"security", r"owasp")),
        "distributed systems": ("distributed systems", (r"distributed systems?",)),
        "system design": ("system design", (r"system design", r"software architecture")),
        "testing": (
            "automated testing",
            (
                r"(?:automated|unit|integration|contract) tests?",
                r"test automation",
                r"tdd",
                r"pytest",
            ),
        ),
        "code review": ("code review", (r"code reviews?",)),
        "backend": ("backend development", (r"back-?end",)),
        "frontend": ("frontend development", (r"front-?end",)),
        "ios": ("iOS", (r"ios",)),
        "android": ("Android", (r"android",)),
        # machine learning and data science
        "machine learning": ("machine learning", (r"machine learning", r"ml")),
        "deep learning": ("deep learning", (r"deep learning", r"neural networks?")),
        "ai": ("AI", (r"ai", r"artificial intelligence")),
        "llms": ("LLMs", (r"llms?", r"large language models?")),
        "nlp": (
            "NLP",
            (r"nlp", r"natural language (?:processing|understanding|generation)", r"nlu"),
        ),
        "computer vision": ("computer vision", (r"computer vision",)),
        "pytorch": ("PyTorch", (r"pytorch", r"torch")),
        "tensorflow": ("TensorFlow", (r"tensorflow", r"keras")),
        "jax": ("JAX", (r"jax",)),
        "scikit-learn": ("scikit-learn", (r"scikit-learn", r"sklearn")),
        "statistics": ("statistics", (r"statistic(?:s|al)", r"probability")),
        "data science": ("data science", (r"data scien\w+",)),
        "a/b testing": ("A/B testing", (r"a/b test\w*", r"experimentation")),
        "publications": (
            "publications",
            (r"publications?", r"published", r"neurips", r"icml", r"iclr"),
        ),
        "distributed training": ("distributed training", (r"distributed training",)),
        # product, design and business
        "figma": ("Figma", (r"figma",)),
        "design systems": ("design systems", (r"design systems?", r"component librar\w+")),
        "prototyping": ("prototyping", (r"prototyp\w+",)),
        "user research": (
            "user research",
            (r"user research", r"usability test\w*", r"user interviews"),
        ),
        "ux": ("UX design", (r"ux", r"user experience", r"interaction design")),
        "product design": ("product design", (r"product design",)),
        "product management": ("product management", (r"product management", r"product manag\w+")),
        "project management": (
            "project management",
            (r"project management", r"program management"),
        ),
        "agile": ("agile", (r"agile", r"scrum", r"kanban")),
        "leadership": (
            "leadership",
            (
                r"leadership",
                r"led",
                r"lead(?:ing)? (?:a |the )?teams?",
                r"team lead",
                r"tech(?:nical)? lead",
            ),
        ),
        "people management": (
            "people management",
            (
                r"people management",
                r"manag(?:e|es|ed|ing) (?:a )?(?:team|teams|engineers|people)",
                r"line manag\w+",
                r"direct reports",
                r"performance reviews",
            ),
        ),
        "mentoring": ("mentoring", (r"mentor\w*", r"coach\w*")),
        "hiring": ("hiring", (r"hiring", r"recruit\w*", r"interviewing")),
        "communication": ("communication", (r"communicat\w+", r"presentation skills")),
        "collaboration": ("collaboration", (r"collaborat\w+", r"cross-functional\w*")),
        "stakeholder management": ("stakeholder management", (r"stakeholders?",)),
        "sales": ("sales", (r"sales", r"business development")),
        "salesforce": ("Salesforce", (r"salesforce",)),
        "crm": ("CRM", (r"crm",)),
        "seo": ("SEO", (r"seo",)),
        "marketing": ("marketing", (r"marketing",)),
        "customer success": ("customer success", (r"customer success", r"account management")),
        "payments": ("payments", (r"payments?", r"fintech", r"banking")),
        "e-commerce": ("e-commerce", (r"e-?commerce", r"online retail")),
        "logistics": ("logistics", (r"logistics", r"freight", r"supply chain", r"shipping")),
        "english": ("English", (r"(?-i:English)",)),
        "german": ("German", (r"(?-i:German)",)),
        "french": ("French", (r"(?-i:French)",)),
        "spanish": ("Spanish", (r"(?-i:Spanish)",)),
    }
)

# Broad areas rather than skills: they count when a requirement names nothing more specific,
# so "Java or Kotlin backend services" is not met by "backend" alone.
GENERIC_TERMS: frozenset[str] = frozenset(
    {
        *("backend", "frontend", "cloud", "infrastructure", "sre", "etl", "observability"),
        *("testing", "security", "microservices", "rest apis", "data warehouse", "data modeling"),
        *("data analysis", "event streaming", "infrastructure as code", "distributed systems"),
        *("system design", "ai"),
    }
)

# The one reviewed table of evidence aliases: knowing the left-hand side counts as evidence
# for the right-hand side because it IS an instance of it (PostgreSQL is SQL, Django is
# Python), never because it is a neighbour: Kubernetes is not Docker, GraphQL is not REST,
# PostgreSQL is not MongoDB (tests/unit/test_offline_evidence.py: a test per entry).
# Soft skills: judged from the whole profile, never deciding a hard requirement.
SOFT_TERMS: frozenset[str] = frozenset(
    {"communication", "collaboration", "stakeholder management", "agile", "mentoring"}
    | {"leadership", "problem solving"}
)

IMPLIES: dict[str, tuple[str, ...]] = {
    "postgresql": ("sql", "relational databases"),
    "mysql": ("sql", "relational databases"),
    "sqlite": ("sql", "relational databases"),
    "snowflake": ("sql", "data warehouse"),
    "bigquery": ("sql", "data warehouse"),
    "redshift": ("sql", "data warehouse"),
    "django": ("python", "backend"),
    "flask": ("python", "backend"),
    "fastapi": ("python", "backend", "rest apis"),
    "pandas": ("python",),
    "numpy": ("python",),
    "pytorch": ("python", "deep learning", "machine learning"),
    "tensorflow": ("deep learning", "machine learning"),
    "jax": ("deep learning", "machine learning"),
    "scikit-learn": ("python", "machine learning"),
    "deep learning": ("machine learning",),
    "typescript": ("javascript",),
    "react": ("javascript", "frontend"),
    "vue": ("javascript", "frontend"),
    "angular": ("javascript", "frontend"),
    "node": ("javascript", "backend"),
    "nextjs": ("react", "javascript"),
    "rails": ("ruby",),
    "spring": ("java",),
    "microservices": ("distributed systems",),  # services talking over a network are one
    "kafka": ("event streaming",),
    "rabbitmq": ("event streaming",),
    "terraform": ("infrastructure as code", "infrastructure"),
    "ansible": ("infrastructure as code",),
    "pulumi": ("infrastructure as code",),
    "helm": ("kubernetes",),
    "aws": ("cloud",),
    "gcp": ("cloud",),
    "azure": ("cloud",),
    "prometheus": ("observability",),
    "grafana": ("observability",),
    "opentelemetry": ("observability",),
    "airflow": ("etl",),
    "dagster": ("etl",),
    "dbt": ("etl", "data modeling"),
    "spark": ("etl",),
    "people management": ("leadership",),
    "tableau": ("data analysis",),
    "power bi": ("data analysis",),
    "looker": ("data analysis",),
    "figma": ("prototyping",),
}


# Word boundaries for terms and skills that count "+" and "#" as word characters, so the
# aliases "c++" and "c#" can end a match and a profile skill "C" is not found in "C++".
WORD_LEFT = r"(?<![\w+#])"
WORD_RIGHT = r"(?![\w+#])"


@dataclass(frozen=True)
class Term:
    """A skill, tool or area to look for: ``pattern`` finds any of its aliases in a text."""

    key: str  # the vocabulary key ("kubernetes"), or "skill:<name>" for a profile's own skill
    label: str  # how it is shown ("Kubernetes")
    pattern: re.Pattern[str]  # case-insensitive, between WORD_LEFT and WORD_RIGHT


def _compile(aliases: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(WORD_LEFT + "(?:" + "|".join(aliases) + ")" + WORD_RIGHT, re.IGNORECASE)


# In the table's order: a check that lists several terms lists them in this order.
TERMS: tuple[Term, ...] = tuple(
    Term(key, label, _compile(aliases)) for key, (label, aliases) in VOCABULARY.items()
)


def term_for(text: str) -> Term | None:
    """The vocabulary term ``text`` names as a whole ("K8s" is Kubernetes), else None.

    Surrounding whitespace is ignored; a text that only mentions a term ("Go services") or a
    case-sensitive alias in the wrong case ("go") names none.
    """
    name = text.strip()
    return next((t for t in TERMS if t.pattern.fullmatch(name)), None)


# -- plain words -----------------------------------------------------------------------------

# The spelled-out numbers postings and resumes use for counts and years ("five years").
NUMBER_WORDS: Mapping[str, int] = MappingProxyType({
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "twelve": 12, "fifteen": 15,
})  # fmt: skip

# Words that say nothing about a skill; a word list reads better as text than as literals.
STOPWORDS: frozenset[str] = frozenset(
    """a an the and or of to in on for with at by from as is are be been being it its this that
    these those you your we our they their us who what which will would can could should must
    have has had do does did not no but if so than then into about over under within across
    per via etc eg e.g ie i.e plus also other others such some any all more most very well
    experience experienced strong solid proven good great excellent deep broad able ability
    skills skill knowledge understanding familiarity background track record years year
    work working team teams including include includes related field similar new using use
    hands-on hands professional environment demonstrated comfortable enjoy love like nice
    bonus preferred ideally required requirement requirements least at minimum someone
    people things way ways want passion passionate desire eager interest interested""".split()  # noqa: SIM905
)
_WORD = re.compile(r"[a-z0-9][a-z0-9+#]*")


def _stem(word: str) -> str:
    # Light on purpose: "deploying", "deployed" and "deploys" meet; short words ("uses") stay.
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def significant_words(text: str) -> list[str]:
    """The words of ``text`` that carry meaning, lowercased and lightly stemmed, in order.

    Stopwords, words under three letters and bare numbers are dropped; each stem appears
    once. Used to compare a requirement or a bullet with profile lines word by word.
    """
    out: list[str] = []
    for word in _WORD.findall(text.lower()):
        if word in STOPWORDS or len(word) < 3 or word.isdigit():
            continue
        stem = _stem(word)
        if stem not in out:
            out.append(stem)
    return out

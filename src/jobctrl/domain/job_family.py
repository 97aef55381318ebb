"""Job families: which line of work a job title names (engineering, data, ML/research,
product, program, design, management, sales, marketing, support, operations, legal,
finance, healthcare), which families are neighbours, and whose years count for which."""

from __future__ import annotations

import re

FAMILY_LABELS = {
    "engineering": "engineering",
    "data": "data",
    "ml": "ML/research",
    "product": "product management",
    "program": "program/project management",
    "design": "design",
    "management": "engineering management",
    "sales": "sales",
    "marketing": "marketing",
    "support": "support",
    "operations": "operations/people",
    "legal": "legal",
    "finance": "finance",
    "healthcare": "healthcare",
}

# Most specific first, so "Engineering Manager" is management and "Data Engineer" data.
_FAMILIES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (family, re.compile(pattern, re.IGNORECASE))
    for family, pattern in (
        (
            "healthcare",
            r"\bnurse\b|\brn\b|\bphysician|\bclinical\b|\bclinician|\btherapist|"
            r"\bpharmac|\bmedical (?:doctor|assistant)|\bcaregiver",
        ),
        ("legal", r"\bcounsel\b|\blawyer|\battorney|\bparalegal|\blegal\b|\bcompliance officer"),
        (
            "management",
            r"(?:engineering|software|technical|tech|platform|infrastructure)"
            r" (?:team )?(?:manager|director|lead(?:er)? of people)|"
            r"\bteam lead(?:er)?\b(?!.*engineer)|\bmanag(?:ing|ed|e) (?:a team|teams|engineers|"
            r"people|developers|managers)|\bpeople manag|\bdirect reports|"
            r"(?:director|head|vp|vice president),? "
            r"(?:of )?(?:software |platform )?engineering|\bcto\b|\bmanager,? (?:software|"
            r"engineering)|\bchief technology",
        ),
        (
            "ml",
            r"machine learning|\bml\b|\bai\b|\bnlp\b|deep learning|computer vision|"
            r"research (?:scientist|engineer)|\bapplied scientist|\bresearch\b.*\bscientist|"
            r"\bscientist\b(?!.*data)|\bgenai\b|\bllm",
        ),
        (
            "data",
            r"\bdata\b|\banalytics\b|\bbusiness intelligence\b|\bbi\b|\bstatistician|"
            r"\banalyst\b(?!.*(?:financial|security))",
        ),
        (
            "product",
            r"product (?:manager|owner|lead|director|management)|\bchief of staff",
        ),
        (
            "program",
            r"\bprogram(?:me)? manag|\bproject manag|\btpm\b|\bscrum master|"
            r"\brelease manag|\bdelivery manag",
        ),
        ("design", r"design(?:er)?\b|\bux\b|\bui\b|user research"),
        (
            "sales",
            r"\bsales\b|account (?:executive|development|manager)|business development|"
            r"\bsdr\b|\bbdr\b|\badr\b|pre-?sales|solutions? consultant",
        ),
        (
            "marketing",
            r"marketing|\bseo\b|\bcontent (?:writer|strateg|market)|\bbrand\b|"
            r"communications",
        ),
        ("support", r"support|customer success|customer service|help ?desk|success manager"),
        (
            "finance",
            r"\baccount(?:ant|ing)\b|\bfinanc|\bcontroller\b|\bfp&a\b|\bauditor|\btreasury|"
            r"\bbookkeep|\bcredit analyst",
        ),
        (
            "operations",
            r"\boperations\b|\bpeople\b|\bhr\b|human resources|\brecruit|\btalent\b|"
            r"\blearning\b|\boffice manager|\bcorporate development|\bpartnerships?\b",
        ),
        (
            "engineering",
            r"engineer|developer|programmer|\bsre\b|devops|\bswe\b|software|architect|"
            r"\bcoder\b|full[\s-]?stack|back[\s-]?end|front[\s-]?end|\bqa\b|\btester\b",
        ),
    )
)

# Families close enough that moving between them is a stretch, not a different career.
NEIGHBOURS = frozenset(
    frozenset(pair)
    for pair in (
        ("engineering", "data"),
        ("engineering", "ml"),
        ("data", "ml"),
        ("engineering", "management"),
        ("product", "design"),
        ("product", "management"),
        ("program", "product"),
        ("program", "engineering"),
        ("program", "management"),
        ("program", "operations"),
        ("sales", "marketing"),
        ("product", "marketing"),
        ("sales", "support"),
        ("support", "operations"),
        ("operations", "product"),
    )
)


# Whose years count for "N years of <family> work": engineering years include the technical
# neighbours' (an engineering manager, a data engineer writes software too).
_COUNTS_FOR = {
    "engineering": frozenset({"engineering", "management", "data", "ml"}),
    "data": frozenset({"data", "ml"}),
}


def neighbouring(a: str, b: str) -> bool:
    """Whether job families ``a`` and ``b`` are neighbours (moving between them is a stretch,
    not a different career)."""
    return frozenset((a, b)) in NEIGHBOURS


def families_counting_for(family: str) -> frozenset[str]:
    """The role families whose years meet a requirement of years of ``family`` work."""
    return _COUNTS_FOR.get(family, frozenset({family}))


def family_of(title: str) -> str | None:
    """The job family a title names, or None when it names none."""
    for family, pattern in _FAMILIES:
        if pattern.search(title):
            return family
    return None

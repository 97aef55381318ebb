"""Numbers in a sentence — quantities, dates and durations — normalised so that two
spellings of the same value compare equal and two different values never do.

``scan(text)`` reads one sentence (or one profile fact) and returns its ``Mentions``:

- ``Quantity``: a value with its magnitude applied ("50M+" and "more than 50 million" are
  both 50,000,000), its unit ("%", "x" for ×/times/-fold, a currency code, "s" for time in
  seconds, "B" for bytes, "pp" for points), a rate ("a day", "/s", "nightly"), what it
  counts (the words after it: "40 people" counts people, "a 45-cluster platform"
  clusters; "% of" and "millions of" look past the "of"), its place in a "from X to Y"
  change, a bound ("under 200 ms", "sub-200ms", "over 40", "50M+") and the word it
  follows ("hired 14"). Digits with separators ("1,200", "99.5"), letter
  magnitudes (k/K, M/m/MM, B/bn, T), magnitude words, number words of any size ("sixty",
  "twenty-five", "one hundred and twenty", "a dozen", "half a million"), vague amounts
  ("millions of") and multiplier verbs ("halved", "doubled", "tripled", "cut in half"),
  which also equal their percentage and ratio forms ("halved" = 50% = 2x).
- ``DateMention``: a date (year, month or None) or ``PRESENT``, in every spelling ("Mar
  2021", "March 2021", "2021-03", "03/2021", "2021", "present"/"now"/"current"/"today"
  at the end of a range), with ranges ("2019 – 2021", "2021–present", "since 2021").
- ``Duration``: a span of time in years ("8 years", "8+ years", "five years", "a decade",
  "18 months", "an 18-month project"), with whether it says "at least" or "about" and
  whether it reads as time worked ("for 8 years") or as how long a piece of work took
  ("in 6 months", "an 18-month migration").
- versions ("4.2.1", "v2"): neither a quantity nor a date, compared as written.

A four-digit number from 1950 to 2099 is a year unless its context makes it an amount
(a currency, a unit or magnitude, "+", or a plural noun after it: "2000 engineers"); a
year after "in", "since", "from", … is always a year.

Bounded work: every pattern is linear (no nested quantifiers over the same text), and
the caller caps the sentence length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Final, Literal, TypeAlias

__all__ = [
    "CURRENCY_CODES",
    "PRESENT",
    "DateMention",
    "DatePoint",
    "Duration",
    "Mentions",
    "Quantity",
    "counted_compatible",
    "parse_date",
    "scan",
    "singular",
]


def _words(text: str) -> list[str]:
    """A list of words written as text (reads better than a list of literals)."""
    return text.split()


PRESENT: Final = "present"
DatePoint: TypeAlias = tuple[int, int | None] | Literal["present"]
Role = Literal["from", "to"]


@dataclass(frozen=True)
class Quantity:
    text: str  # the sentence's own words ("50M+", "40 people")
    value: float  # magnitude and unit factor applied
    unit: str | None = None  # "%", "pp", "x", "s", "B", "bit/s", "ordinal", "USD", …
    per: str | None = None  # a rate: "s", "minute", "hour", "day", "week", "month", "year"
    counted: tuple[str, ...] = ()  # singular folded words after it, the head last
    role: Role | None = None  # its place in "from X to Y"
    vague_upto: float | None = None  # "millions of": value is the least, this the bound
    forms: tuple[tuple[float, str | None], ...] = ()  # equal forms ("halved": 50 %, 2 x)
    approx: bool = False  # derived by arithmetic: compared with a tolerance
    start: int = 0
    end: int = 0  # the number and its unit end here (what it counts may follow)
    factor: float = 1.0  # the unit's factor in ``value`` (ms: 0.001)
    magnitude: float = 1.0  # the magnitude's factor in ``value`` (M: 1e6)
    lead: str = ""  # the stem of the word before it ("hired 14": "hir")
    bound: Literal["below", "above", "about"] | None = None  # "under 200 ms", "50M+", "~40"

    @property
    def head(self) -> str | None:
        return self.counted[-1] if self.counted else None


@dataclass(frozen=True)
class DateMention:
    text: str
    start: DatePoint
    end: DatePoint | None = None  # a range's end
    anchored: bool = False  # a range, "since", "from", "joined in": may name an entry's year
    pos: int = 0


@dataclass(frozen=True)
class Duration:
    text: str
    years: float
    at_least: bool = False  # "8+ years", "over a decade"
    approx: bool = False  # "nearly 8 years", "about a decade"
    worked: bool = True  # time worked, not how long a piece of work took ("in 6 months")
    start: int = 0
    end: int = 0


@dataclass(frozen=True)
class Mentions:
    quantities: tuple[Quantity, ...]
    dates: tuple[DateMention, ...]
    durations: tuple[Duration, ...]
    versions: tuple[str, ...]
    spans: tuple[tuple[int, int], ...]  # the characters all of these cover


# -- words -------------------------------------------------------------------------------------

_SMALL: dict[str, int] = {
    w: i
    for i, w in enumerate(
        _words(
            "zero one two three four five six seven eight nine ten eleven twelve thirteen "
            "fourteen fifteen sixteen seventeen eighteen nineteen"
        )
    )
}
_TENS: dict[str, int] = {
    w: 10 * i
    for i, w in enumerate(_words("twenty thirty forty fifty sixty seventy eighty ninety"), 2)
}
_SCALES: dict[str, float] = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_NUMBER_WORDS = (*_SMALL, *_TENS, "hundred", *_SCALES, "dozen")
_WORD_KIND: dict[str, str] = {
    **{w: "small" for w in _SMALL},
    **{w: "tens" for w in _TENS},
    **{w: "scale" for w in _SCALES},
    "hundred": "hundred",
    "dozen": "dozen",
}
_NW = "(?:" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + ")"
_NUMBER_WORD_RUN = re.compile(
    r"\b(?=[zotfsenhmbdaZOTFSENHMBDA])(?:(?:a|an|half\s+a)\s+(?=(?:hundred|thousand|million|billion|trillion|dozen)\b))?"
    + _NW
    + r"(?:(?:\s+and\s+|\s*-\s*|\s+)"
    + _NW
    + r")*\b",
    re.IGNORECASE,
)
_MONTHS: dict[str, int] = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8,
    "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip
_MONTH = (
    r"(?P<mon>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_YEAR = r"(?P<y>(?:19|20)\d\d)"

# -- dates -------------------------------------------------------------------------------------

_DATES = re.compile(
    # Mar 2021, March 3, 2021, Mar. 2021, March of 2021
    r"\b" + _MONTH + r"(?:\s+\d{1,2}(?:st|nd|rd|th)?)?,?\s+(?:of\s+)?" + _YEAR + r"(?!\d)"
    # 3 March 2021
    r"|\b\d{1,2}(?:st|nd|rd|th)?\s+" + _MONTH.replace("mon>", "mon2>") + r",?\s+"
    r"(?P<y2>(?:19|20)\d\d)(?!\d)"
    # 2021-03, 2021-03-15, 2021/03
    r"|(?<![\w.,/-])(?P<y3>(?:19|20)\d\d)[-/](?P<m3>0?[1-9]|1[0-2])(?:[-/]\d{1,2})?(?![\d/])"
    # 03/2021, 3/2021, 03.2021
    r"|(?<![\w.,/-])(?P<m4>0?[1-9]|1[0-2])[/.](?P<y4>(?:19|20)\d\d)(?![\d/])"
    # 15/03/2021 (day and month order differ by country: the year only)
    r"|(?<![\w.,/-])\d{1,2}[/.]\d{1,2}[/.](?P<y5>(?:19|20)\d\d)(?!\d)",
    re.IGNORECASE,
)
_PRESENT_WORD = re.compile(r"\s*(?:the\s+)?(?P<w>present|now|current|today|date)\b", re.I)
_RANGE_JOIN = re.compile(r"\s*(?:–|—|-|−|to|until|till|through|thru|→)\s*", re.I)
_RANGE_AND = re.compile(r"\s+and\s+", re.I)
_BETWEEN = re.compile(r"\bbetween\s+$", re.I)
_SINCE = re.compile(r"\bsince\s+(?:early\s+|late\s+|mid-?\s*)?$", re.I)
# Words before a bare year that make it a year whatever follows it.
_YEAR_BEFORE = re.compile(
    r"(?:\b(?:in|since|from|until|till|by|during|circa|c\.|early|late|mid|of|year|summer|"
    r"spring|autumn|fall|winter|q[1-4]|h[12]|fy|between|and|through|before|after|around|"
    r"as\s+of)|[(\[–—-])\s*$",
    re.I,
)
# Verbs that tie a year to an entry's dates ("joined Allegro in 2021").
_ANCHOR = re.compile(
    r"\b(?:joined|join|started|start|began|begin|left|leaving|moved|graduated|graduating|"
    r"hired|since|from|until|till|through|between|starting|ending|ended|studied|enrolled|"
    r"completed|finished)\b(?:\s+\S+){0,8}\s*$",
    re.I,
)

# -- numbers -----------------------------------------------------------------------------------

_VERSION = re.compile(r"(?<![\w.])(?:v\d+(?:\.\d+)*|\d+(?:\.\d+){2,})(?![\w]|\.\d)", re.IGNORECASE)
_CURRENCY_BEFORE = re.compile(
    r"(?:(?P<sym>(?:US|A|C|NZ|HK|S|R)?\$|[€£¥₹₩])|\b(?P<code>USD|EUR|GBP|JPY|CHF|INR|AUD|CAD|"
    r"SEK|NOK|DKK|PLN|CNY|SGD|BRL|ZAR|HKD|NZD|CZK|HUF|TRY|VND)\s?)$"
)
# A number starts where no word, ".", "," or "/" comes before it ("p95", "GPT-4" and
# "24/7" are none): checked in code (``_number_start``), so the pattern starts with a
# digit and ``re`` can skip to digits.
_DIGITS = re.compile(r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\d]|[.,]\d|/\d)")


def _number_start(text: str, start: int) -> bool:
    before = text[start - 1] if start else " "
    if before.isalnum() or before in "._,/":
        return False
    if before == "-" and start >= 2 and text[start - 2].isalpha():
        word = re.search(r"[A-Za-z]+$", text[max(0, start - 12) : start - 1])
        return word is not None and word.group() in _NUMBER_PREFIXES  # "sub-200ms", not "GPT-4"
    return True


_NUMBER_PREFIXES = frozenset(_words("sub over under near top around about approx"))


_MAGNITUDE = re.compile(
    r"[\s-]?(?P<w>thousand|million|billion|trillion)s?\b|(?P<l>bn|mn|MM|[kKmMbBT])(?![A-Za-z0-9])"
    r"|\s(?P<s>bn|mn)\b"
)
_PLUS = re.compile(r"\s?\+")
# "200-plus", "200 or more": at least 200, as "200+" is.
_OR_MORE = re.compile(r"(?:-|\s)plus\b|\s+or\s+(?:more|above|higher)\b", re.IGNORECASE)
_ORDINAL = re.compile(r"(?:st|nd|rd|th)\b", re.IGNORECASE)
_DECADE = re.compile(r"'?s\b")
_UNIT = re.compile(
    r"(?:\s?(?P<pct>%|percent\b|per\s?cent\b|pct\b)"
    r"|\s(?P<pp>percentage\s+points?|pp|points?|pts)\b"
    r"|\s?(?P<x>×|[xX](?![A-Za-z0-9])|-?fold\b)|\s(?P<times>times)\b"
    r"|[\s-]?(?P<time>ms|msecs?|milliseconds?|µs|microseconds?|ns|nanoseconds?|secs?|seconds?|"
    r"s|mins?|minutes?|hrs?|hours?|h|days?|weeks?|wks?)(?![A-Za-z0-9])"
    r"|[\s-]?(?P<bytes>[kKMGTPE]i?B|bytes?|kilobytes?|megabytes?|gigabytes?|terabytes?|"
    r"petabytes?)(?![A-Za-z0-9])"
    r"|\s?(?P<bits>[kKMGT]bps|[kKMGT]bit/s)(?![A-Za-z])"
    r"|\s?(?P<rps>rps|qps|tps|req/s|reqs/s|requests/s|ops/s|RPS|QPS|TPS)(?![A-Za-z])"
    r"|\s?(?P<cur>USD|EUR|GBP|JPY|CHF|INR|AUD|CAD|SEK|NOK|DKK|PLN|CNY|SGD|BRL|ZAR|dollars?|"
    r"euros?|pounds?|€|£)(?![A-Za-z]))"
)
_DURATION_UNIT = re.compile(
    r"(?P<half>\s+and\s+a\s+half)?\s*(?P<plus>\+)?\s*(?P<hy>-)?\s*"
    r"(?P<u>years?|yrs?|months?|mos|decades?)\b(?P<plus2>\+)?(?P<half2>\s+and\s+a\s+half\b)?",
    re.IGNORECASE,
)
_ARTICLE_DURATION = re.compile(
    r"\b(?P<half>half\s+)?an?\s+(?P<u>decade|year|month)\b(?P<half2>\s+and\s+a\s+half)?",
    re.IGNORECASE,
)
_AT_LEAST = re.compile(
    r"(?:\bover|\bmore\s+than|\bat\s+least|\bupwards\s+of|\bnorth\s+of|\bbeyond|>)\s*$", re.I
)
_ABOUT = re.compile(
    r"(?:\bnearly|\balmost|\bclose\s+to|\babout|\baround|\broughly|\bapproximately|\bsome|~)\s*$",
    re.I,
)
_PROJECT = re.compile(
    r"\b(?:in|within|after|under|every|each|per|took|takes|lasting)\s+(?:just\s+|only\s+)?$",
    re.I,
)
_CAREER_WORDS = frozenset(
    _words("career tenure stint history background track experience record run")
)
_ARTICLE_OK = re.compile(
    r"\b(?:for|in|within|after|over|nearly|almost|about|around|than|least|spent|past|last)\s+$",
    re.I,
)
_ABOUT_WORDS = frozenset(_words("about around roughly approximately approx nearly almost some ~"))
_BELOW = ("under", "below", "less than", "fewer than", "within", "sub")
_ABOVE = ("over", "above", "more than", "at least", "upwards of", "north of", "exceeding")
_NOT_TO_WORDS = frozenset(_words("up down close due next equal compared similar"))
_ARROW_AFTER = re.compile(r"\s*(?:→|->)\s*")
_PAIR_JOIN = re.compile(r"\s*(?:to|–|—|-|→|->)\s*", re.I)
_MULTIPLIER = re.compile(
    r"\b(?:(?P<half>halv(?:ed|ing|es|e))|(?P<in_half>(?:in|by)\s+half)"
    r"|(?P<double>doubl(?:ed|ing))|(?P<triple>tripl(?:ed|ing))|(?P<quad>quadrupl(?:ed|ing))"
    r"|(?P<fold>two|three|four|five|six|seven|eight|nine|ten)fold)\b",
    re.IGNORECASE,
)
_VAGUE = re.compile(
    r"\b(?P<w>dozens|tens\s+of\s+thousands|tens\s+of\s+millions|hundreds\s+of\s+thousands|"
    r"hundreds\s+of\s+millions|hundreds|thousands|millions|billions)\s+of\b",
    re.IGNORECASE,
)
_VAGUE_RANGE: dict[str, tuple[float, float]] = {
    "dozens": (24, 144),
    "hundreds": (100, 1e3),
    "thousands": (1e3, 1e6),
    "tens of thousands": (1e4, 1e5),
    "hundreds of thousands": (1e5, 1e6),
    "millions": (1e6, 1e9),
    "tens of millions": (1e7, 1e8),
    "hundreds of millions": (1e8, 1e9),
    "billions": (1e9, 1e12),
}

# What a rate unit counts each second ("100K+ QPS" counts queries; "ops/s" and "req/s"
# requests), by the unit's first letter.
_RATE_UNITS: dict[str, str] = {"q": "qps", "t": "tps"}
_RATE_COUNTS: dict[str, str] = {"rps": "request", "qps": "query", "tps": "transaction"}
_TIME_FACTOR: dict[str, float] = {
    "ms": 1e-3, "msec": 1e-3, "millisecond": 1e-3, "µs": 1e-6, "microsecond": 1e-6,
    "ns": 1e-9, "nanosecond": 1e-9, "s": 1, "sec": 1, "second": 1, "min": 60, "minute": 60,
    "h": 3600, "hr": 3600, "hour": 3600, "day": 86400, "week": 604800, "wk": 604800,
}  # fmt: skip
_BYTE_FACTOR: dict[str, float] = {
    "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12, "p": 1e15, "e": 1e18,
    "kilo": 1e3, "mega": 1e6, "giga": 1e9, "tera": 1e12, "peta": 1e15,
}  # fmt: skip
_CURRENCY_SYMBOL: dict[str, str] = {
    "$": "USD", "US$": "USD", "A$": "AUD", "C$": "CAD", "NZ$": "NZD", "HK$": "HKD",
    "S$": "SGD", "R$": "BRL", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR", "₩": "KRW",
    "dollar": "USD", "euro": "EUR", "pound": "GBP",
}  # fmt: skip
_MAGNITUDE_LETTER: dict[str, float] = {
    "k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "MM": 1e6, "mn": 1e6, "b": 1e9, "B": 1e9,
    "bn": 1e9, "T": 1e12,
}  # fmt: skip
_RATE_WORD: dict[str, str] = {
    "second": "s", "sec": "s", "s": "s", "minute": "minute", "min": "minute", "hour": "hour",
    "hr": "hour", "h": "hour", "day": "day", "night": "day", "week": "week", "month": "month",
    "quarter": "quarter", "year": "year", "yr": "year", "annum": "year",
    "hourly": "hour", "daily": "day", "nightly": "day", "weekly": "week", "monthly": "month",
    "quarterly": "quarter", "yearly": "year", "annually": "year",
}  # fmt: skip
_RATE = re.compile(
    r"[\s]*(?:/\s*|\bper\s+|\ban?\s+|\beach\s+|\bevery\s+)(?P<u>seconds?|secs?|s|minutes?|mins?|"
    r"hours?|hrs?|h|days?|nights?|weeks?|months?|quarters?|years?|yrs?|annum)\b"
    r"|\s*(?P<adv>hourly|daily|nightly|weekly|monthly|quarterly|yearly|annually)\b",
    re.IGNORECASE,
)
_ATTACHED = re.compile(r"-([^\W\d_]+)(?![\w-])")
_NEXT_WORD = re.compile(r"[\s-]*(?:(?P<w>[^\W\d_][\w'’]*(?:-[^\W\d_][\w'’]*)*)|(?P<o>\S))")
# Words that end what a quantity counts: function words, comparatives, verbs of change.
_COUNT_STOP = frozenset(
    _words("""of in to from for with a an the per and or but that which who whom whose across into
    on at by using via over under than as each every while through within without between
    during after before since until is are was were be been being has have had it its
    their our my his her this these those including plus less more fewer faster slower
    quicker higher lower better worse larger smaller bigger cheaper greater shorter longer
    reduction increase improvement decrease growth drop gain uplift boost speedup cut
    saving savings faster end-to-end overall total roughly about around nearly almost
    up down off out so if when where then also only just both all some most many went go
    goes gone do does did became become got get gets came come left stayed remain remains
    remained now still whom them used together onto ahead behind apart alongside away back
    upon beyond toward towards inside outside""")
)
# Verbs whose subject a plural count may be ("that 200+ teams use", "35 product teams rely
# on it"): after a plural noun they end what the number counts.
_CLAUSE_VERBS = frozenset(
    _words("""use rely depend need own run adopt share trust access love prefer follow attend
    visit read watch open build write make see call consume maintain deploy ship join buy pay
    choose hit reach receive send contribute work log sign query serve touch report took
    ran made chose saw bought paid sent wrote built found kept gave""")
)
_NOT_PLURAL = frozenset(
    _words(
        "was is has as this its his yes less across plus always perhaps thus us does was "
        "whereas series news analysis basis"
    )
)


# -- helpers -----------------------------------------------------------------------------------


def singular(word: str) -> str:
    """A folded word's singular, roughly ("services" -> "service", "people" -> "person")."""
    if word in ("people", "persons"):
        return "person"
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "is")):
        return word if word in _SINGULAR_US else word[:-1]
    return word


_SINGULAR_US = frozenset(
    _words(
        "status campus corpus virus bonus census focus nexus radius consensus stimulus syllabus "
        "apparatus genus bus plus thus versus minus chorus prospectus opus"
    )
)


_PERSON = frozenset({"person", "staff", "employee", "member", "headcount", "individual"})
_PERSON_NOUNS = _PERSON | frozenset(
    _words("""engineer developer programmer designer scientist researcher analyst manager lead
    report hire intern resident student colleague teammate contractor consultant architect
    specialist tester administrator operator agent representative associate recruiter
    director officer executive leader worker writer editor marketer seller rep attendee
    participant volunteer mentee apprentice user customer client visitor subscriber reader
    learner patient player buyer merchant""")
)
_SYNONYMS: tuple[frozenset[str], ...] = (
    frozenset({"engineer", "developer", "programmer"}),
    frozenset({"client", "customer"}),
    frozenset({"service", "microservice"}),
    frozenset({"deploy", "deployment", "release"}),
    frozenset({"server", "host", "machine", "node", "instance"}),
    frozenset({"job", "task"}),
    frozenset({"dag", "pipeline", "workflow"}),
    frozenset({"paper", "publication", "article"}),
    frozenset({"request", "query", "call"}),  # "100K+ QPS": a query is a request
    frozenset({"site", "website"}),
)


def _word_match(a: str, b: str) -> bool:
    if a == b:
        return True
    if min(len(a), len(b)) >= 4 and (a.endswith(b) or b.endswith(a) or a.startswith(b)):
        return True
    if min(len(a), len(b)) >= 4 and b.startswith(a):
        return True
    return any(a in group and b in group for group in _SYNONYMS)


def counted_compatible(claimed: Quantity, stated: Quantity) -> bool:
    """``claimed`` counts the same thing as ``stated`` (or either counts nothing said)."""
    head = claimed.head
    if head is None or not stated.counted:
        return True
    if head == "of-whom" or stated.counted == ("of-whom",):
        return True  # "4 of them": a part of what the sentence named before, unsaid here
    if any(_word_match(head, w) for w in stated.counted):
        return True
    # "40 people" for "40 engineers": a person noun stated, the general word claimed.
    return head in _PERSON and any(w in _PERSON_NOUNS for w in stated.counted)


def _overlaps(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(s < end and start < e for s, e in spans)


def _fold_word(word: str) -> str:
    return singular(word.casefold().replace("’", "'").removesuffix("'s"))


# -- number words ------------------------------------------------------------------------------


def _word_numbers(run: str) -> list[tuple[float, int, int]]:
    """(value, start, end) of each number in a run of number words (offsets in ``run``);
    "four and five" is two numbers, "one hundred and twenty" one, "half a million" one."""
    out: list[tuple[float, int, int]] = []
    folded = run.casefold()
    prefix = re.match(r"(half\s+a|an?)\s+", folded)
    half = bool(prefix and prefix.group(1).startswith("half"))
    begin = 0 if prefix else -1
    total = current = 0.0
    last = ""  # the kind of the last word: "small", "tens", "hundred", "scale", "and"
    end = 0

    def close() -> None:
        nonlocal total, current, begin, last, half
        if begin >= 0 and last:
            out.append(((total + current) * (0.5 if half else 1.0), begin, end))
        total, current, begin, last, half = 0.0, 0.0, -1, "", False

    for m in re.finditer(r"[a-z]+", folded[prefix.end() if prefix else 0 :]):
        a = m.start() + (prefix.end() if prefix else 0)
        w = m.group()
        if w == "and":
            if last not in ("hundred", "scale"):
                close()
            else:
                last = "and"
            continue
        kind = _WORD_KIND[w]
        ones_after_tens = last == "tens" and kind == "small" and _SMALL[w] < 10
        if (last in ("small", "tens") and kind in ("small", "tens") and not ones_after_tens) or (
            kind in ("hundred", "dozen") and last in ("hundred", "dozen")
        ):
            close()
        if begin < 0:
            begin = a
        if kind == "dozen":
            current = (current or 1) * 12
        elif kind in ("small", "tens"):
            current += _SMALL.get(w, 0) + _TENS.get(w, 0)
        elif kind == "hundred":
            current = (current or 1) * 100
        else:
            total += (current or 1) * _SCALES[w]
            current = 0
        last = kind
        end = a + len(w)
    close()
    return out


# -- the scan ----------------------------------------------------------------------------------


@dataclass
class _Scan:
    text: str
    spans: list[tuple[int, int]]
    quantities: list[Quantity]
    dates: list[tuple[int, int, DatePoint, bool]]  # start, end, point, anchored
    durations: list[Duration]
    versions: list[str]

    def taken(self, start: int, end: int) -> bool:
        return _overlaps(self.spans, start, end)

    def take(self, start: int, end: int) -> None:
        self.spans.append((start, end))


def _month(name: str) -> int:
    return _MONTHS[name[:3].casefold()]


def _scan_dates(s: _Scan) -> None:
    for m in _DATES.finditer(s.text):
        groups = m.groupdict()
        if groups["y"]:
            point: DatePoint = (int(groups["y"]), _month(groups["mon"]))
        elif groups["y2"]:
            point = (int(groups["y2"]), _month(groups["mon2"]))
        elif groups["y3"]:
            point = (int(groups["y3"]), int(groups["m3"]))
        elif groups["y4"]:
            point = (int(groups["y4"]), int(groups["m4"]))
        else:
            point = (int(groups["y5"]), None)
        s.dates.append((m.start(), m.end(), point, False))
        s.take(m.start(), m.end())


def _bare_year(s: _Scan, m: re.Match[str]) -> bool:
    """A bare 1950–2099 is read as a year (recorded) rather than an amount."""
    text, start, end = s.text, m.start(), m.end()
    if "," in m.group() or "." in m.group() or len(m.group()) != 4:
        return False
    year = int(m.group())
    if not 1950 <= year <= 2099:
        return False
    before = text[max(0, start - 16) : start]
    after = text[end : end + 24]
    if _CURRENCY_BEFORE.search(before):
        return False
    if decade := _DECADE.match(after):
        s.dates.append((start, end + decade.end(), (year, None), True))
        s.take(start, end + decade.end())
        return True
    if not _YEAR_BEFORE.search(before):
        if _MAGNITUDE.match(after) or _PLUS.match(after) or _UNIT.match(after):
            return False
        if _DURATION_UNIT.match(after):
            return False
        nxt = _NEXT_WORD.match(after)
        word = nxt.group("w") if nxt and nxt.group("w") else ""
        if (
            word.islower()
            and len(word) > 3
            and word.endswith("s")
            and word not in _NOT_PLURAL
            and not word.endswith("ss")
        ):
            return False
    s.dates.append((start, end, (year, None), False))
    s.take(start, end)
    return True


def _duration_at(s: _Scan, start: int, end: int, value: float, *, plus: bool = False) -> bool:
    text = s.text
    m = _DURATION_UNIT.match(text, end)
    if not m:
        return False
    unit = m.group("u").casefold()
    if m.group("half") or m.group("half2"):
        value += 0.5
    years = (
        value * 10 if unit.startswith("decade") else value / 12 if unit.startswith("mo") else value
    )
    before = text[max(0, start - 24) : start]
    plus = plus or bool(m.group("plus") or m.group("plus2"))
    after = _NEXT_WORD.match(text, m.end())
    career = bool(after and (after.group("w") or "").casefold() in _CAREER_WORDS)
    worked = not ((m.group("hy") and not career) or _PROJECT.search(before))
    s.durations.append(
        Duration(
            text[start : m.end()].strip(),
            years,
            at_least=plus or bool(_AT_LEAST.search(before)),
            approx=bool(_ABOUT.search(before)),
            worked=worked,
            start=start,
            end=m.end(),
        )
    )
    s.take(start, m.end())
    return True


def _counted(text: str, pos: int, unit: str | None) -> tuple[tuple[str, ...], str | None, int]:
    """What the quantity ending at ``pos`` counts (folded singular words, the head last),
    its rate ("a day", "/s", "nightly"), and where that reading ends."""
    words: list[str] = []
    last = ""  # the last word read into ``words``, as written
    per: str | None = None
    end = pos
    look_past_of = unit in ("%", "vague")
    attached = _ATTACHED.match(text, pos)
    if attached:  # "a 45-cluster platform", "a 40-person team": the word it is joined to
        return (_fold_word(attached.group(1)),), None, attached.end()
    for _ in range(8):
        if len(words) == 4:
            break
        rate = _RATE.match(text, end)
        if rate:
            per = _RATE_WORD[singular((rate.group("u") or rate.group("adv")).casefold())]
            end = rate.end()
            if words:
                break
            continue
        m = _NEXT_WORD.match(text, end)
        if not m or not m.group("w"):
            break
        word = m.group("w").casefold()
        part = _OF_WHOM.match(text, end) if word == "of" and not words else None
        if part:
            words.append("of-whom")  # "3 of whom": a part of what came before
            end = part.end()
            break
        if look_past_of and word in ("of", "the", "our", "all", "its", "their", "his", "her"):
            end = m.end()
            continue
        look_past_of = False
        if word in _COUNT_STOP or word in _NUMBER_WORDS or word in _MONTH_NAMES:
            break
        if _clause_verb(word) and words and _plural(last):
            break  # "a dashboard that 200+ internal teams use": the teams, not "teams use"
        if word in _NOUN_LIKE and word.endswith("ing") and _DETERMINER_NEXT.match(text, m.end()):
            break  # "a team of six building the app": a verb here, not "six buildings"
        if len(word) >= 4 and word.endswith(("ing", "ed", "ly")) and word not in _NOUN_LIKE:
            if words:
                break
            end = m.end()  # "40 distributed services": a modifier before the noun
            continue
        words.append(_fold_word(word))
        last = word
        end = m.end()
    return tuple(words), per, end


_OF_WHOM = re.compile(r"\s+of\s+(?:whom|them|which|those)\b", re.I)


def _clause_verb(word: str) -> bool:
    """``word`` is one of ``_CLAUSE_VERBS``, maybe in the third person ("a team of four
    engineers and two designers maintains the library")."""
    return (
        word in _CLAUSE_VERBS
        or (word.endswith("s") and word[:-1] in _CLAUSE_VERBS)
        or (word.endswith("es") and word[:-2] in _CLAUSE_VERBS)
    )


_DETERMINER_NEXT = re.compile(r"\s+(?:the|a|an|its|their|our|my|his|her|this|these|those)\b", re.I)


def _plural(word: str) -> bool:
    return word in ("people", "staff") or (
        word.endswith("s") and not word.endswith(("ss", "us", "is")) and word not in _NOT_PLURAL
    )


_MONTH_NAMES = frozenset(
    _words(
        "january february march april may june july august september october november december "
        "jan feb mar apr jun jul aug sep sept oct nov dec"
    )
)
# Words ending like a verb or an adverb that are nouns after a number.
_NOUN_LIKE = frozenset(
    _words(
        "building buildings listing listings meeting meetings setting settings family supply "
        "assembly anomaly reply rally feed feeds seed seeds need needs speed speeds embedding "
        "embeddings recording recordings offering offerings booking bookings posting postings "
        "filing filings warning warnings finding findings opening openings"
    )
)


def _unit_of(m: re.Match[str] | None) -> tuple[str | None, float]:
    """(unit, factor) of a unit match."""
    if m is None:
        return None, 1.0
    g = m.groupdict()
    if g["pct"]:
        return "%", 1.0
    if g["pp"]:
        return "pp", 1.0
    if g["x"] or g["times"]:
        return "x", 1.0
    if g["time"]:
        word = g["time"].casefold()
        key = word if word in _TIME_FACTOR else singular(word)
        key = key if key in _TIME_FACTOR else word.rstrip("s")
        return "s", _TIME_FACTOR.get(key, 1.0)
    if g["bytes"]:
        word = g["bytes"]
        low = word.casefold()
        if low.startswith("byte"):
            return "B", 1.0
        prefix = next(
            (p for p in ("kilo", "mega", "giga", "tera", "peta") if low.startswith(p)), ""
        )
        return "B", _BYTE_FACTOR[prefix or low[0]]
    if g["bits"]:
        return "bit/s", _BYTE_FACTOR[g["bits"][0].casefold()]
    if g["rps"]:
        return _RATE_UNITS.get(g["rps"].casefold()[0], "rps"), 1.0
    if g["cur"]:
        word = g["cur"]
        code = _CURRENCY_SYMBOL.get(singular(word.casefold()), _CURRENCY_SYMBOL.get(word, word))
        return code.upper(), 1.0
    return None, 1.0


def _quantity_at(
    s: _Scan, start: int, end: int, value: float, currency: str | None, *, digits: bool
) -> None:
    """Read magnitude, "+", unit, rate and counted words after a number at [start, end)."""
    text = s.text
    pos = end
    magnitude = 1.0
    mag = _MAGNITUDE.match(text, pos)
    if mag:
        word = mag.group("w")
        magnitude = (
            _SCALES[word.casefold()]
            if word
            else _MAGNITUDE_LETTER[mag.group("l") or mag.group("s")]
        )
        pos = mag.end()
    plus = _PLUS.match(text, pos) or _OR_MORE.match(text, pos)
    if plus:
        pos = plus.end()
    ordinal = _ORDINAL.match(text, pos) if digits and magnitude == 1 else None
    if ordinal:
        if percentile := _PERCENTILE_WORD.match(text, ordinal.end()):  # "99th percentile"
            _percentile(s, start, percentile.end(), value)
            return
        _add_quantity(s, start, ordinal.end(), value, "ordinal", None, ())
        return
    if _duration_at(s, start, pos, value * magnitude, plus=bool(plus)):
        return
    unit_m = _UNIT.match(text, pos)
    unit, factor = _unit_of(unit_m)
    if unit_m:
        pos = unit_m.end()
    if currency:
        unit = currency  # "$2M", and "$2M USD" is still dollars
    if unit in _RATE_COUNTS:  # "100K+ QPS" counts queries a second
        counted: tuple[str, ...] = (_RATE_COUNTS[unit],)
        per: str | None = "s"
        unit = None
        shown = pos
    else:
        counted, per, shown = _counted(text, pos, unit)
        shown = shown if counted else pos
    _add_quantity(
        s, start, pos, value * magnitude * factor, unit, per, counted,
        shown=shown, factor=factor, magnitude=magnitude, plus=bool(plus),
    )  # fmt: skip


# "p99" is the 99th percentile: one quantity however written ("p99 latency", "99th-percentile
# latency"), so "p95" is not "p99".
_PERCENTILE = re.compile(r"(?<![\w.])[pP](?P<v>50|75|90|95|99(?:\.9{1,2})?|999)(?![\w.])")
_PERCENTILE_WORD = re.compile(r"[\s-]percentile\b", re.IGNORECASE)


def _percentile(s: _Scan, start: int, end: int, value: float) -> None:
    counted, per, shown = _counted(s.text, end, None)
    _add_quantity(s, start, end, value, "percentile", per, counted, shown=shown if counted else end)
    s.quantities[-1] = replace(s.quantities[-1], lead="")  # no verb's number: "p95" is a name


def _scan_percentiles(s: _Scan) -> None:
    for m in _PERCENTILE.finditer(s.text):
        if not s.taken(m.start(), m.end()):
            raw = m.group("v")
            _percentile(s, m.start(), m.end(), 99.9 if raw == "999" else float(raw))


_LEAD_WORD = re.compile(r"[^\W_][\w'’.%-]*")


def _lead(text: str, start: int) -> str:
    """The word a quantity follows, function words skipped ("hired 14" -> "hired"); none
    when another number comes first."""
    begin = max(0, start - 40)
    words = _LEAD_WORD.findall(text, begin, start)
    if begin > 0 and text[begin - 1].isalnum() and words:
        words = words[1:]  # cut in half by the window
    for word in reversed(words):
        if word.casefold() in _LEAD_SKIP:
            continue
        return "" if _ANY_DIGIT.search(word) else word
    return ""


_LEAD_SKIP = frozenset(
    _words("""the a an of by to from about around over nearly almost more than some roughly just
    only up and with for in on at all its their our my his her these those this that least
    another under below above within across some""")
)


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "e", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def _add_quantity(
    s: _Scan,
    start: int,
    end: int,
    value: float,
    unit: str | None,
    per: str | None,
    counted: tuple[str, ...],
    *,
    vague_upto: float | None = None,
    shown: int = 0,
    factor: float = 1.0,
    magnitude: float = 1.0,
    plus: bool = False,
) -> None:
    text = s.text
    before = text[max(0, start - 24) : start]
    role: Role | None = None
    last = before.casefold().split()[-3:]
    about = bool(last) and (last[-1] in _ABOUT_WORDS or before.rstrip().endswith("~"))
    while last and last[-1] in ("about", "around", "roughly", "just", "~"):
        last.pop()
    if last and last[-1] == "from":
        role = "from"
    elif before.rstrip().endswith(("→", "->")) or (
        last and last[-1] == "to" and not (len(last) > 1 and last[-2] in _NOT_TO_WORDS)
    ):
        role = "to"
    elif _ARROW_AFTER.match(text, end):
        role = "from"
    lead = _lead(text, start)
    bound: Literal["below", "above", "about"] | None = "above" if plus else None
    if about:
        bound = "about"
    words = " ".join(last[-2:])
    if words.endswith(_BELOW) or before.rstrip().endswith(("sub-", "<")):
        bound = "below"
    elif words.endswith(_ABOVE) or before.rstrip().endswith(">"):
        bound = "above"
    s.quantities.append(
        Quantity(
            text[start : max(end, shown)].strip(),
            value,
            unit,
            per,
            counted,
            role,
            vague_upto,
            start=start,
            end=end,
            factor=factor,
            magnitude=magnitude,
            lead=_stem(lead.casefold()),
            bound=bound,
        )
    )
    s.take(start, end)


def _scan_numbers(s: _Scan, words: bool) -> None:
    text = s.text
    found: list[tuple[int, int, float, bool]] = []  # start, end, value, digits
    for m in _DIGITS.finditer(text) if _ANY_DIGIT.search(text) else ():
        if not _number_start(text, m.start()) or s.taken(m.start(), m.end()):
            continue
        found.append((m.start(), m.end(), float(m.group("num").replace(",", "")), True))
    for m in _NUMBER_WORD_RUN.finditer(text) if words else ():
        if s.taken(m.start(), m.end()):
            continue
        for value, a, b in _word_numbers(m.group()):
            found.append((m.start() + a, m.start() + b, value, False))
    found.sort()
    for start, end, value, digits in found:
        if s.taken(start, end):
            continue
        if digits:
            match = _DIGITS.match(text, start)
            if match and _bare_year(s, match):
                continue
        before = text[max(0, start - 8) : start]
        cur = _CURRENCY_BEFORE.search(before)
        currency = None
        qstart = start
        if cur:
            sym = cur.group("sym")
            currency = _CURRENCY_SYMBOL.get(sym, "USD") if sym else cur.group("code").upper()
            qstart = start - (len(before) - cur.start())
        if not digits and value == 1 and not _DURATION_UNIT.match(text, end):
            word = text[start:end].casefold()
            if word in ("one", "a", "an") and not _UNIT.match(text, end):
                continue  # "one of", "an engineer": not a claim of a count
        _quantity_at(s, qstart, end, value, currency, digits=digits)


def _scan_article_durations(s: _Scan) -> None:
    for m in _ARTICLE_DURATION.finditer(s.text):
        if s.taken(m.start(), m.end()):
            continue
        unit = m.group("u").casefold()
        before = s.text[max(0, m.start() - 24) : m.start()]
        if unit != "decade" and not _ARTICLE_OK.search(before):
            continue  # "2 TB a year" is a rate, not a duration
        years = 10.0 if unit == "decade" else 1.0 if unit == "year" else 1 / 12
        if m.group("half"):
            years *= 0.5
        if m.group("half2"):
            years *= 1.5
        s.durations.append(
            Duration(
                m.group().strip(),
                years,
                at_least=bool(_AT_LEAST.search(before)),
                approx=bool(_ABOUT.search(before)),
                worked=not _PROJECT.search(before),
                start=m.start(),
                end=m.end(),
            )
        )
        s.take(m.start(), m.end())


def _scan_multipliers(s: _Scan) -> None:
    for m in _MULTIPLIER.finditer(s.text):
        if s.taken(m.start(), m.end()):
            continue
        g = m.groupdict()
        forms: tuple[tuple[float, str | None], ...]
        if g["half"] or g["in_half"]:
            value, forms = 0.5, ((2.0, "x"), (50.0, "%"))
        elif g["double"]:
            value, forms = 2.0, ((100.0, "%"),)
        elif g["triple"]:
            value, forms = 3.0, ((200.0, "%"),)
        elif g["quad"]:
            value, forms = 4.0, ((300.0, "%"),)
        else:
            value = float(_SMALL[g["fold"].casefold()])
            forms = ((100.0 * (value - 1), "%"),)
        s.quantities.append(
            Quantity(m.group(), value, "x", forms=forms, start=m.start(), end=m.end())
        )
        s.take(m.start(), m.end())


def _scan_vague(s: _Scan) -> None:
    for m in _VAGUE.finditer(s.text):
        if s.taken(m.start(), m.end()):
            continue
        label = " ".join(m.group("w").casefold().split())
        low, high = _VAGUE_RANGE[label]
        counted, per, shown = _counted(s.text, m.end(), "vague")
        _add_quantity(
            s, m.start(), m.end() - 2, low, None, per, counted, vague_upto=high, shown=shown
        )


def _inherit(quantities: list[Quantity], text: str) -> list[Quantity]:
    """ "from 900 to 180 ms", "3–5 engineers", "$2–3M", "from 47 minutes to 18": a joined
    pair shares its unit, counted words and rate; the first takes the second's magnitude."""
    out = sorted(quantities, key=lambda q: q.start)
    for i in range(len(out) - 1):
        a, b = out[i], out[i + 1]
        if a.vague_upto is not None or b.vague_upto is not None or a.forms or b.forms:
            continue
        if a.end > b.start or not _PAIR_JOIN.fullmatch(text, a.end, b.start):
            continue
        if a.unit is None and b.unit is not None:
            a = replace(a, unit=b.unit, value=a.value * b.factor, factor=b.factor)
        elif b.unit is None and a.unit is not None:  # "from 47 minutes to 18", "$2 to 3M"
            b = replace(b, unit=a.unit, value=b.value * a.factor, factor=a.factor)
        if a.magnitude == 1 and b.magnitude > 1:
            a = replace(a, value=a.value * b.magnitude, magnitude=b.magnitude)
        if not a.counted and b.counted:
            a = replace(a, counted=b.counted)
        if not b.counted and a.counted:
            b = replace(b, counted=a.counted)
        # "from 11 to 2 per quarter": both are per quarter
        a, b = replace(a, per=a.per or b.per), replace(b, per=b.per or a.per)
        if a.role is None and b.role == "to":  # "5 to 12 engineers": a range, not a change
            b = replace(b, role=None)
        out[i], out[i + 1] = a, b
    return out


CURRENCY_CODES = frozenset(_CURRENCY_SYMBOL.values()) | frozenset(
    _words(
        "USD EUR GBP JPY CHF INR AUD CAD SEK NOK DKK PLN CNY SGD BRL ZAR HKD NZD CZK HUF TRY VND"
    )
)


def _date_mentions(s: _Scan) -> list[DateMention]:
    """Pair single dates into ranges and read "since X" / "X – present"."""
    text = s.text
    points = sorted(s.dates)
    out: list[DateMention] = []
    i = 0
    while i < len(points):
        start, end, point, anchored = points[i]
        before = text[max(0, start - 24) : start]
        if i + 1 < len(points):
            nstart, nend, npoint, _ = points[i + 1]
            join = _RANGE_JOIN.fullmatch(text, end, nstart) or (
                _BETWEEN.search(before) and _RANGE_AND.fullmatch(text, end, nstart)
            )
            if join:
                out.append(DateMention(text[start:nend], point, npoint, True, start))
                i += 2
                continue
        join = _RANGE_JOIN.match(text, end)
        present = _PRESENT_WORD.match(text, join.end()) if join else None
        if present:
            out.append(DateMention(text[start : present.end()], point, PRESENT, True, start))
            s.take(start, present.end())
        elif _SINCE.search(before):
            out.append(DateMention(text[start:end], point, PRESENT, True, start))
        else:
            anchor = anchored or bool(_ANCHOR.search(text[max(0, start - 60) : start]))
            out.append(DateMention(text[start:end], point, None, anchor, start))
        i += 1
    return out


_LOWER_WORD = re.compile(r"[a-z]+")
_ANY_DIGIT = re.compile(r"\d")
_NUMBER_WORD_SET = frozenset(_NUMBER_WORDS)
_VAGUE_WORDS = frozenset(_words("dozens hundreds thousands millions billions"))
_ARTICLE_UNITS = frozenset(_words("decade year month"))
_MULTIPLIER_HINT = re.compile(r"(?i)hal[fv]|doubl|tripl|quadrupl|fold")
_PERCENTILE_HINT = re.compile(r"[pP](?:50|75|90|95|99)")
_YEAR_HINT = re.compile(r"(?:19|20)\d\d")
_VERSION_HINT = re.compile(r"\d\.\d+\.\d|(?<![\w.])[vV]\d")


def scan(text: str) -> Mentions:
    """Every quantity, date, duration and version in ``text``."""
    s = _Scan(text, [], [], [], [], [])
    # Each pass runs only when its words can be there: most sentences hold few numbers.
    words = set(_LOWER_WORD.findall(text.lower()))
    if _VERSION_HINT.search(text):
        for m in _VERSION.finditer(text):
            s.versions.append(m.group().casefold().lstrip("v"))
            s.take(m.start(), m.end())
    if _YEAR_HINT.search(text):
        _scan_dates(s)
    if words & _ARTICLE_UNITS:
        _scan_article_durations(s)
    if _PERCENTILE_HINT.search(text):
        _scan_percentiles(s)
    _scan_numbers(s, bool(words & _NUMBER_WORD_SET))
    if _MULTIPLIER_HINT.search(text):
        _scan_multipliers(s)
    if words & _VAGUE_WORDS:
        _scan_vague(s)
    quantities = _inherit(s.quantities, text)
    dates = _date_mentions(s)
    return Mentions(
        tuple(quantities), tuple(dates), tuple(s.durations), tuple(s.versions), tuple(s.spans)
    )


def parse_date(text: str) -> DatePoint | None:
    """One profile date field ("2021-03", "Mar 2021", "03/2021", "2021", "present", "now",
    "current") as a point; "" and anything unreadable are None."""
    value = text.strip()
    if not value:
        return None
    if value.casefold() in ("present", "now", "current", "today", "ongoing", "date"):
        return PRESENT
    s = _Scan(value, [], [], [], [], [])
    _scan_dates(s)
    if not s.dates:
        m = re.fullmatch(r"((?:19|20)\d\d)", value)
        return (int(m.group(1)), None) if m else None
    return s.dates[0][2]

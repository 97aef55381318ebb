"""What a sentence claims besides its numbers: names, tools, degrees, claim words, and —
for a line that cites nothing — first-person claims about the candidate.

``read_sentence(text, aliases, masked)`` returns a ``Reading``:

- ``entities``: proper nouns and named entities, each a run of name-like words ("Lumen
  Freight", "Head of Data Engineering", "Universidad Politécnica", "Zoë Müller-Łukasik",
  "東京大学"), and tools. A word is name-like when it has a capital letter anywhere
  ("gRPC", "AWS", "Kraków"), a digit next to letters ("S3", "p95", "GPT-4"), or letters of a
  script without case. A run of them — joined by spaces or by "of", "de", "van", … — is
  one entity whose parts must all come from one fact, so "Senior Software Engineer" is not
  made of "Senior" from one role and "Software Engineer" from another. Inside a run, alias
  spellings are found first ("Google Cloud Platform", "Sr."), and a part that is a known
  tool ("Spark" in "Spark Structured Streaming") may come from any cited fact.
  The first word of a sentence (or of a clause after ":", ";", "|", "—") is a name only
  if it is not a common word, a verb form or an English word (``domain.truth.lexicon``) that
  starts no longer name ("Built", "Thank", "Customer-focused" are words; "Microsoft" and
  "Amazon Web Services" are names); a title word ("Principal", "Staff") is always a name.
  Tools written in lower case ("kubernetes", "postgres", "machine learning") are found
  through the shared vocabulary (``domain.vocabulary``) and the tool aliases, and a
  lower-case word that is no English where a tool goes ("Jest, vitest and …", "with
  fastlane") is an unknown tool.
- ``degrees``: PhD, MSc, MBA, BSc, Bachelor's, Master's, "degree", … as (level, which).
- ``claim_words``: won, award, prize, patent, promoted, certified, published, founded,
  keynote, speaker, ranked, top N, elected, honours, scholarship, recognised, finalist.
- ``first_person``: phrases that claim experience or achievement in the first person ("I
  have led", "I was a", "my team of", "we built") — only a line citing nothing is held to
  these, since a cited line is checked claim by claim.
- ``gaps``: honest gap statements ("I have not yet worked with X", "I would welcome the
  chance to learn X", "no experience with X", "new to X"): the names and tools that are
  the object of such a phrase are not claims. Only the object (names joined by "and",
  "or", commas) is spared; the rest of the sentence is read as usual.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from jobctrl.domain.truth.aliases import AliasTable, fold, spelling_key
from jobctrl.domain.truth.lexicon import is_known_word
from jobctrl.domain.vocabulary import GENERIC_TERMS, VOCABULARY, WORD_RIGHT

__all__ = [
    "TITLE_WORDS",
    "ClaimWord",
    "Degree",
    "Entity",
    "Part",
    "Reading",
    "claim_words",
    "degree_of",
    "degrees_in",
    "read_sentence",
]


def _words(text: str) -> list[str]:
    """A list of words written as text (reads better than a list of literals)."""
    return text.split()


@dataclass(frozen=True)
class Part:
    """One name or alias inside an entity: any of ``spellings`` (keys) may stand for it."""

    text: str
    spellings: frozenset[str]
    tool: bool  # a known tool: may come from any cited fact
    caseless: bool = False  # a script without case: compared as a substring


@dataclass(frozen=True)
class Entity:
    kind: Literal["name", "tool"]
    text: str
    start: int
    end: int
    parts: tuple[Part, ...]
    term: str | None = None  # the vocabulary term a lower-case tool is (its key)
    unknown: bool = False  # a lower-case word that is no English, where a tool goes


@dataclass(frozen=True)
class Degree:
    level: str  # "bachelor", "master", "doctorate", "law", "diploma", "any"
    which: str | None  # "bsc", "msc", "phd", "mba", … (None: any of the level)
    text: str
    start: int
    end: int


@dataclass(frozen=True)
class ClaimWord:
    family: str
    text: str
    start: int
    end: int


@dataclass(frozen=True)
class Reading:
    entities: tuple[Entity, ...]
    degrees: tuple[Degree, ...]
    claim_words: tuple[ClaimWord, ...]
    first_person: tuple[str, ...]  # first-person claim phrases
    gaps: tuple[tuple[int, int], ...]  # the objects of gap statements
    speaks_of_self: bool  # I / my / we / our … (the writer as subject or owner)
    names_self: bool  # … or as object: me / us / myself
    addresses_reader: bool  # you / your
    names_job: bool = False  # "the role", "this position", "the posting", "the job description"
    # The writer appears only in frames that claim nothing ("I noticed", "I am excited by",
    # "I would love to", "caught my eye", "excites me"), or not at all.
    self_neutral: bool = True


# -- words -------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Token:
    text: str
    start: int
    end: int
    name: bool = False


# A word: letters/digits with inner . + # & ' / - ("Node.js", "C++", "CI/CD", "AT&T",
# "O'Brien", "Müller-Łukasik"), or ".NET"-like names.
_TOKEN = re.compile(r"(?<![\w.])\.[^\W\d_]\w*|[^\W_](?:[\w.+#&'’/-]*[\w+#])?")
_DIGIT = re.compile(r"\d")
_CLAUSE_BREAK = re.compile(r"[.!?:;|•·—–]|\s-\s")


def _tokens(text: str) -> list[_Token]:
    out: list[_Token] = []
    for m in _TOKEN.finditer(text):
        word = m.group()
        if ("/" in word or "-" in word) and not _keeps_whole(word):
            for piece in re.finditer(r"[^/-]+", word):
                out.append(
                    _Token(piece.group(), m.start() + piece.start(), m.start() + piece.end())
                )
            continue
        out.append(_Token(word, m.start(), m.end()))
    return out


def _keeps_whole(word: str) -> bool:
    """A word with "/" or "-" is one name as written ("CI/CD", "Müller-Łukasik",
    "GPT-4"), or else its pieces are read one by one ("Python/Django",
    "Terraform-managed")."""
    if "/" in word:
        return len(word) <= 7
    pieces = [p for p in word.split("-") if p]
    return any(p.isdigit() for p in pieces) or all(_name_like(p) for p in pieces)


def _name_like(token: str) -> bool:
    """A capital anywhere, a digit next to letters, or letters of a script without case."""
    if token.islower():
        return not token.isalpha() and bool(_DIGIT.search(token))
    for c in token:
        if c.isupper() or (c.isalpha() and not c.islower()):
            return True
    return bool(_DIGIT.search(token)) and any(c.isalpha() for c in token)


def _caseless(token: str) -> bool:
    return any(c.isalpha() and not c.isupper() and not c.islower() for c in token)


def _overlaps(spans: Sequence[tuple[int, int]], start: int, end: int) -> bool:
    return any(s < end and start < e for s, e in spans)


_COMMON = frozenset(
    _words("""a an the this that these those there here it its i me my mine we our us you your
    he she his her they them their and or but nor so yet for of in on at by to from with
    without within into onto over under above below across through throughout during
    before after since until while when where whereas which who whom whose what why how
    if unless although though because as than then also too very most more many much
    some any all each every both either neither few several other another such same own
    no not never always often usually sometimes once twice again already still just only
    even now today currently recently previously formerly earlier later next last first
    second third finally lastly additionally furthermore moreover meanwhile however
    therefore thus hence overall together further beyond around about along alongside
    against among amongst between besides despite including per via upon toward towards
    thank thanks dear sincerely regards best kind warm warmest yours respectfully cheers
    hello hi greetings please yes ok okay well indeed certainly clearly
    able am is are was were be been being have has had having do does did doing done will
    would shall should can could may might must let lets
    build built lead led run ran manage managed own owned drive drove grow grew write wrote
    make made take took give gave keep kept hold held bring brought begin began set cut
    ship shipped deliver design develop create scale migrate automate reduce improve
    support deploy launch mentor teach taught coach hire train maintain architect
    implement introduce partner work collaborate help enable own oversee oversaw found
    spearhead establish define drive champion streamline optimise optimize rebuild
    rebuilt rewrite rewrote sell sold spend spent choose chose win won earn publish
    present speak spoke organise organize host ran
    experienced seasoned passionate pragmatic versatile curious motivated driven
    dedicated results detail hands creative analytical strategic proven skilled
    accomplished adaptable reliable dependable committed enthusiastic energetic
    collaborative thoughtful meticulous resourceful bilingual multilingual fluent native
    strong solid deep broad extensive excellent good great outstanding exceptional
    full end cross back front data software product technical core key main primary
    new old small large big high low fast quick early late long short open public private
    responsible focused based known recognised recognized certified used uses use
    organiser organizer co-organiser co-organizer member contributor volunteer mentor host
    languages skills tools technologies interests hobbies education experience projects
    summary profile contact references volunteering achievements highlights selected
    obrigada obrigado merci danke gracias grazie dziekuje teşekkürler arigato cheers
    having given being getting making taking""")
)
# Greetings and thanks in the languages a letter may open or close with.
_GREETINGS = frozenset(
    _words(
        """ola hola bonjour hallo ciao salut hej hei merhaba czesc szanowni szanowny
        szanowna estimados estimadas estimado estimada prezados prezadas prezado prezada
        caro cara cari liebe lieber liebes sehr geehrte geehrter chere cher chers
        buongiorno namaste obrigada obrigado merci danke gracias grazie dziekuje tesekkurler
        arigato xin kinh dear"""
    )
)
# Common words that are also title or name words: common only when a lowercase word
# follows ("Lead a team", but "Lead Data Engineer").
_AMBIGUOUS_START = frozenset(_words("lead head chief principal staff"))
# Words of job titles: never read as ordinary English, wherever they stand.
TITLE_WORDS = frozenset(
    _words(
        """engineer engineering manager developer designer scientist researcher lead head
        director analyst architect administrator consultant officer specialist intern sre
        swe vp president principal staff senior junior associate assistant coordinator
        technician owner chief fellow partner founder"""
    )
)
# Past tenses that do not end in -ed ("Sped up deploys").
_IRREGULAR_STARTS = frozenset(
    _words(
        """sped upheld underwent withdrew overcame undertook oversaw rode saw sat sent shot
        shut sold spent split spread stood struck swept swung taught told thought threw
        understood wore fed fled froze hid hit hung knew laid lit lost meant met paid quit
        read rose said sought shook showed shrank slid spoke sprang stuck strove tore
        became began bought brought built caught chose came did drew drove fell felt fought
        found flew forgot gave got grew had heard held kept led left lent let made ran
        rebuilt rewrote set shipped took wrote won"""
    )
)
_NOT_NAMES = frozenset(
    _words("""i i'm i've i'd i'll mr mrs ms dr prof monday tuesday wednesday thursday friday
    saturday sunday january february march april may june july august september october
    november december jan feb mar apr jun jul aug sep sept oct nov dec""")
)
_CONNECTORS = frozenset(
    _words("of de del della di da do dos das du des la le van von der den ter y e the &")
)
_STOP_CAPS = frozenset(
    _words("""the a an and or of in on at to for with by from as into over under via per our my
    your their its is are was were be""")
)
# Corporate suffixes add no claim ("Acme Inc." is Acme).
_CORPORATE = frozenset(_words("inc ltd llc gmbh corp co plc ag sa bv pty srl spa kk sas oy ab"))


# -- patterns tried word by word ---------------------------------------------------------------


def _literal_prefix(alternative: str) -> str:
    """Up to three characters every match of ``alternative`` starts with (casefolded), or
    "" when it has no fixed start ("(?:apache |py)?spark")."""
    s = alternative.removeprefix("(?-i:").removeprefix("(?i:")
    out = ""
    i = 0
    while i < len(s) and len(out) < 3:
        if s[i] == "\\" and i + 1 < len(s) and not s[i + 1].isalnum():
            char, step = s[i + 1], 2
        elif s[i].isalnum() or s[i] in "/'&#+ -":
            char, step = s[i], 1
        else:
            break
        after = s[i + step : i + step + 1]
        if after in ("?", "*", "{"):
            break
        out += char.casefold()
        i += step
        if after == "+":
            break
    return out


class _Dispatch:
    """Named alternatives tried at given word starts, each only where the word begins as
    it must. (A plain alternation of hundreds is tried whole at every character by ``re``:
    ten times slower on a sentence than this.)"""

    def __init__(self, alternatives: Sequence[tuple[str, str]], right: str, flags: int = 0):
        buckets: dict[str, list[str]] = {}
        open_ended: list[str] = []
        self._prefixes: set[str] = set()
        for name, alternative in alternatives:
            prefix = _literal_prefix(alternative)
            body = f"(?P<{name}>{alternative})"
            if prefix:
                self._prefixes.add(prefix)
                buckets.setdefault(prefix[0], []).append(body)
            else:
                open_ended.append(body)
        self._p1 = {p for p in self._prefixes if len(p) == 1}
        self._p2 = {p for p in self._prefixes if len(p) == 2}
        self._p3 = {p for p in self._prefixes if len(p) == 3}
        self._by_char = {
            c: re.compile("(?:" + "|".join(bodies) + ")" + right, flags)
            for c, bodies in buckets.items()
        }
        self._open = (
            re.compile("(?:" + "|".join(open_ended) + ")" + right, flags) if open_ended else None
        )

    def match(self, text: str, pos: int, head: str = "") -> re.Match[str] | None:
        head = head or text[pos : pos + 3].casefold()
        m = None
        if head in self._p3 or head[:2] in self._p2 or head[:1] in self._p1:
            pattern = self._by_char.get(head[:1])
            m = pattern.match(text, pos) if pattern else None
        if m is None and self._open is not None:
            m = self._open.match(text, pos)
        return m

    def find(self, text: str, starts: Sequence[tuple[int, str]]) -> list[re.Match[str]]:
        """Matches at ``starts`` (position, its first three characters casefolded)."""
        out: list[re.Match[str]] = []
        reach = 0
        for pos, head in starts:
            if pos >= reach and (m := self.match(text, pos, head)):
                out.append(m)
                reach = m.end()
        return out

    def fullmatch(self, word: str) -> bool:
        return self.whole(word) is not None

    def whole(self, word: str) -> re.Match[str] | None:
        m = self.match(word, 0) if word else None
        return m if m is not None and m.end() == len(word) else None


def _starts(text: str, tokens: Sequence[_Token]) -> list[tuple[int, str]]:
    positions = [t.start for t in tokens]
    if "#" in text:  # "#1"
        positions = sorted({*positions, *(i for i, c in enumerate(text) if c == "#")})
    return [(p, text[p : p + 3].casefold()) for p in positions]


# -- degrees and claim words -------------------------------------------------------------------

# (level, which, alternatives): abbreviations keep their case, words ignore it.
_DEGREE_PATTERNS: tuple[tuple[str, str | None, tuple[str, ...]], ...] = (
    ("doctorate", "phd", (r"Ph\.?\s?D\b\.?", r"D\.?Phil\b", r"(?i:doctor\s+of\s+philosophy\b)")),
    ("doctorate", None, (r"(?i:doctora(?:te|l)\b)",)),
    ("doctorate", "md", (r"M\.D\.", r"(?i:doctor\s+of\s+medicine\b)")),
    ("master", "mba", (r"MBA\b", r"(?i:master\s+of\s+business\s+administration\b)")),
    (
        "master",
        "msc",
        (
            r"M\.?Sc\b\.?",
            r"M\.S\.",
            r"MS\b(?=\s+(?:in|degree|from)\b)",
            r"(?i:master\s+of\s+science\b)",
        ),
    ),
    ("master", "ma", (r"M\.A\.", r"MA\b(?=\s+(?:in|degree|from)\b)", r"(?i:master\s+of\s+arts\b)")),
    ("master", "meng", (r"M\.?Eng\b\.?", r"(?i:master\s+of\s+engineering\b)")),
    ("master", "mphil", (r"M\.?Phil\b\.?",)),
    ("master", "mres", (r"MRes\b",)),
    (
        "master",
        None,
        (
            r"(?i:master'?s\b(?:\s+degree)?)",
            r"(?i:masters?\s+(?:degree|in|of)\b)",
            r"(?i:postgraduate\s+degree\b)",
        ),
    ),
    (
        "bachelor",
        "bsc",
        (
            r"B\.?Sc\b\.?",
            r"B\.S\.",
            r"BS\b(?=\s+(?:in|degree|from)\b)",
            r"(?i:bachelor\s+of\s+science\b)",
        ),
    ),
    (
        "bachelor",
        "ba",
        (r"B\.A\.", r"BA\b(?=\s+(?:in|degree|from|\(hons)\b)", r"(?i:bachelor\s+of\s+arts\b)"),
    ),
    ("bachelor", "beng", (r"B\.?Eng\b\.?", r"(?i:bachelor\s+of\s+engineering\b)")),
    ("bachelor", "btech", (r"B\.?Tech\b\.?", r"(?i:bachelor\s+of\s+technology\b)")),
    ("bachelor", "bba", (r"BBA\b", r"(?i:bachelor\s+of\s+business\s+administration\b)")),
    (
        "bachelor",
        None,
        (
            r"(?i:bachelor'?s?\b(?:\s+degree)?)",
            r"(?i:undergraduate\s+degree\b)",
            r"(?i:licenciatura\b)",
        ),
    ),
    ("law", "jd", (r"J\.?D\.", r"(?i:juris\s+doctor\b)")),
    ("law", "llb", (r"LL\.?B\b\.?",)),
    ("law", "llm", (r"LL\.?M\b\.?",)),
    ("diploma", None, (r"(?i:diploma\b)",)),
    ("any", None, (r"(?i:degrees?\b)",)),
)
_DEGREES = _Dispatch(
    [
        (f"d{i}_{j}", alternative)
        for i, (_, _, alternatives) in enumerate(_DEGREE_PATTERNS)
        for j, alternative in enumerate(alternatives)
    ],
    "",
)

_COMPANY_AFTER = (
    r"(?:ed|ing|s|es)?\s+(?:(?:a|an|my|our|the|his|her|their|own)\s+){0,2}(?:[\w-]+\s+){0,2}?"
    r"(?:compan(?:y|ies)|start-?ups?|business|consultancy|agency|studio|firm|venture|"
    r"non-?profit|charity)\b(?!['’]s)"
)
# (family, alternatives), case ignored.
_CLAIM_PATTERNS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "award",
        (
            r"awards?\b",
            r"awarded\b",
            r"award-winning\b",
            r"prizes?\b",
            r"medals?\b",
            r"troph(?:y|ies)\b",
            r"accolades?\b",
            r"best\s+paper\b",
            r"honou?rable\s+mention\b",
        ),
    ),
    ("won", (r"won\b", r"winn(?:er|ers|ing)\b", r"first\s+place\b", r"1st\s+place\b")),
    (
        "finalist",
        (
            r"finalists?\b",
            r"short-?listed\b",
            r"runners?[\s-]up\b",
            r"nominee\b",
            r"nominat(?:ed|ion)\b",
        ),
    ),
    ("patent", (r"patent(?:s|ed|-pending)?\b",)),
    ("granted", (r"granted\b",)),
    (
        "promoted",
        (r"promoted\s+(?:to|twice|three|in|after|within|from|early|ahead)\b", r"promotions?\b"),
    ),
    (
        "certified",
        (r"certifi(?:ed|cation|cations|cate|cates)\b", r"accredit(?:ed|ation)\b", r"licen[cs]ed\b"),
    ),
    ("published", (r"publish(?:ed|ing)?\b", r"publications?\b", r"co-?authored\b")),
    (
        "founded",
        (
            r"found(?:ed|er|ers|ing)\b",
            r"co-?found(?:ed|er|ers|ing)\b",
            # starting a company is founding it ("started a data consultancy"); each verb
            # its own alternative, so that it is tried only where such a word starts
            *(verb + _COMPANY_AFTER for verb in (r"start", r"launch", r"set(?:ting|s)?\s+up")),
        ),
    ),
    ("keynote", (r"keynotes?\b",)),
    (
        "speaker",
        (
            r"speakers?\b",
            r"spoke\s+at\b",
            r"talks?\s+at\b",
            r"presented\s+at\b",
            r"invited\s+talks?\b",
        ),
    ),
    (
        "ranked",
        (
            r"rank(?:ed|ing)\b",
            r"top[\s-](?:\d+|one|two|three|five|ten|twenty|fifty|hundred)\b%?",
            r"#\s?1\b",
            r"no\.\s?1\b",
            r"number\s+one\b",
        ),
    ),
    ("elected", (r"elected\b",)),
    (
        "honours",
        (
            r"hono(?:u)?rs\b",
            r"cum\s+laude\b",
            r"summa\b",
            r"magna\b",
            r"valedictorian\b",
            r"dean'?s\s+list\b",
            r"distinction\b",
            r"first[\s-]class\b",
        ),
    ),
    ("scholarship", (r"scholarships?\b", r"fellowships?\b")),
    ("recognised", (r"recogni[sz]ed\s+(?:as|by|for|with)\b", r"recognition\b")),
    ("invented", (r"invent(?:ed|or|ors|ion|ions)?\b", r"pioneer(?:ed|ing|s)?\b")),
    (
        "renowned",
        (
            r"industry[\s-](?:standard|reference|leading|first|benchmark|wide)\b",
            r"world[\s-](?:first|class|record|leading|renowned)\b",
            r"first[\s-]ever\b",
            r"renowned\b",
            r"acclaimed\b",
            r"groundbreaking\b",
            r"award[\s-]nominated\b",
        ),
    ),
)
_CLAIMS = _Dispatch(
    [
        (f"c{i}_{j}", alternative)
        for i, (_, alternatives) in enumerate(_CLAIM_PATTERNS)
        for j, alternative in enumerate(alternatives)
    ],
    "",
    re.IGNORECASE,
)


def _index(m: re.Match[str]) -> int:
    assert m.lastgroup is not None
    return int(m.lastgroup[1:].split("_")[0])


def degrees_in(text: str, starts: Sequence[tuple[int, str]] | None = None) -> list[Degree]:
    """The degrees ``text`` names, as (level, which)."""
    starts = starts if starts is not None else _starts(text, _tokens(text))
    out: list[Degree] = []
    for m in _DEGREES.find(text, starts):
        level, which, _ = _DEGREE_PATTERNS[_index(m)]
        out.append(Degree(level, which, m.group().strip(), m.start(), m.end()))
    return out


# A degree field written as the abbreviation alone ("MS", "B.S."), which a sentence must
# follow with "in" or "degree" to be read as one.
_BARE_DEGREES: dict[str, tuple[str, str]] = {
    "ms": ("master", "msc"),
    "ma": ("master", "ma"),
    "bs": ("bachelor", "bsc"),
    "ba": ("bachelor", "ba"),
}
_DEGREE_TAIL = re.compile(r"[\s.,]*(?:\(hons?\.?\)|hons\b\.?|degree\b)?[\s.,]*$", re.IGNORECASE)


def degree_of(text: str) -> tuple[Degree, str] | None:
    """The degree a degree field names ("Master of Science", "M.S.", "Bachelor's degree")
    and what follows it ("of Design" in "Bachelor of Design"), or None when the field does
    not start with one (``degrees_in``'s vocabulary, which sentences are read with too)."""
    field = text.strip()
    tail = _DEGREE_TAIL.search(field)
    short = field[: tail.start() if tail else None]
    bare = _BARE_DEGREES.get(re.sub(r"[\s.]", "", short).casefold())
    if bare and len(short) <= 6:
        return Degree(bare[0], bare[1], short, 0, len(short)), ""
    m = _DEGREES.match(field, 0)
    if m is None:
        return None
    level, which, _ = _DEGREE_PATTERNS[_index(m)]
    rest = field[m.end() :]
    tail = _DEGREE_TAIL.search(rest)
    return Degree(level, which, m.group().strip(), 0, m.end()), rest[
        : tail.start() if tail else None
    ]


def claim_words(text: str, starts: Sequence[tuple[int, str]] | None = None) -> list[ClaimWord]:
    """The claim words ``text`` uses, with their families."""
    starts = starts if starts is not None else _starts(text, _tokens(text))
    return [
        ClaimWord(_CLAIM_PATTERNS[_index(m)][0], m.group(), m.start(), m.end())
        for m in _CLAIMS.find(text, starts)
    ]


# -- tools -------------------------------------------------------------------------------------

# Vocabulary terms that are areas or ordinary verbs rather than tools ("led", "cloud",
# "hiring", "mentoring").
_NOT_TOOLS = GENERIC_TERMS | {
    "hiring",
    "mentoring",
    "leadership",
    "people management",
    "collaboration",
    "communication",
    "stakeholder management",
}
_TOOL_KEYS: tuple[str, ...] = tuple(k for k in VOCABULARY if k not in _NOT_TOOLS)
_VOCAB = _Dispatch(
    [(f"t{i}_{j}", a) for i, k in enumerate(_TOOL_KEYS) for j, a in enumerate(VOCABULARY[k][1])],
    WORD_RIGHT,
    re.IGNORECASE,
)
# Areas ("REST APIs", "Microservices", "Data Pipelines"): compared by vocabulary term
# even when capitalised, as the offline writer and the scorer name them.
_GENERIC_KEYS: tuple[str, ...] = tuple(k for k in VOCABULARY if k in GENERIC_TERMS)
_GENERIC = _Dispatch(
    [(f"g{i}_{j}", a) for i, k in enumerate(_GENERIC_KEYS) for j, a in enumerate(VOCABULARY[k][1])],
    WORD_RIGHT,
    re.IGNORECASE,
)
# Lower-case words that name a tool only when capitalised ("react to", "the spring").
_LOWER_NOT_TOOL = frozenset(
    _words(
        "react spring rails helm go node swift express torch lambda dynamo spark flask excel "
        "rust ember backbone meteor mercury redshift looker argo agile apis api"
    )
)


@functools.lru_cache(maxsize=64)
def _alias_tools(aliases: AliasTable) -> _Dispatch:
    return _Dispatch(
        [(f"a{i}", re.escape(s)) for i, s in enumerate(aliases.tool_spellings)],
        WORD_RIGHT,
        re.IGNORECASE,
    )


def _lower_tools(
    text: str, starts: Sequence[tuple[int, str]], taken: list[tuple[int, int]], aliases: AliasTable
) -> list[Entity]:
    out: list[Entity] = []
    for m in _VOCAB.find(text, starts):
        word = m.group()
        if _overlaps(taken, m.start(), m.end()) or (word.islower() and word in _LOWER_NOT_TOOL):
            continue
        part = Part(word, aliases.spellings(spelling_key(word)), True)
        term = _TOOL_KEYS[_index(m)]
        out.append(Entity("tool", word, m.start(), m.end(), (part,), term))
    spans = taken + [(e.start, e.end) for e in out]
    for m in _alias_tools(aliases).find(text, starts):
        word = m.group()
        if _overlaps(spans, m.start(), m.end()) or word.casefold() in _LOWER_NOT_TOOL:
            continue
        part = Part(word, aliases.spellings(spelling_key(word)), True)
        out.append(Entity("tool", word, m.start(), m.end(), (part,)))
    return out


# -- names -------------------------------------------------------------------------------------


def _common_start(tokens: Sequence[_Token], i: int) -> bool:
    """The clause-initial token ``i`` is an ordinary word, not a name."""
    word = tokens[i].text
    low = word.casefold().replace("’", "'")
    if any(c.isupper() for c in word[1:]) or _DIGIT.search(word):
        return False  # "LinkedIn", "AWS", "S3"
    if low in _AMBIGUOUS_START:
        return not (i + 1 < len(tokens) and _name_like(tokens[i + 1].text))
    if low in _COMMON or low.removesuffix("s") in _COMMON or low.removesuffix("es") in _COMMON:
        return True
    if low in _IRREGULAR_STARTS:
        return True
    if fold(low) in _GREETINGS:
        return True
    if len(low) > 3 and low.endswith(("ed", "ing", "ly")):
        return True
    # An English word ("Customer-focused", "Versatile"), not a title word, not the first
    # word of a longer name ("Amazon Web Services").
    nxt = tokens[i + 1].text if i + 1 < len(tokens) else ""
    return _english_word(low) and not _name_like(nxt)


def _english_word(low: str) -> bool:
    return len(low) >= 4 and low.isalpha() and low not in TITLE_WORDS and is_known_word(low)


_VERB_ENDS = ("ing", "ed", "ly")


def _title_case(tokens: Sequence[_Token]) -> bool:
    """Most words of four letters or more are capitalised, as in a heading."""
    words = [t.text for t in tokens if len(t.text) >= 4 and t.text.isalpha()]
    upper = sum(1 for w in words if w[0].isupper())
    return upper >= 3 and upper >= 0.6 * len(words)


def _parts(run: Sequence[_Token], text: str, aliases: AliasTable) -> tuple[Part, ...]:
    """An entity's parts: alias spellings first (longest), then single words."""
    parts: list[Part] = []
    i = 0
    while i < len(run):
        n = min(aliases.longest, len(run) - i)
        # the words as written, connectors included ("Ruby on Rails")
        while n > 1 and not aliases.known(spelling_key(text[run[i].start : run[i + n - 1].end])):
            n -= 1
        key = spelling_key(text[run[i].start : run[i + n - 1].end])
        if n > 1 or key not in _CORPORATE:
            words = text[run[i].start : run[i + n - 1].end]
            tool = aliases.is_tool(key) or _VOCAB.fullmatch(words)
            parts.append(Part(words, aliases.spellings(key), tool, _caseless(words)))
        i += n
    return tuple(parts)


def _entities(
    text: str, tokens: list[_Token], masked: Sequence[tuple[int, int]], aliases: AliasTable
) -> list[Entity]:
    prev_end = 0
    title_case = _title_case(tokens)
    for i, tok in enumerate(tokens):
        gap = text[prev_end : tok.start]
        clause_start = i == 0 or (gap != " " and bool(_CLAUSE_BREAK.search(gap)))
        prev_end = tok.end
        if not _name_like(tok.text) or _overlaps(masked, tok.start, tok.end):
            continue
        low = tok.text.casefold()
        if title_case and tok.text[1:].islower() and len(low) > 4 and low.endswith(_VERB_ENDS):
            continue  # "Backend Engineer Specializing in Payments"
        low = tok.text.casefold().replace("’", "'")
        if low in _NOT_NAMES or (low in _STOP_CAPS and not tok.text.isupper()):
            continue
        if low.startswith("i'") and len(low) <= 4:
            continue
        if clause_start and _common_start(tokens, i):
            continue
        tok.name = True

    out: list[Entity] = []
    run: list[_Token] = []

    def close() -> None:
        if run:
            parts = _parts(run, text, aliases)
            if parts:
                kind: Literal["name", "tool"] = "tool" if all(p.tool for p in parts) else "name"
                start, end = run[0].start, run[-1].end
                generic = _GENERIC.whole(text[start:end])
                term = _GENERIC_KEYS[_index(generic)] if generic else None
                out.append(Entity(kind, text[start:end], start, end, parts, term))
            run.clear()

    connector = False
    for i, tok in enumerate(tokens):
        if tok.name:
            if run and not connector and text[run[-1].end : tok.start].strip():
                close()
            run.append(tok)
            connector = False
            continue
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if (
            run
            and not connector
            and nxt is not None
            and nxt.name
            and not text[run[-1].end : tok.start].strip()
            and not text[tok.end : nxt.start].strip()
            and (
                tok.text.casefold() in _CONNECTORS
                # a lower-case word inside an alias: "Ruby on Rails", not "Ruby" and "Rails"
                or aliases.known(spelling_key(text[run[-1].start : nxt.end]))
            )
        ):
            connector = True
            continue
        close()
        connector = False
    close()
    return out


# -- words that are no English where a tool goes -----------------------------------------------

_TOOL_PREPOSITIONS = frozenset(_words("using with via in on into onto through atop plus"))
_COORDINATORS = frozenset(_words("and or nor , / & +"))
_PLAIN_WORD = re.compile(r"[a-z][a-z.-]*[a-z]")


def _unknown_tools(
    text: str, tokens: Sequence[_Token], entities: Sequence[Entity], taken: list[tuple[int, int]]
) -> list[Entity]:
    """Lower-case words that are neither English nor jargon, written where a tool goes:
    next to a named tool or name in a list ("Jest, vitest and Testing Library", "PyTorch
    and fairseq"), or right after "using", "with", "in", … ("signing with fastlane")."""
    merged: list[_Token] = []  # "cloud-init" whole again
    for tok in tokens:
        last = merged[-1] if merged else None
        if last and text[last.end : tok.start] == "-" and (last.text + tok.text).islower():
            merged[-1] = _Token(text[last.start : tok.end], last.start, tok.end)
        else:
            merged.append(tok)
    named_at = {t.start for t in merged for e in entities if e.start <= t.start < e.end}
    slot: list[bool] = []  # each token: a name, or a word in a tool's place
    out: list[Entity] = []
    for i, tok in enumerate(merged):
        named = tok.start in named_at
        placed = False
        if not named and i > 0 and _PLAIN_WORD.fullmatch(tok.text):
            prev = merged[i - 1]
            gap = text[prev.end : tok.start]
            before = prev.text.casefold()
            if not gap.strip():
                placed = before in _TOOL_PREPOSITIONS or (
                    slot[i - 1] and before not in _COORDINATORS
                )
            if not placed:
                j = i - 1
                joined = bool(set(gap.strip()) & {",", "/", "&", "+"})
                while j >= 0 and merged[j].text.casefold() in ("and", "or", "nor"):
                    joined = True
                    j -= 1
                placed = joined and j >= 0 and slot[j]
            placed = placed and not _overlaps(taken, tok.start, tok.end)
        slot.append(named or placed)
        if placed and not is_known_word(tok.text):
            part = Part(tok.text, frozenset((fold(tok.text),)), True)
            out.append(Entity("tool", tok.text, tok.start, tok.end, (part,), unknown=True))
    return out


# -- the first person and gaps -----------------------------------------------------------------

# The writer as subject or owner ("I", "my", "we"); "me" and "us" as objects ("excites
# me") say nothing about the writer's past.
_SELF = frozenset(_words("i my mine we our ours i'm i've i'd i'll we're we've we'd"))
_SELF_OBJECT = frozenset(_words("me us myself ourselves"))
_READER = frozenset(_words("you your yours"))
_ADVERBS = frozenset(
    _words("""also successfully recently previously personally then once already since first later
    really genuinely truly deeply especially consistently directly single-handedly
    independently proudly primarily mainly mostly largely most currently still""")
)
_MODALS = frozenset(_words("would will could can should shall might may must 'd 'll"))
_IRREGULAR_PAST = frozenset(
    _words("""led built ran grew drove wrote made won took shipped oversaw taught spoke held brought
    cut set spent became began did got gave kept put sold stood rebuilt rewrote undertook
    beat fought flew sent lent bought thought""")
)
_IRREGULAR_PARTICIPLE = _IRREGULAR_PAST | frozenset(
    _words("run grown driven written taken overseen spoken begun done gotten given sold become")
)
_NOT_CLAIM_VERBS = frozenset(
    _words("""noticed applied wanted enjoyed followed admired appreciated watched heard saw came
    decided hoped felt thought found loved liked reviewed researched discovered visited met
    realised realized wished attached included enclosed submitted reached talked chatted
    listened signed read learned learnt noted considered looked seen been excited interested
    impressed inspired intrigued drawn wondered bought""")
)
_CLAIM_PRESENT = frozenset(
    _words("""lead manage run build own oversee teach mentor work specialise specialize hold bring
    know use write develop design architect maintain head drive speak publish code program
    ship deliver coach train supervise direct""")
)
_HAVE_OBJECTS = frozenset(
    _words("""experience expertise background track deep extensive strong proven solid hands-on
    broad worked been spent over more nearly almost years decades a an several many""")
)
_HAVE_A_OBJECTS = frozenset(
    _words("""track background degree phd master's masters bachelor's certification patent history
    record proven strong solid deep career long decade""")
)
_BE_NOT_CLAIMS = frozenset(
    _words("""writing applying excited eager keen interested drawn confident happy glad delighted
    thrilled grateful available looking hoping enthusiastic impressed inspired convinced
    sure certain ready open motivated curious new not confident pleased honoured honored
    writing reaching contacting attaching enclosing fascinated intrigued also really very
    so genuinely particularly especially based located""")
)
_BE_A_NOT_CLAIMS = frozenset(_words("fan admirer user customer reader follower"))
_NUMBERISH = re.compile(
    r"^\d|^(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty)$"
)
_MY_CLAIM = re.compile(
    r"\bmy\s+(?:(?:previous|current|last|former|own|first|recent|most\s+recent|\w+-person)\s+)?"
    r"(?:teams?|direct\s+reports|reports|clients|customers|company|startup|employer|"
    r"colleagues|manager|promotion|thesis|phd|doctorate|patents?|publications?|awards?|"
    r"achievements?|accomplishments?|track\s+record|tenure|certifications?|degree|"
    r"(?:experience|background|career|work|time|role|roles|years|expertise|studies|"
    r"research|projects?)\s+(?:in|with|at|as|on|leading|building|running|managing|of|"
    r"across|designing|developing|shipping|scaling))\b",
    re.IGNORECASE,
)
_GAP_TRIGGER = re.compile(
    r"(?:\b(?:have|has|had)\s+not|\b(?:haven|hasn|hadn)'t|\bnever)\s+"
    r"(?:yet\s+|had\s+(?:the|a)\s+(?:chance|opportunity)\s+to\s+|been\s+able\s+to\s+|"
    r"professionally\s+|directly\s+)*"
    r"(?:worked\s+(?:with|in|on)|used|touched|tried|built\s+with|programmed\s+in|written|"
    r"coded\s+in|deployed|run|shipped\s+with|operated)\b"
    r"|\bno\s+(?:\w+\s+){0,2}?experience\s+(?:with|in|using)\b"
    r"|\b(?:new\s+to|unfamiliar\s+with|less\s+familiar\s+with|not\s+(?:yet\s+)?"
    r"(?:familiar|experienced|proficient)\s+(?:with|in))\b"
    r"|(?:\bto|\bam|'m|\bbeen|\bcurrently|\bstarted|\bstarting|\bbegun|\bbegan)\s+"
    r"(?:learn|learning|pick\s+up|picking\s+up|get\s+up\s+to\s+speed\s+(?:with|on)|"
    r"ramp\s+up\s+on|grow\s+into|explore|exploring|study|studying|deepen\s+my\s+"
    r"(?:knowledge|skills)\s+(?:of|in|with))\b",
    re.IGNORECASE,
)
_GAP_JOINERS = frozenset(_words("and or nor either the a an , / &"))
_POLITE_HINT = re.compile(
    r"(?i)hiring|recruit|talent|selection|search|whom|madam|yours|regards|wishes"
)
_GAP_HINT = re.compile(
    r"(?i)\bnot\b|n't|never|\bno\b|new to|familiar|learn|pick|speed|ramp|grow|explor|stud|deepen"
)
_POLITE = re.compile(
    r"\b(?:dear\s+(?:the\s+)?)?(?:hiring|recruiting|recruitment|talent|selection|search)\s+"
    r"(?:manager|team|committee|panel|partner|lead)s?\b|\bto\s+whom\s+it\s+may\s+concern\b|"
    r"\bsir\s+or\s+madam\b|\byours\s+(?:sincerely|faithfully|truly)\b|"
    r"\b(?:kind|best|warm|warmest)\s+regards\b|\bbest\s+wishes\b",
    re.IGNORECASE,
)


_SUBJECTS = frozenset(_words("i we i've we've i'm we're i'd i'll we'd"))
_CONTRACTIONS = {"ve": "have", "m": "am", "re": "are", "d": "'d", "ll": "'ll"}
_BE_CLAIMS = frozenset(
    _words(
        """responsible part one proficient fluent expert skilled familiar comfortable
        competent qualified versed adept at in with known promoted certified accomplished
        seasoned experienced employed hired"""
    )
)


def _have_claims(rest: Sequence[str]) -> bool:
    """After "I have": "I have led", "I have 8 years", "I have a track record"."""
    if not rest or rest[0] in ("not", "never", "no", "yet", "n't", "to"):
        return False
    obj = rest[0]
    if obj == "been":
        nxt = rest[1] if len(rest) > 1 else ""
        return nxt not in _BE_NOT_CLAIMS and nxt not in _NOT_CLAIM_VERBS
    if obj in ("a", "an"):
        return len(rest) > 1 and rest[1] in _HAVE_A_OBJECTS
    return (
        obj in _HAVE_OBJECTS
        or obj in _IRREGULAR_PARTICIPLE
        or (obj.endswith("ed") and obj not in _NOT_CLAIM_VERBS)
        or bool(_NUMBERISH.match(obj))
    )


def _be_claims(rest: Sequence[str]) -> bool:
    """After "I am" / "I was": "I was a lead", "I am experienced in" (not "I am writing")."""
    nxt = rest[0] if rest else ""
    if nxt in ("a", "an", "the"):
        return not any(w in _BE_A_NOT_CLAIMS for w in rest[1:3])
    if not nxt or nxt in _BE_NOT_CLAIMS or nxt in _NOT_CLAIM_VERBS:
        return False
    return nxt.endswith(("ed", "ing")) or nxt in _BE_CLAIMS


def _verb_claims(verb: str) -> bool:
    """A past or present verb of work done ("led", "built", "I manage")."""
    if verb in _NOT_CLAIM_VERBS or verb in ("do", "did", "don't", "didn't"):
        return False
    if verb in _IRREGULAR_PAST or (verb.endswith("ed") and len(verb) > 3):
        return True
    return verb in _CLAIM_PRESENT or verb.removesuffix("s") in _CLAIM_PRESENT


def _first_person(text: str, tokens: Sequence[_Token], words: list[str]) -> list[str]:
    """Phrases in which the writer claims experience or achievement, in the sentence's
    own words ("I have led", "I've managed 40")."""
    found: list[str] = []
    for i, word in enumerate(words):
        if word not in _SUBJECTS:
            continue
        contracted = "'" in word
        seq = [_CONTRACTIONS[word.split("'", 1)[1]]] if contracted else []
        at = [i] if contracted else []
        for j in range(i + 1, min(i + 8, len(words))):
            if words[j] not in _ADVERBS:
                seq.append(words[j])
                at.append(j)
        if not seq or seq[0] in _MODALS:
            continue
        verb, rest = seq[0], seq[1:]
        if verb in ("have", "has", "had"):
            claim = _have_claims(rest)
        elif verb in ("am", "was", "are", "were"):
            claim = _be_claims(rest)
        else:
            claim = _verb_claims(verb)
        if claim:
            last = at[min(1, len(at) - 1)]
            found.append(text[tokens[i].start : tokens[last].end])
    return found


def _gap_objects(
    text: str, tokens: Sequence[_Token], entities: Sequence[Entity]
) -> list[tuple[int, int]]:
    """The spans of what honest gap statements say the writer lacks."""
    spans: list[tuple[int, int]] = []
    for m in _GAP_TRIGGER.finditer(text):
        end = last = m.end()
        for tok in tokens:
            if tok.start < end:
                continue
            if text[last : tok.start].strip() not in ("", ",", "/", "&"):
                break
            low = tok.text.casefold()
            named = any(e.start <= tok.start < e.end for e in entities)
            if (
                named
                or low in _GAP_JOINERS
                or (low not in _LOWER_NOT_TOOL and _VOCAB.fullmatch(tok.text))
            ):
                last = tok.end
                continue
            break
        if last > end:
            spans.append((end, last))
    return spans


# -- the posting, the role and the company -------------------------------------------------------

# A greeting's addressee, up to the first comma: names in it are no claim ("Dear Dr. Akiba").
_ADDRESSEE = re.compile(
    r"\s*(?:dear|hello|hi|hey|greetings|good\s+(?:morning|afternoon|day)|ol[aá]|hola|bonjour|"
    r"hallo|ciao|hej|hei|merhaba|cze[sś][cć]|szanown[a-z]*|estimad[oa]s?|prezad[oa]s?|"
    r"liebe[rs]?|sehr\s+geehrte[rs]?|ch[eè]re?s?|car[oia])\b(?P<who>(?:\s+(?:dr|ms|mrs|mr|mx|prof)\.)?[^,:;!.\n]*)",
    re.IGNORECASE,
)

_JOB = re.compile(
    r"\b(?:the|this|that|your|its|their)\s+(?:[\w-]+\s+){0,3}?(?:role|position|posting|"
    r"job|opening|vacancy|listing|advert|advertisement|ad|job\s+description|description|"
    r"requirements?|team|mission)\b",
    re.IGNORECASE,
)
# The frames in which a writer may appear in a sentence about the job and claim nothing.
_NEUTRAL_SUBJECT = re.compile(
    r"(?:i|we)\s+(?:(?:also|really|particularly|especially|genuinely|truly|greatly|deeply)\s+)?"
    r"(?:noticed|notice|saw|see|read|learned|learnt|understand|gather|admire|appreciate|love|"
    r"like|hope|believe|think|want|wish|look\s+forward|share|welcome|value|"
    r"(?:am|are|was|were)\s+(?:(?:so|very|really|particularly|especially|genuinely)\s+)?"
    r"(?:excited|drawn|interested|impressed|inspired|keen|eager|glad|happy|delighted|"
    r"thrilled|pleased|writing|applying|reaching|intrigued|fascinated|curious)|"
    r"would\s+(?:(?:really|also)\s+)?(?:love|like|welcome|enjoy|value|appreciate|"
    r"be\s+(?:(?:so|very|really)\s+)?(?:glad|happy|delighted|thrilled|excited|keen|eager|"
    r"grateful|pleased|honou?red)))\b"
    r"|my\s+(?:eye|attention|interest|curiosity|application|candidacy|cv|resume|résumé|"
    r"letter)\b",
    re.IGNORECASE,
)
_NEUTRAL_OBJECT_BEFORE = frozenset(
    _words("""excites excite interests interest drew draws attracts attracted inspires inspired
    motivates motivated thrills compels fascinates intrigues""")
)


def _self_neutral(text: str, tokens: Sequence[_Token], lowered: Sequence[str]) -> bool:
    """The writer appears only in frames that claim nothing: "I noticed that …", "I am
    excited by …", "I would love to …", "… caught my eye", "… excites me"."""
    for i, word in enumerate(lowered):
        if word in _SELF_OBJECT and word in ("me", "us"):
            before = lowered[i - 1] if i else ""
            two = " ".join(lowered[max(0, i - 2) : i])
            if before in _NEUTRAL_OBJECT_BEFORE or two in ("appeals to", "speaks to"):
                continue
            return False
        if word in _SELF_OBJECT or word in _SELF:
            window = text[tokens[i].start : tokens[i].start + 100].casefold().replace("’", "'")
            window = _CONTRACTED.sub(lambda m: f"{m[1]} {_EXPANDED[m[2]]}", window, count=1)
            if _NEUTRAL_SUBJECT.match(window) is None:
                return False
    return True


_CONTRACTED = re.compile(r"^(i|we)'(m|d|re)\b")
_EXPANDED = {"m": "am", "d": "would", "re": "are"}


# -- reading -----------------------------------------------------------------------------------


def read_sentence(text: str, aliases: AliasTable, masked: Sequence[tuple[int, int]]) -> Reading:
    """What ``text`` claims besides its numbers (``masked``: the spans numbers cover)."""
    tokens = _tokens(text)
    starts = _starts(text, tokens)
    degrees = degrees_in(text, starts)
    words = claim_words(text, starts)
    taken = list(masked)
    taken += [(d.start, d.end) for d in degrees]
    taken += [(w.start, w.end) for w in words]
    if _POLITE_HINT.search(text):
        taken += [(m.start(), m.end()) for m in _POLITE.finditer(text)]
    names = _entities(text, tokens, taken, aliases)
    entities = names + _lower_tools(
        text, starts, taken + [(e.start, e.end) for e in names], aliases
    )
    entities += _unknown_tools(text, tokens, entities, taken)
    lowered = [t.text.casefold().replace("’", "'") for t in tokens]
    gaps = _gap_objects(text, tokens, entities) if _GAP_HINT.search(text) else []
    if addressee := _ADDRESSEE.match(text):  # "Dear Dr. Akiba,": whom the letter is to
        gaps.append((addressee.start("who"), addressee.end()))
    first_person = _first_person(text, tokens, lowered)
    if "my" in lowered:
        first_person += [m.group() for m in _MY_CLAIM.finditer(text)]
    return Reading(
        entities=tuple(sorted(entities, key=lambda e: e.start)),
        degrees=tuple(degrees),
        claim_words=tuple(words),
        first_person=tuple(first_person),
        gaps=tuple(gaps),
        speaks_of_self=any(w in _SELF for w in lowered),
        names_self=any(w in _SELF or w in _SELF_OBJECT for w in lowered),
        addresses_reader=any(w in _READER for w in lowered),
        names_job=bool(_JOB.search(text)),
        self_neutral=_self_neutral(text, tokens, lowered),
    )

"""Which words of a sentence carry a claim of their own, and whether the profile says them.

A lying model that cites a real role can invent the rest of the bullet in plain lower-case
words ("Negotiated vendor contracts and owned the annual hardware procurement budget"): no
name, number or tool is new, only responsibilities and domains. The claim checker holds
such words (``content_words``) to the profile:

- a word is a *content word* when it is none of the words a careful rewrite adds without
  claiming anything (``CLAIM_FREE``: function words, ordinary verbs of doing, the
  vocabulary of letters and resumes, praise that asserts no fact), no number word and no
  month;
- it is *supported* when its key (``content_key``: British and American spellings made
  one, a light suffix strip, the first seven letters) is a key of the profile's own words
  (``profile_keys``: every fact, plus the names the job may name freely), or of a word in
  the same paraphrase group (``SYNONYMS``: "annual" for "a year", "cut" for "reduced"),
  or shares its first five letters with one ("healthcare" for "health").

Keys are deliberately coarse: two words of one stem ("migration", "migrated") share one,
and a few unrelated words do too ("product", "production"). That errs towards accepting:
an invented bullet has several new words, and one is enough to catch it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

__all__ = [
    "CLAIM_FREE",
    "CLAIM_FREE_KEYS",
    "SYNONYMS",
    "content_key",
    "content_words",
    "profile_keys",
    "supported",
]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words that claim nothing a fact must carry. Keep it to words a truthful paraphrase adds;
# a responsibility ("procurement"), a domain ("fraud", "healthcare") or a tool never goes
# here.
CLAIM_FREE = _words(
    """a an the this that these those there here it its i me my mine myself we our ours us
    you your yours he she his her they them their and or but nor so yet for of in on at by
    to from with without within into onto over under above below across through throughout
    during before after since until while when where whereas which who whom whose what why
    how if unless although though because as than then also too very most more many much
    some any all each every both either neither few several other another such same own
    no not never always often usually sometimes once twice again already still just only
    even now today currently recently previously formerly earlier later next last first
    second third finally additionally furthermore moreover meanwhile however therefore thus
    hence overall together further beyond around about along alongside against among
    amongst between besides despite including include includes included per via upon
    inside outside behind beneath underneath atop possible possibly
    toward towards up down out off away back well ever like unlike plus etc
    am is are was were be been being have has had having do does did doing done will would
    shall should can could may might must let lets get gets got getting go goes went gone
    going come came coming become became becoming
    work works worked working use uses used using apply applied applying make makes made
    making take took taken taking give gave given giving keep kept keeping bring brought
    bringing put set setting turn turned turning hold held holding find found finding
    deliver delivered delivering delivery ship shipped shipping ships enable enabled
    enabling ensure ensured ensuring improve improved improving improvement improvements
    increase increased increasing reduce reduced reducing reduction cut cutting lower
    lowered lowering raise raised raising boost boosted grow grew grown growing growth
    scale scaled scaling speed sped accelerate accelerated streamline streamlined
    simplify simplified modernize modernized modernise modernised upgrade upgraded replace
    replaced replacing move moved moving migrate migrated migrating migration migrations
    transition transitioned convert converted port ported rebuild rebuilt rewrite
    rewrote rewritten refactor refactored redesign redesigned produce produced launch
    launched release released roll rolled rollout deploy deployed deploying introduce
    introduced introducing adopt adopted adoption partner partnered collaborate
    collaborated collaborating collaboration coordinate coordinated communicate align
    aligned plan planned planning define defined shape shaped maintain maintained
    maintaining operate operated operating handle handled handling serve served serving
    power powered keep achieve achieved reach reached reaching hit meet met exceed
    exceeded save saved saving savings earn earned learn learned learnt learning
    focus focused focusing specialise specialised specialize specialized specializing
    create created creating build built building builds implement implemented implementing
    develop developed developing development design designed designing write wrote written
    writing lead leading led manage managed managing own owned owning run ran running
    drive drove driven driving oversee oversaw overseeing head headed direct directed
    spearhead spearheaded supervise supervised contribute contributed contributing help
    helped helping assist assisted support supported supporting participate participated
    start started starting begin began continue continued remain remained stay stayed
    show showed shown prove proved proven turn change changed changing extend extended
    expand expanded expanding add added adding remove removed cover covered provide
    provided providing offer offered allow allowed allowing need needed require required
    want wanted hope hoped believe think thought feel felt know knew known see saw seen
    look looking enjoy enjoyed love loved care cared like liked prefer thrive excite
    excited exciting excites interest interested interesting appeal appeals eager keen
    glad happy thrilled delighted grateful proud pleased confident sure ready available
    welcome discuss talk speak conversation chat meet join joining joined apply applying
    consider considering considered thank thanks appreciate appreciated attach attached
    enclose enclosed hear share shared sharing explore exploring match matches fit fits
    suited suit combine combined combining connect connected translate translated matter
    matters mean means meant stand stands relate related relevant
    team teams work role roles job position opportunity opportunities chance company
    companies organisation organization organisations organizations org business
    businesses group groups people person colleague colleagues teammate teammates peer
    peers stakeholder stakeholders partner partners member members staff employer
    employers candidate application applications resume letter
    experience experiences background career years year months month weeks week days day
    time times period decade decades quarter quarters hours hour minutes minute seconds
    second today date
    project projects product products system systems service services feature features
    platform platforms tool tools tooling solution solutions process processes workflow
    workflows thing things area areas field fields domain domains space problem problems
    challenge challenges issue issues need needs goal goals result results outcome
    outcomes impact impacts value values quality performance reliability efficiency
    stability security scalability availability speed cost costs effort efforts
    initiative initiatives practice practices approach approaches way ways method
    methods part parts piece pieces end level levels kind kinds type types set sets
    number numbers amount range variety mix lot lots scale size share rate rates
    version versions stack stacks layer layers component components module modules
    code codebase codebases software hardware application applications app apps
    infrastructure environment environments production stage stages step steps
    change changes update updates improvement progress success mission vision culture
    standard standards principle principles idea ideas insight insights lesson lessons
    skill skills strength strengths expertise knowledge understanding ability abilities
    passion interest interests curiosity mindset habit habits rigour rigor care detail
    details craft record track journey path direction responsibility responsibilities
    ownership leadership end-to-end
    engineer engineers engineering developer developers programmer programmers
    scientist scientists researcher researchers designer designers user users customer
    customers client clients
    new old key core main primary central major minor critical important essential
    complex simple large small big high low higher lower faster slower better best
    good great strong solid deep broad wide full whole entire real actual true clear
    multiple several various many numerous different diverse modern robust scalable
    reliable efficient effective resilient stable secure maintainable performant
    internal external cross-functional cross functional hands-on practical pragmatic
    successful successfully significantly substantially considerably dramatically
    greatly consistently directly closely carefully quickly rapidly steadily regularly
    daily weekly monthly yearly annually annual nightly hourly continuous continuously
    across-the-board overall total entire average typical
    able capable responsible accountable involved experienced seasoned skilled
    proficient fluent familiar comfortable versed adept expert specialist
    motivated driven dedicated passionate curious thoughtful meticulous
    senior junior lead principal staff chief head
    spend spent spending pass passed passing surpass surpassed top topped cross crossed
    appear appeared appearing openly publicly study studied studying graduate graduated
    languages interests certifications education summary profile highlights
    nearly roughly approximately approx almost least sub close upwards north just
    rely relies relied relying depend depends depended attend attends attended
    past ahead swap swaps swapped swapping
    pipeline pipelines catch catches caught catching host hosts hosted hosting follow
    follows followed following shift shifts shifted shifting author authors authored alone
    together teach teaches taught teaching data licence license workload workloads
    traffic load usage measurable meaningful tangible notable significant slash slashed
    eliminate eliminated eliminating avoid avoided avoiding prevent prevented preventing
    company-wide org-wide organisation-wide organization-wide cross-team""",
)

# Words a paraphrase uses for one another; the same key for each member.
SYNONYMS: tuple[frozenset[str], ...] = tuple(
    _words(group)
    for group in (
        "annual annually yearly year years",
        "monthly month months",
        "nightly night nights overnight daily",
        "reduce reduced cut cutting lower lowered decrease decreased shrink shrank shrunk "
        "shorten shortened shortening "
        "trim trimmed halve halved drop dropped fell fall",
        "increase increased raise raised lift lifted boost boosted grow grew improve improved",
        "speed faster quicker sped accelerate accelerated",
        "migrate migrated migration move moved moving port ported transition",
        "build built create created develop developed implement implemented engineer "
        "engineered design designed architect architected",
        "lead led head headed manage managed run ran own owned oversee oversaw direct",
        "mentor mentored mentoring coach coached coaching teach taught train trained "
        "onboard onboarded guide guided",
        "customer customers client clients user users merchant merchants",
        "site sites website websites",
        "engineer engineers developer developers programmer programmers",
        "paper papers publication publications article articles",
        "incident incidents outage outages page pages alert alerts",
        "cost costs spend spending expense expenses bill",
        "latency latencies response",
        "job jobs task tasks",
        "pipeline pipelines workflow workflows dag dags",
        "team teams squad squads group groups",
        "company employer organisation organization firm",
        "release releases deploy deploys deployment deployments rollout",
        "server servers machine machines host hosts instance instances node nodes vm vms",
        "vm vms virtual",
        "dashboard dashboards report reports",
        "test tests testing coverage",
        "hiring hired hire hires recruit recruited recruiting recruitment",
        "promote promoted promotion promotions",
        "transaction transactions payment payments",
        "screen screens ui interface interfaces",
        "speech audio voice",
        "conversion conversions",
        "lazily lazy defer deferred deferring deferral",
        "corpus corpora dataset datasets",
        "service services microservice microservices",
        "qps rps tps query queries request requests req",
    )
)

_BRITISH = re.compile(
    r"(?<=[a-z]{3})[iy]s(?=(?:e|ed|es|ing|ation|ations|er|ers)\b)|(?<=[a-z]{2})our\b"
)
_SUFFIXES = (
    "izations", "ization", "ational", "ations", "ation", "ments", "ment", "ities", "ity",
    "ingly", "ings", "ing", "ness", "ers", "er", "ied", "ies", "ees", "ed", "es", "s", "ally",
    "ly", "al", "ive", "able", "ible",
)  # fmt: skip
# What a stripped suffix leaves ("creation" and "created" share "creat").
_SUFFIX_KEEPS = {
    "ies": "y", "ied": "y", "ities": "y", "ees": "e", "izations": "iz", "ization": "iz",
    "ations": "at", "ation": "at",
}  # fmt: skip
_WORD = re.compile(r"[a-z][a-z'’]*[a-z]|[a-z]")


@functools.lru_cache(maxsize=32768)
def content_key(word: str) -> str:
    """The key two forms of one word share ("migrated", "migration", "migrating"; "optimise"
    and "optimize"): suffix stripped once, a final "e" and a doubled last letter dropped,
    the first seven letters."""
    w = word.casefold().replace("’", "'").removesuffix("'s")
    w = _BRITISH.sub(lambda m: "or" if m.group() == "our" else m.group()[0] + "z", w)
    for suffix in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)] + _SUFFIX_KEEPS.get(suffix, "")
            break
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":
        w = w[:-1]
    return w[:7]


def _keys(words: Iterable[str]) -> set[str]:
    return {content_key(w) for w in words}


_SYNONYM_KEYS: tuple[frozenset[str], ...] = tuple(frozenset(_keys(g)) for g in SYNONYMS)
CLAIM_FREE_KEYS = frozenset(_keys(CLAIM_FREE))


def _text_words(text: str) -> list[str]:
    return [w for piece in _WORD.findall(text.casefold()) for w in piece.split("-") if w]


@functools.lru_cache(maxsize=256)
def profile_keys(texts: tuple[str, ...]) -> frozenset[str]:
    """The keys of every word of ``texts`` (a profile's facts and the free names), with
    the keys of their paraphrase groups, and their first five and six letters (see
    ``supported``)."""
    keys = _keys(w for text in texts for w in _text_words(text))
    for group in _SYNONYM_KEYS:
        if keys & group:
            keys |= group
    keys |= {k[:n] for k in keys for n in (5, 6) if len(k) > n}
    return frozenset(keys)


def supported(key: str, keys: frozenset[str]) -> bool:
    """``key`` is one of ``keys`` (from ``profile_keys``), or shares its first five
    letters with one: a compound or a longer form of a word the profile says ("health"
    and "healthcare", "infra" and "infrastructure")."""
    return key in keys or (len(key) > 5 and (key[:5] in keys or key[:6] in keys))


def content_words(text: str, skip: Iterable[tuple[int, int]]) -> tuple[tuple[str, str, int], ...]:
    """The content words of ``text`` outside the ``skip`` spans (names, tools, numbers,
    claim words): (the word as written, its key, its offset)."""
    masked = bytearray(len(text) + 1)
    for a, b in skip:
        masked[max(0, a) : max(0, b)] = b"\x01" * (max(0, b) - max(0, a))
    out: list[tuple[str, str, int]] = []
    for m in _WORD.finditer(text.casefold()):
        if masked[m.start()]:
            continue
        for piece in m.group().replace("’", "'").split("'")[0].split("-"):
            if len(piece) < 3 or piece in CLAIM_FREE:
                continue
            key = content_key(piece)
            if key not in CLAIM_FREE_KEYS:
                out.append((text[m.start() : m.end()], key, m.start()))
                break
    return tuple(out)

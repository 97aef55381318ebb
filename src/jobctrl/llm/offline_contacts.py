"""The offline contact extractor: the people a posting, a team page or pasted text names,
read deterministically, with no model and no network (issue 33).

A person is a name next to a title ("Jane Doe, Senior Technical Recruiter", "our Head
of Engineering, Sam Lee", a team page's card: a name on one line, the title on the next),
a name after a contact cue ("reach out to Jane Doe", "you will report to Sam Lee"), or a
personal email address (``jane.doe@acme.com``: its local part gives the name). Shared
mailboxes (``jobs@``, ``careers@``) are not people. Each person comes with the sentence
it was read from (the evidence), a role (recruiter, hiring manager, founder, team
member), the title's words and a confidence.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from jobctrl.domain.contacts import EVIDENCE_LIMIT, ContactRole

__all__ = ["FoundPerson", "extract_people", "role_of"]


@dataclass(frozen=True)
class FoundPerson:
    name: str
    role: str
    title: str | None
    email: str | None
    evidence: str
    confidence: float


_UP, _LOW = "A-ZÀ-ÖØ-Þ", "a-zà-öø-ÿ"
_NAME_WORD = rf"(?:[{_UP}]['’])?[{_UP}][{_LOW}]+(?:[{_UP}][{_LOW}]+)?(?:-[{_UP}]?[{_LOW}]+)?"
_PARTICLE = r"(?:de|van|von|der|den|ter|ten|da|di|du|le|la|del|dos|bin|ben|al|el)"
_NAME = re.compile(
    rf"(?<![\w@.])({_NAME_WORD}(?:\s+(?:[{_UP}]\.|{_PARTICLE}|{_NAME_WORD})){{1,3}})(?![\w@])"
)
_EMAIL = re.compile(
    r"(?<![\w.+-])([A-Za-z0-9][A-Za-z0-9._%+-]{0,63})@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)"
)
# Words that are never part of a person's name here: titles, teams, places, page words.
_NOT_NAME = frozenset(
    {
    "a", "about", "account", "accounts", "acquisition", "ai", "all", "also", "an", "and",
    "any", "app", "apply", "april", "as", "at", "august", "back", "based", "benefits", "berlin",
    "by", "careers", "ceo", "cfo", "chief", "city", "co", "co-founder", "cofounder", "come",
    "company", "contact", "coo", "cto", "customer", "data", "december", "design", "designer",
    "developer", "director", "dr", "email", "engineer", "engineering", "equal", "europe",
    "executive", "experience", "february", "founder", "from", "full", "global", "great",
    "group", "growth", "head", "hiring", "hr", "human", "in", "inc", "infrastructure", "is",
    "it", "january", "job", "jobs", "join", "july", "june", "lead", "leader", "learn",
    "london", "manager", "march", "marketing", "may", "me", "meet", "mobile", "monday", "mr",
    "mrs", "ms", "new", "no", "not", "november", "october", "of", "officer", "on",
    "operations", "opportunity", "or", "our", "paris", "partner", "people", "platform",
    "please", "president", "principal", "product", "program", "questions", "recruiter",
    "recruiting", "remote", "reach", "report", "reports", "resources", "sales", "san",
    "school", "science", "scientist", "security", "senior", "september", "site", "software",
    "sr", "staff", "success", "support", "talent", "team", "teams", "tech", "technical",
    "the", "this", "to", "today", "trust", "us", "vice", "vp", "we", "welcome", "what", "who",
    "why", "with", "work", "you", "your", "york",
    }
)  # fmt: skip
_TITLE_WORDS = (
    r"(?:(?:senior|sr\.?|junior|lead|principal|staff|technical|tech|executive|corporate|"
    r"global|university|campus|associate|regional|group|interim|acting|founding)\s+)*"
)
# The second word of "Head of Customer Success", never a name's first.
_FIELD = (
    r"(?:\s+(?:&|and)\s+[a-z]+|\s+(?:success|operations|engineering|product|design|data|people"
    r"|talent|marketing|sales|growth|platform|infrastructure|security|quality|research"
    r"|experience|relations|education|finance|support|care))?"
)
_ROLE_CORE = (
    r"(?:co-?founders?(?:\s*(?:&|and)\s*(?:ceo|cto|coo))?|founders?(?:\s*(?:&|and)\s*(?:ceo|cto))?|"
    r"(?:mede)?oprichter|fondat(?:eur|rice)|fundador[a]?|mitgr[üu]nder(?:in)?|"
    r"ceo|cto|coo|chief\s+\w+\s+officer|gr[üu]nder(?:in)?|gesch[äa]ftsf[üu]hrer(?:in)?|"
    r"personalreferent(?:in)?|recruitment\s+consultant|(?:developer\s+)?advocate|"
    r"talent\s+acquisition(?:\s+(?:partner|manager|lead|specialist|coordinator))?|"
    r"talent\s+(?:partner|lead|manager|scout)|recruiter|recruiting\s+(?:lead|manager|partner|"
    r"coordinator)|sourcer|people\s+(?:partner|operations(?:\s+manager)?|lead)|"
    rf"head\s+of\s+[a-z]+{_FIELD}|director\s+of\s+[a-z]+{_FIELD}|"
    r"(?:vp|vice\s+president)(?:\s+of)?\s+[a-z&]+|hiring\s+manager|"
    r"[a-z]+\s+(?:manager|lead|director)|"
    r"(?:software|backend|frontend|platform|data|machine\s+learning|ml|site\s+reliability|"
    r"mobile|security|infrastructure|full[-\s]?stack|devops)\s+engineer|engineer|"
    r"product\s+(?:designer|manager)|designer|data\s+scientist|developer|"
    r"[a-z]+\s+(?:engineer|developer|designer|scientist|analyst|specialist|writer))"
)
_TITLE = re.compile(rf"\b{_TITLE_WORDS}{_ROLE_CORE}\b", re.IGNORECASE)
_CUE = re.compile(
    r"(?:reach\s+out\s+to|contact|email|e-mail|write\s+to|questions\s+to|report(?:ing)?\s+"
    r"(?:directly\s+)?to|work\s+(?:closely\s+)?with|meet|speak\s+with|talk\s+to|led\s+by|"
    r"managed\s+by|call\s+with|chat\s+with|interview\s+with|alongside|copied|cc|"
    r"(?:team|group)\s+with|"
    r"(?:founded|started)(?:\s+in\s+\d{4})?\s+by)\s+$",
    re.IGNORECASE,
)
_SHARED_MAILBOX = frozenset(
    {
        "jobs", "careers", "career", "recruiting", "recruitment", "talent", "hr", "hiring",
        "apply", "applications", "info", "hello", "contact", "team", "people", "support",
        "admin", "office", "noreply", "no-reply", "privacy", "press", "security", "sales",
        "help", "work", "join",
    }
)  # fmt: skip
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"“(])")
_CARD_NAME = re.compile(
    rf"^\s*(?:[-*]\s*)?({_NAME_WORD}(?:\s+(?:[{_UP}]\.|{_PARTICLE}|{_NAME_WORD})){{1,3}})"
    r"\s*(?:[·•|]\s*(?:1st|2nd|3rd|3rd\+))?\s*$"
)
# After a name: what the person does ("Sam Lee, who leads the team", "Sam runs DevEx").
_AFTER = re.compile(r"^,?\s+(?:who\s+)?(?:leads|runs|heads|manages)\b", re.IGNORECASE)


def role_of(title: str) -> str:
    """The role a title says: founder, recruiter, hiring manager or team member."""
    t = title.lower()
    if re.search(
        r"founder|\bceo\b|chief\s+executive|gr[üu]nder|gesch[äa]ftsf[üu]hrer|oprichter|fondat|fundador",
        t,
    ):
        return ContactRole.FOUNDER.value
    if re.search(r"recruit|talent|sourcer|\bpeople\b|\bhr\b|human\s+resources|personal", t):
        return ContactRole.RECRUITER.value
    if re.search(
        r"hiring|manager|head\s+of|director|\bvp\b|vice\s+president|\bcto\b|chief|lead", t
    ):
        return ContactRole.HIRING_MANAGER.value
    return ContactRole.TEAM_MEMBER.value


def _is_name(text: str) -> bool:
    words = text.replace(".", "").split()
    if len(words) < 2 or len(words) > 4:
        return False
    if any(w.lower().strip("'’") in _NOT_NAME for w in words):
        return False
    return words[-1][:1].isupper() and len(words[-1]) > 1


def _names(sentence: str) -> list[tuple[int, int, str]]:
    return [
        (m.start(1), m.end(1), m.group(1)) for m in _NAME.finditer(sentence) if _is_name(m.group(1))
    ]


def _sentences(text: str) -> list[str]:
    out: list[str] = []
    for line in text.splitlines():
        line = line.strip().lstrip("-*• ").strip()
        if line:
            out += [s.strip() for s in _SENTENCE_END.split(line) if s.strip()]
    return out


def _evidence(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= EVIDENCE_LIMIT else text[: EVIDENCE_LIMIT - 1] + "…"


def _between_ok(gap: str) -> bool:
    """Only a comma, a dash, a bar, a colon, a bracket or a few linking words between a
    name and its title."""
    gap = gap.strip().lower()
    return bool(
        re.fullmatch(
            r"(?:[,:(|–—·-]|\s)*(?:(?:is|was|as|our|the|a|an|who\s+is|and)\s*[,:(]?\s*)*",
            gap,
        )
    )


def _cue_title(cue: str) -> str:
    cue = cue.lower()
    if "found" in cue or "started" in cue:
        return "founder"
    return "manager" if "report" in cue else ""


def _pair(sentence: str) -> list[tuple[str, str, float]]:
    """(name, title, confidence) for each name next to a title in the sentence, or after
    a contact cue ("reach out to", "founded by"), or before what it does ("who leads")."""
    found: list[tuple[str, str, float]] = []
    names = _names(sentence)
    titles = [(m.start(), m.end(), m.group(0)) for m in _TITLE.finditer(sentence)]
    previous: tuple[int, str, float] | None = None  # the last name kept: (end, title, conf)
    for start, end, name in names:
        if re.search(r"\b(?:at|for|join|from)\s+$", sentence[:start], re.IGNORECASE) and not (
            _CUE.search(sentence[:start][-40:])
        ):
            continue  # "Recruiter at Acme Corp": a company, not a person
        best: tuple[int, str] | None = None
        for t_start, t_end, title in titles:
            if t_start >= end:  # "Jane Doe, Recruiter"
                gap = sentence[end:t_start]
            elif t_end <= start:  # "our Recruiter, Jane Doe"
                gap = sentence[t_end:start]
            else:
                continue
            if len(gap) <= 24 and _between_ok(gap) and (best is None or len(gap) < best[0]):
                best = (len(gap), title)
        cue = _CUE.search(sentence[:start][-40:])
        if best is not None:
            kept = (best[1], 0.85)
        elif cue is not None or _AFTER.match(sentence[end:]):
            # What follows may say the role ("from our Talent team", "who leads the team").
            said = _cue_title(cue.group(0)) if cue else ""
            rest = sentence[end : end + 80].strip(" ,").split(",")[0]
            if not said and role_of(rest) != ContactRole.TEAM_MEMBER:
                said = rest.strip(" ,")
            kept = (said, 0.55)
        elif previous is not None and re.fullmatch(r"\s+and\s+", sentence[previous[0] : start]):
            kept = (previous[1], previous[2])  # "founded by Sofia Lindqvist and Rahul Mehta"
        else:
            previous = None
            continue
        found.append((name, kept[0], kept[1]))
        previous = (end, kept[0], kept[1])
    return found


def _name_from_email(local: str) -> str | None:
    parts = [p for p in re.split(r"[._-]", local) if p]
    if len(parts) < 2 or not all(p.isalpha() and len(p) > 1 for p in parts[:3]):
        return None
    return " ".join(p.capitalize() for p in parts[:3])


def _email_for(name: str, emails: list[str]) -> str | None:
    first, last = name.lower().split()[0], name.lower().split()[-1]
    for email in emails:
        local = email.split("@")[0].lower()
        if first in local or last in local or local == f"{first[0]}{last}":
            return email
    return None


def _company_words(company: str | None) -> str:
    return " ".join(re.findall(r"\w+", (company or "").lower()))


def extract_people(text: str, *, company: str | None = None) -> list[FoundPerson]:
    """The people ``text`` names, most confident first, each once (by name); a name that
    is the ``company``'s own ("Vitalis Care") is not a person."""
    people: dict[str, FoundPerson] = {}
    firm = _company_words(company)

    def keep(person: FoundPerson) -> None:
        key = person.name.lower()
        spelled = _company_words(person.name)
        if firm and (spelled in firm or firm in spelled):
            return
        if firm and _elsewhere(person, firm):
            return
        kept = people.get(key)
        if kept is not None and ContactRole.FOUNDER in (kept.role, person.role):
            # "founded by X" and "X, CTO": a founder (what a person would call them)
            person = replace(person, role=ContactRole.FOUNDER.value)
            kept = replace(kept, role=ContactRole.FOUNDER.value)
            people[key] = kept
        if kept is None or person.confidence > kept.confidence:
            if kept is not None and not person.email:
                person = replace(person, email=kept.email)
            people[key] = person
        elif person.email and not kept.email:
            people[key] = replace(kept, email=person.email)

    sentences = _sentences(text)
    for sentence in sentences:
        emails = [f"{m.group(1)}@{m.group(2)}" for m in _EMAIL.finditer(sentence)]
        for name, title, confidence in _pair(sentence):
            email = _email_for(name, emails)
            keep(
                FoundPerson(
                    name=name, role=role_of(title) if title else ContactRole.TEAM_MEMBER.value,
                    title=title or None, email=email, evidence=_evidence(sentence),
                    confidence=min(1.0, confidence + (0.1 if email else 0.0)),
                )
            )  # fmt: skip
        for email in emails:
            local = email.split("@")[0]
            spelled = _name_from_email(local)
            if spelled is None or local.lower() in _SHARED_MAILBOX:
                continue
            titles = [m.group(0) for m in _TITLE.finditer(sentence)]
            keep(
                FoundPerson(
                    name=spelled,
                    role=role_of(titles[0]) if titles else ContactRole.TEAM_MEMBER.value,
                    title=titles[0] if titles else None, email=email,
                    evidence=_evidence(sentence), confidence=0.5,
                )
            )  # fmt: skip
    _cards(text, keep)
    _addresses(text, people)
    return sorted(people.values(), key=lambda p: (-p.confidence, p.name))


def _elsewhere(person: FoundPerson, firm: str) -> bool:
    """ "Jordan Blake, Platform Engineer at a fintech customer": someone of another
    organisation (a customer quoted, a partner), not the company's."""
    if not person.title:
        return False
    at = re.search(rf"{re.escape(person.title)}\s+at\s+([^.,;:()]{{2,60}})", person.evidence)
    return at is not None and firm.split()[0] not in _company_words(at.group(1))


def _addresses(text: str, people: dict[str, FoundPerson]) -> None:
    """An address anywhere in the text whose local part is one found person's first name,
    ``first.last`` or ``flast`` becomes that person's email (when they have none)."""
    for m in _EMAIL.finditer(text):
        local, email = m.group(1).lower(), f"{m.group(1)}@{m.group(2)}"
        owners = []
        for key in people:
            words = key.split()
            if local in (words[0], ".".join(words), f"{words[0][0]}{words[-1]}"):
                owners.append(key)
        if len(owners) == 1 and not people[owners[0]].email:
            people[owners[0]] = replace(people[owners[0]], email=email)


def _cards(text: str, keep: Callable[[FoundPerson], None]) -> None:
    """A team page's cards: a line that is only a name, next to a short line that is a
    title (the line after it, or before it)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    used: set[int] = set()  # title lines given to a card already
    for i, line in enumerate(lines):
        match = _CARD_NAME.match(line)
        if match is None or not _is_name(match.group(1)):
            continue
        for j in (i + 1, i - 1):
            if not 0 <= j < len(lines) or j in used or len(lines[j].split()) > 10:
                continue
            title = _TITLE.search(lines[j])
            other = _CARD_NAME.match(lines[j])
            if title is None or (other is not None and _is_name(other.group(1))):
                continue
            used.add(j)
            evidence = f"{line} — {lines[j]}" if j > i else f"{lines[j]} — {line}"
            keep(
                FoundPerson(
                    name=match.group(1), role=role_of(lines[j]), title=lines[j].strip(" -|"),
                    email=None, evidence=_evidence(evidence), confidence=0.75,
                )
            )  # fmt: skip
            break

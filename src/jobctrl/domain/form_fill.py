"""What an application form's field asks for, and the value from the profile that answers it.

A ``FormField`` is one control as the browser found it (a text input, a select, a group
of radios or checkboxes sharing a name, a pair of Yes/No buttons, a file input) with the
words that describe it: its label (``<label for>``, a wrapping label, ``aria-labelledby``,
``aria-label``), placeholder, ``name``, ``id`` and ``autocomplete``. ``slot_of`` names what
it asks for, in this order, so a question is never mistaken for a contact field because
it mentions one ("How did you hear about us? (e.g. LinkedIn)"):

1. consent and equal-opportunity questions (never answered by the program);
2. the person's own saved questions, by their words (``questions`` in the answers);
3. the standard questions (sponsorship, authorisation, relocation, notice, salary,
   pronouns, how you heard), by their label, whatever its length;
4. ``autocomplete`` tokens (``given-name``, ``email``, ``tel`` …);
5. contact fields (names, email, phone, location, links, company, title) by ``name``/``id``,
   or by a short label (at most six words: a long question that mentions GitHub asks about
   something else).

``plan`` turns the fields and the ``Answers`` into actions: text to type, an option to
choose (matched by its text: a yes/no answer picks the option that starts with yes/no, or
the one with/without a negation; a text answer the option equal to it, then one containing
it), a file to attach. A field with a value already, or one whose answer is unknown, is
not touched; a required one that stays empty is listed for the person.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from jobctrl.domain.profile import Profile

__all__ = [
    "Action",
    "FormField",
    "LeftField",
    "Option",
    "Plan",
    "answer_values",
    "choose_option",
    "plan",
    "slot_of",
    "words",
]

Control = Literal["text", "textarea", "select", "radio", "checkbox", "checkboxes", "yesno", "file"]
NEVER_FILLED = frozenset({"consent", "eeo"})
FILE_SLOTS = frozenset({"resume", "cover_letter"})
ONCE = FILE_SLOTS | {"website"}  # a second such field asks for something else
BOOL_SLOTS = frozenset({"work_authorised", "needs_sponsorship", "willing_to_relocate"})
SHORT_LABEL = 6  # words: a label longer than this is a question, not a contact field


@dataclass(frozen=True)
class Option:
    mark: str  # how the browser finds the option (a select's value, a radio's mark)
    text: str


@dataclass(frozen=True)
class FormField:
    mark: str  # how the browser finds the field again ("<frame>:<index>")
    control: Control
    label: str = ""
    name: str = ""
    id: str = ""
    autocomplete: str = ""
    placeholder: str = ""
    required: bool = False
    filled: bool = False  # it has a value already (or a non-placeholder option chosen)
    options: tuple[Option, ...] = ()

    @property
    def title(self) -> str:
        """How the field is named to the person."""
        text = " ".join((self.label or self.placeholder or self.name or self.id).split())
        return text.rstrip(" *✱")[:200]


@dataclass(frozen=True)
class Action:
    field: FormField
    slot: str
    kind: Literal["type", "choose", "check", "attach"]
    value: str  # the text typed, the option's text, or the file's path
    option: Option | None = None


@dataclass(frozen=True)
class LeftField:
    field: FormField
    slot: str | None
    reason: Literal["no_answer", "no_option", "consent", "eeo", "file_missing"]


@dataclass
class Plan:
    actions: list[Action] = field(default_factory=list)
    left: list[LeftField] = field(default_factory=list)


def words(text: str) -> str:
    """Lower-case words of ``text`` (camelCase, brackets and underscores split)."""
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    return " ".join(re.sub(r"[^0-9a-z]+", " ", text.lower()).split())


def _has(pattern: str, text: str) -> bool:
    return re.search(rf"\b(?:{pattern})\b", text) is not None


# -- what a field asks for ---------------------------------------------------------------


def _any(*alternatives: str) -> str:
    return "|".join(alternatives)


_EEO = _any(
    "gender",
    "race",
    "racial",
    "ethnicity",
    "ethnic",
    "veteran",
    "disability",
    "disabled",
    "sexual orientation",
    "hispanic",
    "latino",
    "transgender",
)
_CONSENT = _any(
    "consent",
    "i agree",
    "agree to",
    "privacy",
    "gdpr",
    "terms",
    "acknowledge",
    "i certify",
    "certify that",
    "i confirm",
    "data processing",
    "retain my",
    "signature",
)
_QUESTIONS: tuple[tuple[str, str], ...] = (
    ("needs_sponsorship", _any("sponsor", "sponsorship")),
    ("work_authorised", _any(
        r"(?:authori[sz]ed|eligible|legally able|entitled|permitted|right) to work",
        r"work (?:authori[sz]ation|permit|eligibility)", "visa status",
    )),
    ("willing_to_relocate", r"relocat\w*"),
    ("notice_period", _any(
        "notice period", "notice", r"earliest start\w*", "when can you start",
        "available to start", "start date",
    )),
    ("salary_expectation", _any(
        "salary", "compensation", "pay expectations?", "desired pay", "expected pay",
        "remuneration", "rate expectations?",
    )),
    ("pronouns", "pronouns?"),
    ("how_did_you_hear", _any(
        "how did you (?:hear|find|learn|come across|discover)",
        "where did you (?:hear|find|see)", "hear about", "referral source", "how you heard",
    )),
)  # fmt: skip
_AUTOCOMPLETE = {
    "given-name": "first_name",
    "family-name": "last_name",
    "name": "full_name",
    "email": "email",
    "tel": "phone",
    "tel-national": "phone",
    "address-level2": "city",
    "street-address": "location",
    "url": "website",
    "organization": "current_company",
    "organization-title": "current_title",
}
# Contact fields by name/id or a short label; the first that matches wins, so the specific
# ones come before "company name" could be taken for a name.
_CONTACT: tuple[tuple[str, str], ...] = (
    ("linkedin", "linkedin|linked in"),
    ("github", "github|git hub"),
    ("first_name", "first name|firstname|given name|fname|forename"),
    ("last_name", "last name|lastname|family name|surname|lname"),
    ("email", "e mail|email|mail"),
    ("phone", "phone|phone number|mobile|telephone|tel|cell"),
    ("current_company", "current company|current employer|company|employer|org|organi[sz]ation"),
    ("current_title", "current title|job title|headline|current role|current position"),
    ("city", "city|town"),
    ("location", "location|address|where are you based|based in|residence"),
    ("website", "website|portfolio|personal site|homepage|blog|url|urls other"),
    ("full_name", "full name|fullname|name|legal name|your name"),
)


def slot_of(f: FormField, saved_questions: list[str] | None = None) -> str | None:
    """What ``f`` asks for (a slot name, ``question:<n>`` for a saved question), or None."""
    label = words(f.label or f.placeholder)
    ident = words(" ".join((f.name, f.id)))
    if f.control == "file":
        text = f"{label} {ident}"
        if _has(r"cover|letter|motivation", text):
            return "cover_letter"
        resume = _has(r"resume|cv|curriculum|vitae|attach\w*|upload\w*|file", text)
        return "resume" if resume else None
    if _has(_EEO, label) or _has(_EEO, ident):
        return "eeo"
    if _has(_CONSENT, label):
        return "consent"
    if label and saved_questions:
        best = _best_match(label, saved_questions)
        if best is not None:
            return f"question:{best}"
    for slot, pattern in _QUESTIONS:
        if _has(pattern, label):
            return slot
    if _has("cover letter|coverletter|motivation letter", f"{label} {ident}"):
        return "cover_letter_text"
    token = next((t for t in f.autocomplete.lower().split() if t in _AUTOCOMPLETE), None)
    if token:
        return _AUTOCOMPLETE[token]
    short = label if len(label.split()) <= SHORT_LABEL else ""
    for text in (ident, short):
        for slot, pattern in _CONTACT:
            if text and _has(pattern, text):
                return slot
    return None


def _overlap(a: str, b: str) -> float:
    x, y = set(a.split()), set(b.split())
    return len(x & y) / max(len(x), len(y)) if x and y else 0.0


def _best_match(label: str, questions: list[str], at_least: float = 0.8) -> int | None:
    scored = [(_overlap(label, words(q)), i) for i, q in enumerate(questions)]
    score, index = max(scored, default=(0.0, -1))
    return index if score >= at_least else None


# -- the profile's values ----------------------------------------------------------------


def _link(links: list[str], host: str) -> str:
    return next((u for u in links if host in u.lower()), "")


def answer_values(
    profile: Profile, documents: dict[str, str] | None = None
) -> dict[str, str | bool]:
    """Every slot the profile answers → its value (a bool for a yes/no question). The
    application's ``documents`` add theirs: ``resume``/``cover_letter`` (a PDF's path) and
    ``cover_letter_text``. Empty answers are left out."""
    a = profile.answers
    links = profile.contact.links
    parts = profile.name.split()
    current = next((e for e in profile.experience if e.end.lower() in ("", "present")), None)
    others = [u for u in links if "linkedin." not in u.lower() and "github." not in u.lower()]
    values: dict[str, str | bool | None] = {
        "first_name": parts[0] if parts else "",
        "last_name": " ".join(parts[1:]),
        "full_name": " ".join(parts),
        "email": profile.contact.email,
        "phone": profile.contact.phone,
        "location": profile.contact.location,
        "city": profile.contact.location.split(",")[0].strip(),
        "linkedin": a.linkedin or _link(links, "linkedin."),
        "github": a.github or _link(links, "github."),
        "website": a.portfolio or (others[0] if others else ""),
        "current_company": current.company if current else "",
        "current_title": current.title if current else "",
        "work_authorised": a.work_authorised,
        "work_authorisation": a.work_authorisation,
        "needs_sponsorship": a.needs_sponsorship,
        "willing_to_relocate": a.willing_to_relocate,
        "notice_period": a.notice_period,
        "salary_expectation": a.salary_expectation,
        "pronouns": a.pronouns,
        "how_did_you_hear": a.how_did_you_hear,
    }
    for i, saved in enumerate(a.questions):
        values[f"question:{i}"] = saved.answer
    values.update(documents or {})
    return {
        k: v.strip() if isinstance(v, str) else v
        for k, v in values.items()
        if v is not None and v != ""
    }


# -- choosing an option ------------------------------------------------------------------

_PLACEHOLDER = r"select|select one|choose|choose one|please select|none selected|pick one"
_NEGATION = r"no|not|don t|do not|will not|won t|cannot|can t|am not|without|never|isn t|doesn t"


def choose_option(options: tuple[Option, ...], value: str | bool) -> Option | None:
    """The option that says ``value``: for a bool, the one starting with yes/no (else, of
    two, the one with/without a negation); for text, the equal one, then the one containing
    it or contained in it, then the best word overlap. None when nothing fits."""
    real = [o for o in options if words(o.text) and not re.fullmatch(_PLACEHOLDER, words(o.text))]
    if isinstance(value, bool):
        lead = r"yes|y|true" if value else r"no|n|false"
        led = [o for o in real if re.match(rf"(?:{lead})\b", words(o.text))]
        if len(led) == 1:
            return led[0]
        if len(real) == 2:
            negated = [o for o in real if _has(_NEGATION, words(o.text))]
            if len(negated) == 1:
                return negated[0] if not value else next(o for o in real if o is not negated[0])
        return None
    want = words(value)
    if not want:
        return None
    for o in real:
        if words(o.text) == want:
            return o
    inside = [
        o
        for o in real
        if _has(re.escape(words(o.text)), want) or _has(re.escape(want), words(o.text))
    ]
    if len(inside) == 1:
        return inside[0]
    scored = sorted(((_overlap(want, words(o.text)), i) for i, o in enumerate(real)), reverse=True)
    if scored and scored[0][0] >= 0.6 and (len(scored) == 1 or scored[1][0] < scored[0][0]):
        return real[scored[0][1]]
    return None


# -- the plan ----------------------------------------------------------------------------


def _as_text(value: str | bool) -> str:
    return ("Yes" if value else "No") if isinstance(value, bool) else value


def _action(f: FormField, slot: str, value: str | bool) -> Action | LeftField:
    if f.control == "file":
        return Action(f, slot, "attach", str(value))
    if f.control == "checkbox":
        if not isinstance(value, bool):
            return LeftField(f, slot, "no_option")
        return Action(f, slot, "check", "Yes") if value else LeftField(f, slot, "no_answer")
    if f.control in ("select", "radio", "checkboxes", "yesno"):
        option = choose_option(f.options, value)
        if option is None:
            return LeftField(f, slot, "no_option")
        return Action(f, slot, "choose", option.text, option)
    return Action(f, slot, "type", _as_text(value))


def plan(
    fields: list[FormField], profile: Profile, documents: dict[str, str] | None = None
) -> Plan:
    """What to do with each field, and the required ones left for the person."""
    values = answer_values(profile, documents)
    questions = [q.question for q in profile.answers.questions]
    result = Plan()
    used: set[str] = set()
    for f in fields:
        slot = slot_of(f, questions)
        if f.filled:
            continue
        if slot in NEVER_FILLED:
            if f.required:
                result.left.append(LeftField(f, slot, "consent" if slot == "consent" else "eeo"))
            continue
        if slot in ONCE and slot in used:
            slot = None  # one upload of each document, one personal site
        value = values.get(slot) if slot else None
        if slot is None or value is None:
            if f.required:
                missing = slot in FILE_SLOTS
                result.left.append(LeftField(f, slot, "file_missing" if missing else "no_answer"))
            continue
        step = _action(f, slot, value)
        if isinstance(step, LeftField):
            if f.required:
                result.left.append(step)
            continue
        used.add(slot)
        result.actions.append(step)
    return result

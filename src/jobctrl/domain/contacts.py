"""Contact research's words and rules (issue 33): the roles a candidate may have, the
states of a candidate and of a research task, and the source-access policy.

The policy (setting ``contacts.sources``) names the kinds of source a research run may
read: ``posting`` (the job's own posting, already saved by Enrich: nothing is fetched),
``pasted`` (text the person pastes), ``company_pages`` (pages the person names that are
on the company's own site, fetched through the safe fetcher) and ``any_pages`` (pages the
person names on any site). Nothing is fetched that the person did not name; the default
leaves ``any_pages`` out. A source the policy does not allow is refused with a sentence.
"""

from __future__ import annotations

import ipaddress
import json
import re
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import urlsplit


class ContactRole(StrEnum):
    RECRUITER = "recruiter"
    HIRING_MANAGER = "hiring_manager"
    FOUNDER = "founder"
    TEAM_MEMBER = "team_member"


class CandidateStatus(StrEnum):
    NEW = "new"
    CONFIRMED = "confirmed"
    DISMISSED = "dismissed"


class TaskStatus(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class SourceKind(StrEnum):
    POSTING = "posting"
    PASTED = "pasted"
    COMPANY_PAGES = "company_pages"
    ANY_PAGES = "any_pages"


class AttemptOutcome(StrEnum):
    READ = "read"  # read, candidates (maybe none) recorded
    REFUSED = "refused"  # the policy did not allow it when the run read it
    FAILED = "failed"  # fetched or read with an error code (robots, 404, too large…)


DEFAULT_SOURCES = ["company_pages", "pasted", "posting"]  # sorted, as the parser gives them
CONTACT_LANE = "contact_research"
MAX_SOURCES = 10  # pages a person may name in one run
PASTE_LIMIT = 200_000  # characters of pasted text kept
EVIDENCE_LIMIT = 400  # characters of the sentence a candidate came from

# Job boards and applicant tracking systems: never "the company's own site".
BOARD_DOMAINS = frozenset(
    {
        "greenhouse.io", "lever.co", "ashbyhq.com", "workable.com", "smartrecruiters.com",
        "myworkdayjobs.com", "workday.com", "linkedin.com", "indeed.com", "glassdoor.com",
        "wellfound.com", "angel.co", "ycombinator.com", "bamboohr.com", "recruitee.com",
        "teamtailor.com", "personio.de", "personio.com", "jobvite.com", "icims.com",
        "breezy.hr", "jazzhr.com", "rippling.com", "otta.com", "welcometothejungle.com",
        "stackoverflow.com", "builtin.com", "remoteok.com", "weworkremotely.com",
    }
)  # fmt: skip
_SECOND_LEVEL = frozenset({"co", "com", "org", "net", "ac", "gov", "ltd", "plc"})
_COMPANY_NOISE = frozenset(
    {"inc", "llc", "ltd", "gmbh", "ag", "corp", "co", "company", "the", "sa", "plc", "labs"}
)


def parse_sources(raw: str) -> list[str]:
    """The setting's string form: kinds separated by commas (or a JSON list)."""
    items = json.loads(raw) if raw.strip().startswith("[") else raw.split(",")
    kinds = [str(i).strip().lower() for i in items if str(i).strip()]
    allowed = {k.value for k in SourceKind}
    for kind in kinds:
        if kind not in allowed:
            raise ValueError(f"{kind!r} is not a source kind (one of {', '.join(sorted(allowed))})")
    return sorted(set(kinds))


def base_domain(host: str) -> str:
    """``jobs.eu.acme.co.uk`` → ``acme.co.uk``; an address stays itself."""
    host = host.lower().strip(".").removeprefix("www.")
    try:
        ipaddress.ip_address(host.strip("[]"))
        return host
    except ValueError:
        pass
    labels = host.split(".")
    if len(labels) >= 3 and labels[-2] in _SECOND_LEVEL and len(labels[-1]) == 2:
        return ".".join(labels[-3:])
    return ".".join(labels[-2:])


def host_of(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()


def _squash(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def on_company_site(url: str, *, company: str | None, posting_url: str | None) -> bool:
    """Whether ``url`` is on the company's own site: the posting's own domain (when the
    posting is not on a job board), or a domain whose name is the company's name."""
    domain = base_domain(host_of(url))
    if not domain or domain in BOARD_DOMAINS:
        return False
    if posting_url:
        posting_domain = base_domain(host_of(posting_url))
        if posting_domain == domain and posting_domain not in BOARD_DOMAINS:
            return True
    found = re.findall(r"[a-z0-9]+", (company or "").lower())
    words = [w for w in found if w not in _COMPANY_NOISE]
    name = domain.split(".")[0]
    if not words or not name:
        return False
    return _squash(name) in {"".join(words), words[0]} and len(_squash(name)) >= 3


@dataclass(frozen=True)
class SourceRequest:
    """One source of a run: its kind, and the page (a URL) or pasted text (its sha256)."""

    kind: str
    ref: str = ""  # a URL for pages, an artifact sha256 for pasted text, "" for the posting

    def label(self) -> str:
        return {"posting": "the posting", "pasted": "pasted text"}.get(self.kind, self.ref)


def page_kind(url: str, *, company: str | None, posting_url: str | None) -> str:
    return (
        SourceKind.COMPANY_PAGES.value
        if on_company_site(url, company=company, posting_url=posting_url)
        else SourceKind.ANY_PAGES.value
    )


def refusal(source: SourceRequest, allowed: list[str]) -> str | None:
    """The sentence refusing ``source`` under the policy ``allowed`` (None: allowed).
    A company page is allowed by ``any_pages`` too."""
    ok = source.kind in allowed or (
        source.kind == SourceKind.COMPANY_PAGES and SourceKind.ANY_PAGES in allowed
    )
    if ok:
        return None
    if source.kind == SourceKind.ANY_PAGES:
        return (
            f"{source.ref} is not on the company's own site, and your contact sources "
            "setting allows only the company's pages (`jobctrl settings set contacts.sources "
            "posting,pasted,company_pages,any_pages` to allow any page you name)"
        )
    what = {"posting": "the posting", "pasted": "pasted text", "company_pages": "company pages"}
    return (
        f"reading {what.get(source.kind, source.kind)} is not allowed by your contact sources "
        f"setting (contacts.sources: {', '.join(allowed) or 'nothing'})"
    )

"""Bring a career-ops user's lists over: the pending URL inbox and the tracked companies.

career-ops (github.com/santifer/career-ops) keeps two files we can read:

- ``data/pipeline.md``, the URL inbox: Markdown list items under "## Pending", as
  ``- [ ] {url}`` or ``- [ ] {url} | {company} | {title} | ...``; processed ones become
  ``- [x] #143 | {url} | ...`` (usually under "## Processed") and ones it could not open
  ``- [!] {url} — Error: ...``. We take the URL of every item that is not done: unchecked
  boxes and plain list items, but not ``[x]``, not ``[!]`` (career-ops could not read those
  either), not struck-through ``~~url~~``, and no plain item under a "Processed"/"Done"
  heading. Bare URL lines count too; other lines are ignored.
- ``portals.yml``, the companies to scan: a ``tracked_companies:`` list of entries with
  ``name``, ``careers_url``, optionally ``api:`` (an ATS JSON endpoint), ``provider:`` and
  ``enabled:``. Each entry becomes one ``SourceConfig``: an ATS board when its ``api``,
  ``careers_url`` or ``provider`` names a supported ATS, else a "careers-page" source for its
  careers URL. Entries with ``enabled: false`` or without any URL are skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import yaml

from jobctrl.sources.base import SourceConfig

__all__ = ["ats_source_for_url", "import_career_ops", "read_pipeline_inbox", "read_portals"]

# -- pipeline.md ----------------------------------------------------------------------------

_LIST_ITEM_RE = re.compile(r"^\s*(?:[-*+]|\d{1,4}[.)])\s+(?:\[(?P<box>[^\]]?)\]\s*)?(?P<rest>.*)$")
_HEADING_RE = re.compile(r"^\s{0,3}#{1,6}\s+(?P<title>.*)$")
_URL_RE = re.compile(r"https?://[^\s<>|\"'`]+", re.IGNORECASE)
_DONE_HEADINGS = ("processed", "done", "archive", "applied", "discarded", "closed")
_TRAILING = ".,;:!?)]}>*_~"


def read_pipeline_inbox(path: Path) -> list[str]:
    """The pending http(s) URLs in a career-ops ``pipeline.md``, in order, without repeats."""
    urls: list[str] = []
    done_section = False
    for line in _read_text(path).splitlines():
        heading = _HEADING_RE.match(line)
        if heading:
            title = heading.group("title").lower()
            done_section = any(word in title for word in _DONE_HEADINGS)
            continue
        url = _pending_url(line, done_section)
        if url and url not in urls:
            urls.append(url)
    return urls


def _pending_url(line: str, done_section: bool) -> str | None:
    item = _LIST_ITEM_RE.match(line)
    if item:
        box = item.group("box")
        if box is not None and box.strip():  # [x], [X], [!], [-], [~]: not pending
            return None
        if box is None and done_section:
            return None
        text = item.group("rest")
    else:
        text = line.strip()
        if done_section or not text.lower().startswith(("http://", "https://", "<http")):
            return None
    match = _URL_RE.search(text)
    if match is None or text[: match.start()].rstrip().endswith("~~"):
        return None  # struck through: the user dropped it
    return _trim_url(match.group(0))


def _trim_url(url: str) -> str | None:
    # A Markdown link "[text](url)" or autolink "<url>" leaves closing marks on the URL;
    # keep a ")" that closes a "(" inside the URL itself (Wikipedia-style paths).
    while url and url[-1] in _TRAILING:
        if url[-1] == ")" and url.count("(") >= url.count(")"):
            break
        url = url[:-1]
    parts = urlsplit(url)
    return url if parts.hostname else None


# -- portals.yml ----------------------------------------------------------------------------

_COMPANY_LIST_KEYS = ("tracked_companies", "companies", "portals", "career_pages")
_URL_KEYS = ("careers_url", "careers", "careers_page", "url", "board_url", "jobs_url")
_ATS_KINDS = ("greenhouse", "lever", "ashby", "workable", "smartrecruiters", "recruitee")
_NOT_WORKABLE = frozenset({"www", "apply", "jobs", "api", "help", "resources"})
_NOT_RECRUITEE = frozenset({"www", "app", "api", "careers", "blog", "support", "docs"})
LEVER_EU_API = "https://api.eu.lever.co"


def read_portals(path: Path) -> list[SourceConfig]:
    """The sources a career-ops ``portals.yml`` asks to scan, in order, without repeats.

    Raises ValueError naming the file when it is not readable YAML, or holds neither a
    mapping nor a list.
    """
    text = _read_text(path)
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        where = getattr(error, "problem_mark", None)
        line = f" (line {where.line + 1})" if where is not None else ""
        raise ValueError(f"{path} is not valid YAML{line}") from None
    if data is None:
        return []
    if isinstance(data, list):
        entries: list[Any] = data
    elif isinstance(data, dict):
        entries = []
        for key in _COMPANY_LIST_KEYS:
            value = data.get(key)
            if isinstance(value, list):
                entries.extend(value)
    else:
        raise ValueError(f"{path} does not hold a list of companies")
    configs: list[SourceConfig] = []
    for entry in entries:
        config = _config_for_entry(entry)
        if config is not None and config not in configs:
            configs.append(config)
    return configs


def _config_for_entry(entry: Any) -> SourceConfig | None:
    if isinstance(entry, str):
        entry = {"careers_url": entry}
    if not isinstance(entry, dict) or not _enabled(entry.get("enabled", True)):
        return None
    careers_url = _first_url(entry.get(key) for key in _URL_KEYS)
    api = _first_url([entry.get("api")])
    provider = str(entry.get("provider") or "").strip().lower()
    for url in (api, careers_url):
        if url is None:
            continue
        config = ats_source_for_url(url)
        if config is not None and (provider in ("", config.kind) or provider not in _ATS_KINDS):
            return config
    if careers_url is None:
        return None
    return SourceConfig(kind="careers-page", name=careers_url)


def ats_source_for_url(url: str) -> SourceConfig | None:
    """The ATS board a careers/board/API URL belongs to, as a SourceConfig, or None.

    Greenhouse ``(job-)boards(.eu).greenhouse.io/<token>`` (also the ``embed/job_board?for=``
    form and ``boards-api.greenhouse.io/v1/boards/<token>``), Lever ``jobs(.eu).lever.co/<co>``
    (EU boards get the EU API as base_url), Ashby ``jobs.ashbyhq.com/<name>``, Workable
    ``apply.workable.com/<name>`` or ``<name>.workable.com``, SmartRecruiters
    ``(jobs|careers).smartrecruiters.com/<name>``, Recruitee ``<name>.recruitee.com``; the
    documented API URL forms of each are read too.
    """
    try:
        parts = urlsplit(url.strip())
        host = (parts.hostname or "").lower()
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not host:
        return None
    segments = [s for s in parts.path.split("/") if s]
    first = segments[0] if segments else None

    if re.fullmatch(r"(?:job-)?boards(?:\.eu)?\.greenhouse\.io", host):
        if first == "embed":
            token = next(iter(parse_qs(parts.query).get("for", [])), None)
            return _config("greenhouse", token)
        return _config("greenhouse", first)
    if re.fullmatch(r"boards-api(?:\.eu)?\.greenhouse\.io", host):
        return _config("greenhouse", _after(segments, "boards"))
    if host in ("jobs.lever.co", "jobs.eu.lever.co"):
        base = LEVER_EU_API if host == "jobs.eu.lever.co" else None
        return _config("lever", first, base)
    if host in ("api.lever.co", "api.eu.lever.co"):
        base = LEVER_EU_API if host == "api.eu.lever.co" else None
        return _config("lever", _after(segments, "postings"), base)
    if host == "jobs.ashbyhq.com":
        return _config("ashby", first)
    if host == "api.ashbyhq.com":
        return _config("ashby", _after(segments, "job-board"))
    if host == "apply.workable.com":
        if first == "api":
            return _config("workable", _after(segments, "accounts"))
        return _config("workable", first)
    if host.endswith(".workable.com"):
        return _config("workable", _subdomain(host, ".workable.com", _NOT_WORKABLE))
    if host in ("jobs.smartrecruiters.com", "careers.smartrecruiters.com"):
        return _config("smartrecruiters", first)
    if host == "api.smartrecruiters.com":
        return _config("smartrecruiters", _after(segments, "companies"))
    if host.endswith(".recruitee.com"):
        return _config("recruitee", _subdomain(host, ".recruitee.com", _NOT_RECRUITEE))
    return None


def _config(kind: str, name: str | None, base_url: str | None = None) -> SourceConfig | None:
    name = (name or "").strip()
    if not name or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name):
        return None
    return SourceConfig(kind=kind, name=name, base_url=base_url)


def _subdomain(host: str, suffix: str, reserved: frozenset[str]) -> str | None:
    """The company label of ``<name><suffix>``; None for the provider's own hosts."""
    name = host.removesuffix(suffix)
    return name if "." not in name and name not in reserved else None


def _after(segments: list[str], marker: str) -> str | None:
    if marker in segments:
        index = segments.index(marker) + 1
        return segments[index] if index < len(segments) else None
    return None


def _first_url(values: Iterable[Any]) -> str | None:
    for value in values:
        if isinstance(value, str) and value.strip().lower().startswith(("http://", "https://")):
            return value.strip()
    return None


def _enabled(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() not in ("false", "no", "off", "0", "disabled")
    return value is not False and value != 0


# -- both -----------------------------------------------------------------------------------


def import_career_ops(directory: Path) -> tuple[list[SourceConfig], list[str]]:
    """The sources from ``portals.yml`` and the inbox URLs from ``data/pipeline.md`` of a
    career-ops checkout; a missing file gives an empty list, not an error."""
    portals = _first_existing(directory, ("portals.yml", "portals.yaml"))
    pipeline = _first_existing(directory, ("data/pipeline.md", "pipeline.md"))
    sources = read_portals(portals) if portals else []
    urls = read_pipeline_inbox(pipeline) if pipeline else []
    return sources, urls


def _first_existing(directory: Path, names: tuple[str, ...]) -> Path | None:
    for name in names:
        candidate = directory / name
        if candidate.is_file():
            return candidate
    return None


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not UTF-8 text") from None

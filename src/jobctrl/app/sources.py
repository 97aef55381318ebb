"""Commands on discovery sources (the ``sources:`` list of config.yaml, edited in place
with the person's comments kept) and bringing a career-ops setup over."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlsplit

from pydantic import Field

from jobctrl import config as config_file
from jobctrl.app.jobs import add_job
from jobctrl.app.models import Sparse, View
from jobctrl.domain.errors import EXISTS, INVALID_INPUT, JobctrlError
from jobctrl.home import Home
from jobctrl.sources.base import KINDS
from jobctrl.sources.career_ops import import_career_ops as read_career_ops

__all__ = ["CareerOpsImported", "SourceAdded", "add_source", "import_career_ops", "remove_source"]

# Kinds whose NAME is the URL to read.
URL_KINDS = ("feed", "careers-page")


class SourceAdded(Sparse):
    """A source written to config.yaml, with its keys there (``base_url`` only when
    given)."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"base_url"})

    kind: str
    name: str
    base_url: str | None = Field(default=None, alias="base_url")


class CareerOpsImported(View):
    """What a career-ops setup brought: the sources added (those configured already are
    skipped) and the jobs added from its inbox."""

    sources_added: list[SourceAdded]
    sources_skipped: int
    jobs_added: list[str]


def _source_entry(kind: str, name: str, base_url: str | None) -> dict[str, Any]:
    if kind not in KINDS:
        raise JobctrlError(
            f"unknown source kind {kind!r}; one of: {', '.join(KINDS)}", code=INVALID_INPUT
        )
    if not name.strip():
        raise JobctrlError(
            "a source needs a name (board token, company or URL)", code=INVALID_INPUT
        )
    if kind in URL_KINDS and not _web_url(name):
        raise JobctrlError(f"a {kind} source is named by its http(s) URL", code=INVALID_INPUT)
    if base_url is not None and not _web_url(base_url):
        raise JobctrlError("--base-url must be an http(s) URL", code=INVALID_INPUT)
    entry = {"kind": kind, "name": name.strip()}
    if base_url:
        entry["base_url"] = base_url.strip()
    return entry


def _web_url(text: str) -> bool:
    try:
        parts = urlsplit(text.strip())
        return parts.scheme.lower() in ("http", "https") and bool(parts.hostname)
    except ValueError:  # an unparsable URL (e.g. a bad IPv6 literal)
        return False


def _add_sources(home: Home, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Append the entries not configured yet, in one edit of config.yaml; those added."""
    added: list[dict[str, Any]] = []

    def change(sources: list[dict[str, Any]]) -> None:
        for entry in entries:
            if not any(
                s.get("kind") == entry["kind"] and s.get("name") == entry["name"] for s in sources
            ):
                sources.append(entry)
                added.append(entry)

    config_file.edit_sources(home, change)
    return added


def add_source(home: Home, kind: str, name: str, base_url: str | None) -> SourceAdded:
    """Add one source (``exists`` if that kind and name are configured already)."""
    entry = _source_entry(kind, name, base_url)
    if not _add_sources(home, [entry]):
        raise JobctrlError(f"{kind} source {name!r} is already configured", code=EXISTS)
    return SourceAdded.from_row(entry)


def remove_source(home: Home, name: str) -> int:
    """Remove every source named ``name``; how many were."""
    removed = 0

    def change(sources: list[dict[str, Any]]) -> None:
        nonlocal removed
        keep = [s for s in sources if s.get("name") != name]
        removed = len(sources) - len(keep)
        sources[:] = keep

    config_file.edit_sources(home, change)
    if not removed:
        raise JobctrlError(
            f"no source named {name!r} (see `jobctrl sources list`)", code=INVALID_INPUT
        )
    return removed


async def import_career_ops(home: Home, directory: Path) -> CareerOpsImported:
    """portals.yml → sources; data/pipeline.md inbox → jobs (added like `jobctrl add`)."""
    if not directory.is_dir():
        raise JobctrlError(f"{directory} is not a directory", code=INVALID_INPUT)
    try:
        configs, urls = read_career_ops(directory)
    except ValueError as exc:
        raise JobctrlError(str(exc), code=INVALID_INPUT) from None
    entries = [_source_entry(c.kind, c.name, c.base_url) for c in configs]
    added = _add_sources(home, entries) if entries else []
    skipped = len(entries) - len(added)
    jobs_added = [(await add_job(home, url)).job_id for url in urls] if urls else []
    return CareerOpsImported(
        sources_added=[SourceAdded.from_row(entry) for entry in added],
        sources_skipped=skipped,
        jobs_added=jobs_added,
    )

"""Which jobs were made with another profile than the current one: what the Jobs list, a
job's page and `show --json` carry (``stale``, ``scoredProfileVersion``,
``materialsProfileVersion``), and the stale jobs a rescore starts from. Reads only: the
current version is config.yaml's profile's, looked up, never recorded here (the rule is
``domain.staleness``)."""

from __future__ import annotations

from collections.abc import Sequence

from jobctrl import config as config_file
from jobctrl.app.models import View
from jobctrl.domain.errors import JobctrlError
from jobctrl.domain.staleness import UNRECORDED
from jobctrl.home import Home
from jobctrl.store import profiles, staleness
from jobctrl.store.staleness import JobVersions
from jobctrl.store.store import Store

__all__ = [
    "Freshness",
    "current_profile_version",
    "current_version",
    "freshness",
    "older_materials",
    "stale_job_ids",
]


class Freshness(View):
    """A job's profile versions: its score's, its materials' (those it would use: the
    approved generation of each kind, else the newest draft), and whether either was
    made with another version than the current one (approved materials never count)."""

    stale: bool = False
    scored_profile_version: int | None = None
    materials_profile_version: int | None = None


def current_version(home: Home, store: Store) -> int | None:
    """config.yaml's profile's version (``UNRECORDED`` when it has none yet: every recorded
    version differs from it); None when config.yaml cannot be read (nothing is stale)."""
    try:
        profile = config_file.load_config(home).profile
    except JobctrlError:
        return None
    known = profiles.known_version(store, profile)
    return UNRECORDED if known is None else known


def _of(found: JobVersions | None, current: int | None) -> Freshness:
    if found is None:
        return Freshness()
    return Freshness(
        stale=found.stale(current),
        scored_profile_version=found.scored,
        materials_profile_version=found.materials_version,
    )


def freshness(home: Home, store: Store, job_ids: Sequence[str]) -> dict[str, Freshness]:
    """Each of ``job_ids``' freshness (a job neither scored nor written for: not stale)."""
    if not job_ids:
        return {}
    current = current_version(home, store)
    found = staleness.versions(store, job_ids)
    return {job_id: _of(found.get(job_id), current) for job_id in job_ids}


def stale_job_ids(home: Home, store: Store) -> list[str]:
    """Every stale job of the tenant, by job id."""
    current = current_version(home, store)
    return sorted(j for j, v in staleness.versions(store).items() if v.stale(current))


def current_profile_version(home: Home) -> int | None:
    """``current_version`` of the home's own store (a page's notice names it)."""
    return current_version(home, Store.open(home))


def older_materials(home: Home, job_ids: Sequence[str]) -> dict[str, int]:
    """Those of ``job_ids`` whose materials in use (approved ones too: the Apply page says
    so before they are approved or sent) were written for another profile version than
    the current one, with that version."""
    store = Store.open(home)
    current = current_version(home, store)
    if current is None or not job_ids:
        return {}
    found = staleness.versions(store, job_ids)
    return {
        job_id: version
        for job_id, v in found.items()
        if (version := v.materials_version) is not None and version != current
    }

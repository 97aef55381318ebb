"""Which jobs were made with another candidate profile than the current one (issue 28).

Staleness is derived, never stored: a job is stale when its score, or the materials it
would use that the person has not approved, were made with a profile version other than
the current one (a profile changed back to an earlier version makes the jobs made with
the one in between stale too: "other", not "older"). Approved materials are the
person's: they never make a job stale and a rescore never replaces them (the Apply page
says when they were written for another profile). A job its score skipped is not
prepared any further, so its old drafts do not count.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from jobctrl.domain.materials import MaterialState

__all__ = [
    "UNRECORDED",
    "MaterialRow",
    "MaterialsInUse",
    "is_stale",
    "materials_in_use",
    "regenerates_materials",
]

# config.yaml's profile has no version yet (it is recorded when work next starts): every
# recorded version differs from it. Versions are numbered from 1.
UNRECORDED = 0


@dataclass(frozen=True)
class MaterialRow:
    """One generation of a job's resume or letter, as far as staleness cares."""

    kind: str
    generation: int
    state: str
    profile_version: int | None


@dataclass(frozen=True)
class MaterialsInUse:
    """The documents a job would use: per kind the approved generation, else the newest
    draft. ``version``: the oldest profile version among them (None: none recorded one);
    ``approved``: one of them is approved (the person's, never replaced by a rescore)."""

    version: int | None
    approved: bool


def materials_in_use(rows: Iterable[MaterialRow]) -> MaterialsInUse | None:
    """What ``rows`` (one job's) put in use; None when no kind has an approved generation
    or a draft (nothing written yet, or every draft rejected)."""
    chosen: dict[str, MaterialRow] = {}
    for row in rows:
        if row.state not in (MaterialState.APPROVED, MaterialState.DRAFT):
            continue
        held = chosen.get(row.kind)
        if held is None or _rank(row) > _rank(held):
            chosen[row.kind] = row
    if not chosen:
        return None
    versions = [r.profile_version for r in chosen.values() if r.profile_version is not None]
    return MaterialsInUse(
        version=min(versions) if versions else None,
        approved=any(r.state == MaterialState.APPROVED for r in chosen.values()),
    )


def _rank(row: MaterialRow) -> tuple[bool, int]:
    return (row.state == MaterialState.APPROVED, row.generation)


def _other(version: int | None, current: int | None) -> bool:
    return version is not None and current is not None and version != current


def is_stale(
    current: int | None,
    scored: int | None,
    materials: MaterialsInUse | None,
    *,
    skipped: bool = False,
) -> bool:
    """True when the job's score (``scored``: its profile version) or its unapproved
    materials were made with another version than ``current`` (``UNRECORDED``: config's
    profile has none yet; None: unknown, config.yaml cannot be read, so nothing is
    stale). A version None was not recorded (made before versions were): not stale."""
    if _other(scored, current):
        return True
    return regenerates_materials(current, materials, skipped=skipped)


def regenerates_materials(
    current: int | None, materials: MaterialsInUse | None, *, skipped: bool = False
) -> bool:
    """True when a rescore writes the job's materials again: they were written for
    another version and none of them is approved, and the job is still being prepared."""
    if materials is None or materials.approved or skipped:
        return False
    return _other(materials.version, current)

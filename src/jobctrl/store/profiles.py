"""Profile versions: each distinct candidate profile gets a version number, recorded with
its audit event in one transaction. Work admitted under a version keeps using it, even
if config.yaml changes while the work is in flight.

``version_of`` is the one place a new version is recorded, whatever changed the profile
(an import, an edit of config.yaml, the web page): with it, in the same transaction,
``ProfileVersionCreated`` and ``JobsMarkedStale`` (how many jobs were made with another
version: counts only; which jobs are stale is derived, ``store.staleness``)."""

from __future__ import annotations

import hashlib
import json

from pydantic import ValidationError
from sqlalchemy import bindparam, func, select

from jobctrl.domain.errors import MISSING_INPUT, ConfigError, NotFoundError
from jobctrl.domain.events import JobsMarkedStale, ProfileVersionCreated
from jobctrl.domain.profile import Profile
from jobctrl.store import schema, staleness, tenancy
from jobctrl.store.db import upsert
from jobctrl.store.store import Store

PV = schema.profile_versions


_ADDED_LATER = ("languages", "certifications", "projects", "awards", "volunteer")


def _sha(profile: Profile) -> str:
    # A profile without saved answers (or languages, certifications, … added in issue 28)
    # hashes as it did before the field existed, so adding a field did not give every
    # existing profile a new version.
    unset = {name for name in _ADDED_LATER if not getattr(profile, name)}
    if profile.answers.is_empty():
        unset.add("answers")
    data = profile.model_dump(mode="json", exclude=unset)
    canonical = json.dumps(data, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


# The last profile hashed and its digest: every start of a preparation asks for the
# version of config.yaml's profile, the same object while the file is unchanged
# (config.load_config caches it; nothing changes a loaded profile in place), and dumping
# and hashing it costs milliseconds. The digest is the profile's alone; its version is
# the tenant's (the same profile in two tenants has two versions): always looked up.
_last_hashed: tuple[Profile, str] | None = None
_VERSION_BY_SHA = select(PV.c.version).where(
    PV.c.tenant_id == tenancy.tenant_param(), PV.c.sha256 == bindparam("sha")
)


def _digest(profile: Profile) -> str:
    global _last_hashed
    last = _last_hashed
    if last is not None and last[0] is profile:  # held here, so its id is not reused
        return last[1]
    sha = _sha(profile)
    _last_hashed = (profile, sha)
    return sha


def known_version(store: Store, profile: Profile) -> int | None:
    """The version ``profile`` was recorded under, or None when it is new (read only:
    a read of the jobs asks which version is current without recording one)."""
    with store.read() as conn:
        known = conn.execute(
            _VERSION_BY_SHA, {"tenant": tenancy.tenant_of(conn), "sha": _digest(profile)}
        ).scalar()
    return None if known is None else int(known)


def version_of(store: Store, profile: Profile) -> int:
    """The version number of ``profile``, recording it (and its events) when it is new."""
    known = known_version(store, profile)
    if known is not None:
        return known
    sha = _digest(profile)
    with store.write() as tx:
        previous = tx.conn.execute(
            select(func.max(PV.c.version)).where(PV.c.tenant_id == tx.tenant)
        ).scalar()
        upsert(
            tx.conn,
            PV,
            {
                "tenant_id": tx.tenant,
                "sha256": sha,
                "profile": profile.model_dump(mode="json"),
                "created_at": tx.now,
            },
            keys=["tenant_id", "sha256"],
        )
        version = int(
            tx.conn.execute(_VERSION_BY_SHA, {"tenant": tx.tenant, "sha": sha}).scalar_one()
        )
        created = tx.append(
            ProfileVersionCreated(version=version, sha256=sha, previous=previous),
            key=f"profile-version:{sha}",
        )
        if created and previous is not None:  # the jobs made with the profile before
            counts = staleness.count_stale(staleness.read_versions(tx.conn, None), version)
            tx.append(
                JobsMarkedStale(
                    version=version,
                    jobs=counts.jobs,
                    scores=counts.scores,
                    materials=counts.materials,
                ),
                key=f"jobs-marked-stale:{version}",
            )
    return version


def load_version(store: Store, version: int) -> Profile:
    with store.read() as conn:
        data = conn.execute(
            select(PV.c.profile).where(tenancy.scoped(PV, conn), PV.c.version == version)
        ).scalar()
    if data is None:
        raise NotFoundError(f"no profile version {version}", code=MISSING_INPUT)
    try:
        return Profile.model_validate(data)
    except ValidationError:  # recorded before today's limits: a person must trim it
        raise ConfigError(
            f"profile version {version} is past the profile's limits; import a shorter one"
        ) from None

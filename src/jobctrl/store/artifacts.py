"""Content-addressed artifact files (sha256), written atomically, and their catalogue rows.

A file is named by the hash of its bytes, so writing the same content twice is a no-op and
a reference (the hex digest) is all that crosses a workflow boundary. ``record`` notes an
artifact's kind, media type and size in the ``artifacts`` table, inside the transaction
that first refers to it.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from jobctrl.domain.errors import ARTIFACT_MISSING, NotFoundError
from jobctrl.store import schema
from jobctrl.store.db import upsert

if TYPE_CHECKING:  # only for the annotation: store.store imports this module
    from jobctrl.store.store import WriteTx


class ArtifactStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    def path_for(self, sha: str) -> Path:
        return self.root / sha[:2] / sha

    def put(self, data: bytes) -> str:
        sha = hashlib.sha256(data).hexdigest()
        path = self.path_for(sha)
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        return sha

    def get(self, sha: str) -> bytes:
        try:
            return self.path_for(sha).read_bytes()
        except FileNotFoundError as exc:
            raise NotFoundError(f"artifact {sha[:12]} is missing", code=ARTIFACT_MISSING) from exc


def record(tx: WriteTx, sha: str, kind: str, media_type: str, size: int) -> None:
    """Catalogue an artifact (once: the first record of a digest wins)."""
    upsert(
        tx.conn,
        schema.artifacts,
        {"sha256": sha, "kind": kind, "media_type": media_type, "size": size, "created_at": tx.now},
        keys=["sha256"],
    )

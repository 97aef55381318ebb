"""Content-addressed artifact files (sha256), written atomically.

A file is named by the hash of its bytes, so writing the same content twice is a no-op and
a reference (the hex digest) is all that crosses a workflow boundary.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from jobctrl.domain.errors import NotFoundError


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
            raise NotFoundError(f"artifact {sha[:12]} is missing", code="artifact_missing") from exc

"""A tenant name is a directory under the home: one that cannot be a name is refused by
every command before any file is written."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize("name", ["../..", "Acme"])
def test_a_tenant_name_that_is_a_path_is_refused_before_anything_is_written(
    tmp_path: Path, name: str
) -> None:
    home = tmp_path / "home"
    env = {**os.environ, "JOBCTRL_HOME": str(home), "JOBCTRL_TENANT": name}
    done = subprocess.run(
        [str(Path(sys.executable).parent / "jobctrl"), "init"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert "invalid tenant name" in done.stderr
    assert "Traceback" not in done.stderr
    assert not home.exists(), "nothing of the home was created"
    assert not (tmp_path / "config.yaml").exists()

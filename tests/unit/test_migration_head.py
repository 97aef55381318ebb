"""The store learns whether a migration is due without Alembic (issue 26: a read command
answers sooner): the newest revision is read from the scripts' file names. These tests
hold that to what Alembic itself finds, so a new script cannot be missed."""

from __future__ import annotations

from itertools import pairwise

from alembic.script import ScriptDirectory

from jobctrl.store.db import VERSIONS_DIR, alembic_config, head_revision


def test_the_head_read_from_the_file_names_is_alembics_head() -> None:
    scripts = ScriptDirectory.from_config(alembic_config())
    assert head_revision() == scripts.get_current_head()


def test_every_script_is_named_for_its_revision_and_follows_the_one_before() -> None:
    scripts = ScriptDirectory.from_config(alembic_config())
    named = {}
    for script in scripts.walk_revisions():
        assert script.path is not None
        named[script.revision] = script.path
        assert script.path.startswith(str(VERSIONS_DIR / f"{script.revision}_")), script.path
    revisions = sorted(named)
    assert revisions == [f"{n:04d}" for n in range(1, len(revisions) + 1)]
    for before, after in pairwise(revisions):
        script = scripts.get_revision(after)
        assert script is not None
        assert script.down_revision == before, f"{after} follows {script.down_revision}"

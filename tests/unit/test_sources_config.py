"""`jobctrl sources add|remove|list` edit config.yaml in place, keeping the user's comments."""

import pytest

from jobctrl.app.configuration import list_sources
from jobctrl.app.sources import add_source, remove_source
from jobctrl.config import load_config
from jobctrl.domain.errors import JobctrlError


def test_add_list_remove_keep_comments(home):
    before = home.config_path.read_text()
    assert "# Where to discover postings" in before
    add_source(home, "greenhouse", "stripe", None)
    add_source(home, "lever", "palantir", "http://127.0.0.1:9999")
    after = home.config_path.read_text()
    assert "# Where to discover postings" in after and "# Your name and how" in after
    assert [(s.kind, s.name, s.base_url) for s in load_config(home).sources] == [
        ("greenhouse", "stripe", None),
        ("lever", "palantir", "http://127.0.0.1:9999"),
    ]
    assert [s.name for s in list_sources(home)] == ["stripe", "palantir"]
    remove_source(home, "stripe")
    assert [s.name for s in load_config(home).sources] == ["palantir"]


def test_bad_source_input_is_refused(home):
    with pytest.raises(JobctrlError, match="unknown source kind"):
        add_source(home, "monster", "acme", None)
    add_source(home, "ashby", "ramp", None)
    with pytest.raises(JobctrlError) as err:
        add_source(home, "ashby", "ramp", None)
    assert err.value.code == "exists"
    with pytest.raises(JobctrlError, match="no source named"):
        remove_source(home, "nobody")

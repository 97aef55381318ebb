"""config.yaml's ``aliases:``: other spellings the truth check accepts for a name, in a
bounded list; a list past its limits makes config.yaml invalid with one clear message."""

from __future__ import annotations

import pytest
import yaml

from jobctrl.config import (
    MAX_ALIAS_LENGTH,
    MAX_ALIAS_NAMES,
    MAX_SPELLINGS,
    Config,
    load_config,
    template_text,
)
from jobctrl.domain.errors import ConfigError


def test_the_template_documents_aliases_and_reads_as_none() -> None:
    text = template_text()
    assert "aliases:" in text and "PostgreSQL: [Postgres, PG]" in text
    assert Config.model_validate(yaml.safe_load(text)).aliases == {}


def test_aliases_are_trimmed_deduplicated_and_given_to_the_check_as_tuples() -> None:
    config = Config.model_validate(
        {"aliases": {" PostgreSQL ": ["Postgres", "  PG ", "PG", "postgresql"], "K8s": "Kube"}}
    )
    assert config.aliases == {"PostgreSQL": ["Postgres", "PG"], "K8s": ["Kube"]}
    assert config.alias_map() == {"PostgreSQL": ("Postgres", "PG"), "K8s": ("Kube",)}
    assert Config.model_validate({"aliases": None}).aliases == {}


@pytest.mark.parametrize(
    ("aliases", "says"),
    [
        ({"": ["x"]}, "alias name must be 1 to"),
        ({"Go": [""]}, "each spelling of 'Go'"),
        ({"Go": ["g" * (MAX_ALIAS_LENGTH + 1)]}, "each spelling of 'Go'"),
        ({"Go": [f"go{i}" for i in range(MAX_SPELLINGS + 1)]}, "more than 20 spellings"),
        ({f"n{i}": [] for i in range(MAX_ALIAS_NAMES + 1)}, "at most 500 names"),
        ({"Go": {"nested": "map"}}, "valid list"),
    ],
)
def test_aliases_past_their_limits_make_the_config_invalid(home, aliases, says) -> None:
    data = yaml.safe_load(home.config_path.read_text())
    home.config_path.write_text(yaml.safe_dump({**data, "aliases": aliases}))

    with pytest.raises(ConfigError) as caught:
        load_config(home)

    message = caught.value.message
    assert "aliases" in message and says in message and "\n" not in message

"""config.yaml: the candidate profile, the target search and per-lane providers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from jobctrl.domain.errors import ConfigError
from jobctrl.domain.profile import Profile, TargetSearch
from jobctrl.home import Home

TEMPLATE_PATH = Path(__file__).with_name("config_template.yaml")


class LaneProvider(BaseModel):
    model_config = ConfigDict(extra="forbid")

    provider: str = "offline"
    model: str = "offline-extractive-v1"


class Config(BaseModel):
    model_config = ConfigDict(extra="forbid")

    profile: Profile = Field(default_factory=Profile)
    target_search: TargetSearch = Field(default_factory=TargetSearch)
    providers: dict[str, LaneProvider] = Field(default_factory=lambda: {"score": LaneProvider()})


def template_text() -> str:
    return TEMPLATE_PATH.read_text(encoding="utf-8")


def write_template(home: Home, *, profile: dict[str, Any] | None = None) -> bool:
    """Write the commented template (optionally with a profile filled in); False if present."""
    if home.config_path.exists():
        return False
    home.ensure()
    text = template_text()
    if profile is not None:
        data = yaml.safe_load(text)
        data["profile"] = Profile.model_validate(profile).model_dump(mode="json")
        header = "".join(line for line in text.splitlines(keepends=True)[:5])
        text = header + "\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
    home.config_path.write_text(text, encoding="utf-8")
    return True


def load_config(home: Home) -> Config:
    path = home.config_path
    if not path.exists():
        raise ConfigError(f"no config at {path}; run `jobctrl init` first", code="configuration")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark else ""
        raise ConfigError(f"{path} is not valid YAML{where}", code="configuration") from None
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise ConfigError(
            f"{path}: {loc}: {first['msg']} ({exc.error_count()} problem(s))", code="configuration"
        ) from None

"""config.yaml: the candidate profile, the target search and per-lane providers."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from jobctrl.domain.errors import ConfigError
from jobctrl.domain.profile import Profile, TargetSearch
from jobctrl.home import Home

TEMPLATE_PATH = Path(__file__).with_name("config_template.yaml")


# ``profile``: structuring an imported resume document (``jobctrl profile import``).
LANES = ("score", "tailor", "cover", "contact_research", "apply", "profile")
PROVIDERS = ("offline", "openai", "anthropic")
DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
# How a lane asks for structured output (``jobctrl llm set … --output``): ``tool``, a tool
# call (the default); ``json``, the provider's native JSON-schema output (``response_format``);
# ``prompted``, the schema in the instructions and JSON read from plain text (any server).
OUTPUT_MODES = ("tool", "json", "prompted")


def key_env_for(provider: str, base_url: str | None, api_key_env: str | None) -> str | None:
    """The environment variable a lane's key comes from (None: it needs no key).

    A lane with its own base URL gets a key only from the variable it names, so the
    default OpenAI/Anthropic key is never sent to some other server.
    """
    return api_key_env or (None if base_url else DEFAULT_KEY_ENV.get(provider))


class LaneProvider(BaseModel):
    """A lane's provider and model; ``openai`` with ``base_url`` is any OpenAI-compatible
    server. ``api_key_env`` names the environment variable holding the key (never the key)."""

    model_config = ConfigDict(extra="forbid")

    provider: str = "offline"
    model: str = "offline-extractive-v1"
    base_url: str | None = None
    api_key_env: str | None = None
    output: Literal["tool", "json", "prompted"] = "tool"  # one of OUTPUT_MODES

    def key_env(self) -> str | None:
        """The environment variable the lane's key comes from (``key_env_for``)."""
        return key_env_for(self.provider, self.base_url, self.api_key_env)


class SourceEntry(BaseModel):
    """One board, feed or careers page to discover from (`jobctrl sources add`)."""

    model_config = ConfigDict(extra="forbid")

    kind: str
    name: str
    base_url: str | None = None
    enabled: bool = True


# ``aliases:`` limits: a list far longer than any person's skills and titles, each
# spelling a short name (the truth check compiles every one for each document it reads).
MAX_ALIAS_NAMES = 500
MAX_SPELLINGS = 20
MAX_ALIAS_LENGTH = 100


class Config(BaseModel):
    model_config = ConfigDict(extra="forbid")

    profile: Profile = Field(default_factory=Profile)
    target_search: TargetSearch = Field(default_factory=TargetSearch)
    sources: list[SourceEntry] = Field(default_factory=list)
    providers: dict[str, LaneProvider] = Field(default_factory=lambda: {"score": LaneProvider()})
    # Other spellings of a skill, tool or title the truth check accepts for it
    # (name -> spellings), added to the list that ships with jobctrl (domain.truth.aliases).
    aliases: dict[str, list[str]] = Field(default_factory=dict)

    @field_validator("aliases", mode="before")
    @classmethod
    def _aliases_or_empty(cls, value: Any) -> Any:
        if value is None:  # "aliases:" with nothing under it
            return {}
        if isinstance(value, dict):  # "Postgres: PG" is one spelling
            return {k: [v] if isinstance(v, str) else v for k, v in value.items()}
        return value

    @field_validator("aliases")
    @classmethod
    def _bounded_aliases(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        """Names and spellings trimmed, each a non-empty short line; a bounded list."""
        if len(value) > MAX_ALIAS_NAMES:
            raise ValueError(f"at most {MAX_ALIAS_NAMES} names may have aliases")
        cleaned: dict[str, list[str]] = {}
        for name, spellings in value.items():
            key = " ".join(name.split())
            if not key or len(key) > MAX_ALIAS_LENGTH:
                raise ValueError(f"an alias name must be 1 to {MAX_ALIAS_LENGTH} characters")
            if len(spellings) > MAX_SPELLINGS:
                raise ValueError(f"{key!r} has more than {MAX_SPELLINGS} spellings")
            others = [" ".join(s.split()) for s in spellings]
            if any(not s or len(s) > MAX_ALIAS_LENGTH for s in others):
                raise ValueError(
                    f"each spelling of {key!r} must be 1 to {MAX_ALIAS_LENGTH} characters"
                )
            cleaned[key] = list(dict.fromkeys(s for s in others if s.casefold() != key.casefold()))
        return cleaned

    def alias_map(self) -> dict[str, tuple[str, ...]]:
        """``aliases:`` as the truth check takes it (``ClaimContext.extra_aliases``)."""
        return {name: tuple(spellings) for name, spellings in self.aliases.items()}


def template_text() -> str:
    return TEMPLATE_PATH.read_text(encoding="utf-8")


def write_template(
    home: Home,
    *,
    profile: dict[str, Any] | None = None,
    target_search: dict[str, Any] | None = None,
) -> bool:
    """Write the commented template (optionally with a profile filled in); False if present."""
    if home.config_path.exists():
        return False
    home.ensure()
    text = template_text()
    if profile is not None or target_search is not None:
        # Round-trip the template so the comments of the other sections stay.
        yaml_rt = _round_trip()
        data = yaml_rt.load(text)
        if profile is not None:
            data["profile"] = Profile.model_validate(profile).model_dump(mode="json")
        if target_search is not None:
            data["target_search"] = TargetSearch.model_validate(target_search).model_dump()
        out = io.StringIO()
        yaml_rt.dump(data, out)
        text = out.getvalue()
    home.config_path.write_text(text, encoding="utf-8")
    return True


_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_cache: dict[Path, tuple[tuple[int, int], Config]] = {}


def load_config(home: Home) -> Config:
    """The parsed config; re-read only when the file changes (it is read for every score)."""
    path = home.config_path
    try:
        stat = path.stat()
    except FileNotFoundError:
        raise ConfigError(f"no config at {path}; run `jobctrl init` first") from None
    stamp = (stat.st_mtime_ns, stat.st_size)
    cached = _cache.get(path)
    if cached and cached[0] == stamp:
        return cached[1]
    config = _parse(path)
    _cache[path] = (stamp, config)
    return config


MAX_CONFIG_BYTES = 2_000_000


def _parse(path: Path) -> Config:
    """config.yaml as a Config, or one ConfigError that says what is wrong with it (too
    big, not text, not YAML, nested too deeply, or not a valid configuration)."""
    if path.stat().st_size > MAX_CONFIG_BYTES:
        raise ConfigError(f"{path} is larger than {MAX_CONFIG_BYTES // 1_000_000} MB")
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader) or {}
    except UnicodeDecodeError:
        raise ConfigError(f"{path} is not UTF-8 text") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark else ""
        raise ConfigError(f"{path} is not valid YAML{where}") from None
    except RecursionError:
        raise ConfigError(f"{path} is nested too deeply to be a configuration") from None
    return _validated(path, data)


def _validated(path: Path, data: Any) -> Config:
    """``data`` as a Config, or ConfigError naming the file and the first problem."""
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise ConfigError(
            f"{path}: {loc}: {first['msg']} ({exc.error_count()} problem(s))"
        ) from None


def _round_trip() -> Any:
    # ruamel only to edit the file: reading it (every command) takes PyYAML's C loader
    from ruamel.yaml import YAML

    yaml_rt = YAML()
    yaml_rt.preserve_quotes = True
    yaml_rt.indent(mapping=2, sequence=4, offset=2)
    return yaml_rt


def _edit(home: Home, change: Callable[[Any], None]) -> None:
    """Change config.yaml in place: refuse a file that does not validate, keep the user's
    comments (ruamel round trip), validate the result, and replace the file atomically."""
    load_config(home)
    yaml_rt = _round_trip()
    path = home.config_path
    data = yaml_rt.load(path.read_text(encoding="utf-8"))
    change(data)
    _validated(path, json.loads(json.dumps(data, default=str)))
    tmp = path.with_suffix(".yaml.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        yaml_rt.dump(data, fh)
    tmp.replace(path)


def edit_sources(home: Home, change: Callable[[list[dict[str, Any]]], None]) -> list[SourceEntry]:
    """Change the ``sources:`` list of config.yaml in place, keeping the user's comments."""

    def edit(data: Any) -> None:
        if data.get("sources") is None:
            data["sources"] = []
        change(data["sources"])

    _edit(home, edit)
    return load_config(home).sources


def edit_profile(home: Home, profile: Profile) -> None:
    """Replace the ``profile:`` section of config.yaml, keeping the other comments."""
    _edit(home, lambda data: data.__setitem__("profile", profile.model_dump(mode="json")))


def edit_answers(home: Home, change: Callable[[Any], None]) -> None:
    """Change ``profile.answers`` of config.yaml in place (``change`` gets that mapping),
    keeping the user's comments."""

    def edit(data: Any) -> None:
        if data.get("profile") is None:
            data["profile"] = {}
        if data["profile"].get("answers") is None:
            data["profile"]["answers"] = {}
        change(data["profile"]["answers"])

    _edit(home, edit)


def edit_target_search(home: Home, target: TargetSearch) -> None:
    """Replace the ``target_search:`` section of config.yaml, keeping the other comments."""
    written = target.model_dump(mode="json")
    _edit(home, lambda data: data.__setitem__("target_search", written))


def set_lane(home: Home, lane: str, lane_provider: LaneProvider) -> None:
    """Set one lane under ``providers:`` in config.yaml, keeping the user's comments."""

    def edit(data: Any) -> None:
        if data.get("providers") is None:
            data["providers"] = {}
        written = lane_provider.model_dump(exclude_none=True)
        if written.get("output") == "tool":  # the default: config.yaml stays as it was
            del written["output"]
        data["providers"][lane] = written

    _edit(home, edit)

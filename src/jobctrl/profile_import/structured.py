"""Structured resume files: JSON Resume or RenderCV, written as JSON or YAML.

The format is told by shape, not by file name: a mapping with a ``cv`` mapping is RenderCV;
a mapping with any of ``basics``/``work``/``education``/``skills`` is JSON Resume. Unknown
extra fields are ignored; wrong-typed ones are skipped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from jobctrl.domain.profile import Profile
from jobctrl.profile_import.errors import ProfileImportError
from jobctrl.profile_import.json_resume import profile_from_json_resume
from jobctrl.profile_import.rendercv import profile_from_rendercv

__all__ = ["detect_format", "profile_from_structured"]

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_JSON_RESUME_KEYS = ("basics", "work", "education", "skills")


def detect_format(path: Path, text: str) -> str:
    """``"json-resume"`` or ``"rendercv"``; ``ProfileImportError`` (a ValueError) if neither."""
    return _shape(path, _parse(path, text))


def profile_from_structured(path: Path, text: str) -> tuple[str, Profile]:
    """(its format, the profile) of a JSON Resume or RenderCV file's ``text``."""
    data = _parse(path, text)
    shape = _shape(path, data)
    convert = profile_from_rendercv if shape == "rendercv" else profile_from_json_resume
    return shape, convert(data)


def _parse(path: Path, text: str) -> Any:
    if path.suffix.lower() == ".json" or (
        path.suffix.lower() not in {".yaml", ".yml"} and text.lstrip().startswith("{")
    ):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ProfileImportError(
                f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
            ) from None
        except RecursionError:
            raise ProfileImportError(f"{path}: nested too deeply to be a profile") from None
    else:
        try:
            data = yaml.load(text, Loader=_Loader)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" (line {mark.line + 1})" if mark else ""
            raise ProfileImportError(f"{path}: not valid YAML{where}") from None
        except RecursionError:
            raise ProfileImportError(f"{path}: nested too deeply to be a profile") from None
    if data is None:
        raise ProfileImportError(f"{path}: the file is empty")
    return data


def _shape(path: Path, data: Any) -> str:
    if isinstance(data, dict):
        if isinstance(data.get("cv"), dict):
            return "rendercv"
        if any(isinstance(data.get(k), dict | list) for k in _JSON_RESUME_KEYS):
            return "json-resume"
    raise ProfileImportError(
        f"{path}: neither a JSON Resume (no basics/work/education/skills) "
        "nor a RenderCV file (no cv: mapping)"
    )

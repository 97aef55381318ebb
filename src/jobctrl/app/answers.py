"""The profile's saved application answers (``profile.answers`` in config.yaml): read them,
and change some of them in place — the person's comments kept, the whole configuration
validated before anything is written (the Settings page and ``PATCH /v1/profile/answers``).

A change names the fields to set (``notice_period``, ``needs_sponsorship``, …, and
``questions``: the whole list of the person's own question → answer pairs). A value that
is not valid (an unknown field, a yes/no that is not one, a text over its limit, a profile
grown past its size) is refused with the reason and nothing is written. A field set back
to its empty value (``null`` for a yes/no, ``""``, ``[]``) is removed from config.yaml.
"""

from __future__ import annotations

import json
from typing import Any

import yaml
from pydantic import ValidationError
from ruamel.yaml.scalarstring import DoubleQuotedScalarString

from jobctrl import config as config_file
from jobctrl.app.models import View
from jobctrl.domain.errors import INVALID_INPUT, JobctrlError
from jobctrl.domain.profile import Answers, Profile, SavedAnswer
from jobctrl.home import Home
from jobctrl.store import profiles
from jobctrl.store.store import Store

__all__ = [
    "ANSWER_FIELDS",
    "AnswerRow",
    "AnswersChanged",
    "SavedAnswers",
    "answer_rows",
    "change_answers",
    "saved_answers",
]

ANSWER_FIELDS = tuple(Answers.model_fields)


class SavedAnswers(View):
    """``GET /v1/profile/answers``: every saved answer (its config.yaml name: snake_case,
    as the person writes it there), unanswered ones empty."""

    answers: Answers


class AnswersChanged(SavedAnswers):
    """The saved answers after a change, and the profile version they make."""

    profile_version: int


class AnswerRow(View):
    """One saved answer as the Settings page edits it: ``kind`` ``yesno``, ``text`` or
    ``questions`` (the person's own question → answer pairs); ``label``: the question in
    plain words (issue 30: the page showed the config keys)."""

    key: str
    kind: str
    value: bool | str | list[SavedAnswer] | None
    label: str = ""


# Each saved answer as a form asks it.
LABELS = {
    "work_authorised": "Are you authorised to work where the job is?",
    "work_authorisation": "Your right to work, in words (e.g. “EU citizen, no restrictions”)",
    "needs_sponsorship": "Will you need visa sponsorship?",
    "willing_to_relocate": "Are you willing to relocate?",
    "notice_period": "Your notice period (e.g. “3 months”)",
    "salary_expectation": "Your salary expectation (e.g. “EUR 85,000”)",
    "pronouns": "Your pronouns",
    "how_did_you_hear": "How did you hear about the job? (e.g. “Company website”)",
    "linkedin": "Your LinkedIn profile",
    "github": "Your GitHub profile",
    "portfolio": "Your website or portfolio",
    "questions": "Your own questions and answers",
}


def saved_answers(home: Home) -> Answers:
    """The saved answers as config.yaml has them (every field, unanswered ones empty)."""
    return config_file.load_config(home).profile.answers


def answer_rows(home: Home) -> list[AnswerRow]:
    """One row per saved answer for the Settings page."""
    saved = saved_answers(home)
    rows = []
    for key, spec in Answers.model_fields.items():
        kind = "questions" if key == "questions" else "yesno" if spec.default is None else "text"
        label = LABELS.get(key, key)
        rows.append(AnswerRow(key=key, kind=kind, value=getattr(saved, key), label=label))
    return rows


def _problem(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    return f"{where}: {first['msg']}" if where else str(first["msg"])


def _as_written(value: Any) -> Any:
    """``value`` for config.yaml: a text another YAML reader would take for something else
    (``no``, ``on``, ``90``, ``2024-01-01``) in quotes."""
    if isinstance(value, list):
        return [_as_written(v) for v in value]
    if isinstance(value, dict):
        return {k: _as_written(v) for k, v in value.items()}
    if isinstance(value, str) and value:
        try:
            plain = yaml.safe_load(value) == value
        except yaml.YAMLError:  # "[", "a: b", a control character …
            plain = False
        return value if plain else DoubleQuotedScalarString(value)
    return value


def change_answers(home: Home, changes: dict[str, Any]) -> AnswersChanged:
    """Set the fields in ``changes``; all saved answers after it, and the profile version."""
    if not isinstance(changes, dict) or not changes:
        raise JobctrlError("say which saved answers to change", code=INVALID_INPUT)
    unknown = sorted(set(changes) - set(ANSWER_FIELDS))
    if unknown:
        raise JobctrlError(
            f"no saved answer {unknown[0]!r}; one of: {', '.join(ANSWER_FIELDS)}",
            code=INVALID_INPUT,
        )
    try:
        json.dumps(changes, ensure_ascii=False).encode("utf-8")
    except (UnicodeEncodeError, ValueError):  # a lone surrogate cannot be written
        raise JobctrlError(
            "saved answers must be text that UTF-8 can hold", code=INVALID_INPUT
        ) from None
    profile = config_file.load_config(home).profile
    try:
        answers = Answers.model_validate({**profile.answers.model_dump(), **changes})
        profile = Profile.model_validate({**profile.model_dump(), "answers": answers})
    except ValidationError as exc:
        raise JobctrlError(_problem(exc), code=INVALID_INPUT) from None
    empty = Answers()
    written = answers.model_dump(mode="json")

    def edit(section: Any) -> None:
        for key in changes:
            if written[key] == getattr(empty, key):
                section.pop(key, None)
            else:
                section[key] = _as_written(written[key])

    config_file.edit_answers(home, edit)
    version = profiles.version_of(Store.open(home), profile)
    return AnswersChanged(answers=saved_answers(home), profile_version=version)

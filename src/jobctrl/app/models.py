"""The typed boundary: the models every application function returns.

The CLI prints them (``--json``: the model dumped by alias) and the API serves them
(``response_model``), so the two cannot drift. Field names are snake_case in Python and
camelCase on the wire, generated once here; a key named in an issue or the README is a
contract (tests/integration/test_json_contract.py). Instants are ``Timestamp``: a
``datetime`` in Python, its ``isoformat()`` text on the wire (as it always was).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import date, datetime
from typing import Annotated, Any, ClassVar, Generic, Self, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    PlainSerializer,
    SerializerFunctionWrapHandler,
    model_serializer,
)
from pydantic.alias_generators import to_camel

from jobctrl.domain.clock import iso

__all__ = ["Day", "Items", "Page", "Sparse", "Timestamp", "View", "dump", "dumps"]


Timestamp = Annotated[datetime, PlainSerializer(iso, return_type=str, when_used="json")]
"""An instant: ``isoformat()`` in JSON (``+00:00``; naive where SQLite returned it naive)."""

Day = Annotated[date, PlainSerializer(iso, return_type=str, when_used="json")]


class View(BaseModel):
    """A read model or a command's result: camelCase aliases on the wire, built from
    snake_case names in code (``View(job_id=…)``), unknown fields refused."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        extra="forbid",
        frozen=False,
    )

    def to_json(self) -> dict[str, Any]:
        """The model as the API and ``--json`` print it."""
        return self.model_dump(mode="json", by_alias=True)

    @classmethod
    def from_row(cls, source: object) -> Self:
        """The model of a store's row (a mapping of column names, or a dataclass) whose
        names are the model's fields; the row's other columns are left out. One way to
        copy them, not one per model."""
        if isinstance(source, Mapping):
            source = {name: source[name] for name in cls.model_fields if name in source}
        return cls.model_validate(source, from_attributes=True)


class Sparse(View):
    """A view some of whose keys appear only when they were given (``OPTIONAL``): the
    JSON of an object that always had such keys only sometimes (a job's title on an
    activity that has a job) keeps that shape; a key given as None is printed as null."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset()

    # No return annotation: pydantic then keeps the model's own schema for the response
    # (an annotated ``dict`` would make OpenAPI say "any object").
    @model_serializer(mode="wrap")
    def _omit_unset(self, handler: SerializerFunctionWrapHandler):  # type: ignore[no-untyped-def]
        data = handler(self)
        for name in self.OPTIONAL - self.model_fields_set:
            data.pop(type(self).model_fields[name].alias or name, None)
            data.pop(name, None)
        return data


T = TypeVar("T")


class Items(View, Generic[T]):
    """``{"items": [...]}``: a whole list."""

    items: list[T]


class Page(View, Generic[T]):
    """``{"items", "total", "limit", "offset"}``: one page of a longer list."""

    items: list[T]
    total: int
    limit: int | None
    offset: int


def dump(data: Any) -> Any:
    """Models (also inside lists and dicts) as plain JSON data, by alias; anything else
    as it is."""
    if isinstance(data, BaseModel):
        return data.model_dump(mode="json", by_alias=True)
    if isinstance(data, list | tuple):
        return [dump(item) for item in data]
    if isinstance(data, dict):
        return {key: dump(value) for key, value in data.items()}
    return data


def dumps(data: Any) -> str:
    """``dump`` as indented JSON text (what ``--json`` prints)."""
    return json.dumps(dump(data), indent=2, default=str)

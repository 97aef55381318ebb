"""The data converter jobctrl's clients and workers use.

Temporal records a Python stack trace with every failure by default; workflow histories
must not hold exception text, so failures keep only their type (our stable error code)
and our own short message.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from temporalio.api.failure.v1 import Failure
from temporalio.converter import DataConverter, DefaultFailureConverter, PayloadConverter


class CodeOnlyFailureConverter(DefaultFailureConverter):
    def to_failure(
        self, exception: BaseException, payload_converter: PayloadConverter, failure: Failure
    ) -> None:
        super().to_failure(exception, payload_converter, failure)
        node: Any = failure
        while node is not None:
            node.stack_trace = ""
            node = node.cause if node.HasField("cause") else None


DATA_CONVERTER = dataclasses.replace(
    DataConverter.default, failure_converter_class=CodeOnlyFailureConverter
)

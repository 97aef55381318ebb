"""A provider call that ends without saying what it spent (a cancellation raised into the
attempt's thread as the answer arrived, a bug) keeps its reservation open: counted at its
worst case like a call whose worker died, never settled as if nothing were paid (B6). A
provider's own failure (a ``ProviderError``, its usage recorded) closes it."""

from __future__ import annotations

import pytest

from jobctrl.domain.errors import PROVIDER_UNAVAILABLE
from jobctrl.llm.remote import ProviderError
from jobctrl.llm.spend import SpendAuthority


def _call(authority: SpendAuthority, raised: BaseException) -> None:
    def call():  # type: ignore[no-untyped-def]
        raise raised

    authority.guarded_call(
        lane="score", observation_id=f"score:j:r:{id(raised)}", provider="openai",
        model="gpt-4o-mini", call=call, input_tokens=1000, max_output_tokens=2000,
    )  # fmt: skip


def test_an_unseen_answer_keeps_its_reservation_a_provider_failure_closes_it(store, settings):
    authority = SpendAuthority(store, settings)
    with pytest.raises(ProviderError):
        _call(authority, ProviderError(PROVIDER_UNAVAILABLE, "HTTP 500", retryable=True))
    assert authority.summary()["openReservations"]["count"] == 0
    with pytest.raises(RuntimeError):
        _call(authority, RuntimeError("cancelled as the answer arrived"))
    held = authority.summary()["openReservations"]
    assert held["count"] == 1 and held["amountUsd"] > 0

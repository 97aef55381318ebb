"""Which lower-case words are ordinary English or jargon (domain.truth.lexicon)."""

from __future__ import annotations

import pytest

from jobctrl.domain.truth.lexicon import is_known_word


@pytest.mark.parametrize(
    "word",
    [
        "production", "shipped", "companies", "organised", "behavioural", "alerting",
        "onboarded", "containerized", "webhooks", "autoscaling", "on-premise", "rebuilt",
        "api", "a",
    ],
)  # fmt: skip
def test_english_and_jargon_are_known(word: str) -> None:
    assert is_known_word(word)


@pytest.mark.parametrize(
    "word", ["vitest", "fairseq", "xcodebuild", "fastlane", "cloud-init", "kubectl", "dagster"]
)
def test_product_names_are_not(word: str) -> None:
    assert not is_known_word(word)

"""The health check's pure rules (domain/health.py)."""

from __future__ import annotations

from jobctrl.domain.health import CheckStatus, disk_status, free_space_words


def test_free_space_is_never_zero_when_some_is_left() -> None:
    assert free_space_words(70 * 1024**3 + 1024**3 // 2) == "70.5 GB"
    assert free_space_words(1_468_006) == "1.4 MB"  # a nearly full disk: not "0.0 GB"
    assert disk_status(1_468_006) == CheckStatus.FAIL


def test_a_home_that_cannot_be_written_fails_whatever_its_space() -> None:
    assert disk_status(500 * 1024**3) == CheckStatus.OK
    assert disk_status(500 * 1024**3, writable=False) == CheckStatus.FAIL

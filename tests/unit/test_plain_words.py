"""Every code a job can carry has a sentence (domain/plain_words.py): the stage, posting
and application codes of domain/errors.py, and any code a module spells as a literal."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

from jobctrl.domain import errors
from jobctrl.domain.plain_words import SENTENCES, ago, sentence

SRC = Path(errors.__file__).resolve().parents[1]

# Sections of errors.py whose codes never land on a job: a discovery run's, or a
# command's refusal (said by the CLI or the API as its error message).
NOT_ON_A_JOB = ("# -- discovery source codes", "# -- command codes")


def _job_codes() -> set[str]:
    """The codes errors.py defines outside the sections that never land on a job."""
    codes, skipping = set(), False
    for line in Path(errors.__file__).read_text().splitlines():
        if line.startswith("# --"):
            skipping = line.startswith(NOT_ON_A_JOB)
        found = re.match(r'^[A-Z_]+ = "([^"]+)"', line)
        if found and not skipping:
            codes.add(found.group(1))
    return codes


def test_every_code_a_job_can_carry_has_a_sentence() -> None:
    codes = _job_codes()
    assert {"MIN_SCORE", "POSTING_UNAVAILABLE", "APPLY_NO_FORM", "budget_exceeded"} <= codes
    missing = sorted(codes - SENTENCES.keys())
    assert not missing, f"codes without a sentence in domain/plain_words.py: {missing}"


def test_no_module_raises_a_code_spelled_as_a_literal_without_a_sentence() -> None:
    literal = re.compile(r'(?:code=|StageError\()\s*"([A-Za-z_]+)"')
    found = {
        code
        for path in SRC.rglob("*.py")
        for code in literal.findall(path.read_text(encoding="utf-8"))
    }
    codes_defined = {v for v in vars(errors).values() if isinstance(v, str)}
    assert not sorted(found - codes_defined - SENTENCES.keys())


def test_sentences_are_sentences() -> None:
    for code, text in SENTENCES.items():
        assert (text[0].isupper() or text.startswith("jobctrl")) and text.endswith("."), code
        assert code not in text, code
    assert sentence("NO_SUCH_CODE") == sentence(None)


def test_how_long_ago_in_a_persons_words() -> None:
    now = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)
    assert ago(now - timedelta(seconds=20), now) == "just now"
    assert ago(now - timedelta(minutes=5), now) == "5 min ago"
    assert ago(now - timedelta(hours=2, minutes=5), now) == "2 h ago"
    assert ago(now - timedelta(days=3), now) == "3 days ago"
    assert ago(now + timedelta(hours=5), now) == "in 5 h"

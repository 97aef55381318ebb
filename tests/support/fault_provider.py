"""A loopback OpenAI-compatible provider for the fault suite and the throughput benches:
it plays all three lanes truthfully for TEST_PROFILE, counts every request by lane and
job, and fails on command.

Each request is told apart by what it asks for (a letter has ``paragraphs``, a resume
``experience``, anything else is a Score) and by the job's title, which the prompt names
(``Job title: T`` for Score, ``Job: T at C`` for Tailor and Cover): give each job its own
title (``fault_title(i)``). The answers: a Score report that passes min_fit_score, the
cited truthful resume of tests/support/cited.py, and a letter naming the job's own role
and company, so every material passes the truth check.

``mode`` can be changed while it serves: ``ok``; ``rate_limited`` (429 with
``Retry-After: retry_after``); ``unauthorized`` (401). ``per_minute`` (when set) admits
that many answered requests in any 60 s and refuses the rest with 429 and the seconds
until a slot frees as ``Retry-After``; like OpenAI, every answer and refusal then also
carries ``x-ratelimit-limit-requests``, ``x-ratelimit-remaining-requests`` and
``x-ratelimit-reset-requests`` (until the window is empty again, as ``1m0s``/``8.5s``/
``20ms``), unless ``rate_headers`` is off (a provider that sends only Retry-After).
``delay`` holds every answer (200 or refusal) back.

Counts (all under a lock): ``sent`` (every POST), ``refused`` (429s), ``answered``
(200s) by (lane, title), ``arrivals`` (epoch time, lane, title, status) per request.
"""

from __future__ import annotations

import json
import math
import re
import threading
import time
from collections import Counter, deque
from typing import Any

from tests.support.cited import (
    ENTRY,
    MIGRATION,
    SERVICES,
    TRUE_MIGRATION,
    TRUE_RESUME,
    TRUE_SERVICES,
)
from tests.support.fake_openai import SCORE_REPORT, FakeOpenAI, prompt_text, requested_fields
from tests.support.loopback import Request, Response

REQUIREMENTS = ["5+ years of Python", "Experience with PostgreSQL", "Kubernetes and Docker"]
_WORDS = [
    "Alder",
    "Birch",
    "Cedar",
    "Dogwood",
    "Elm",
    "Fir",
    "Ginkgo",
    "Hazel",
    "Ivy",
    "Juniper",
    "Kapok",
    "Larch",
    "Maple",
    "Nutmeg",
    "Oak",
    "Pine",
    "Quince",
    "Rowan",
    "Spruce",
    "Teak",
    "Umbrella",
    "Viburnum",
    "Willow",
    "Yew",
    "Zelkova",
    "Acacia",
    "Balsa",
    "Cypress",
    "Damson",
    "Ebony",
    "Fig",
    "Gum",
    "Hawthorn",
    "Iroko",
    "Jacaranda",
    "Kauri",
    "Linden",
    "Mimosa",
    "Neem",
    "Olive",
    "Poplar",
    "Redwood",
    "Sumac",
    "Tamarind",
    "Walnut",
    "Yucca",
    "Aspen",
    "Beech",
    "Cherry",
    "Date",
    "Eucalyptus",
    "Frangipani",
]
_SCORE_TITLE = re.compile(r"^Job title: (.+)$", re.MULTILINE)
_MATERIALS_TITLE = re.compile(r"^Job: (.+) at (.+)$", re.MULTILINE)


def fault_title(i: int) -> str:
    """The title of the ``i``-th job: its own word, no digits (numbers are claims)."""
    word = _WORDS[i % len(_WORDS)]
    return f"Backend Engineer {word}" + (f" {_WORDS[i // len(_WORDS)]}" if i >= len(_WORDS) else "")


def fault_company(i: int) -> str:
    return f"{_WORDS[i % len(_WORDS)]} Robotics"


def _line(text: str, *facts: str) -> dict[str, Any]:
    return {"text": text, "facts": list(facts)}


def letter_for(role: str, company: str) -> dict[str, Any]:
    """A truthful letter (TEST_PROFILE's facts) for ``role`` at ``company``, as the Cover
    lane answers it (``llm.answers.LetterAnswer``: greeting and signature come from code)."""
    return {
        "paragraphs": [
            {"sentences": [_line(f"I am applying for the {role} role at {company}.")]},
            {
                "sentences": [
                    _line("I " + TRUE_MIGRATION[0].lower() + TRUE_MIGRATION[1:], MIGRATION),
                    _line("I " + TRUE_SERVICES[0].lower() + TRUE_SERVICES[1:], SERVICES),
                ]
            },
            {"sentences": [_line("Thank you for your time.", ENTRY)]},
        ],
    }


def classify(body: dict[str, Any]) -> tuple[str, str, str]:
    """(lane, job title, company) of a chat-completions request ("" when not named)."""
    fields = requested_fields(body)
    text = prompt_text(body)
    lane = "cover" if "paragraphs" in fields else "tailor" if "experience" in fields else "score"
    if lane == "score":
        found = _SCORE_TITLE.search(text)
        return lane, found.group(1).strip() if found else "", ""
    found = _MATERIALS_TITLE.search(text)
    if not found:
        return lane, "", ""
    return lane, found.group(1).strip(), found.group(2).strip()


def truthful_answer(body: dict[str, Any]) -> dict[str, Any]:
    """The payload answering ``body``: a report, the resume, or the job's own letter."""
    lane, title, company = classify(body)
    if lane == "cover":
        return letter_for(title, company)
    return TRUE_RESUME if lane == "tailor" else SCORE_REPORT


def openai_duration(seconds: float) -> str:
    """``seconds`` as OpenAI writes a reset: ``1m0s``, ``8.5s``, ``20ms``."""
    if seconds < 1:
        return f"{round(seconds * 1000)}ms"
    minutes, rest = divmod(seconds, 60)
    return (f"{int(minutes)}m" if minutes else "") + f"{rest:.3g}s"


class FaultProvider(FakeOpenAI):
    """Use as a context manager; point lanes at ``base_url`` (key in any variable)."""

    def __init__(
        self,
        mode: str = "ok",
        *,
        delay: float = 0.0,
        per_minute: int | None = None,
        retry_after: int = 7,
        rate_headers: bool = True,
    ) -> None:
        super().__init__(mode, SCORE_REPORT, delay=delay, answer=truthful_answer)
        self.per_minute = per_minute
        self.rate_headers = rate_headers
        self.retry_after = retry_after
        self.lock = threading.Lock()
        self.sent = 0
        self.refused = 0
        self.answered: Counter[tuple[str, str]] = Counter()
        self.failed: Counter[tuple[str, str]] = Counter()  # 401s and other refusals
        self.arrivals: list[tuple[float, str, str, int]] = []
        self._window: deque[float] = deque()

    def set_mode(self, mode: str) -> None:
        with self.lock:
            self.mode = mode

    def _admit(self, now: float) -> int | None:
        """None when a request may be answered now, else the seconds to wait (locked)."""
        if self.mode == "rate_limited":
            return self.retry_after
        if self.per_minute is None:
            return None
        while self._window and now - self._window[0] >= 60:
            self._window.popleft()
        if len(self._window) < self.per_minute:
            self._window.append(now)
            return None
        return max(1, math.ceil(60 - (now - self._window[0])))

    def _limits(self, now: float) -> dict[str, str]:
        """OpenAI's request-limit headers for the window as it is now (locked)."""
        if self.per_minute is None or not self.rate_headers:
            return {}
        reset = 60 - (now - self._window[-1]) if self._window else 0.0
        return {
            "x-ratelimit-limit-requests": str(self.per_minute),
            "x-ratelimit-remaining-requests": str(max(0, self.per_minute - len(self._window))),
            "x-ratelimit-reset-requests": openai_duration(reset),
        }

    def _answer(self, request: Request) -> Response:
        body = json.loads(request.body or b"{}")
        lane, title, _ = classify(body)
        now = time.time()
        with self.lock:
            self.sent += 1
            wait = self._admit(now)
            mode = self.mode
            if wait is not None:
                self.refused += 1
                status = 429
            elif mode == "unauthorized":
                self.failed[(lane, title)] += 1
                status = 401
            else:
                self.answered[(lane, title)] += 1
                status = 200
            self.arrivals.append((now, lane, title, status))
            limits = self._limits(now)
        if status == 429:
            error = {
                "message": "fake rate_limit_exceeded",
                "type": "requests",
                "code": "rate_limit_exceeded",
            }
            headers = {"Retry-After": str(wait), "x-should-retry": "true", **limits}
            return Response.json({"error": error}, status=429, headers=headers, delay=self.delay)
        if status == 401:
            error = {
                "message": "fake invalid_api_key",
                "type": "invalid_request_error",
                "code": "invalid_api_key",
            }
            return Response.json({"error": error}, status=401, delay=self.delay)
        return Response.json(self.completion(body), headers=limits, delay=self.delay)

    def counts(self) -> dict[str, Any]:
        """The figures so far (a copy)."""
        with self.lock:
            return {
                "sent": self.sent,
                "refused": self.refused,
                "answered": sum(self.answered.values()),
                "repeated_answers": {
                    f"{lane}:{title}": n for (lane, title), n in self.answered.items() if n > 1
                },
            }

"""Opt-in: a real local OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio).

Set JOBCTRL_TEST_OPENAI_BASE_URL (e.g. http://127.0.0.1:11434/v1) and
JOBCTRL_TEST_OPENAI_MODEL to run it; without them it is skipped and says so. It must be a
server on this machine: tests never send traffic beyond loopback.
JOBCTRL_TEST_OPENAI_OUTPUT picks the lane's output mode (tool, json or prompted; default
tool), as `jobctrl llm set … --output` does.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

import pytest

from jobctrl.domain.materials import CoverLetter
from jobctrl.llm.remote import LaneModel, build_model, run_structured

BASE_URL = os.environ.get("JOBCTRL_TEST_OPENAI_BASE_URL")
MODEL = os.environ.get("JOBCTRL_TEST_OPENAI_MODEL")
OUTPUT = os.environ.get("JOBCTRL_TEST_OPENAI_OUTPUT", "tool")

pytestmark = pytest.mark.skipif(
    not (BASE_URL and MODEL),
    reason="opt-in: set JOBCTRL_TEST_OPENAI_BASE_URL and JOBCTRL_TEST_OPENAI_MODEL",
)


def test_a_local_model_writes_a_valid_cover_letter():
    assert urlsplit(BASE_URL or "").hostname in ("127.0.0.1", "localhost", "::1")
    lane = LaneModel("openai", MODEL or "", base_url=BASE_URL, output=OUTPUT)
    model = build_model(lane)
    letter, usage = run_structured(
        model,
        CoverLetter,
        system="Write a three-paragraph cover letter as the requested JSON object.",
        prompt="Company: Acme. Role: Backend Engineer. Candidate: Ada, 6 years of Python.",
        max_output_tokens=800,
        lane=lane,
    )
    assert letter.company and letter.paragraphs and letter.signature
    assert usage.input_tokens > 0

"""The profile's saved answers over HTTP (httpx against the real app): read, changed in
config.yaml with its comments kept, a bad value refused with its reason and nothing
written, a cleared one removed, the security rules on the PATCH, and the Settings page's
section."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
import yaml

from jobctrl.api.app import create_app
from jobctrl.api.security import api_token
from jobctrl.config import load_config
from jobctrl.domain.errors import INVALID_INPUT


@pytest.fixture
async def api(home) -> AsyncIterator[httpx.AsyncClient]:
    token = api_token(home.token_path)
    transport = httpx.ASGITransport(app=create_app(home, port=8765))
    async with httpx.AsyncClient(
        transport=transport,
        base_url="http://127.0.0.1:8765",
        headers={"Authorization": f"Bearer {token}"},
    ) as client:
        yield client


def _answers(home) -> dict:
    return yaml.safe_load(home.config_path.read_text())["profile"].get("answers") or {}


async def test_answers_are_changed_in_config_yaml_with_its_comments_kept(home, api) -> None:
    text = home.config_path.read_text()
    home.config_path.write_text("# my own note, kept\n" + text)
    before = (await api.get("/v1/profile/answers")).json()["answers"]
    assert before["notice_period"] == "" and before["needs_sponsorship"] is None

    changed = await api.patch(
        "/v1/profile/answers",
        json={
            "notice_period": "3 months",
            "needs_sponsorship": False,
            "pronouns": "no",  # a text a YAML 1.1 reader would take for false: quoted
            "questions": [{"question": "Are you open to hybrid work?", "answer": "Yes"}],
        },
    )

    assert changed.status_code == 200, changed.text
    body = changed.json()
    assert body["answers"]["notice_period"] == "3 months"
    assert isinstance(body["profileVersion"], int)
    saved = _answers(home)
    assert (saved["notice_period"], saved["needs_sponsorship"]) == ("3 months", False)
    assert saved["pronouns"] == "no"
    assert saved["questions"] == [{"question": "Are you open to hybrid work?", "answer": "Yes"}]
    assert home.config_path.read_text().startswith("# my own note, kept\n")
    assert load_config(home).profile.answers.notice_period == "3 months"

    cleared = await api.patch("/v1/profile/answers", json={"needs_sponsorship": None})
    assert cleared.status_code == 200
    assert "needs_sponsorship" not in _answers(home)
    assert _answers(home)["notice_period"] == "3 months"


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"shoe_size": "42"}, "no saved answer 'shoe_size'"),
        ({"needs_sponsorship": "perhaps"}, "needs_sponsorship"),
        ({"notice_period": "x" * 301}, "notice_period"),
        ({"questions": [{"question": "Why?"}]}, "questions.0.answer"),
        ({}, "say which saved answers"),
    ],
)
async def test_a_bad_value_is_refused_with_its_reason_and_nothing_is_written(
    home, api, change, reason
) -> None:
    before = home.config_path.read_bytes()

    refused = await api.patch("/v1/profile/answers", json=change)

    assert refused.status_code in (400, 422), refused.text
    error = refused.json()["error"]
    assert error["code"] == INVALID_INPUT and reason in error["message"]
    assert home.config_path.read_bytes() == before


async def test_a_change_needs_the_token_or_the_apps_own_page(home) -> None:
    before = home.config_path.read_bytes()
    transport = httpx.ASGITransport(app=create_app(home, port=8765))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as c:
        cross = await c.patch(
            "/v1/profile/answers",
            json={"pronouns": "they/them"},
            headers={"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"},
        )
        assert cross.status_code == 403
        bare = await c.patch("/v1/profile/answers", json={"pronouns": "they/them"})
        assert bare.status_code in (401, 403)
    assert home.config_path.read_bytes() == before


async def test_the_settings_page_lists_the_saved_answers(home, api) -> None:
    await api.patch("/v1/profile/answers", json={"salary_expectation": "<b>EUR 90k</b>"})
    page = (await api.get("/settings")).text
    assert 'data-answers="/v1/profile/answers"' in page
    assert 'name="salary_expectation" value="&lt;b&gt;EUR 90k&lt;/b&gt;"' in page
    assert 'name="needs_sponsorship"' in page


async def test_any_text_is_written_so_config_yaml_reads_it_back_the_same(home, api) -> None:
    for text in ("[x", "a: b", "on", "2024-01-01", "90", "tab\there\x07"):
        changed = await api.patch("/v1/profile/answers", json={"pronouns": text})
        assert changed.status_code == 200, changed.text
        assert load_config(home).profile.answers.pronouns == text
    refused = await api.patch(
        "/v1/profile/answers",
        content=b'{"pronouns": "\\ud800"}',
        headers={"Content-Type": "application/json"},
    )
    assert refused.status_code == 400 and refused.json()["error"]["code"] == INVALID_INPUT

"""The Profile page in a real headless Chromium against the app served by uvicorn: every
part of the profile shown; a role added, a bullet fixed, a skill added and saved — a new
profile version, shown on the page and in config.yaml (its comments kept, the saved
answers untouched); a refused profile changes nothing and says why; a resume file imported
from the page replaces the profile. Screenshots go to test-artifacts/browser/."""

from __future__ import annotations

import json
import os

import pytest
import yaml
from playwright.async_api import expect

from jobctrl.app.configuration import show_profile
from tests.support.app import live_server
from tests.support.browser import CHROMIUM, chromium_page, screenshot

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists() and not os.environ.get("JOBCTRL_REQUIRE_BROWSER"),
    reason=f"browser tests need Chromium at {CHROMIUM}",
)


def _profile(home) -> dict:
    return yaml.safe_load(home.config_path.read_text())["profile"]


async def test_a_profile_edited_on_the_page_is_saved_as_a_new_version(home, tmp_path):
    home.config_path.write_text("# kept by the page\n" + home.config_path.read_text())
    before = show_profile(home)
    answers = before.profile.answers
    first_role = before.profile.experience[0]
    with live_server(home) as base:
        async with chromium_page() as (page, errors):
            await page.goto(base + "/profile")
            await expect(page.locator("[data-profile-version]")).to_have_text(str(before.version))
            form = page.locator("form[data-profile]")
            await expect(form.locator("[data-key=name]")).to_have_value(before.profile.name)
            roles = form.locator("[data-list=experience] > [data-item]")
            await expect(roles).to_have_count(len(before.profile.experience))

            # Fix a bullet of the first role, add a role and a skill.
            bullets = roles.nth(0).locator("[data-key=bullets]")
            text = await bullets.input_value()
            fixed = first_role.bullets[0] + " Fixed."
            await bullets.fill(text.replace(first_role.bullets[0], fixed))
            await form.get_by_role("button", name="Add a role").click()
            new = roles.nth(len(before.profile.experience))
            await new.locator("[data-key=title]").fill("Volunteer Mentor")
            await new.locator("[data-key=company]").fill("Code Club")
            await new.locator("[data-key=start]").fill("2015-01")
            await new.locator("[data-key=end]").fill("2016-06")
            await new.locator("[data-key=bullets]").fill("Taught Python to 30 children.\n\n")
            skills = form.locator("[data-key=skills]")
            await skills.fill(await skills.input_value() + "\nRust")
            await form.get_by_role("button", name="Save profile").click()
            out = form.locator("output")
            await expect(out).to_contain_text("saved: profile version")

            after = show_profile(home)
            assert after.version != before.version
            await expect(page.locator("[data-profile-version]")).to_have_text(str(after.version))
            saved = _profile(home)
            assert saved["experience"][0]["bullets"][0] == first_role.bullets[0] + " Fixed."
            assert saved["experience"][-1] == {
                "title": "Volunteer Mentor",
                "company": "Code Club",
                "start": "2015-01",
                "end": "2016-06",
                "location": "",
                "bullets": ["Taught Python to 30 children."],
            }
            assert saved["skills"][-1] == "Rust"
            assert after.profile.answers == answers, "the saved answers are kept"
            assert home.config_path.read_text().startswith("# kept by the page\n")

            # A refused profile: its reason shown, nothing written.
            written = home.config_path.read_bytes()
            await form.locator("[data-part=top] [data-key=name]").fill("x" * 400)
            await form.get_by_role("button", name="Save profile").click()
            await expect(out).to_contain_text("name")
            await expect(out).to_have_class("error")
            assert home.config_path.read_bytes() == written

            # Remove the added role again: saved, and gone after a reload.
            await page.reload()
            await (
                roles.nth(len(before.profile.experience))
                .get_by_role("button", name="Remove")
                .click()
            )
            await form.get_by_role("button", name="Save profile").click()
            await expect(out).to_contain_text("saved")
            assert [r["title"] for r in _profile(home)["experience"]] == [
                r.title for r in before.profile.experience
            ]
            await screenshot(page, "profile-edit")

            # A resume file imported from the page replaces the profile.
            resume = tmp_path / "resume.json"
            resume.write_text(
                json.dumps(
                    {
                        "basics": {"name": "Grace Example", "email": "grace@example.org"},
                        "work": [{"name": "Navy", "position": "Engineer", "startDate": "1943"}],
                        "skills": [{"name": "COBOL"}],
                    }
                )
            )
            await page.locator("form[data-profile-import] input[type=file]").set_input_files(
                str(resume)
            )
            await page.get_by_role("button", name="Import resume").click()
            await expect(form.locator("[data-part=top] [data-key=name]")).to_have_value(
                "Grace Example"
            )
            await expect(page.locator(".import-report")).to_contain_text("Imported Grace Example")
            assert _profile(home)["name"] == "Grace Example"
            assert show_profile(home).profile.answers == answers

            refused = "Failed to load resource: the server responded with a status of 4"
            assert all(e.startswith(refused) for e in errors), errors

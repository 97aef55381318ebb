"""Reading a career-ops checkout: the pipeline.md URL inbox and the portals.yml companies."""

from __future__ import annotations

from pathlib import Path

import pytest

from jobctrl.sources.base import SourceConfig
from jobctrl.sources.career_ops import (
    LEVER_EU_API,
    ats_source_for_url,
    import_career_ops,
    read_pipeline_inbox,
    read_portals,
)

PIPELINE_MD = """\
# Pipeline — URL inbox

Paste URLs below, then run `/career-ops pipeline`. See https://docs.example/pipeline for help.

## Pending
- [ ] https://jobs.example.com/posting/123
- [ ] https://boards.greenhouse.io/acme/jobs/456 | Acme Inc | Senior PM
- [ ]  https://jobs.ashbyhq.com/acme/789 | Acme Corp | Solutions Architect | Remote (US)
- [ ] https://jobs.ashbyhq.com/acme/790 | Acme Corp | AI Engineer | Remote (US) | 180000-220000 USD
* [ ] <https://jobs.lever.co/beta/0c1d-22ef?lever-source=linkedin>
- https://apply.workable.com/gamma/j/ABC123/
- [ ] [Staff Engineer at Delta](https://delta.example/careers/staff-engineer)
- [ ] https://jobs.example.com/posting/123 | again, a repeat
- [!] https://private.url/job — Error: login required
- [ ] local:jds/linkedin-pm-ai.md
- [ ] Ask Maria about the Epsilon referral
- [ ] ~~https://dropped.example/jobs/1~~ no longer interested
1. [ ] https://numbered.example/jobs/7.
https://bare.example/jobs/9

## Processed
- [x] #143 | https://jobs.example.com/posting/789 | Acme Corp | AI PM | 4.2/5 | PDF ✅
- [X] https://done.example/jobs/1 | Done Co | Role
- [x] #-- | https://skipped.example/jobs/2 | skipped (pre-screen mismatch: junior)
- https://old.example/jobs/3
"""

PORTALS_YML = """\
# Portal Scanner Configuration
title_filter:
  positive: ["Engineer", "Architect"]
  negative: ["Intern"]

search_queries:
  - name: Ashby — AI Engineer
    query: 'site:jobs.ashbyhq.com "AI Engineer" remote'
    enabled: true

tracked_companies:
  - name: Anthropic
    careers_url: https://job-boards.greenhouse.io/anthropic
    api: https://boards-api.greenhouse.io/v1/boards/anthropic/jobs
    enabled: true
  - name: PolyAI
    careers_url: https://job-boards.eu.greenhouse.io/polyai
    notes: "UK. Voice AI."
    enabled: true
  - name: Old Greenhouse
    careers_url: https://boards.greenhouse.io/oldgh/jobs/12345
  - name: Embedded board
    careers_url: https://boards.greenhouse.io/embed/job_board?for=embedco&b=https://x
  - name: Branded with API
    careers_url: https://www.branded.example/careers
    api: https://boards-api.greenhouse.io/v1/boards/brandedco/jobs
  - name: Mistral AI
    careers_url: https://jobs.lever.co/mistral
  - name: EU Lever
    careers_url: https://jobs.eu.lever.co/eulever/
  - name: ElevenLabs
    careers_url: https://jobs.ashbyhq.com/elevenlabs
    scan_method: websearch
    scan_query: 'site:jobs.ashbyhq.com/elevenlabs'
  - name: Semios
    careers_url: https://apply.workable.com/semios/
  - name: Old Workable
    careers_url: https://oldwork.workable.com
  - name: SmartCo
    careers_url: https://jobs.smartrecruiters.com/SmartCo
  - name: SmartTwo
    careers_url: https://careers.smartrecruiters.com/SmartTwo/
  - name: Recco
    careers_url: https://recco.recruitee.com/
  - name: OpenAI
    careers_url: https://openai.com/careers
    scan_method: websearch
  - name: Disabled
    careers_url: https://jobs.lever.co/disabled
    enabled: false
  - name: Disabled as text
    careers_url: https://disabled2.example/careers
    enabled: "false"
  - name: Aggregator without a URL
    provider: remotive
    enabled: true
  - name: Anthropic again
    careers_url: https://boards.greenhouse.io/anthropic
"""


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_pipeline_inbox_keeps_pending_urls_in_order(tmp_path: Path) -> None:
    urls = read_pipeline_inbox(_write(tmp_path, "pipeline.md", PIPELINE_MD))

    assert urls == [
        "https://jobs.example.com/posting/123",
        "https://boards.greenhouse.io/acme/jobs/456",
        "https://jobs.ashbyhq.com/acme/789",
        "https://jobs.ashbyhq.com/acme/790",
        "https://jobs.lever.co/beta/0c1d-22ef?lever-source=linkedin",
        "https://apply.workable.com/gamma/j/ABC123/",
        "https://delta.example/careers/staff-engineer",
        "https://numbered.example/jobs/7",
        "https://bare.example/jobs/9",
    ]


def test_pipeline_inbox_without_sections_or_items_is_empty(tmp_path: Path) -> None:
    path = _write(tmp_path, "pipeline.md", "# Pipeline\n\nNothing yet.\n- [ ] call Bob\n")

    assert read_pipeline_inbox(path) == []


def test_pipeline_inbox_reads_windows_line_endings_and_bom(tmp_path: Path) -> None:
    path = tmp_path / "pipeline.md"
    path.write_bytes("\ufeff## Pending\r\n- [ ] https://a.example/jobs/1\r\n".encode())

    assert read_pipeline_inbox(path) == ["https://a.example/jobs/1"]


def test_portals_map_each_ats_url_form_and_skip_disabled(tmp_path: Path) -> None:
    configs = read_portals(_write(tmp_path, "portals.yml", PORTALS_YML))

    assert configs == [
        SourceConfig("greenhouse", "anthropic"),
        SourceConfig("greenhouse", "polyai"),
        SourceConfig("greenhouse", "oldgh"),
        SourceConfig("greenhouse", "embedco"),
        SourceConfig("greenhouse", "brandedco"),  # the api: field names the board
        SourceConfig("lever", "mistral"),
        SourceConfig("lever", "eulever", base_url=LEVER_EU_API),
        SourceConfig("ashby", "elevenlabs"),
        SourceConfig("workable", "semios"),
        SourceConfig("workable", "oldwork"),
        SourceConfig("smartrecruiters", "SmartCo"),
        SourceConfig("smartrecruiters", "SmartTwo"),
        SourceConfig("recruitee", "recco"),
        SourceConfig("careers-page", "https://openai.com/careers"),
    ]


def test_portals_variants_top_level_list_and_plain_urls(tmp_path: Path) -> None:
    text = """\
- https://jobs.lever.co/plain
- name: Acme
  url: https://acme.example/jobs
- name: Off
  careers_url: https://off.example/jobs
  enabled: no
- name: Forced provider we do not have
  careers_url: https://careers.bigco.example
  provider: workday
"""
    configs = read_portals(_write(tmp_path, "portals.yml", text))

    assert configs == [
        SourceConfig("lever", "plain"),
        SourceConfig("careers-page", "https://acme.example/jobs"),
        SourceConfig("careers-page", "https://careers.bigco.example"),
    ]


def test_portals_companies_key_is_accepted(tmp_path: Path) -> None:
    text = "companies:\n  - name: X\n    careers_url: https://jobs.ashbyhq.com/x\n"

    assert read_portals(_write(tmp_path, "portals.yml", text)) == [SourceConfig("ashby", "x")]


def test_empty_portals_file_has_no_sources(tmp_path: Path) -> None:
    assert read_portals(_write(tmp_path, "portals.yml", "# nothing yet\n")) == []


def test_unreadable_yaml_is_a_value_error_naming_the_file(tmp_path: Path) -> None:
    path = _write(tmp_path, "portals.yml", "tracked_companies:\n  - name: [unclosed\n")

    with pytest.raises(ValueError, match=r"portals\.yml is not valid YAML \(line \d+\)"):
        read_portals(path)


def test_yaml_that_is_not_a_company_list_is_a_value_error(tmp_path: Path) -> None:
    path = _write(tmp_path, "portals.yml", "just a sentence\n")

    with pytest.raises(ValueError, match=r"portals\.yml does not hold a list of companies"):
        read_portals(path)


def test_binary_portals_file_is_a_value_error(tmp_path: Path) -> None:
    path = tmp_path / "portals.yml"
    path.write_bytes(b"\xff\xfe\x00binary")

    with pytest.raises(ValueError, match=r"portals\.yml is not UTF-8 text"):
        read_portals(path)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://boards.greenhouse.io/acme", SourceConfig("greenhouse", "acme")),
        ("https://job-boards.greenhouse.io/acme/jobs/1", SourceConfig("greenhouse", "acme")),
        ("https://job-boards.eu.greenhouse.io/acme", SourceConfig("greenhouse", "acme")),
        (
            "https://boards.greenhouse.io/embed/job_board?for=acme",
            SourceConfig("greenhouse", "acme"),
        ),
        (
            "https://boards-api.greenhouse.io/v1/boards/acme/jobs?content=true",
            SourceConfig("greenhouse", "acme"),
        ),
        ("https://jobs.lever.co/acme/", SourceConfig("lever", "acme")),
        ("https://api.lever.co/v0/postings/acme?mode=json", SourceConfig("lever", "acme")),
        ("https://jobs.eu.lever.co/acme", SourceConfig("lever", "acme", LEVER_EU_API)),
        ("https://jobs.ashbyhq.com/Acme", SourceConfig("ashby", "Acme")),
        (
            "https://api.ashbyhq.com/posting-api/job-board/acme",
            SourceConfig("ashby", "acme"),
        ),
        ("https://apply.workable.com/acme/", SourceConfig("workable", "acme")),
        (
            "https://apply.workable.com/api/v3/accounts/acme/jobs",
            SourceConfig("workable", "acme"),
        ),
        ("https://acme.workable.com/", SourceConfig("workable", "acme")),
        ("https://jobs.smartrecruiters.com/Acme1", SourceConfig("smartrecruiters", "Acme1")),
        ("https://careers.smartrecruiters.com/Acme1", SourceConfig("smartrecruiters", "Acme1")),
        (
            "https://api.smartrecruiters.com/v1/companies/Acme1/postings",
            SourceConfig("smartrecruiters", "Acme1"),
        ),
        ("https://acme.recruitee.com/o/backend", SourceConfig("recruitee", "acme")),
        ("https://boards.greenhouse.io/", None),
        ("https://www.workable.com/", None),
        ("https://app.recruitee.com/", None),
        ("https://acme.example/careers", None),
        ("ftp://jobs.lever.co/acme", None),
    ],
)
def test_ats_source_for_url(url: str, expected: SourceConfig | None) -> None:
    assert ats_source_for_url(url) == expected


def test_import_career_ops_reads_both_files(tmp_path: Path) -> None:
    _write(tmp_path, "portals.yml", PORTALS_YML)
    _write(tmp_path, "data/pipeline.md", PIPELINE_MD)

    sources, urls = import_career_ops(tmp_path)

    assert sources[0] == SourceConfig("greenhouse", "anthropic")
    assert len(sources) == 14
    assert urls[0] == "https://jobs.example.com/posting/123"
    assert len(urls) == 9


def test_import_career_ops_with_missing_files_is_empty(tmp_path: Path) -> None:
    assert import_career_ops(tmp_path) == ([], [])
    _write(tmp_path, "data/pipeline.md", "- [ ] https://a.example/jobs/1\n")
    assert import_career_ops(tmp_path) == ([], ["https://a.example/jobs/1"])

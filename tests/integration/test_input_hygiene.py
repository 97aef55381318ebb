"""Input a person types is checked at the door (issue 30): `add` refuses what is not an
http(s) URL with a host before anything is stored (the CLI and `POST /v1/jobs`, never an
internal error), a job reference too short or shared by several jobs names the jobs it
could mean instead of saying there is none, a title is shown without control characters,
and a profile is imported only from a regular file."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import AsyncIterator

import httpx
import pytest
from sqlalchemy import func, select

from jobctrl.api.app import create_app
from jobctrl.domain.events import JobEnriched
from jobctrl.stages.context import StageContext
from jobctrl.stages.enrich import enrich
from jobctrl.store import jobs, schema, tenancy
from tests.support.http import Route
from tests.support.processes import run_cli

BASE = "http://127.0.0.1:8765"
NOT_URLS = [
    "foo",
    "example.com/jobs/1",
    "ftp://example.com/job",
    "https://",
    "http://127.0.0.1:99999/x",
    "http://xn--.test/",
    "http://exa mple.com/",
]
# Two postings whose job ids share their first four characters (e82f…).
SHARED_PREFIX = ("https://jobs.example.com/hygiene/213", "https://jobs.example.com/hygiene/560")


def _jobs(store) -> int:
    with store.read() as conn:
        mine = tenancy.scoped(schema.jobs, conn)
        return conn.execute(select(func.count()).select_from(schema.jobs).where(mine)).scalar()


def _refused(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr
    return result.stderr


@pytest.fixture
async def api(home) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(home, port=8765)
    token = (home.root / "api-token").read_text().strip()
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app),
        base_url=BASE,
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    ) as c:
        yield c


@pytest.mark.parametrize("text", NOT_URLS)
def test_add_refuses_what_is_not_a_web_address_and_stores_nothing(home, store, text):
    said = _refused(run_cli("add", text))
    assert repr(text) in said, "the message quotes what was refused"
    # Several URLs: one bad one refuses them all, before any is stored.
    _refused(run_cli("add", "https://jobs.example.com/fine", text))
    assert _jobs(store) == 0


@pytest.mark.parametrize("text", NOT_URLS)
async def test_post_jobs_refuses_the_same_with_400_not_500(api, store, text):
    r = await api.post("/v1/jobs", json={"url": text})
    assert r.status_code == 400, r.text
    assert r.json()["error"]["code"] == "invalid_input"
    assert _jobs(store) == 0


def test_a_short_job_prefix_names_the_jobs_it_could_mean(home, store):
    job = jobs.create_job(store, "https://jobs.example.com/hygiene/short")
    said = _refused(run_cli("show", job.job_id[:3]))
    assert "too short" in said and "at least 4 characters" in said
    assert job.job_id in said, "the candidate is listed"
    assert _refused(run_cli("retry", job.job_id[:2])).count(job.job_id) == 1
    assert "no job 'zzzz'" in _refused(run_cli("show", "zzzz")), "nothing matches: no job"
    shown = run_cli("show", job.job_id[:4], "--json")
    assert shown.returncode == 0 and job.job_id in shown.stdout, "4 characters are enough"


async def test_a_prefix_several_jobs_share_lists_them(home, store, api):
    first, second = (jobs.create_job(store, url) for url in SHARED_PREFIX)
    assert first.job_id[:4] == second.job_id[:4] != first.job_id[:5]
    said = _refused(run_cli("show", first.job_id[:4]))
    assert "more than one job" in said
    assert first.job_id in said and second.job_id in said
    r = await api.get(f"/v1/jobs/{first.job_id[:4]}")
    assert r.status_code == 404 and r.json()["error"]["code"] == "ambiguous_job"
    assert second.job_id in r.json()["error"]["message"]
    assert (await api.get(f"/v1/jobs/{first.job_id[:5]}")).json()["jobId"] == first.job_id


async def test_a_stored_title_with_controls_is_shown_without_them(home, store, api):
    """A title stored before titles were cleaned at the door: the pages drop a control
    character or a right-to-left override when they print it (an override would reverse
    the row)."""
    job = jobs.create_job(store, "https://jobs.example.com/hygiene/bidi")
    title = "Backend\x07 Engineer \u202egnp.exe\u202c"
    fields = {"title": title, "company": "Acme\u2066 Corp"}
    with store.write() as tx:
        jobs.record_enrichment(tx, job.job_id, fields, "json-ld")
        tx.append(
            JobEnriched(
                job_id=job.job_id, method="json-ld", raw_artifact="r", text_artifact="t", **fields
            ),
            key=f"hygiene:{job.job_id}",
        )
    for path in ("/jobs?view=list", f"/jobs/{job.job_id}"):
        page = (await api.get(path)).text
        assert "Backend Engineer gnp.exe" in page, path
        assert not any(ch in page for ch in "\x07\u202e\u202c\u2066"), path


def test_profile_import_reads_only_a_regular_file_of_bounded_size(home, tmp_path):
    """`profile import /dev/zero` read without end and a FIFO blocked (issue 30): a
    device or a pipe is refused by its type before it is opened."""
    config = home.config_path.read_text()
    fifo = tmp_path / "resume.txt"
    os.mkfifo(fifo)
    for path, said in [
        ("/dev/zero", "a device or a pipe"),
        (str(fifo), "a device or a pipe"),
    ]:
        started = time.monotonic()
        assert said in _refused(run_cli("profile", "import", path, timeout=20)), path
        assert time.monotonic() - started < 10, f"{path} was read, not refused"
    big = tmp_path / "big.md"
    big.write_bytes(b"# A\n" + b"x" * 2_000_001)
    assert "larger than 2 MB" in _refused(run_cli("profile", "import", str(big)))
    assert home.config_path.read_text() == config, "nothing was written"


def test_a_fetched_title_with_a_nul_and_an_override_is_stored_clean(home, store, site, settings):
    """The page's JSON-LD fields hold a NUL (PostgreSQL cannot store one: Enrich failed
    there) and the title a right-to-left override: Enrich stores them without."""
    settings.set_value("fetch.allow_hosts", ["127.0.0.1"])
    settings.set_value("fetch.min_host_interval_seconds", 0.0)
    ld = {
        "@context": "https://schema.org",
        "@type": "JobPosting",
        "title": "Data\u0000 Engineer \u202egnp.exe",
        "hiringOrganization": {"@type": "Organization", "name": "Null\u0000 Corp"},
        "description": "<p>Build pipelines\u0000 in Python and SQL.</p>",
        "validThrough": "2099-01-31\u0000",
        "baseSalary": {"@type": "MonetaryAmount", "currency": "EUR\u0000",
                       "value": {"@type": "QuantitativeValue", "value": 90000, "unitText": "YEAR"}},
    }  # fmt: skip
    body = f'<html><head><script type="application/ld+json">{json.dumps(ld)}</script></head></html>'
    job = jobs.create_job(store, site.add("/jobs/nul", Route(body=body.encode())))
    ctx = StageContext(home=home, store=store)
    try:
        enrich(ctx, job.job_id, "run-hygiene")
    finally:
        ctx.close()
    row = jobs.job_row(store, job.job_id)
    assert (row["title"], row["company"]) == ("Data Engineer gnp.exe", "Null Corp")
    assert (row["valid_through"], row["salary_currency"]) == ("2099-01-31", "EUR")

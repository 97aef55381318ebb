"""Canonical URLs and deterministic ids."""

import pytest

from jobctrl.domain import ids


@pytest.mark.parametrize(
    "variant",
    [
        "https://jobs.example.com/acme/123",
        "https://jobs.example.com/acme/123/",
        "HTTPS://Jobs.Example.com/acme/123",
        "https://jobs.example.com:443/acme/123",
        "https://jobs.example.com/acme/123?utm_source=x&utm_medium=y&gclid=z",
        "https://jobs.example.com/acme/123#apply",
        "  https://jobs.example.com/acme/123?gh_src=abc  ",
    ],
)
def test_variants_of_one_posting_share_a_canonical_url(variant):
    assert ids.canonical_url(variant) == "https://jobs.example.com/acme/123"


def test_meaningful_query_parameters_are_kept_and_sorted():
    assert ids.canonical_url("https://x.test/jobs?id=7&b=2&utm_source=a") == (
        "https://x.test/jobs?b=2&id=7"
    )
    assert ids.canonical_url("https://x.test/jobs?id=7") != ids.canonical_url(
        "https://x.test/jobs?id=8"
    )


def test_ids_are_deterministic_and_derived_from_the_key():
    key = ids.idempotency_key(ids.canonical_url("https://x.test/a"), "local")
    assert key == ids.idempotency_key("https://x.test/a", "local")
    assert len(key) == 32
    assert ids.prep_workflow_id(key, "local") == f"prep-{key}"
    assert key.startswith(ids.job_id_for(key))


def test_unparseable_input_is_kept_verbatim():
    assert ids.canonical_url("not a url") == "not a url"
    assert ids.canonical_url("ftp://x.test/a") == "ftp://x.test/a"

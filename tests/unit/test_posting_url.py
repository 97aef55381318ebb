"""What `add` takes as a posting URL (domain.posting_url): http(s) with a host, a bare
www address read as https, everything else refused with a sentence (issue 30)."""

import pytest

from jobctrl.domain.errors import INVALID_INPUT, JobctrlError
from jobctrl.domain.posting_url import host_is_valid, posting_url


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("https://jobs.example.com/1", "https://jobs.example.com/1"),
        ("  http://127.0.0.1:8000/jobs/2 ", "http://127.0.0.1:8000/jobs/2"),
        ("www.example.com/jobs/1", "https://www.example.com/jobs/1"),
        ("WWW.Example.com", "https://WWW.Example.com"),
        ("http://[::1]:8080/a", "http://[::1]:8080/a"),
        ("https://bücher.example/stellen/3", "https://bücher.example/stellen/3"),
        ("https://xn--bcher-kva.example/x", "https://xn--bcher-kva.example/x"),
    ],
)
def test_web_addresses_are_taken(typed, stored):
    assert posting_url(typed) == stored


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("", "a posting URL is required"),
        ("foo", "is not a web address"),
        ("example.com/jobs/1", "starting with https://"),
        ("mailto:jobs@example.com", "is not a web address"),
        ("file:///etc/passwd", "is not a web address"),
        ("https://", "has no host name"),
        ("http://127.0.0.1:99999/x", "port that is not a number from 1 to 65535"),
        ("http://127.0.0.1:0/x", "port that is not a number from 1 to 65535"),
        ("http://host:abc/", "port that is not a number"),
        ("http://xn--.test/", "host name that is not valid"),
        ("http://a..b/", "host name that is not valid"),
        ("http://exa mple.com/", "spaces or control characters"),
        ("http://example.com/\x00", "spaces or control characters"),
    ],
)
def test_anything_else_is_refused_with_why(typed, said):
    with pytest.raises(JobctrlError, match=said) as refused:
        posting_url(typed)
    assert refused.value.code == INVALID_INPUT


def test_host_names_are_checked_label_by_label():
    assert host_is_valid("jobs.example.com") and host_is_valid("10.0.0.1")
    assert not host_is_valid("xn--") and not host_is_valid("a" * 64 + ".com")

"""``JOBCTRL_PUBLIC_URL``: which URLs name a host a reverse proxy serves the app as, and
which are refused with the reason (a wildcard, a path, a user, another scheme)."""

import pytest

from jobctrl.api.security import public_origins
from jobctrl.domain.errors import INVALID_INPUT, JobctrlError


def test_a_url_gives_the_exact_origin_and_the_host_values_that_name_it():
    (site,) = public_origins("https://Jobs.Example.org:443/")
    assert site.origin == "https://jobs.example.org"
    assert site.host_headers == {"jobs.example.org", "jobs.example.org:443"}
    (other,) = public_origins("http://10.0.0.5:8080")
    assert other.origin == "http://10.0.0.5:8080" and other.host_headers == {"10.0.0.5:8080"}
    (v6,) = public_origins("https://[2001:DB8::1]")
    assert v6.origin == "https://[2001:db8::1]"


def test_a_comma_list_names_several_and_nothing_is_the_loopback_default():
    sites = public_origins(" https://jobs.example.org , https://jobs.internal:8443,")
    assert [s.origin for s in sites] == ["https://jobs.example.org", "https://jobs.internal:8443"]
    assert public_origins(None) == () and public_origins("") == ()
    assert len(public_origins("https://a.example,https://a.example:443")) == 1


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("jobs.example.org", "https://"),
        ("ftp://jobs.example.org", "https://"),
        ("https://*.example.org", "wildcard"),
        ("https://jobs.*", "wildcard"),
        ("https://", "no host"),
        ("https://jobs.example.org.", "not a host name"),
        ("https://bücher.example", "xn--"),
        ("https://user:pw@jobs.example.org", "user"),
        ("https://jobs.example.org/jobctrl", "no path"),
        ("https://jobs.example.org/?a=1", "no path"),
        ("https://jobs.example.org:99999", "Port"),
        ("https://jobs.example.org,http://jobs.example.org", "already named"),
    ],
)
def test_a_url_that_cannot_be_used_is_refused_with_the_reason(value, why):
    with pytest.raises(JobctrlError) as refused:
        public_origins(value)
    assert refused.value.code == INVALID_INPUT
    assert why in refused.value.message and "JOBCTRL_PUBLIC_URL" in refused.value.message

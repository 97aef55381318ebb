"""Which IP addresses count as public, including IPv6 forms that embed an IPv4 address."""

from __future__ import annotations

import pytest

from jobctrl.fetch.addresses import is_public_address


@pytest.mark.parametrize(
    "ip",
    [
        "93.184.216.34",
        "8.8.8.8",
        "1.1.1.1",
        "2606:2800:220:1:248:1893:25c8:1946",
        "2a00:1450:4001:80b::200e",
        "::ffff:93.184.216.34",  # IPv4-mapped public
        "64:ff9b::5db8:d822",  # NAT64 of 93.184.216.34
        "2002:5db8:d822::1",  # 6to4 of 93.184.216.34
        "2001:0:4136:e378:8000:63bf:f7f7:f7f7",  # Teredo, server 65.54.227.120, client 8.8.8.8
    ],
)
def test_public_addresses(ip: str) -> None:
    assert is_public_address(ip) is True


@pytest.mark.parametrize(
    "ip",
    [
        # IPv4
        "127.0.0.1",
        "127.255.255.254",
        "10.0.0.1",
        "172.16.0.1",
        "172.31.255.255",
        "192.168.1.1",
        "169.254.169.254",  # cloud metadata
        "169.254.0.1",
        "100.64.0.1",  # CGNAT
        "100.127.255.254",
        "0.0.0.0",
        "0.1.2.3",
        "192.0.0.8",
        "192.0.2.1",  # documentation
        "198.51.100.7",
        "203.0.113.9",
        "198.18.0.1",  # benchmarking
        "192.88.99.1",  # 6to4 relay anycast
        "224.0.0.1",  # multicast
        "239.255.255.250",
        "240.0.0.1",  # reserved
        "255.255.255.255",
        # IPv6
        "::",
        "::1",
        "fe80::1",
        "fe80::1%eth0",
        "fc00::1",
        "fd00:ec2::254",  # AWS metadata
        "ff02::1",  # multicast
        "2001:db8::1",  # documentation
        "3fff::1",
        "2001:2::1",  # benchmarking
        "100::1",  # discard
        "fec0::1",  # site-local
        "::ffff:127.0.0.1",  # IPv4-mapped
        "::ffff:10.0.0.1",
        "::ffff:169.254.169.254",
        "::127.0.0.1",  # IPv4-compatible
        "::8.8.8.8",  # IPv4-compatible, deprecated even when public
        "::ffff:0:7f00:1",  # IPv4-translated
        "64:ff9b::7f00:1",  # NAT64 of 127.0.0.1
        "64:ff9b::a00:1",  # NAT64 of 10.0.0.1
        "64:ff9b:1::a00:1",  # local-use NAT64
        "2002:7f00:1::1",  # 6to4 of 127.0.0.1
        "2002:a9fe:a9fe::1",  # 6to4 of 169.254.169.254
        "2001:0:4136:e378:8000:63bf:3fff:fdd2",  # Teredo, client 192.0.2.45
        "2001:0:c000:0201:0:f227:80ff:fffe",  # Teredo, server 192.0.2.1
        # Not an address at all
        "",
        "localhost",
        "127.1",
        "2130706433",
        "999.1.1.1",
        "[::1]",
    ],
)
def test_non_public_addresses(ip: str) -> None:
    assert is_public_address(ip) is False

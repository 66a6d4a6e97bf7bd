"""The twin's kernel settings on a router with two parallel links to one peer: while one
link's IPv6 address is tentative (its link just came back: the kernel keeps the address
through the link's loss but runs DAD again) and its prefix route is already up, a connection
to the peer on that link must not take the other link's address as its source. bgpd connects
at once when the link comes up; the peer files a connection by its source address, so such
a connection ran as the other link's session (both ends Established) and left the two
remaining neighbours Idle as collisions (CI, aus1-br2 / aus1-sp1). Needs root; the window is
held open for the test by DAD on the one interface, so nothing here depends on timing."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator

import pytest
from twin_helpers import PREFIX, require_twin

from meetme.twin import runtime

require_twin()

A, B = f"{PREFIX}srcaddr-a", f"{PREFIX}srcaddr-b"
PEER_ON_SECOND = "2001:db8::6"

SOURCE = """
import errno, socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
try:
    s.connect((sys.argv[1], 179))
except OSError as e:
    print(errno.errorcode[e.errno])
else:
    print(s.getsockname()[0])
"""


def ip(*args: str) -> str:
    return subprocess.run(["ip", *args], check=True, capture_output=True, text=True).stdout


def source_toward(address: str) -> str:
    """The source address the kernel in A gives a connection to `address`, or the error."""
    done = subprocess.run(
        ["ip", "netns", "exec", A, "python3", "-c", SOURCE, address],
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


@pytest.fixture
def two_links() -> Iterator[None]:
    """A and B with the twin's sysctls, joined by two veth pairs; the first link up with its
    addresses usable, the second up with B's address only."""
    for ns in (A, B):
        if ns in runtime.netns_list():
            ip("netns", "del", ns)
        ip("netns", "add", ns)
    try:
        runtime._sysctls([A, B])
        for a, b in (("a1", "b1"), ("a2", "b2")):
            ip("link", "add", a, "netns", A, "type", "veth", "peer", "name", b, "netns", B)
        ip("-n", A, "address", "add", "2001:db8::5/127", "dev", "a1")
        ip("-n", B, "address", "add", "2001:db8::4/127", "dev", "b1")
        ip("-n", B, "address", "add", "2001:db8::6/127", "dev", "b2")
        for ns, links in ((A, ("a1", "a2")), (B, ("b1", "b2"))):
            for link in links:
                ip("-n", ns, "link", "set", link, "up")
        yield
    finally:
        for ns in (A, B):
            subprocess.run(["ip", "netns", "del", ns], check=False, capture_output=True)


def test_a_tentative_address_is_never_replaced_by_another_links_address(two_links: None) -> None:
    assert source_toward("2001:db8::4") == "2001:db8::5"
    # the second link's own address, tentative for a minute (DAD on this interface only)
    subprocess.run(
        ["ip", "netns", "exec", A, "sysctl", "-q", "-w", "net.ipv6.conf.a2.accept_dad=1"],
        check=True,
    )
    subprocess.run(
        ["ip", "netns", "exec", A, "sysctl", "-q", "-w", "net.ipv6.conf.a2.dad_transmits=60"],
        check=True,
    )
    ip("-n", A, "address", "add", "2001:db8::7/127", "dev", "a2")
    assert "tentative" in ip("-n", A, "-6", "address", "show", "dev", "a2")
    assert " dev a2 " in ip("-n", A, "-6", "route", "get", PEER_ON_SECOND)  # the link is up
    # the second link's own link-local address, or none (the connection fails, FRR tries
    # again): never the first link's, which B knows as its neighbour there
    links = json.loads(ip("-n", A, "-j", "-6", "address", "show", "dev", "a2", "scope", "link"))
    own = [a["local"] for link in links for a in link["addr_info"] if "local" in a]
    assert source_toward(PEER_ON_SECOND) in ("EADDRNOTAVAIL", *own)
    # what the kernel does without the twin's setting: the crossed connection
    subprocess.run(
        ["ip", "netns", "exec", A, "sysctl", "-q", "-w", "net.ipv6.conf.a2.use_oif_addrs_only=0"],
        check=True,
    )
    assert source_toward(PEER_ON_SECOND) == "2001:db8::5"
    assert "tentative" in ip("-n", A, "-6", "address", "show", "dev", "a2")

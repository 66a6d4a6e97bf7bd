"""ADDR-023: a tenant network's gateway subnet lies outside the site's own pools (p2p, loopback,
VTEP), which meetme numbers the fabric from; at the gateway, just inside and just outside each
pool's edge."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import findings_of, line_of, lint_repo, replace_in

TENANTS = "intent/aus1/tenants.yaml"
OOB_1 = "gateway_v4: 10.51.1.1/24"  # gpu-a-oob-1, VRF gpu-a-mgmt
COMPUTE_1_V6 = 'gateway_v6: "2001:db8:50:1::1/64"'  # gpu-a-compute-1, VRF gpu-a
# aus1's pools: loopback_v4 10.0.0.0/24, vtep_v4 10.0.1.0/24, p2p_v4 10.1.0.0/16,
# loopback_v6 2001:db8:0:ff::/64, p2p_v6 2001:db8:0:1000::/52


def _gateway(repo: Path, old: str, new: str) -> Path:
    tenants = repo / TENANTS
    replace_in(tenants, old, new)
    return tenants


def test_example_has_no_addr023_findings(example: Path) -> None:
    assert findings_of(lint_repo(example), "ADDR-023") == []


def test_addr023_a_subnet_inside_the_p2p_pool(example: Path) -> None:
    """The review's case: the handoff reuses the border leaves' /31s of pools.p2p_v4 inside
    the handed-off VRF, beside the network's anycast gateway."""
    tenants = _gateway(example, OOB_1, "gateway_v4: 10.1.21.1/24")
    result = lint_repo(example)
    assert findings_of(result, "ADDR-023") == [
        f"{TENANTS}:{line_of(tenants, 'gpu-a-oob-1:')}: gateway_v4 10.1.21.1/24 of network "
        "gpu-tenant-a/gpu-a-oob-1 (VRF gpu-a-mgmt): its subnet 10.1.21.0/24 overlaps "
        "pools.p2p_v4 10.1.0.0/16, from which meetme numbers the fabric links' /31s: the "
        "VRF-lite handoff reuses each border leaf's /31 inside every handed-off VRF (an EOS "
        "MLAG pair its peer VLAN's, in its VRF peerings), so a handoff sub-interface and the "
        "anycast gateway can hold one address in the network's VRF; give the network a subnet "
        "outside the site's pools"
    ]
    assert result.errors


def test_addr023_a_subnet_inside_the_vtep_pool(example: Path) -> None:
    tenants = _gateway(example, OOB_1, "gateway_v4: 10.0.1.129/25")
    assert findings_of(lint_repo(example), "ADDR-023") == [
        f"{TENANTS}:{line_of(tenants, 'gpu-a-oob-1:')}: gateway_v4 10.0.1.129/25 of network "
        "gpu-tenant-a/gpu-a-oob-1 (VRF gpu-a-mgmt): its subnet 10.0.1.128/25 overlaps "
        "pools.vtep_v4 10.0.1.0/24, from which meetme numbers the VTEP addresses and MLAG "
        "pairs' anycast VTEPs every tunnel ends on, routed in the underlay: the tenant's hosts "
        "would hold the fabric's tunnel endpoints, which collide as soon as the subnet meets "
        "the default VRF (a public prefix is leaked to the Internet table); give the network a "
        "subnet outside the site's pools"
    ]


def test_addr023_a_subnet_holding_the_pools_names_each(example: Path) -> None:
    """A /15 holds loopback_v4, vtep_v4 and p2p_v4: one finding per pool it overlaps."""
    _gateway(example, OOB_1, "gateway_v4: 10.0.0.1/15")
    hits = findings_of(lint_repo(example), "ADDR-023")
    assert sorted(h.split("overlaps ")[1].split(",")[0] for h in hits) == [
        "pools.loopback_v4 10.0.0.0/24",
        "pools.p2p_v4 10.1.0.0/16",
        "pools.vtep_v4 10.0.1.0/24",
    ]


@pytest.mark.parametrize(
    ("gateway", "inside"),
    [
        ("10.0.255.254/31", False),  # 10.0.255.254-255: touches p2p_v4's first address
        ("10.1.0.1/31", True),  # p2p_v4's first two addresses
        ("10.1.255.254/31", True),  # its last two
        ("10.2.0.1/31", False),  # the first two past it
        ("10.0.1.255/31", True),  # vtep_v4's last two
        ("10.0.0.255/31", True),  # loopback_v4's last two (vtep_v4 follows it)
    ],
)  # /31: the narrowest gateway subnet (the schema refuses a /32 gateway)
def test_addr023_v4_pool_edges(example: Path, gateway: str, inside: bool) -> None:
    _gateway(example, OOB_1, f"gateway_v4: {gateway}")
    hits = findings_of(lint_repo(example), "ADDR-023")
    assert len(hits) == (1 if inside else 0), hits


@pytest.mark.parametrize(
    ("gateway", "pool"),
    [
        ("2001:db8:0:fff::1/64", None),  # just below p2p_v6 2001:db8:0:1000::/52
        ("2001:db8:0:1000::1/64", "p2p_v6"),  # its first /64
        ("2001:db8:0:1fff::1/64", "p2p_v6"),  # its last /64
        ("2001:db8:0:2000::1/64", None),  # just past it
        ("2001:db8:0:fe::1/64", None),  # just below loopback_v6 2001:db8:0:ff::/64
        ("2001:db8:0:ff::1/64", "loopback_v6"),
        ("2001:db8:0:100::1/64", None),  # just past it
    ],
)
def test_addr023_v6_pool_edges(example: Path, gateway: str, pool: str | None) -> None:
    _gateway(example, COMPUTE_1_V6, f'gateway_v6: "{gateway}"')
    hits = findings_of(lint_repo(example), "ADDR-023")
    assert [h.split("overlaps pools.")[1].split(" ")[0] for h in hits] == (
        [pool] if pool else []
    ), hits

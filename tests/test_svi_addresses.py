"""EVPN-023 and the NVUE SVI's own address: taken from the top of the subnet by the leaf's place
among the network's leaves that need one, so any prefix length works; a subnet that cannot hold
the gateway and those leaves is a finding at the gateway, just inside and just outside."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import findings_of, line_of, lint_repo, replace_in
from meetme.generators.resolve.placement import svi_own_addresses

from meetme.pipeline import device_models

TENANTS = "intent/aus1/tenants.yaml"
COMPUTE_1_V4 = "gateway_v4: 10.50.1.1/24"  # gpu-a-compute-1 on rack dh1-r10: NVUE lf1, lf2
COMPUTE_1_V6 = 'gateway_v6: "2001:db8:50:1::1/64"'


def _svi_addresses(
    repo: Path, vlan: int, *, clean: bool = True
) -> dict[str, tuple[str | None, str | None]]:
    result = lint_repo(repo)
    errors = [f"{f.rule} {f.message}" for f in result.errors]
    assert not errors if clean else not [e for e in errors if e.startswith("EVPN-023")], errors
    found = {}
    for name, model in device_models(result).items():
        for v in model.evpn.vlans if model.evpn else ():
            if v.id == vlan and v.svi is not None:
                own_v4 = v.svi.ipv4.cidr if v.svi.ipv4 else None
                own_v6 = v.svi.ipv6.cidr if v.svi.ipv6 else None
                found[name] = (own_v4, own_v6)
    return found


def test_nvue_leaves_take_the_top_of_the_subnet_by_their_place(example: Path) -> None:
    assert _svi_addresses(example, 101) == {
        "aus1-lf1": ("10.50.1.254/24", "2001:db8:50:1:ffff:ffff:ffff:ffff/64"),
        "aus1-lf2": ("10.50.1.253/24", "2001:db8:50:1:ffff:ffff:ffff:fffe/64"),
        # mel1's VLAN 101 is on NX-OS leaves: their SVI is the anycast gateway itself, no own
        # address taken from the subnet (mel1-lf103/104 carry no network of VLAN 101)
        **dict.fromkeys(
            ("mel1-lf101", "mel1-lf102", "mel1-lf201", "mel1-lf202"),
            ("10.150.1.1/24", "2001:db8:150:1::1/64"),
        ),
    }


def test_a_26_works_for_leaf_ids_above_62(example: Path) -> None:
    """The old scheme (top minus device id) refused this /26 for lf1 (id 101). (The handoff's
    export_north then wants the /26 listed: HANDOFF-008, not this feature's.)"""
    replace_in(example / TENANTS, COMPUTE_1_V4, "gateway_v4: 10.50.1.129/26")
    found = _svi_addresses(example, 101, clean=False)
    assert (found["aus1-lf1"][0], found["aus1-lf2"][0]) == ("10.50.1.190/26", "10.50.1.189/26")


def test_the_gateway_at_the_top_is_skipped(example: Path) -> None:
    replace_in(example / TENANTS, COMPUTE_1_V4, "gateway_v4: 10.50.1.254/24")
    found = _svi_addresses(example, 101)
    assert (found["aus1-lf1"][0], found["aus1-lf2"][0]) == ("10.50.1.253/24", "10.50.1.252/24")


@pytest.mark.parametrize(
    ("gateway", "own"),
    [
        # IPv4 /30: 2 host addresses: the gateway and one leaf (inside), not two
        ("10.0.0.1/30", ["10.0.0.2/30"]),
        # IPv6 /126: 3 host addresses (the subnet-router anycast ::0 is none)
        ("2001:db8::1/126", ["2001:db8::3/126", "2001:db8::2/126"]),
    ],
)
def test_own_addresses_just_fit(gateway: str, own: list[str]) -> None:
    assert svi_own_addresses(gateway, len(own)) == own
    assert svi_own_addresses(gateway, len(own) + 1) is None


@pytest.mark.parametrize(
    ("gateway", "fits"),
    [
        ("gateway_v4: 10.50.1.1/29", True),  # 6 hosts: gateway + 2 leaves
        ("gateway_v4: 10.50.1.1/30", False),  # 2 hosts: the gateway and one leaf only
    ],
)
def test_evpn023_v4_subnet_for_the_gateway_and_two_leaves(
    example: Path, gateway: str, fits: bool
) -> None:
    tenants = example / TENANTS
    replace_in(tenants, COMPUTE_1_V4, gateway)
    hits = findings_of(lint_repo(example), "EVPN-023")
    if fits:
        assert hits == []
    else:
        assert hits == [
            f"{TENANTS}:{line_of(tenants, gateway)}: gateway_v4 10.50.1.1/30 of network "
            "gpu-tenant-a/gpu-a-compute-1: 10.50.1.0/30 holds 2 host addresses, but the gateway "
            "and an SVI address for each of aus1-lf1, aus1-lf2 need 3; use a wider subnet"
        ]


@pytest.mark.parametrize(
    ("gateway", "fits"),
    [
        ('gateway_v6: "2001:db8:50:1::1/126"', True),  # 3 hosts: exactly gateway + 2 leaves
        ('gateway_v6: "2001:db8:50:1::1/127"', False),  # 1 host
    ],
)
def test_evpn023_v6_exact_boundary(example: Path, gateway: str, fits: bool) -> None:
    tenants = example / TENANTS
    replace_in(tenants, COMPUTE_1_V6, gateway)
    hits = findings_of(lint_repo(example), "EVPN-023")
    assert (hits == []) is fits
    if not fits:
        assert hits[0].startswith(f"{TENANTS}:{line_of(tenants, gateway)}: gateway_v6 ")

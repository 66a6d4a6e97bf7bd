"""A toy fifth platform: the whole plug-in is this module plus templates/ beside it. It writes
two files per device (the main config and a BGP file) and spells names with its own filter."""

from __future__ import annotations

from pathlib import Path

from meetme.generators.platforms import (
    Capabilities,
    LocalUsers,
    OutputFile,
    Platform,
    UserRole,
    gaps,
)


def shouting(text: str) -> str:
    """The toy OS writes interface names in capitals."""
    return text.upper()


PLATFORM = Platform(
    name="toy_os",
    title="Toy OS 1.0",
    management_interface="mgmt",
    fixed_management_vrf=None,
    mtu_overhead=14,  # like IOS-XR: the L2 MTU
    subinterface_mtu_overhead=18,
    svi_format="vlan.{vlan}",
    lag_format="agg{n}",
    mlag_peer_link="agg1000",
    loopback_names=("lo0", "lo1"),
    capabilities=Capabilities(),  # no EVPN, no RPKI, no bonds
    local_users=LocalUsers(
        admin=UserRole(("admin",)), operator=UserRole(("viewer",)), password_hash="sha512_crypt"
    ),
    files=(OutputFile("device.j2", ".conf"), OutputFile("bgp.j2", ".bgp")),
    filters={"shouting": shouting},
    gap_checks=(gaps.rpki, gaps.static_next_hop, gaps.no_host_bonds),
    templates=Path(__file__).resolve().parent / "templates",
)

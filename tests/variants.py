"""Intent variants shared by several test modules: each edits a copy of the example intent
(a repository folder holding `intent/`) into a design the example itself does not have, and
the text blocks and constants those edits and their tests name. Variants only one test module
uses stay in that module; conftest.py holds the older shared ones (`borders_to`,
`mel1_borders_to_iosxr`, `move_device`, ...)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from conftest import borders_to, limits_within, move_device, replace_in
from meetme.generators.model import DeviceModel
from meetme.generators.platforms import PLATFORMS
from overlay_edits import add_attachment

TENANTS = "intent/aus1/tenants.yaml"
CLOUDS = "intent/aus1/clouds.yaml"
CIRCUITS = "intent/aus1/circuits.yaml"
# aus1-lf4's management address: its own config only
LF4_MGMT = ("management: 192.168.10.104/24", "management: 192.168.10.114/24")

# storage-back-1 (VLAN 211) and storage-back-2 (VLAN 212) also on the EOS border leaves
STORAGE_ON_EOS = (
    "l2vni: 10211, racks: [dh1-r10, dh1-r11, dh2-r10]}",
    "l2vni: 10211, racks: [dh1-r10, dh1-r11, dh2-r10], leaves: [aus1-bl1, aus1-bl2]}",
)

EOS_MLAG = """
mode: mlag
leaves: [aus1-bl1, aus1-bl2]
ports: [Ethernet20/1, Ethernet21/1]
peer_link: [Ethernet30/1, Ethernet31/1]
anycast_vtep: 10.0.1.211/32
lacp_system_mac: "02:1c:73:00:00:21"
networks: [storage-back-1]
"""

BORDER_PORTS = {
    "arista_eos": ("7060X6-64PE", "Ethernet{}/1"),
    "cisco_nxos": ("N9K-C9364D-GX2A", "Ethernet1/{}"),
    "nvidia_nvue": ("SN5600", "swp{}"),
}


def add(repo: Path, name: str, body: str) -> Path:
    """A further attachment, written before the example's ESI one."""
    return add_attachment(repo, name, body)


def borders_to_eos(repo: Path) -> None:
    """7060X6-64PE (hardware.yaml: 64 x 800G OSFP, Ethernet<port>/<lane>)."""
    borders_to(repo, "arista_eos", "7060X6-64PE", "Ethernet{}/1")


def borders_to_nxos(repo: Path) -> None:
    borders_to(repo, "cisco_nxos", "N9K-C9364D-GX2A", "Ethernet1/{}")
    no_rpki(repo)  # NX-OS has no verified RPKI form (PLAT-001)
    limits_within(repo, PLATFORMS["cisco_nxos"].max_prefix_limit)  # no full table (PLAT-022)


def front_ends_private(repo: Path) -> None:
    """gpu-a's public front ends (gpu-a-public) numbered from private space, inside gpu-a's
    export_north: for a design that takes gpu-a's way to the Internet away, where a public
    subnet with no way out is HANDOFF-018's error."""
    tenants = repo / TENANTS
    tenants.write_text(
        tenants.read_text()
        .replace("gateway_v4: 198.51.100.129/26", "gateway_v4: 10.50.5.1/24")
        .replace('gateway_v6: "2001:db8:4000:50::1/64"', 'gateway_v6: "2001:db8:50:5::1/64"')
    )


def _no_handoff(repo: Path) -> None:
    """No VRF-lite handoff, so no tenant VRF has a way north."""
    attachments = repo / "intent/aus1/attachments.yaml"
    text = attachments.read_text()
    attachments.write_text(text[: text.index("    handoff:")])
    front_ends_private(repo)


def border_on(platform: str) -> Callable[[Path], None]:
    """Both borders on `platform` without the VRF-lite handoff (PLAT-003 on NVUE;
    test_eos_border_handoff.py pins EOS and NX-OS borders with it);
    on a platform without RPKI (PLAT-001) the caches go and EDGE-007, which asks for them, is
    waived, as a site running origin validation elsewhere would."""

    def scenario(repo: Path) -> None:
        model, port = BORDER_PORTS[platform]
        borders_to(repo, platform, model, port)
        _no_handoff(repo)
        if not PLATFORMS[platform].capabilities.rpki:
            no_rpki(repo)
        limits_within(repo, PLATFORMS[platform].max_prefix_limit)  # PLAT-022

    return scenario


def no_rpki(repo: Path) -> None:
    """The RTR caches go and EDGE-007, which asks for them, is waived."""
    peering = repo / "intent/aus1/peering.yaml"
    peering.write_text(re.sub(r"\n +rpki_caches:.*\n.*\n.*", "", peering.read_text()))
    with (repo / "intent/organisation.yaml").open("a") as handle:
        handle.write(
            "waivers:\n  - {rule: EDGE-007, object: sites.aus1, reason: origin "
            "validation on the route servers, owner: netops, expires: 2099-01-01}\n"
        )


def nxos_leaves_on_eos(repo: Path) -> None:
    for leaf in ("aus1-lf3", "aus1-lf4"):
        move_device(repo, "aus1", leaf, "arista_eos", "7060X6-64PE")
    links = repo / "intent/aus1/links.yaml"
    old = 'a: {role: leaf, platform: cisco_nxos, interface: "Ethernet1/{n}"'
    assert old in links.read_text()
    links.write_text(
        links.read_text().replace(
            old, 'a: {role: leaf, platform: arista_eos, interface: "Ethernet{n}/1"'
        )
    )


def eos_mlag_pair_with_one_aws_leaf(repo: Path) -> None:
    """The EOS border leaves as an MLAG pair, AWS landing on aus1-bl1 only."""
    replace_in(repo / TENANTS, *STORAGE_ON_EOS)
    add(repo, "mdf-eos-mlag", EOS_MLAG)
    for path, gone in (
        (repo / CLOUDS, ("private-2:", "transit-2:")),
        (repo / CIRCUITS, ("XC-AWS-2",)),
    ):
        lines = path.read_text().splitlines(keepends=True)
        path.write_text("".join(line for line in lines if not any(g in line for g in gone)))


def without_pair_default_clause(model: DeviceModel, maps: str = "RM-MLAG-VRF-PEER-") -> DeviceModel:
    """`model` with the pair's clause for the borders' default route (seq 40) gone from every
    route map named from `maps` on: the policy as first built, passing the route by a class
    tag the eBGP handoff never carries."""
    return model.model_copy(
        update={
            "route_maps": tuple(
                rm.model_copy(update={"entries": tuple(e for e in rm.entries if e.seq != 40)})
                if rm.name.startswith(maps)
                else rm
                for rm in model.route_maps
            )
        }
    )

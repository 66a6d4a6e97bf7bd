"""The example turned into a 3-tier site of two pods (RFC 7938 5-stage): hall1 holds spines
sp1/sp2 and the Cumulus leaves, hall2 spines sp3/sp4 and the NX-OS leaves; two EOS super-spines
ss1/ss2 take the borders' links from the spines and join the pods. The leaf-to-spine rules are
the example's own: a rule never pairs devices of two pods, so each leaf is cabled to its own
pod's spines only."""

from __future__ import annotations

from pathlib import Path

from conftest import replace_in

DEVICES = "intent/aus1/devices.yaml"
SITE = "intent/aus1/site.yaml"
LINKS = "intent/aus1/links.yaml"

POD_OF = {
    "aus1-sp1": "hall1",
    "aus1-sp2": "hall1",
    "aus1-lf1": "hall1",
    "aus1-lf2": "hall1",
    "aus1-lf5": "hall1",
    "aus1-lf6": "hall1",
    "aus1-sp3": "hall2",
    "aus1-sp4": "hall2",
    "aus1-lf3": "hall2",
    "aus1-lf4": "hall2",
}

SUPER_SPINES = "".join(
    f"""\
      aus1-ss{n}:
        id: {30 + n}
        role: super_spine
        platform: arista_eos
        model: 7060X6-64PE
        room: aus1-dh{n}
        rack: dh{n}-r01
        management: 192.168.10.4{n}/24
        power_feeds: [A, B]
"""
    for n in (1, 2)
)


def three_tier(repo: Path) -> None:
    """The example with two EOS super-spines ss1/ss2 that take the borders' links from the
    spines (one pod: no pods: yet)."""
    with (repo / DEVICES).open("a") as devices:
        devices.write(SUPER_SPINES)
    replace_in(
        repo / LINKS,
        """\
        a: {role: spine, interface: "Ethernet{n}/1", first: 1, peer_id_base: 1}
        b: {role: border, interface: "FourHundredGigE0/0/0/{n}", first: 0, peer_id_base: 11}
        count: 2
        speed: 400G
""",
        """\
        a: {role: super_spine, interface: "Ethernet{n}/1", first: 1, peer_id_base: 1}
        b: {role: border, interface: "FourHundredGigE0/0/0/{n}", first: 0, peer_id_base: 31}
        count: 2
        speed: 400G
      - name: spine-to-super-spine
        a: {role: spine, interface: "Ethernet{n}/1", first: 1, peer_id_base: 31}
        b: {role: super_spine, interface: "Ethernet{n}/1", first: 9, peer_id_base: 11}
        speed: 400G
""",
    )
    replace_in(
        repo / SITE,
        "        spine: 4200009000",
        "        super_spine: 4200009500\n        spine: 4200009000",
    )


def two_pods(repo: Path, pods: str = "      hall1: {id: 1}\n      hall2: {id: 2}\n") -> None:
    devices = repo / DEVICES
    text = devices.read_text()
    for name, pod in POD_OF.items():
        start = text.index(f"      {name}:\n")
        end = text.index("\n", text.index("        id:", start)) + 1
        text = f"{text[:end]}        pod: {pod}\n{text[end:]}"
    devices.write_text(text)
    three_tier(repo)
    replace_in(repo / SITE, "    underlay:\n", f"    pods:\n{pods}    underlay:\n")

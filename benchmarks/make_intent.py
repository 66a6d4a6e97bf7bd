"""Write a valid intent of any size shaped like the shipped example, for benchmarks/run.py.

    python benchmarks/make_intent.py --devices 1040 --out /tmp/bench1040

writes /tmp/bench1040/intent/ (and nothing else): the shipped example's two sites, its SRv6
domain and its DCI circuits, with `aus1` grown to the size asked. aus1's edge is the shipped
intent/aus1 verbatim (the IOS-XR border pair with its IX, two transits and the PNI, the six
border leaves with the AWS, Azure and Google on-ramps and the VRF-lite handoff, the tenants'
VRFs and L3VNIs) and its fabric is intent/mel1's five-stage Clos grown: two EOS super-spines,
then pods of two EOS spines and up to 124 leaves each, every leaf pair in a rack of its own
with its hosts attached by MLAG (Cumulus and EOS), vPC (NX-OS) or EVPN multihoming (Cumulus),
an odd leaf single-homed. Each pod has leaves of two platforms, cycling over NVUE / NX-OS /
EOS. intent/mel1 (16 devices), intent/dci.yaml and intent/srv6.yaml are the example's, except
that aus1's SRv6 members are its IOS-XR borders only: the example's two SRv6 leaves (static
uN SIDs) have no match here, since a generated leaf's id (1000 and up) does not fit the node
uSID's low byte (SRV6-001). --devices counts every device of both sites.

Ports fit the hardware catalogue (HW-001) at every size: a 64-port spine spends two cages on
the super-spines and breaks the other 62 out into 2 x 400G (EthernetP/1 for the pod's first
platform, EthernetP/5 for the second), so 124 leaves; a super-spine spends two cages on the
borders and breaks the other 62 out the same way (odd pods on /1, even on /5), so 124 spines,
62 pods: up to about 7,800 devices. The pools are widened to hold them. The output is a
function of --devices only, so two runs compare the same intent.
"""

from __future__ import annotations

import argparse
import ipaddress
import math
import shutil
import sys
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "intent"
SITE = "aus1"
OTHER_SITE = "mel1"  # copied as it is, with the DCI circuits to it and the SRv6 domain
OTHER_DEVICES = len(
    yaml.safe_load((EXAMPLE / OTHER_SITE / "devices.yaml").read_text())["sites"][OTHER_SITE][
        "devices"
    ]
)
# 2 borders, 2 super-spines, 6 border leaves (the example's edge) and the other site
FIXED = 10 + OTHER_DEVICES
SPINES_PER_POD = 2
GROUP_MAX = 62  # leaves of one platform in a pod: one sub-port of each of 62 spine cages
POD_MAX = 62  # pods: two spines each on one sub-port of each of 62 super-spine cages
MIN_DEVICES = FIXED + SPINES_PER_POD + 2

# The pods' two leaf platforms, cycling: every leaf platform in both lane positions.
POD_PLATFORMS = [
    ("nvidia_nvue", "cisco_nxos"),
    ("arista_eos", "nvidia_nvue"),
    ("cisco_nxos", "arista_eos"),
]
LEAF = {  # model, uplink pattern, host ports, MLAG peer link (as the example names them)
    "nvidia_nvue": ("SN5600", "swp{n}", ["swp1", "swp2", "swp3", "swp4"], ["swp57", "swp58"]),
    "cisco_nxos": (
        "N9K-C9364D-GX2A",
        "Ethernet1/{n}",
        ["Ethernet1/1", "Ethernet1/2", "Ethernet1/3", "Ethernet1/4"],
        ["Ethernet1/53", "Ethernet1/54"],
    ),
    "arista_eos": (
        "7060X6-64PE",
        "Ethernet{n}/1",
        ["Ethernet1/1", "Ethernet2/1", "Ethernet3/1", "Ethernet4/1"],
        ["Ethernet57/1", "Ethernet58/1"],
    ),
}
SUPER_SPINE_IDS = (5, 6)
MGMT = ipaddress.IPv4Network("192.168.0.0/16")
VTEP_POOL = ipaddress.IPv4Network("10.0.64.0/18")
ANYCAST_BASE = 8192  # MLAG anycast VTEPs above every device id in the VTEP pool


def _spine_id(pod: int, j: int) -> int:
    return 100 + SPINES_PER_POD * (pod - 1) + j


def _leaf_id(pod: int, group: int, i: int) -> int:
    return 1000 + 128 * (pod - 1) + 64 * group + i


def _mgmt(device_id: int) -> str:
    return f"{MGMT.network_address + 256 + device_id}/{MGMT.prefixlen}"


def _shape(devices: int) -> list[list[int]]:
    """Leaves of each of the two groups of each pod."""
    rest = devices - FIXED
    pods = math.ceil(rest / (SPINES_PER_POD + 2 * GROUP_MAX))
    if pods > POD_MAX:
        raise SystemExit(f"at most {POD_MAX} pods: --devices too large")
    leaves = rest - pods * SPINES_PER_POD
    shape = []
    for pod in range(pods):
        count = leaves // pods + (1 if pod < leaves % pods else 0)
        shape.append([math.ceil(count / 2), count // 2])
    return shape


def _load(name: str) -> Any:
    return yaml.safe_load((EXAMPLE / SITE / name).read_text())["sites"][SITE]


class _Plain(yaml.SafeDumper):
    """Writes a list used twice in full, never as a YAML alias."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _dump(path: Path, comment: str, site: dict[str, Any]) -> None:
    body = yaml.dump({"sites": {SITE: site}}, Dumper=_Plain, sort_keys=False, width=4096)
    path.write_text(f"# {comment}\n{body}")


def make_intent(devices: int, out: Path) -> Path:
    """Write the intent of `devices` devices to out/intent (replaced) and return that folder."""
    if devices < MIN_DEVICES:
        raise SystemExit(f"--devices must be at least {MIN_DEVICES}")
    shape = _shape(devices)
    intent = out / "intent"
    if intent.exists():
        shutil.rmtree(intent)
    (intent / SITE).mkdir(parents=True)
    shutil.copy(EXAMPLE / "organisation.yaml", intent)
    shutil.copytree(EXAMPLE / OTHER_SITE, intent / OTHER_SITE)
    shutil.copy(EXAMPLE / "dci.yaml", intent)
    srv6 = yaml.safe_load((EXAMPLE / "srv6.yaml").read_text())
    members = srv6["srv6"]["sites"][SITE]["devices"]
    edge = _load("devices.yaml")["devices"]
    srv6["srv6"]["sites"][SITE]["devices"] = [d for d in members if edge[d]["role"] == "border"]
    (intent / "srv6.yaml").write_text(
        "# The example's SRv6 domain; aus1's members its IOS-XR borders (make_intent.py)\n"
        + yaml.dump(srv6, Dumper=_Plain, sort_keys=False, width=4096)
    )
    for name in ("circuits.yaml", "peering.yaml", "clouds.yaml"):  # the edge, verbatim
        shutil.copy(EXAMPLE / SITE / name, intent / SITE / name)

    site = _load("site.yaml")
    site["management"]["gateway"] = str(MGMT.network_address + 1)
    site["pools"] = {
        "loopback_v4": "10.0.0.0/19",
        "loopback_v6": "2001:db8:0:ff::/64",
        "vtep_v4": str(VTEP_POOL),
        "p2p_v4": "10.64.0.0/12",
        "p2p_v6": "2001:db8:1::/48",
        "links_per_device": 16,
    }
    site["asn"]["shared"] = {"super_spine": 4200009000, "spine": 4200009100}
    site["pods"] = {f"pod{p}": {"id": p} for p in range(1, len(shape) + 1)}
    _dump(intent / SITE / "site.yaml", "Site: the example's aus1, pools for any size", site)

    rooms = _load("rooms.yaml")
    halls = {n: r for n, r in rooms["rooms"].items() if r["kind"] == "data_hall"}
    rooms["rooms"] = {n: r for n, r in rooms["rooms"].items() if r["kind"] != "data_hall"}
    rooms["racks"] = {n: r for n, r in rooms["racks"].items() if r["room"] in rooms["rooms"]}
    rooms["racks"]["mdf-a-r03"] = {"room": f"{SITE}-mdf-a"}
    rooms["racks"]["mdf-b-r03"] = {"room": f"{SITE}-mdf-b"}
    hall_shapes = list(halls.values())

    example_devices = _load("devices.yaml")["devices"]
    dev: dict[str, Any] = {}
    for name, d in example_devices.items():
        if d["role"] in ("border", "border_leaf"):
            dev[name] = {**d, "management": _mgmt(d["id"])}
    for k, device_id in enumerate(SUPER_SPINE_IDS, start=1):
        side = "ab"[k - 1]
        dev[f"{SITE}-ss{k}"] = {
            "id": device_id,
            "role": "super_spine",
            "platform": "arista_eos",
            "model": "7060X6-64PE",
            "room": f"{SITE}-mdf-{side}",
            "rack": f"mdf-{side}-r03",
            "management": _mgmt(device_id),
            "power_feeds": ["A", "B"],
        }

    rules: list[dict[str, Any]] = [
        {
            "name": "super-spine-to-border",
            "a": {
                "role": "super_spine",
                "interface": "Ethernet{n}/1",
                "first": 1,
                "peer_id_base": 1,
            },
            "b": {
                "role": "border",
                "interface": "FourHundredGigE0/0/0/{n}",
                "first": 0,
                "peer_id_base": SUPER_SPINE_IDS[0],
            },
            "speed": "400G",
        },
    ]
    rules += [r for r in _load("links.yaml")["link_rules"] if r["a"]["role"] == "border_leaf"]
    tenants = _load("tenants.yaml")
    gpu, storage = tenants["tenants"]["gpu-tenant-a"], tenants["tenants"]["storage"]
    all_racks: list[str] = []
    attachments: dict[str, Any] = {}
    pairs = vpc_domains = 0
    gpu["networks"] = {
        "gpu-a-public": {**gpu["networks"]["gpu-a-public"], "racks": []},
        "gpu-a-oob-1": {**gpu["networks"]["gpu-a-oob-1"], "racks": all_racks},
    }
    # a network on every rack holds an SVI address of every leaf (EVPN-023): wide enough
    hosts = devices + 3
    oob = ipaddress.IPv4Network(f"10.51.0.0/{min(24, 32 - math.ceil(math.log2(hosts)))}")
    gpu["networks"]["gpu-a-oob-1"]["gateway_v4"] = f"{oob.network_address + 1}/{oob.prefixlen}"
    storage["networks"] = {
        "storage-front-1": {**storage["networks"]["storage-front-1"], "racks": []},
        "storage-back-1": {**storage["networks"]["storage-back-1"], "racks": all_racks},
    }
    for pod, groups in enumerate(shape, start=1):
        hall = f"{SITE}-dh{pod}"
        rooms["rooms"][hall] = dict(hall_shapes[(pod - 1) % len(hall_shapes)])
        pod_racks: list[str] = []
        compute = f"gpu-a-compute-{pod}"
        gpu["networks"][compute] = {
            "vrf": "gpu-a",
            "vlan": 300 + pod,
            "l2vni": 10300 + pod,
            "gateway_v4": f"10.50.{pod}.1/24",
            "racks": pod_racks,
        }
        for j in range(SPINES_PER_POD):
            rack = f"dh{pod}-s{j + 1}"
            rooms["racks"][rack] = {"room": hall}
            dev[f"{SITE}-sp{pod}-{j + 1}"] = {
                "id": _spine_id(pod, j),
                "role": "spine",
                "platform": "arista_eos",
                "model": "7060X6-64PE",
                "pod": f"pod{pod}",
                "room": hall,
                "rack": rack,
                "management": _mgmt(_spine_id(pod, j)),
                "power_feeds": ["A", "B"],
            }
        # each super-spine cage holds two pods' spines: odd pods on lane 1, even on lane 5
        rules.append(
            {
                "name": f"spine-to-super-spine-pod{pod}",
                "a": {
                    "role": "spine",
                    "pod": f"pod{pod}",
                    "interface": "Ethernet{n}/1",
                    "first": 1,
                    "peer_id_base": SUPER_SPINE_IDS[0],
                },
                "b": {
                    "role": "super_spine",
                    "interface": "Ethernet{n}/1" if pod % 2 else "Ethernet{n}/5",
                    "breakout": "2x400G",
                    "first": 3,
                    "peer_id_base": _spine_id(pod, 0) - SPINES_PER_POD * ((pod - 1) // 2),
                },
                "speed": "400G",
            }
        )
        for group, count in enumerate(groups):
            platform = POD_PLATFORMS[(pod - 1) % len(POD_PLATFORMS)][group]
            model, uplink, ports, peer_link = LEAF[platform]
            rules.append(
                {
                    "name": f"leaf-to-spine-pod{pod}-{platform}",
                    "a": {
                        "role": "leaf",
                        "pod": f"pod{pod}",
                        "platform": platform,
                        "interface": uplink,
                        "first": 61,
                        "peer_id_base": _spine_id(pod, 0),
                    },
                    "b": {
                        "role": "spine",
                        "pod": f"pod{pod}",
                        "interface": "Ethernet{n}/1" if group == 0 else "Ethernet{n}/5",
                        "breakout": "2x400G",
                        "first": 3,
                        "peer_id_base": _leaf_id(pod, group, 0),
                    },
                    "speed": "400G",
                }
            )
            for i in range(0, count, 2):
                rack = f"dh{pod}-r{group}{i // 2 + 1:02d}"
                rooms["racks"][rack] = {"room": hall}
                pod_racks.append(rack)
                all_racks.append(rack)
                names = []
                for leaf in range(i, min(i + 2, count)):
                    name = f"{SITE}-lf{_leaf_id(pod, group, leaf)}"
                    names.append(name)
                    dev[name] = {
                        "id": _leaf_id(pod, group, leaf),
                        "role": "leaf",
                        "platform": platform,
                        "model": model,
                        "pod": f"pod{pod}",
                        "room": hall,
                        "rack": rack,
                        "management": _mgmt(_leaf_id(pod, group, leaf)),
                    }
                networks = [compute, "gpu-a-oob-1", "storage-back-1"]
                if len(names) == 1:
                    attachments[f"{rack}-hosts"] = {
                        "mode": "single", "leaves": names, "ports": ports[:1],
                        "access": True, "networks": ["storage-back-1"],
                    }  # fmt: skip
                    continue
                pairs += 1
                item: dict[str, Any] = {"leaves": names, "ports": ports}
                if platform == "nvidia_nvue" and pairs % 2 == 0:
                    item = {"mode": "esi", **item}
                else:
                    anycast = VTEP_POOL.network_address + ANYCAST_BASE + pairs
                    item = {"mode": "mlag", **item, "peer_link": peer_link,
                            "anycast_vtep": f"{anycast}/32"}  # fmt: skip
                    if platform == "cisco_nxos":  # vPC domains run 1-1000 (PLAT-017)
                        vpc_domains += 1
                        item["domain_id"] = vpc_domains
                item["lacp_system_mac"] = f"44:38:39:f{pairs >> 16:x}:{pairs >> 8 & 255:02x}:" + (
                    f"{pairs & 255:02x}"
                )
                item["networks"] = networks
                attachments[f"{rack}-hosts"] = item
    # the public front ends (a /26 of the example's aggregate) on a few racks of the first pod
    first_racks = [r for r in all_racks if r.startswith("dh1-")][:8]
    gpu["networks"]["gpu-a-public"]["racks"] = first_racks
    storage["networks"]["storage-front-1"]["racks"] = first_racks

    _dump(intent / SITE / "rooms.yaml", "Rooms: the example's MMRs and MDFs, a hall a pod", rooms)
    _dump(intent / SITE / "devices.yaml", "Devices: the example's edge, generated fabric",
          {"devices": dev})  # fmt: skip
    links = _load("links.yaml")
    _dump(intent / SITE / "links.yaml", "Cabling: rules per pod (fit the spines' ports)",
          {"link_rules": rules, "links": links["links"]})  # fmt: skip
    _dump(intent / SITE / "tenants.yaml", "Tenants: the example's VRFs, networks per pod",
          tenants)  # fmt: skip
    handoff = _load("attachments.yaml")["handoff"]
    _dump(intent / SITE / "attachments.yaml", "Hosts on every leaf pair; the example's handoff",
          {"attachments": attachments, "handoff": handoff})  # fmt: skip
    return intent


def device_count(intent: Path) -> int:
    """Devices in a written intent, every site (for run.py and the smoke test)."""
    return sum(
        len(yaml.safe_load((intent / site / "devices.yaml").read_text())["sites"][site]["devices"])
        for site in (SITE, OTHER_SITE)
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=1040)
    parser.add_argument("--out", type=Path, required=True, help="writes OUT/intent")
    args = parser.parse_args()
    intent = make_intent(args.devices, args.out)
    print(f"{intent}: {device_count(intent)} devices")
    return 0


if __name__ == "__main__":
    sys.exit(main())

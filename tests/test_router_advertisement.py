"""IPv6 router advertisements on the anycast gateways.

IPv6 hosts learn their default router only from router advertisements (DHCPv6 carries none),
so every SVI with an IPv6 gateway states its RA behaviour where the platform needs it
(docs/syntax.md#nvue-evpn, #nxos-evpn, #eos-evpn):

- NVUE sends none unless told: `ipv6 neighbor-discovery router-advertisement state enabled`;
- NX-OS sends them by default on Ethernet interfaces only: `no ipv6 nd suppress-ra` on the SVI;
- EOS: its default applies (nothing printed; docs/standards.md#not-checked).

A network can turn them off (`router_advertisement: false`, hosts configured statically):
NVUE prints nothing (its default), NX-OS `ipv6 nd suppress-ra`, EOS `ipv6 nd ra disabled`.
A network with only an IPv4 gateway gets no RA setting on any platform.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from conftest import replace_in
from meetme.generators.model import DeviceModel, EvpnVlan
from meetme.generators.render import render_device
from variants import nxos_leaves_on_eos

from meetme.pipeline import device_models, lint

TENANTS = Path("intent/aus1/tenants.yaml")
# aus1-lf1 (NVUE, rack dh1-r10): compute-1 and -2 have IPv6 gateways, compute-3 IPv4 only.
# aus1-lf3 (NX-OS, rack dh2-r10): gpu-a-public has an IPv6 gateway, gpu-a-oob-1 IPv4 only.
NVUE_LEAF, NXOS_LEAF = "aus1-lf1", "aus1-lf3"
V6_VLAN, V4_VLAN = 101, 103  # on the NVUE leaf
PUBLIC_VLAN, OOB_VLAN = 105, 111  # on the NX-OS leaf (EOS once moved)


def _models(repo: Path) -> dict[str, DeviceModel]:
    result = lint(repo / "intent")
    assert not result.errors, [f.message for f in result.errors]
    return device_models(result)


def _vlan(model: DeviceModel, vlan_id: int) -> EvpnVlan:
    assert model.evpn is not None
    return next(v for v in model.evpn.vlans if v.id == vlan_id)


def _nvue_svi(model: DeviceModel, vlan_id: int) -> dict[str, Any]:
    docs = yaml.safe_load(render_device(model))
    interfaces: dict[str, Any] = {}
    for doc in docs:
        interfaces.update(doc.get("set", {}).get("interface", {}))
    svi: dict[str, Any] = interfaces[f"vlan{vlan_id}"]
    return svi


def _block(text: str, header: str) -> list[str]:
    """The lines of one top-level block (`interface VlanN`) of an EOS/NX-OS config."""
    lines = text.splitlines()
    at = lines.index(header)
    block = []
    for line in lines[at + 1 :]:
        if not line.startswith(" "):
            break
        block.append(line.strip())
    return block


def _ra_lines(block: list[str]) -> list[str]:
    return [line for line in block if " nd " in f" {line} " or "suppress-ra" in line]


def _no_ra(repo: Path, *networks: str) -> None:
    """`router_advertisement: false` on each named network of aus1."""
    text = (repo / TENANTS).read_text()
    for network in networks:
        at = text.index(f"          {network}:")
        brace = text.index("{", at)
        replace_in(
            repo / TENANTS,
            text[at : brace + 1],
            text[at : brace + 1] + "router_advertisement: false, ",
        )
        text = (repo / TENANTS).read_text()


def test_nvue_svi_with_an_ipv6_gateway_enables_router_advertisements(example: Path) -> None:
    model = _models(example)[NVUE_LEAF]
    svi = _nvue_svi(model, V6_VLAN)
    assert svi["ipv6"]["neighbor-discovery"] == {"router-advertisement": {"state": "enabled"}}
    assert _vlan(model, V6_VLAN).router_advertisement


def test_nvue_svi_with_only_an_ipv4_gateway_has_no_ipv6_and_no_ra(example: Path) -> None:
    model = _models(example)[NVUE_LEAF]
    assert not _vlan(model, V4_VLAN).router_advertisement
    svi = _nvue_svi(model, V4_VLAN)
    assert "ipv6" not in svi
    assert "neighbor-discovery" not in yaml.safe_dump(svi)


def test_nxos_svi_with_an_ipv6_gateway_sends_router_advertisements(example: Path) -> None:
    model = _models(example)[NXOS_LEAF]
    text = render_device(model)
    assert _ra_lines(_block(text, f"interface Vlan{PUBLIC_VLAN}")) == ["no ipv6 nd suppress-ra"]
    assert _ra_lines(_block(text, f"interface Vlan{OOB_VLAN}")) == []  # IPv4 only


def test_eos_svi_keeps_the_platform_default(example: Path) -> None:
    nxos_leaves_on_eos(example)
    model = _models(example)[NXOS_LEAF]
    assert model.platform == "arista_eos"
    assert _vlan(model, PUBLIC_VLAN).router_advertisement
    text = render_device(model)
    public = _block(text, f"interface Vlan{PUBLIC_VLAN}")
    assert "ipv6 address virtual 2001:db8:4000:50::1/64" in public
    assert _ra_lines(public) == []
    assert _ra_lines(_block(text, f"interface Vlan{OOB_VLAN}")) == []


def test_a_network_can_turn_router_advertisements_off(example: Path) -> None:
    _no_ra(example, "gpu-a-compute-1", "gpu-a-public")
    models = _models(example)
    nvue, nxos = models[NVUE_LEAF], models[NXOS_LEAF]
    assert not _vlan(nvue, V6_VLAN).router_advertisement
    assert "neighbor-discovery" not in _nvue_svi(nvue, V6_VLAN)["ipv6"]  # NVUE's default: off
    assert "neighbor-discovery" in _nvue_svi(nvue, 102)["ipv6"]  # compute-2 keeps them
    text = render_device(nxos)
    assert _ra_lines(_block(text, f"interface Vlan{PUBLIC_VLAN}")) == ["ipv6 nd suppress-ra"]


def test_eos_network_without_router_advertisements_disables_them(example: Path) -> None:
    nxos_leaves_on_eos(example)
    _no_ra(example, "gpu-a-public")
    model = _models(example)[NXOS_LEAF]
    text = render_device(model)
    assert _ra_lines(_block(text, f"interface Vlan{PUBLIC_VLAN}")) == ["ipv6 nd ra disabled"]
    assert _ra_lines(_block(text, f"interface Vlan{OOB_VLAN}")) == []


def test_router_advertisement_false_without_an_ipv6_gateway_changes_nothing(
    example: Path,
) -> None:
    """Only with gateway_v6: on an IPv4-only network the setting has nothing to act on."""
    before = render_device(_models(example)[NXOS_LEAF])
    _no_ra(example, "gpu-a-oob-1")
    after = render_device(_models(example)[NXOS_LEAF])
    assert before == after

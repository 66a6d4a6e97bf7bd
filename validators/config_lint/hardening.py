"""CFG-010..011: the management plane and the external ports, read back from the rendered text.

CFG-010: every management service the config runs answers in the management VRF only: SSH
(EOS `management ssh` with `vrf default` shut and the management VRF up; NVUE `system
ssh-server vrf`), and, where the model renders the push API, EOS eAPI (`management api
http-commands`, same sub-blocks), IOS-XR `ssh server vrf` / `ssh server netconf vrf`, NX-OS
`nxapi use-vrf` and NVUE `system api listening-address` (the management address only).

CFG-011: every external port (one that carries a transit, IX, PNI or cloud session) of a
platform that can check unicast RPF does so for each address family it has: the model must ask
for it and the rendered interface must say `verify unicast source reachable-via any`.

Both read the read-back every CFG check shares (readback.py): the indented blocks (Cisco-style)
or the YAML tree (NVUE); positions are the config's own, 1-based.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import yaml
from meetme.generators.model import DeviceModel, Interface
from meetme.generators.platforms import PLATFORMS
from meetme.validators.config_lint import cisco, nvue
from meetme.validators.config_lint.readback import Block, ReadBack

MANAGEMENT_VRF = "CFG-010"
EXTERNAL_URPF = "CFG-011"

Hit = tuple[str, str, int, int]  # rule id, message, line, column


def check(model: DeviceModel, text: str, readback: ReadBack | None = None) -> list[Hit]:
    """Every CFG-010 and CFG-011 finding on one device's rendered text, from its read-back
    (the one the other CFG checks read; read here when not given)."""
    if model.platform == "nvidia_nvue":
        return list(_nvue(model, text, readback or nvue.read(text)))
    top = (readback or cisco.read(text, model.platform)).blocks
    return [*_cisco_management(model, top), *_cisco_urpf(model, top)]


# --- CFG-010 ---------------------------------------------------------------------------------


def _vrf_only(block: Block | None, what: str, vrf: str) -> Iterator[Hit]:
    """An EOS service block answering in `vrf` and shut in the default VRF."""
    if block is None:
        yield MANAGEMENT_VRF, f"{what} is not configured: it runs in every VRF", 1, 1
        return
    default = block.child("vrf default")
    if default is None or default.child("shutdown") is None:
        yield (
            MANAGEMENT_VRF,
            f"{what} is not shut in the default VRF (`vrf default` / `shutdown`): it answers "
            "on every data-plane address, the external ones included",
            block.line,
            1,
        )
    own = block.child(f"vrf {vrf}")
    if own is None or own.child("no shutdown") is None:
        yield MANAGEMENT_VRF, f"{what} does not answer in VRF {vrf}", block.line, 1


def _cisco_management(model: DeviceModel, top: list[Block]) -> Iterator[Hit]:
    mgmt = model.management
    lines = {b.text: b for b in top}
    if model.platform == "arista_eos":
        yield from _vrf_only(lines.get("management ssh"), "management ssh", mgmt.vrf)
        if mgmt.api:
            eapi = lines.get("management api http-commands")
            yield from _vrf_only(eapi, "management api http-commands", mgmt.vrf)
    elif model.platform == "cisco_iosxr" and mgmt.api:
        for wanted in (f"ssh server vrf {mgmt.vrf}", f"ssh server netconf vrf {mgmt.vrf}"):
            if wanted not in lines:
                yield MANAGEMENT_VRF, f"`{wanted}` is missing", 1, 1
        for stray in ("ssh server vrf default", "ssh server netconf vrf default"):
            if stray in lines:
                yield (
                    MANAGEMENT_VRF,
                    f"`{stray}`: SSH answers in the default VRF",
                    lines[stray].line,
                    1,
                )
    elif model.platform == "cisco_nxos":
        if mgmt.api:
            wanted = f"nxapi use-vrf {mgmt.vrf}"
            if wanted not in lines:
                at = lines["feature nxapi"].line if "feature nxapi" in lines else 1
                yield MANAGEMENT_VRF, f"`{wanted}` is missing: NX-API answers in every VRF", at, 1
        yield from _nxos_vty(model, lines)


def _nxos_vty(model: DeviceModel, lines: dict[str, Block]) -> Iterator[Hit]:
    """NX-OS SSH answers on every address: the VTY lines take sessions from the management
    clients only, through one ACL per family that permits exactly them and denies the rest
    (a family without clients: an ACL that denies all; an IPv4 `access-class` leaves IPv6
    sessions unfiltered)."""
    vty = lines.get("line vty")
    for afi, keyword, apply in (
        ("ipv4", "ip", "access-class"),
        ("ipv6", "ipv6", "ipv6 access-class"),
    ):
        clients = model.management.clients_of(afi)
        name = f"ACL-MGMT-VTY-{'V4' if afi == 'ipv4' else 'V6'}"
        if vty is None or vty.child(f"{apply} {name} in") is None:
            yield (
                MANAGEMENT_VRF,
                f"`line vty` / `{apply} {name} in` is missing: SSH answers every source on "
                "every address, the external ones included",
                vty.line if vty else 1,
                1,
            )
        acl = lines.get(f"{keyword} access-list {name}")
        wanted = [f"{10 * (i + 1)} permit {keyword} {c} any" for i, c in enumerate(clients)]
        wanted.append(f"{10 * (len(clients) + 1)} deny {keyword} any any")
        got = [c.text for c in acl.children] if acl else []
        if got != wanted:
            yield (
                MANAGEMENT_VRF,
                f"{keyword} access-list {name} does not permit exactly the management clients "
                f"({', '.join(clients) or 'none'}) and deny the rest",
                acl.line if acl else 1,
                1,
            )


# --- CFG-011 ---------------------------------------------------------------------------------


def external_ports(model: DeviceModel) -> list[Interface]:
    """The addressed interfaces that carry a session to an external party."""
    names = {n.local_interface for n in model.bgp.neighbors if n.external}
    return [i for i in model.interfaces if i.name in names and (i.ipv4 or i.ipv6)]


def _urpf_lines(model: DeviceModel, port: Interface) -> list[str]:
    v4 = "ipv4" if model.platform == "cisco_iosxr" else "ip"
    wanted = []
    if port.ipv4:
        wanted.append(f"{v4} verify unicast source reachable-via any")
    if port.ipv6:
        wanted.append("ipv6 verify unicast source reachable-via any")
    return wanted


def _cisco_urpf(model: DeviceModel, top: list[Block]) -> Iterator[Hit]:
    if not PLATFORMS[model.platform].capabilities.urpf:
        return
    interfaces = {b.text: b for b in top if b.text.startswith("interface ")}
    for port in external_ports(model):
        block = interfaces.get(f"interface {port.name}")
        if block is None:
            yield EXTERNAL_URPF, f"external port {port.name} is not in the config", 1, 1
            continue
        if port.urpf is None:
            yield (
                EXTERNAL_URPF,
                f"external port {port.name} has no unicast RPF in the device model",
                block.line,
                1,
            )
            continue
        for wanted in _urpf_lines(model, port):
            if block.child(wanted) is None:
                yield (
                    EXTERNAL_URPF,
                    f"external port {port.name} lacks `{wanted}`: spoofed sources pass",
                    block.line,
                    1,
                )


# --- NVUE ------------------------------------------------------------------------------------


def _nvue(model: DeviceModel, text: str, readback: ReadBack) -> Iterator[Hit]:
    if readback.unreadable is not None:
        return  # CFG-005 reports YAML that does not parse
    system: dict[str, Any] = {}
    for tree in readback.trees:  # the last `- set:` item with a system wins, as NVUE applies
        node = nvue.get(tree, "system")
        if isinstance(node, yaml.MappingNode):
            system = nvue.plain(node)
    mgmt = model.management
    ssh_vrfs = set((system.get("ssh-server") or {}).get("vrf") or {})
    if ssh_vrfs != {mgmt.vrf}:
        yield (
            MANAGEMENT_VRF,
            f"system ssh-server vrf is {sorted(ssh_vrfs) or 'unset'}, not only {mgmt.vrf}: "
            "SSH answers in every VRF",
            _line_of(text, "ssh-server:"),
            1,
        )
    if mgmt.api and mgmt.interface.ipv4:
        listening = set((system.get("api") or {}).get("listening-address") or {})
        if listening != {mgmt.interface.ipv4.ip}:
            yield (
                MANAGEMENT_VRF,
                f"system api listening-address is {sorted(listening) or 'unset'}, not only "
                f"{mgmt.interface.ipv4.ip}: the REST API listens on every address",
                _line_of(text, "api:"),
                1,
            )


def _line_of(text: str, key: str) -> int:
    for number, raw in enumerate(text.splitlines(), start=1):
        if raw.strip() == key:
            return number
    return 1

"""How each platform names the interfaces intent may write: front-panel ports, the LAGs the
templates render, and 802.1Q sub-interfaces of either.

The schema checks the grammar all four platforms share (types.InterfaceName); this module
checks a name against its device's own platform. A name no platform has (`Eth9`,
`HundredGigabitEthernet0/0/0/1`) is refused at load, at the value; a name of another platform
(`swp1` on an EOS box, after the device moved platform) is a design question that the lint
reports (PLAT-016), so one run lists every port that must be renamed. Port numbers are not
range-checked here: which ports a model has is the hardware catalogue's business (rules HW-*).

Sources: the naming in validators/data/hardware.yaml and generators/platforms/ (LAG and
MLAG peer-link names); IOS-XR interface types as the IOS XR interface configuration guides
list them for Ethernet (TenGigE ... EightHundredGigE) and Bundle-Ether 1-65535; NX-OS
port-channel 1-4096; EOS Port-Channel; Cumulus `swpP[sS]`, `bondN`, `peerlink`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from meetme.core.problems import shown
from meetme.intent.types import SUBINTERFACE, VLAN_MAX, interface_problem

IOSXR_ETHERNET_TYPES = (
    "GigabitEthernet|TenGigE|TwentyFiveGigE|FortyGigE|FiftyGigE|HundredGigE|TwoHundredGigE|"
    "FourHundredGigE|EightHundredGigE"
)


@dataclass(frozen=True)
class Grammar:
    pattern: re.Pattern[str]  # the name without its sub-interface suffix
    shapes: str  # for messages


def _grammar(body: str, shapes: str) -> Grammar:
    return Grammar(re.compile(rf"(?:{body})(?:{SUBINTERFACE})?"), shapes)


NUMBER = r"[0-9]{1,3}"
GRAMMARS: dict[str, Grammar] = {
    "arista_eos": _grammar(
        rf"Ethernet{NUMBER}(?:/{NUMBER}){{0,2}}|Port-Channel[1-9][0-9]{{0,3}}",
        "Ethernet<port>[/<lane>] (modular: Ethernet<slot>/<port>/<lane>) or Port-Channel<N>",
    ),
    "cisco_iosxr": _grammar(
        rf"(?:{IOSXR_ETHERNET_TYPES})[0-9]{{1,2}}/[0-9]{{1,2}}/[0-9]{{1,2}}/{NUMBER}"
        rf"(?:/[0-9]{{1,2}})?|Bundle-Ether[1-9][0-9]{{0,4}}",
        "<Type><rack>/<slot>/<instance>/<port>[/<breakout>] with Type one of "
        f"{IOSXR_ETHERNET_TYPES.replace('|', ', ')}, or Bundle-Ether<N>",
    ),
    "cisco_nxos": _grammar(
        rf"Ethernet[1-9][0-9]?/{NUMBER}(?:/[0-9]{{1,2}})?|port-channel[1-9][0-9]{{0,3}}",
        "Ethernet<slot>/<port>[/<breakout>] (fixed systems: Ethernet1/<port>) or port-channel<N>",
    ),
    "nvidia_nvue": _grammar(
        rf"swp{NUMBER}(?:s[0-9]{{1,2}})?|bond[0-9]{{1,4}}|peerlink",
        "swp<port>[s<breakout>], bond<N> or peerlink",
    ),
}

# LAG numbers the OS accepts where the vendor documents a limit (a bigger one is refused)
LAG_LIMITS: dict[str, tuple[str, int]] = {
    "cisco_iosxr": ("Bundle-Ether", 65535),
    "cisco_nxos": ("port-channel", 4096),
}


def platform_problem(platform: str, name: str) -> str | None:
    """Why `name` is no interface of `platform`, or None. A name that fails the grammar all
    platforms share is reported there (the schema), not again here."""
    grammar = GRAMMARS.get(platform)
    if grammar is None or interface_problem(name) is not None:
        return None
    if grammar.pattern.fullmatch(name) is None:
        return f"{shown(name)} is not an interface name on {platform}; write {grammar.shapes}"
    base, _, _ = name.partition(".")
    prefix, limit = LAG_LIMITS.get(platform, ("", 0))
    if prefix and base.startswith(prefix) and int(base.removeprefix(prefix)) > limit:
        return f"{shown(name)}: {platform} numbers a {prefix} 1 to {limit}"
    return None


def platforms_naming(name: str) -> list[str]:
    """The platforms whose interface grammar `name` fits (LAG number limits included)."""
    return [platform for platform in GRAMMARS if platform_problem(platform, name) is None]


def foreign_name(platform: str, name: str) -> bool:
    """`name` is no interface of `platform` but is one of another platform: a lint finding
    (PLAT-016) rather than unusable input."""
    return platform_problem(platform, name) is not None and bool(platforms_naming(name))


def sample(template: str, n: int) -> str:
    """A link rule's interface pattern with its {n} filled in (see types.InterfaceTemplate)."""
    return template.replace("{n}", str(n))


__all__ = [
    "GRAMMARS",
    "VLAN_MAX",
    "foreign_name",
    "platform_problem",
    "platforms_naming",
    "sample",
]

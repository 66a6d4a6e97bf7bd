"""Which physical port an interface name means, whatever spelling or speed the name carries.

PHY-013 compares ports by this identity, not by their text: two names of one port are one cable.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import NamedTuple

from meetme.generators.resolve.fabric import cabled_side_devices

from meetme.intent.interfaces import sample
from meetme.intent.schema import Site

# Up to 9 digits per number: enough for any port, and int() never meets a huge literal.
_NUMBER = r"\d{1,9}"
_UNIT = rf"(?:\.(?P<unit>{_NUMBER}))?"  # an 802.1Q sub-interface: `.100`
_NUMBERS = rf"(?P<numbers>{_NUMBER}(?:/{_NUMBER})*)"

# IOS-XR names a port by the speed of the optic in it (FourHundredGigE0/0/0/16 with a 400G
# optic, HundredGigE0/0/0/16 with a 100G one): the type says nothing about which cage it is,
# so any physical type is accepted and ignored; R/S/I/P is the port and a fifth number the
# breakout sub-port (Cisco IOS XR Interface and Hardware Component Configuration Guide,
# "Breakout": HundredGigE0/0/0/16/0..3).
_IOSXR = re.compile(rf"(?i:[a-z]*gige|gigabitethernet){_NUMBERS}{_UNIT}")
# EOS: Ethernet<port>, Ethernet<port>/<lane> on a fixed switch, Ethernet<slot>/<port>/<lane> on
# a modular one; Et and Eth are the CLI's own abbreviations.
_EOS = re.compile(rf"(?i:ethernet|eth|et){_NUMBERS}{_UNIT}")
# NX-OS: Ethernet<slot>/<port>, breakout Ethernet<slot>/<port>/<sub-port>.
_NXOS = re.compile(rf"(?i:ethernet|eth){_NUMBERS}{_UNIT}")
# Cumulus Linux: swp<port>, breakout swp<port>s<sub-port>.
_NVUE = re.compile(rf"swp(?P<port>{_NUMBER})(?:s(?P<sub>{_NUMBER}))?{_UNIT}")

# Pattern, and how many numbers name an unbroken port (one more: a breakout sub-port).
_NUMBERED = {
    "cisco_iosxr": (_IOSXR, 4),  # rack/slot/instance/port
    "cisco_nxos": (_NXOS, 2),  # slot/port
}


class PortId(NamedTuple):
    """A physical port: `port` the cage's numbers, `sub` its breakout sub-port (EOS: lane),
    `unit` the 802.1Q sub-interface riding it. Leading zeros and speed names are gone."""

    port: tuple[int, ...]
    sub: int | None
    unit: int | None

    @property
    def cage(self) -> tuple[tuple[int, ...], int | None]:
        """The physical (sub-)port, without the sub-interface."""
        return self.port, self.sub

    def text(self, platform: str) -> str:
        """The (sub-)port as `platform` numbers it: IOS-XR '0/0/0/16' (its type names the
        optic, not the port), EOS 'Ethernet9/1', NX-OS 'Ethernet1/9/2', Cumulus 'swp1s0'."""
        if platform == "nvidia_nvue":
            return f"swp{self.port[0]}" + ("" if self.sub is None else f"s{self.sub}")
        numbers = "/".join(str(n) for n in (*self.port, *(() if self.sub is None else (self.sub,))))
        return numbers if platform == "cisco_iosxr" else f"Ethernet{numbers}"


def _eos_split(numbers: list[int]) -> tuple[tuple[int, ...], int | None]:
    """Ethernet9 is port 9; Ethernet9/1 lane 1 of port 9; Ethernet3/9/1 lane 1 of slot 3
    port 9. A lane is written whenever the cage has several (EOS User Manual, "Ethernet
    ports"), so a lane is the breakout unit here."""
    if len(numbers) == 1:
        return (numbers[0],), None
    return tuple(numbers[:-1]), numbers[-1]


# Pure and immutable: a large site names the same few hundred ports on every device of a kind.
@lru_cache(maxsize=1 << 14)
def port_id(platform: str, name: str) -> PortId | None:
    """The physical port an interface `name` means on `platform`, or None when the name is
    no front-panel port meetme knows (a port-channel, a loopback, a misspelling: HW-001's).

    Two names with one `PortId.cage` are one physical (sub-)port: IOS-XR
    `FourHundredGigE0/0/0/16` and `HundredGigE0/0/0/16`; EOS or NX-OS `Ethernet09/1` and
    `Ethernet9/1`. A breakout sub-port (`swp1s0`, NX-OS `Ethernet1/1/1`, IOS-XR
    `HundredGigE0/0/0/16/0`) has the `port` of its parent and a `sub`; a sub-interface
    (`.100`) keeps its parent's cage and adds a `unit`.
    """
    if platform == "nvidia_nvue":
        found = _NVUE.fullmatch(name)
        if found is None:
            return None
        sub = found["sub"]
        return PortId((int(found["port"]),), None if sub is None else int(sub), _unit(found))
    if platform == "arista_eos":
        found = _EOS.fullmatch(name)
        if found is None:
            return None
        numbers = [int(n) for n in found["numbers"].split("/")]
        if len(numbers) > 3:
            return None
        port, sub = _eos_split(numbers)
        return PortId(port, sub, _unit(found))
    if platform not in _NUMBERED:
        return None
    pattern, length = _NUMBERED[platform]
    found = pattern.fullmatch(name)
    if found is None:
        return None
    numbers = [int(n) for n in found["numbers"].split("/")]
    if len(numbers) == length:
        return PortId(tuple(numbers), None, _unit(found))
    if len(numbers) == length + 1:
        return PortId(tuple(numbers[:-1]), numbers[-1], _unit(found))
    return None


def _unit(found: re.Match[str]) -> int | None:
    unit = found["unit"]
    return None if unit is None else int(unit)


def written_names(site: Site) -> Iterator[tuple[tuple[str, ...], str, tuple[str | int, ...]]]:
    """(devices of one platform, interface name, intent path of the name) of every name the
    intent writes: explicit links, cross-connects, attachment ports and peer links (on each
    leaf), services LAN ports, and link rule patterns with their first port number (on the
    devices the side selects, grouped by platform: one finding per platform, not one per
    device)."""
    for link in site.links:
        for side, end in (("a", link.a), ("b", link.b)):
            if end.device in site.devices:
                yield (end.device,), end.interface, (*link.path, side, "interface")
    for xc in site.cross_connects.values():
        if xc.device in site.devices:
            yield (xc.device,), xc.interface, (*xc.path, "interface")
    for attachment in site.attachments.values():
        for key in ("ports", "peer_link"):
            for index, port in enumerate(getattr(attachment, key)):
                for leaf in attachment.leaves:
                    if leaf in site.devices:
                        yield (leaf,), port, (*attachment.path, key, index)
    edge = site.peering.edge
    for device_name, services in sorted(edge.services.items()) if edge else ():
        if device_name in site.devices:
            yield (device_name,), services.interface, (*services.path, "interface")
    # the devices each side cables, grouped by platform in id order (a rule per pod names
    # the ports of its own pod's devices only)
    for rule_ in site.link_rules:
        for side, rule_side, other in (("a", rule_.a, rule_.b), ("b", rule_.b, rule_.a)):
            name = sample(rule_side.interface, rule_side.first)
            by_platform: dict[str, list[str]] = {}
            for device_name, device in cabled_side_devices(site, rule_side, other):
                by_platform.setdefault(device.platform, []).append(device_name)
            for devices in by_platform.values():
                yield tuple(devices), name, (*rule_.path, side, "interface")

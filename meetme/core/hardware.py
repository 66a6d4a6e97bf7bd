"""The hardware catalogue (validators/data/hardware.yaml): each model's front-panel cages, how its
platform numbers them, and what a cage runs natively (speed, electrical lanes, most sub-ports).

Read here, at the bottom, because two layers need it: the port plan (generators/resolve/ports.py:
which speed and breakout each port must be told) and the HW-* rules (which ports exist).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from meetme.core.datafiles import read_data

IOSXR_TYPES = (
    "TenGigE|TwentyFiveGigE|FortyGigE|FiftyGigE|HundredGigE|TwoHundredGigE|FourHundredGigE"
)


@dataclass(frozen=True)
class Naming:
    """How a platform writes a front-panel port: a pattern with groups `port` and `sub`."""

    pattern: re.Pattern[str]
    shape: str  # for messages
    first_sub: int  # the first breakout sub-port / lane number
    sub_required: bool  # EOS: a multi-lane cage is always written with its lane


NAMING: dict[str, Naming] = {
    "cisco_iosxr": Naming(
        re.compile(rf"(?:{IOSXR_TYPES})0/0/0/(?P<port>\d+)(?:/(?P<sub>\d+))?"),
        "<Type>0/0/0/<port>[/<breakout>]",
        0,
        False,
    ),
    "arista_eos": Naming(
        re.compile(r"Ethernet(?P<port>\d+)(?:/(?P<sub>\d+))?"),
        "Ethernet<port>/<lane>",
        1,
        True,
    ),
    "cisco_nxos": Naming(
        re.compile(r"Ethernet1/(?P<port>\d+)(?:/(?P<sub>\d+))?"),
        "Ethernet1/<port>[/<breakout>]",
        1,
        False,
    ),
    "nvidia_nvue": Naming(
        re.compile(r"swp(?P<port>\d+)(?:s(?P<sub>\d+))?"),
        "swp<port>[s<breakout>]",
        0,
        False,
    ),
}


@cache
def hardware() -> dict[str, Any]:
    data: dict[str, Any] = read_data("hardware.yaml")
    return data


def asic_of(model: str) -> str | None:
    """The switching ASIC of a catalogued model, where the catalogue records it (`asic:`)."""
    spec = hardware()["models"].get(model)
    return None if spec is None else spec.get("asic")


@dataclass(frozen=True)
class Cage:
    """One front-panel cage as the catalogue describes its group."""

    model: str
    port: int  # the cage's number as the platform numbers it
    kind: str  # "OSFP 800G", for messages
    speed_gbps: int  # the speed the cage runs unbroken, with all its lanes
    lanes: int  # electrical lanes
    split: int  # the most interfaces it breaks out into


@dataclass(frozen=True)
class PortName:
    """A front-panel interface name read against its model: the cage, and the breakout
    sub-port (EOS: lane) written after it, None where the name has none."""

    cage: Cage
    sub: int | None


def port_name(model: str, platform: str, interface: str) -> PortName | None:
    """The cage an interface `name` (sub-interface suffix ignored) sits in on a `model` that
    runs `platform`; None where the model is not catalogued for that platform or the name is
    no port of it (HW-001..003 report those)."""
    spec = hardware()["models"].get(model)
    naming = NAMING.get(platform)
    if spec is None or naming is None or spec["platform"] != platform:
        return None
    found = naming.pattern.fullmatch(interface.split(".", 1)[0])
    if found is None:
        return None
    port = int(found["port"])
    group = next((g for g in spec["groups"] if g["first"] <= port <= g["last"]), None)
    if group is None:
        return None
    cage = Cage(model, port, group["cage"], group["speed"], group["lanes"], group["split"])
    return PortName(cage, None if found["sub"] is None else int(found["sub"]))

"""HW-*: every interface meetme renders exists on the device's hardware.

The port catalogue is validators/data/hardware.yaml: per hardware model its front-panel ports,
numbered as its platform numbers them, with each model's source.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Any, cast

from meetme.validators.engine import Hit, Path_, SiteContext, rule
from meetme.validators.rules.overlay import evpn_refused

from meetme.core.hardware import NAMING, hardware
from meetme.core.problems import listed
from meetme.intent.interfaces import foreign_name
from meetme.intent.schema import Device

if TYPE_CHECKING:
    pass

CATALOGUE = "validators/data/hardware.yaml"


def _ranges(model: str, spec: dict[str, Any]) -> str:
    runs = [f"{g['first']}-{g['last']} ({g['cage']})" for g in spec["groups"]]
    return f"a {model} has ports {', '.join(runs)}"


def port_problem(device: Device, interface: str) -> str | None:
    """Why `interface` is no front-panel port of `device`'s model, or None when it is one.
    A sub-interface (`.vlan`) is judged by its physical parent."""
    return _port_problem(device.model, device.platform, interface)


# The answer depends on the model, the platform and the name alone, and the catalogue is fixed
# for the process: a large site asks about the same few hundred ports on every device.
@lru_cache(maxsize=1 << 14)
def _port_problem(model: str, platform: str, interface: str) -> str | None:
    spec = hardware()["models"][model]
    naming = NAMING[platform]
    physical = interface.split(".", 1)[0]
    found = naming.pattern.fullmatch(physical)
    if found is None:
        return f"{platform} writes a front-panel port {naming.shape}, and {_ranges(model, spec)}"
    port = int(found["port"])
    group = next((g for g in spec["groups"] if g["first"] <= port <= g["last"]), None)
    if group is None:
        return _ranges(model, spec)
    split: int = group["split"]
    last_sub = naming.first_sub + split - 1
    where = f"port {port} of a {model} ({group['cage']})"
    kind = "lanes" if naming.sub_required else "breakout sub-ports"
    if found["sub"] is None:
        if naming.sub_required and split > 1:
            return f"{where} is written with one of its lanes {naming.first_sub}-{last_sub}"
        return None
    sub = int(found["sub"])
    if split == 1:
        return f"{where} has no {kind}"
    if not naming.first_sub <= sub <= last_sub:
        return f"{where} has {kind} {naming.first_sub}-{last_sub}"
    return None


def _checked(ctx: SiteContext, name: str) -> Device | None:
    """The device when its model is catalogued for its platform (else HW-002 or HW-003
    reports it)."""
    device = ctx.site.devices.get(name)
    if device is None:
        return None
    spec = hardware()["models"].get(device.model)
    if spec is None or spec["platform"] != device.platform:
        return None
    return device


# (where, origin text, reason) -> device -> interfaces, in the order they were met
Found = dict[tuple[Path_, str, str], dict[str, list[str]]]


def _note(found: Found, ctx: SiteContext, where: Path_, origin: str, name: str, iface: str) -> None:
    device = _checked(ctx, name)
    if device is None or foreign_name(device.platform, iface.split(".", 1)[0]):
        return  # a name of another platform: PLAT-016 reports it, once
    reason = port_problem(device, iface)
    if reason is not None:
        given = found[(where, origin, reason)][name]
        if iface not in given:
            given.append(iface)


def _fabric_ports(ctx: SiteContext, found: Found) -> None:
    for link in ctx.fabric.links:
        source = link.source
        explicit = len(source) >= 2 and source[-2] == "links"
        for side, end in (("a", link.a), ("b", link.b)):
            if explicit:
                where: Path_ = (*source, side, "interface")
                origin = f"explicit link #{source[-1]}"
            else:  # a link rule: its a-side devices are always the links' a ends
                rule_index = cast(int, source[-1])
                where = (*source, side)
                origin = f"link rule {ctx.site.link_rules[rule_index].name}"
            _note(found, ctx, where, origin, end.device, end.interface)


def _external_ports(ctx: SiteContext, found: Found) -> None:
    circuits = {(xc.device, xc.interface): name for name, xc in ctx.site.cross_connects.items()}
    for port in ctx.fabric.edge.ports:
        physical = port.parent or port.name
        circuit = circuits.get((port.device, physical))
        if circuit is None:  # not from a cross-connect: point at the declaration
            where, origin = port.source, "external port"
        else:
            xc = ctx.site.cross_connects[circuit]
            where, origin = (*xc.path, "interface"), f"cross-connect {circuit}"
        _note(found, ctx, where, origin, port.device, physical)


def _attachment_ports(ctx: SiteContext, found: Found) -> None:
    for name, attachment in sorted(ctx.site.attachments.items()):
        for field, label in (("ports", "port"), ("peer_link", "peer-link port")):
            for index, iface in enumerate(getattr(attachment, field)):
                where = (*attachment.path, field, index)
                for leaf in attachment.leaves:
                    _note(found, ctx, where, f"attachment {name} {label}", leaf, iface)


@rule(
    "HW-001",
    "error",
    "Every rendered interface is a front-panel port of the device's hardware",
    "A link rule derives port numbers from device ids; a new device or a changed `first` can "
    "push a port past the last one the hardware has, and a misspelt name is no port at all. "
    "The device rejects such a config, so the error is caught before it is pushed. Checked: "
    "fabric link ends, external (cross-connect) ports, host attachment and MLAG peer-link "
    f"ports, against the catalogue {CATALOGUE}.",
    f"{CATALOGUE} (vendor datasheets, one per model; UNVERIFIED entries marked there)",
)
def interfaces_exist(ctx: SiteContext) -> Iterator[Hit]:
    found: Found = defaultdict(lambda: defaultdict(list))
    _fabric_ports(ctx, found)
    _external_ports(ctx, found)
    _attachment_ports(ctx, found)
    for (where, origin, reason), by_device in found.items():
        # devices given the same interfaces (both leaves of a pair, every spine of a rule)
        # make one finding, not one each
        devices_of: dict[tuple[str, ...], list[str]] = defaultdict(list)
        for device, interfaces in by_device.items():
            devices_of[tuple(interfaces)].append(device)
        for given, devices in devices_of.items():
            yield Hit(
                f"{origin} gives {listed(given)} on {listed(devices)}, but {reason}",
                where,
            )


@rule(
    "HW-002",
    "warning",
    "Every device's hardware model is in the port catalogue",
    "Without the model's front-panel ports meetme cannot tell whether an interface exists, so "
    "HW-001 skips the device: its port numbers are unchecked until the model is added.",
    CATALOGUE,
)
def model_catalogued(ctx: SiteContext) -> Iterator[Hit]:
    models = hardware()["models"]
    for name, device in sorted(ctx.site.devices.items()):
        spec = models.get(device.model)
        if spec is None:
            yield Hit(
                f"{name}: hardware model {device.model} is not in {CATALOGUE}, so its port "
                "numbers are unchecked; add the model with its front-panel ports and datasheet",
                (*device.path, "model"),
            )


@rule(
    "HW-003",
    "error",
    "A catalogued hardware model runs the device's platform",
    "Each hardware model runs one of the four operating systems (an Arista 7060X6 runs EOS, a "
    "Nexus 9000 NX-OS, a Cisco 8000 IOS-XR, an NVIDIA Spectrum switch Cumulus Linux). A device "
    "given another platform, or a model copied from another vendor's device, would be rendered "
    "a config its hardware cannot run, and its ports would go unchecked (HW-001 reads ports as "
    "the model's platform numbers them).",
    f"{CATALOGUE} (each model's platform, from its vendor datasheet)",
)
def model_runs_the_platform(ctx: SiteContext) -> Iterator[Hit]:
    models = hardware()["models"]
    refused = evpn_refused(ctx)  # no other model would make this platform a VTEP (EVPN-009)
    for name, device in sorted(ctx.site.devices.items()):
        spec = models.get(device.model)
        if spec is not None and spec["platform"] != device.platform:
            fix = (
                "give the device the platform its model runs"
                if name in refused
                else f"give the device a model that runs {device.platform}, or the platform "
                "its model runs"
            )
            yield Hit(
                f"{name}: the {device.model} runs {spec['platform']} ({CATALOGUE}), not "
                f"{device.platform}; {fix}",
                (*device.path, "model"),
            )


def _port_problems(ctx: SiteContext, rule_id: str) -> Iterator[Hit]:
    seen: set[tuple[Path_, str]] = set()
    for problem in ctx.fabric.ports.problems:
        key = (problem.path, problem.message)
        if problem.rule == rule_id and key not in seen:
            seen.add(key)
            yield Hit(problem.message, problem.path)


@rule(
    "HW-004",
    "error",
    "A port runs a speed, lane count and breakout its cage can",
    "meetme tells a port slower than its cage its speed, and a cage split into sub-ports its "
    "breakout (generators/resolve/ports.py); a speed above the cage's, more lanes than it has, "
    "a breakout into more sub-ports or more bandwidth than it holds, two breakouts asked of "
    "one cage, or a sub-port the mode does not make (swp1s3 of a 2x breakout, EOS Ethernet1/3 "
    "of a 2x400G one) would be refused by the device or leave the link down. Checked on "
    f"fabric link ends and circuit ports against the catalogue {CATALOGUE} (each cage's "
    "speed, lanes, split). An attachment's host and MLAG peer-link ports ask no speed and so "
    "break no cage out: each must be a sub-port of the breakout the links on its cage run, or "
    "a whole port of a cage nothing breaks out. On an unbroken cage NX-OS has no "
    "Ethernet1/5/1 (no `interface breakout` is rendered: docs/syntax.md#nxos-ports), and EOS "
    "runs the cage whole on lane 1 and leaves Ethernet1/5 inactive (docs/syntax.md#eos-ports).",
    f"{CATALOGUE}; docs/standards.md#hw-004",
)
def port_speed_and_breakout_fit(ctx: SiteContext) -> Iterator[Hit]:
    yield from _port_problems(ctx, "HW-004")


@rule(
    "HW-005",
    "error",
    "The device's platform can say the port's speed and breakout",
    "Each platform says a port's speed and a breakout its own way (docs/syntax.md, Port speed "
    "and breakout): NX-OS maps a port to a fixed list of breakouts (10g-4x .. 200g-2x), and "
    "IOS-XR takes a port's speed from its optic and names the interface by it "
    "(HundredGigE0/0/0/8 runs 100G). A breakout the platform has no form for, or an IOS-XR "
    "name whose speed is not the link's, is reported with the device and platform before "
    "anything renders.",
    "docs/standards.md#hw-005",
)
def platform_says_port_speed(ctx: SiteContext) -> Iterator[Hit]:
    yield from _port_problems(ctx, "HW-005")

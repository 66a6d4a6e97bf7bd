"""The port plan: the speed each physical port must be told and the cages that run broken out,
decided once per site from the links (their speed, `lanes`, `breakout` and sub-port names) and
the hardware catalogue (each cage's native speed, lanes and most sub-ports).

A port running its cage's native speed is told nothing. A slower one gets a forced speed (a
400G link in an 800G OSFP cage: EOS `speed 400g-4`). A sub-port name (`swp1s0`,
`Ethernet1/1/1`, `HundredGigE0/0/0/16/0`, EOS `Ethernet1/5`) or a `breakout:` on the link end
splits its cage: the mode is the one written (`4x100G`; `4x` runs at the link's speed), else as
many sub-ports of the link's speed as the cage holds (at most its `split`). What no cage or
platform can run is a problem the lint reports (HW-004 the cage, HW-005 the platform's forms);
the builders read the rest. An attachment's host and peer-link ports ask no speed, so they
break no cage out: each is judged against its cage's plan (HW-004), a whole port of a cage
nothing breaks out (it runs the cage's native speed) or a sub-port of a breakout the links run
there, told the breakout's speed where the platform tells sub-ports theirs.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Literal

from meetme.generators.model import Breakout, PortSpeed, SubPortSpeed
from meetme.generators.platforms import PLATFORMS, Platform

from meetme.core.hardware import NAMING, Cage, Naming, PortName, hardware, port_name
from meetme.intent.schema import Site

Path_ = tuple[str | int, ...]
DeviceName = str


@dataclass(frozen=True)
class PortUse:
    """One link end on a physical port, with where each of its values is written."""

    device: str
    interface: str
    speed_gbps: int
    lanes: int | None
    breakout: str | None
    where: Path_  # the interface
    speed_where: Path_
    breakout_where: Path_  # the breakout when written, else the interface
    what: str = "the link"  # what asks for the speed, in messages
    # whether its HW-004/HW-005 problems are reported here (False: a DCI end, which DCI-004
    # judges with the circuit's own words); its speed and breakout are planned either way
    reported: bool = True


@dataclass(frozen=True)
class PortProblem:
    rule: Literal["HW-004", "HW-005"]
    device: str
    message: str  # names the device, its port and (HW-005) the platform
    path: Path_


@dataclass
class PortPlan:
    speeds: dict[tuple[DeviceName, str], PortSpeed] = field(default_factory=dict)
    breakouts: dict[DeviceName, list[Breakout]] = field(default_factory=dict)
    problems: list[PortProblem] = field(default_factory=list)
    # attachment ports on a breakout's sub-ports, by device: the speed each must be told, as
    # the links' sub-ports are (only where the platform tells a sub-port its speed)
    host_speeds: dict[DeviceName, list[SubPortSpeed]] = field(default_factory=dict)

    def speed_of(self, device: str, interface: str) -> PortSpeed | None:
        return self.speeds.get((device, interface))

    def host_speeds_of(self, device: str) -> tuple[SubPortSpeed, ...]:
        return tuple(self.host_speeds.get(device, ()))

    def breakouts_of(self, device: str) -> tuple[Breakout, ...]:
        return tuple(self.breakouts.get(device, ()))


_MODE = re.compile(r"(?P<count>[1-8])x(?:(?P<speed>[0-9]+)G)?")


@dataclass(frozen=True)
class _Mode:
    count: int
    speed: int

    @property
    def text(self) -> str:
        return f"{self.count}x{self.speed}G"


def plan_ports(site: Site, uses: list[PortUse]) -> PortPlan:
    plan = PortPlan()
    by_cage: dict[tuple[str, int], list[tuple[PortUse, Cage, int | None]]] = defaultdict(list)
    for use in uses:
        device = site.devices.get(use.device)
        if device is None or device.platform not in PLATFORMS:
            continue
        named = port_name(device.model, device.platform, use.interface)
        if named is None:
            continue  # HW-001..003: no such port, or an uncatalogued model
        by_cage[(use.device, named.cage.port)].append((use, named.cage, named.sub))
    asked: set[tuple[str, int]] = set()  # cages the links ask to break out
    for (device_name, port), found in sorted(by_cage.items()):
        platform = PLATFORMS[site.devices[device_name].platform]
        if _plan_cage(plan, platform, device_name, found):
            asked.add((device_name, port))
    quiet = {path for u in uses if not u.reported for path in (u.where, u.speed_where)}
    plan.problems = [p for p in plan.problems if p.path not in quiet]
    _plan_hosts(plan, site, by_cage, asked)
    return plan


def _plan_hosts(
    plan: PortPlan,
    site: Site,
    by_cage: dict[tuple[str, int], list[tuple[PortUse, Cage, int | None]]],
    asked: set[tuple[str, int]],
) -> None:
    """Judge the attachments' ports against the cages the links planned; they change no plan."""
    hosts: dict[tuple[str, int], list[tuple[str, str, Path_, PortName]]] = defaultdict(list)
    for leaf, label, interface, where in _host_ports(site):
        known = site.devices.get(leaf)
        if known is None or known.platform not in PLATFORMS:
            continue
        named = port_name(known.model, known.platform, interface)
        if named is not None:  # else HW-001..003: no such port, or an uncatalogued model
            hosts[(leaf, named.cage.port)].append((label, interface, where, named))
    for (device, port), found in sorted(hosts.items()):
        if (device, port) in asked and _broken_out(plan, device, port) is None:
            continue  # a breakout the cage or platform cannot run: the link's HW-004/HW-005
        platform = PLATFORMS[site.devices[device].platform]
        _judge_hosts(plan, platform, device, found, by_cage.get((device, port), []))


def _host_ports(site: Site) -> Iterator[tuple[str, str, str, Path_]]:
    """(leaf, what it is, interface, where it is written) of every attachment's host and
    MLAG peer-link port, on each of its leaves."""
    for name, attachment in sorted(site.attachments.items()):
        for key, kind in (("ports", "host port"), ("peer_link", "peer-link port")):
            for index, interface in enumerate(getattr(attachment, key)):
                for leaf in attachment.leaves:
                    label = f"attachment {name} {kind}"
                    yield leaf, label, interface, (*attachment.path, key, index)


def _broken_out(plan: PortPlan, device: str, port: int) -> Breakout | None:
    return next((b for b in plan.breakouts_of(device) if b.port == port), None)


def _judge_hosts(
    plan: PortPlan,
    platform: Platform,
    device: str,
    hosts: list[tuple[str, str, Path_, PortName]],
    links: list[tuple[PortUse, Cage, int | None]],
) -> None:
    """A host or peer-link port asks no speed, so it breaks no cage out and is told none: it
    comes up only as a sub-port of the breakout the links on its cage run (EOS: the lane that
    leads one, which the breakout tells its speed), or whole on a cage nothing breaks out."""
    naming = NAMING[platform.name]
    cage = hosts[0][3].cage
    breakout = _broken_out(plan, device, cage.port)
    # another use names the cage whole: PHY-013 reports that clash (EOS's lane 1 is the cage
    # whole and the lead of sub-port 1 alike, so there it says nothing)
    whole = not naming.sub_required and (
        any(sub is None for _, _, sub in links) or any(h[3].sub is None for h in hosts)
    )
    for label, interface, where, named in hosts:
        sub = named.sub
        if sub is not None and (cage.split == 1 or not _in_cage(naming, cage, sub)):
            continue  # a sub-port the cage has not: HW-001's
        if breakout is not None:
            reason = _off_breakout(naming, breakout, sub)
            if reason is None:
                _host_on(plan, platform, device, breakout, interface, sub)
                continue
            message = (
                f"{device} ({platform.name}) {interface}, {label}, {reason} (port {cage.port}, "
                f"{cage.model} {cage.kind}); its sub-ports are {', '.join(breakout.sub_ports)}: "
                "cable the host to one no link uses, or to another port"
            )
        elif sub is None or (naming.sub_required and sub == naming.first_sub) or whole:
            continue  # a whole port of an unbroken cage
        else:
            message = _unbroken_host(platform, naming, device, cage, label, interface, sub)
        plan.problems.append(PortProblem("HW-004", device, message, where))


def _host_on(
    plan: PortPlan,
    platform: Platform,
    device: str,
    breakout: Breakout,
    interface: str,
    sub: int | None,
) -> None:
    """A host port on a sub-port of `breakout`: told the breakout's speed where the platform
    tells sub-ports theirs, and no longer an idle sub-port (EOS would print it twice: shut as
    unused, then as the host's)."""
    naming = NAMING[platform.name]
    index = _sub_index(naming, breakout.lanes, sub)
    if index is None:
        return
    name = breakout.sub_ports[index] if naming.sub_required else interface
    told = plan.host_speeds.setdefault(device, [])
    if platform.ports.sub_port_speed and interface not in {t.port for t in told}:
        speed = PortSpeed(gbps=breakout.speed_gbps, lanes=breakout.lanes)
        told.append(SubPortSpeed(port=interface, speed=speed))
    found = plan.breakouts[device]
    at = next(i for i, b in enumerate(found) if b.port == breakout.port)
    idle = tuple(s for s in found[at].idle_sub_ports if s != name)
    found[at] = found[at].model_copy(update={"idle_sub_ports": idle})


def _sub_index(naming: Naming, lanes: int, sub: int | None) -> int | None:
    """Which sub-port of a breakout whose sub-ports run over `lanes` lanes `sub` names (EOS:
    a lane leads a sub-port every `lanes` lanes); None when it names none."""
    if sub is None:
        return None
    offset = sub - naming.first_sub
    if naming.sub_required:
        return offset // lanes if offset % lanes == 0 else None
    return offset


def _in_cage(naming: Naming, cage: Cage, sub: int) -> bool:
    return naming.first_sub <= sub <= naming.first_sub + cage.split - 1


def _off_breakout(naming: Naming, breakout: Breakout, sub: int | None) -> str | None:
    """Why a host port `sub` is no sub-port of `breakout`, or None when it is one."""
    if sub is None:
        return f"names the whole cage, which the links on it break out {breakout.mode}"
    index = _sub_index(naming, breakout.lanes, sub)
    if index is None or index >= breakout.count:
        return f"is no sub-port of breakout {breakout.mode}, which the links on its cage run"
    return None


def _unbroken_host(
    platform: Platform,
    naming: Naming,
    device: str,
    cage: Cage,
    label: str,
    interface: str,
    sub: int,
) -> str:
    """A host port named as a sub-port (EOS: a lane) of a cage nothing breaks out."""
    if naming.sub_required:
        whole = f"Ethernet{cage.port}/{naming.first_sub}"
        what = f"lane {sub}"
        effect = f"{whole} runs the whole cage and {interface} stays inactive"
    else:
        whole = _whole(platform, cage.port, interface)
        what = f"breakout sub-port {sub}"
        effect = f"{whole} runs whole and {interface} does not exist"
    return (
        f"{device} ({platform.name}) {interface}, {label}, is {what} of port {cage.port} "
        f"({cage.model} {cage.kind}), which nothing breaks out (meetme breaks a cage out only "
        f"for its links and circuits): {effect}; cable the host to a whole port, or to a free "
        "sub-port of a cage a link breaks out"
    )


def _whole(platform: Platform, port: int, interface: str) -> str:
    """The unbroken port a sub-port `interface` belongs to, as the platform names it."""
    if platform.name == "cisco_iosxr":  # the type names the optic's speed: keep the one written
        return interface.split(".", 1)[0].rsplit("/", 1)[0]
    return _parent(platform, port)


def _plan_cage(
    plan: PortPlan,
    platform: Platform,
    device: str,
    found: list[tuple[PortUse, Cage, int | None]],
) -> bool:
    """Plan one cage from its links; whether they ask it to break out (it is broken out when
    the mode fits, the plan's breakouts say)."""
    cage = found[0][1]
    problems = len(plan.problems)
    mode = _mode(plan, platform, device, cage, found)
    asked = mode is not None or len(plan.problems) > problems  # two modes asked: no mode
    for use, _, _ in found:
        if use.speed_gbps <= cage.speed_gbps:  # faster than the cage: HW-004's, the cause
            _speed_type(plan, platform, use)
    if mode is None:
        for use, _, sub in found:
            _unbroken(plan, platform, cage, use, sub)
        return asked
    if not _mode_fits(plan, platform, device, cage, mode, found[0][0]):
        return asked
    lanes = cage.lanes // mode.count
    subs = _sub_ports(platform, cage.port, mode, lanes)
    used: list[str] = []
    for use, _, sub in found:
        name = _sub_port_of(plan, platform, cage, mode, lanes, subs, use, sub)
        if name is None:
            continue
        used.append(name)
        if platform.ports.sub_port_speed:
            plan.speeds[(device, use.interface)] = PortSpeed(gbps=mode.speed, lanes=lanes)
    idle = [s for s in subs if s not in used] if platform.ports.idle_sub_ports else []
    plan.breakouts.setdefault(device, []).append(
        Breakout(
            parent=_parent(platform, cage.port),
            module=1 if platform.name == "cisco_nxos" else 0,
            port=cage.port,
            count=mode.count,
            speed_gbps=mode.speed,
            lanes=lanes,
            sub_ports=tuple(subs),
            idle_sub_ports=tuple(idle),
        )
    )
    return asked


def _mode(
    plan: PortPlan,
    platform: Platform,
    device: str,
    cage: Cage,
    found: list[tuple[PortUse, Cage, int | None]],
) -> _Mode | None:
    """The breakout the cage runs: written on a link end, else implied by a sub-port name;
    None when it runs whole."""
    written: dict[_Mode, PortUse] = {}
    for use, _, _ in found:
        if use.breakout is None:
            continue
        parsed = _MODE.fullmatch(use.breakout)
        if parsed is None:
            continue  # the schema's grammar refuses it first
        speed = int(parsed["speed"]) if parsed["speed"] else use.speed_gbps
        written.setdefault(_Mode(int(parsed["count"]), speed), use)
    if len(written) > 1:
        (first, first_use), (second, second_use) = list(written.items())[:2]
        plan.problems.append(
            PortProblem(
                "HW-004",
                device,
                f"{device}: port {cage.port} ({cage.kind}) runs one breakout, but "
                f"{first_use.interface} asks {first.text} and {second_use.interface} "
                f"{second.text}; give every sub-port of the cage the same breakout",
                second_use.breakout_where,
            )
        )
        return None
    if written:
        mode = next(iter(written))
        return None if mode.count == 1 else mode
    lane_named = NAMING[platform.name].sub_required if platform.name in NAMING else False
    first_sub = NAMING[platform.name].first_sub if platform.name in NAMING else 0
    for use, _, sub in found:
        # a sub-port past the cage's lanes names no port of this model (HW-001 says so):
        # it implies no breakout, or a correct rule sharing the cage would be blamed too
        splits = sub is not None and (not lane_named or sub != first_sub)
        if splits and sub is not None and sub <= first_sub + cage.lanes - 1:
            count = min(cage.split, max(1, cage.speed_gbps // use.speed_gbps))
            return _Mode(count, use.speed_gbps)
    return None


def _mode_fits(
    plan: PortPlan,
    platform: Platform,
    device: str,
    cage: Cage,
    mode: _Mode,
    use: PortUse,
) -> bool:
    where = f"{device} port {cage.port} ({cage.model} {cage.kind}, {cage.lanes} lanes)"
    reason = None
    if mode.count < 2:
        reason = (
            f"{use.interface} is a breakout sub-port, but its {mode.speed}G is the whole "
            f"cage's speed; write the port whole or a slower speed"
        )
    elif mode.count > cage.split:
        reason = f"breakout {mode.text}: the cage splits into at most {cage.split}"
    elif mode.count * mode.speed > cage.speed_gbps:
        needs = mode.count * mode.speed
        reason = f"breakout {mode.text} needs {needs}G, the cage runs {cage.speed_gbps}G"
    elif cage.lanes % mode.count:
        reason = f"breakout {mode.text}: {cage.lanes} lanes do not split {mode.count} ways"
    if reason is not None:
        problem = PortProblem("HW-004", device, f"{where}: {reason}", use.breakout_where)
        plan.problems.append(problem)
        return False
    modes = platform.ports.modes
    if modes is not None and mode.text not in modes:
        plan.problems.append(
            PortProblem(
                "HW-005",
                device,
                f"{device} ({platform.name}) port {cage.port}: {platform.title} has no form for "
                f"breakout {mode.text}; it breaks a port out {', '.join(modes)}",
                use.breakout_where,
            )
        )
        return False
    return True


def _sub_port_of(
    plan: PortPlan,
    platform: Platform,
    cage: Cage,
    mode: _Mode,
    lanes: int,
    subs: list[str],
    use: PortUse,
    sub: int | None,
) -> str | None:
    """The sub-port of the breakout `use` names, or None with the problem noted."""
    naming = NAMING[platform.name]
    index = _sub_index(naming, lanes, sub)
    reason = None
    if sub is None:
        reason = f"names the whole cage, which runs broken out {mode.text}"
    elif index is None or index >= mode.count:
        reason = f"is no sub-port of breakout {mode.text}"
    elif use.speed_gbps != mode.speed:
        reason = f"runs {use.speed_gbps}G, the sub-ports of breakout {mode.text} {mode.speed}G"
    if reason is not None:
        plan.problems.append(
            PortProblem(
                "HW-004",
                use.device,
                f"{use.device} {use.interface} {reason}; its sub-ports are {', '.join(subs)}",
                use.where,
            )
        )
        return None
    assert index is not None
    return subs[index] if naming.sub_required else use.interface


def _unbroken(
    plan: PortPlan, platform: Platform, cage: Cage, use: PortUse, sub: int | None
) -> None:
    where = f"{use.device} {use.interface} ({cage.model} {cage.kind})"
    if use.speed_gbps > cage.speed_gbps:
        plan.problems.append(
            PortProblem(
                "HW-004",
                use.device,
                f"{where} runs at most {cage.speed_gbps}G, {use.what} asks {use.speed_gbps}G",
                use.speed_where,
            )
        )
        return
    if use.lanes is not None and use.lanes > cage.lanes:
        plan.problems.append(
            PortProblem(
                "HW-004",
                use.device,
                f"{where} has {cage.lanes} lanes, {use.what} asks {use.lanes}",
                use.speed_where,
            )
        )
        return
    native = use.speed_gbps == cage.speed_gbps and use.lanes in (None, cage.lanes)
    if native or not platform.ports.forced_speed:
        return
    # the cage's lane rate unless the link says otherwise (a 100G QSFP28 optic in a QSFP-DD
    # cage runs 4 lanes of 25G, not 2 of 50G: `lanes: 4`)
    lanes = use.lanes or max(1, cage.lanes * use.speed_gbps // cage.speed_gbps)
    plan.speeds[(use.device, use.interface)] = PortSpeed(gbps=use.speed_gbps, lanes=lanes)


def _speed_type(plan: PortPlan, platform: Platform, use: PortUse) -> None:
    """IOS-XR names a port by its optic's speed: the name must say the link's speed."""
    types = platform.ports.speed_types
    found = re.fullmatch(r"(?P<kind>[A-Za-z]+)(?P<numbers>[0-9/.]+)", use.interface)
    if not types or found is None:
        return
    named = next((gbps for gbps, kind in types.items() if kind == found["kind"]), None)
    if named is None or named == use.speed_gbps:
        return
    wanted = types.get(use.speed_gbps)
    fix = f"; write {wanted}{found['numbers']}" if wanted else ""
    plan.problems.append(
        PortProblem(
            "HW-005",
            use.device,
            f"{use.device} ({platform.name}) {use.interface}: {platform.title} names a port "
            f"by its optic's speed, {named}G, but {use.what} runs {use.speed_gbps}G{fix}",
            use.where,
        )
    )


def unused_ports(model: str, platform: Platform, used: Iterable[str]) -> tuple[str, ...]:
    """Every front-panel cage of a catalogued `model` that none of the interface names in
    `used` sits in (a sub-interface or sub-port counts for its cage), as the platform names the
    whole port, in port order. Empty where the platform leaves them unsaid or the model is not
    catalogued for it (HW-002 names that)."""
    spec = hardware()["models"].get(model)
    if not platform.ports.shut_unused or spec is None or spec["platform"] != platform.name:
        return ()
    taken = {found.cage.port for name in used if (found := port_name(model, platform.name, name))}
    return tuple(
        _whole_port(platform, port, group["lanes"])
        for group in spec["groups"]
        for port in range(group["first"], group["last"] + 1)
        if port not in taken
    )


def _whole_port(platform: Platform, port: int, lanes: int) -> str:
    """A cage's interface as the platform names it unbroken: EOS writes a multi-lane cage with
    its first lane (Ethernet7/1), a single-lane one plain (validators/data/hardware.yaml)."""
    if platform.name == "arista_eos" and lanes > 1:
        return f"Ethernet{port}/1"
    return _parent(platform, port)


def _parent(platform: Platform, port: int) -> str:
    """The cage as the platform names it whole (IOS-XR: the optics controller's numbers)."""
    return {
        "arista_eos": f"Ethernet{port}",
        "cisco_nxos": f"Ethernet1/{port}",
        "nvidia_nvue": f"swp{port}",
        "cisco_iosxr": f"0/0/0/{port}",
    }[platform.name]


def _sub_ports(platform: Platform, port: int, mode: _Mode, lanes: int) -> list[str]:
    """Every interface a breakout makes, as the platform names them (validators/data/
    hardware.yaml header): NVUE swpPs0.., NX-OS Ethernet1/P/1.., IOS-XR <Type>0/0/0/P/0..,
    EOS the lane leading each sub-port, EthernetP/1, /5 for 2 x 4 lanes."""
    count = range(mode.count)
    if platform.name == "nvidia_nvue":
        return [f"swp{port}s{i}" for i in count]
    if platform.name == "cisco_nxos":
        return [f"Ethernet1/{port}/{i + 1}" for i in count]
    if platform.name == "cisco_iosxr":
        kind = platform.ports.speed_types.get(mode.speed, "HundredGigE")
        return [f"{kind}0/0/0/{port}/{i}" for i in count]
    return [f"Ethernet{port}/{1 + i * lanes}" for i in count]

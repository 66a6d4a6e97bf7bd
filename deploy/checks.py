"""Post-checks after a commit, all from the device model: BGP neighbours Established, cabled
ports up with the planned LLDP neighbour, ports up at the rendered speed, EVPN sessions
Established and the remote VTEPs present.

They read the device through NAPALM's getters (`get_bgp_neighbors`, `get_interfaces`,
`get_lldp_neighbors`; meetme's adapters have the same), so one check serves every driver;
the remote VTEPs through each vendor's show command. A getter that fails (the management
session dropped) counts as a failed check.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from meetme.generators.model import DeviceModel

T = TypeVar("T")


@dataclass(frozen=True)
class Expected:
    address: str  # normalised: NAPALM and the model may spell an IPv6 address differently
    remote_as: int


@dataclass
class CheckResult:
    ok: bool
    detail: str
    polls: int
    evidence: list[str] = field(default_factory=list)  # what the device said, item by item


def _normal(address: str) -> str:
    try:
        return str(ipaddress.ip_address(address))
    except ValueError:
        return address


def expected_neighbors(model: DeviceModel, underlay_only: bool = False) -> list[Expected]:
    return [
        Expected(_normal(n.address), n.remote_as)
        for n in model.bgp.neighbors
        if not (underlay_only and n.kind != "underlay")
    ]


def _problems(expected: list[Expected], bgp: dict[str, Any]) -> list[str]:
    peers: dict[str, dict[str, Any]] = {}
    for vrf in bgp.values():
        for address, data in (vrf.get("peers") or {}).items():
            peers[_normal(str(address))] = data
    problems = []
    for want in expected:
        peer = peers.get(want.address)
        if peer is None:
            problems.append(f"{want.address} missing")
        elif int(peer.get("remote_as", -1)) != want.remote_as:
            problems.append(f"{want.address} remote AS {peer.get('remote_as')} != {want.remote_as}")
        elif not peer.get("is_up"):
            problems.append(f"{want.address} not Established")
    return problems


def check_bgp(
    driver: Any,
    expected: list[Expected],
    timeout: float,
    interval: float,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> CheckResult:
    """Poll until every expected neighbour is Established or the deadline passes."""
    if not expected:
        return CheckResult(True, "no BGP neighbours expected", 0)

    def poll() -> list[str]:
        try:
            return _problems(expected, driver.get_bgp_neighbors())
        except Exception as exc:  # a getter that cannot answer is a failed check
            raise _GetterFailed(f"get_bgp_neighbors failed: {exc}") from exc

    return _poll(
        poll,
        len(expected),
        f"{len(expected)}/{len(expected)} BGP neighbours Established",
        "BGP neighbours Established",
        timeout,
        interval,
        clock,
        sleep,
    )


class _GetterFailed(Exception):
    """A getter that cannot answer: the check fails with this message."""


def _reader(read: Callable[[], T], what: str) -> Callable[[], T] | CheckResult | None:
    """`read` made a poll's getter, after a first call: None when the driver has no such
    getter (nothing is checked), a failed result when the device cannot answer; else a getter
    handing out that first answer, then reading anew (_GetterFailed when it cannot)."""
    try:
        first = [read()]
    except (AttributeError, NotImplementedError):
        return None
    except Exception as exc:  # a getter that cannot answer is a failed check
        return CheckResult(False, f"{what} failed: {exc}", 1)

    def again() -> T:
        if first:
            return first.pop()
        try:
            return read()
        except Exception as exc:  # a getter that cannot answer is a failed check
            raise _GetterFailed(f"{what} failed: {exc}") from exc

    return again


def _poll(
    poll: Callable[[], list[str]],
    wanted: int,
    success: str,
    counted: str,
    timeout: float,
    interval: float,
    clock: Callable[[], float],
    sleep: Callable[[float], None],
) -> CheckResult:
    """Run `poll` (the problems left) until none are left or the deadline passes."""
    deadline = clock() + timeout
    polls = 0
    while True:
        polls += 1
        try:
            problems = poll()
        except _GetterFailed as exc:
            return CheckResult(False, str(exc), polls)
        if not problems:
            return CheckResult(True, success, polls)
        remaining = deadline - clock()
        if remaining <= 0:
            shown = "; ".join(problems[:6]) + (" …" if len(problems) > 6 else "")
            return CheckResult(
                False,
                f"{wanted - len(problems)}/{wanted} {counted} after {timeout:g} s: {shown}",
                polls,
            )
        sleep(min(interval, remaining))


@dataclass(frozen=True)
class Link:
    """A cabled port of the device model and the far end the cabling plan puts on it."""

    interface: str
    peer_device: str
    peer_interface: str


def expected_links(model: DeviceModel) -> list[Link]:
    return [
        Link(i.name, i.peer.device, i.peer.interface)
        for i in model.interfaces
        if i.peer is not None and i.kind == "routed"
    ]


def _short(hostname: str) -> str:
    return hostname.split(".", 1)[0]  # LLDP may announce the FQDN


def _link_problems(
    links: list[Link], interfaces: dict[str, Any], lldp: dict[str, Any]
) -> list[str]:
    problems = []
    for link in links:
        state = interfaces.get(link.interface)
        if state is None:
            problems.append(f"{link.interface} missing")
            continue
        if not state.get("is_up"):
            problems.append(f"{link.interface} down")
            continue
        heard = [
            (_short(str(n.get("hostname"))), str(n.get("port")))
            for n in lldp.get(link.interface) or []
        ]
        want = (link.peer_device, link.peer_interface)
        if want not in heard:
            seen = ", ".join(f"{d}:{p}" for d, p in heard) or "nothing"
            problems.append(
                f"{link.interface}: LLDP hears {seen}, the cabling plan says "
                f"{link.peer_device}:{link.peer_interface}"
            )
    return problems


def check_links(
    driver: Any,
    links: list[Link],
    timeout: float,
    interval: float,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> CheckResult | None:
    """Poll until every cabled port is up and LLDP hears the far end the cabling plan names,
    or the deadline passes. None: the driver has no such getters (nothing was checked)."""
    if not links:
        return CheckResult(True, "no cabled ports expected", 0)
    read = _reader(
        lambda: (driver.get_interfaces(), driver.get_lldp_neighbors()),
        "get_interfaces/get_lldp_neighbors",
    )
    if read is None or isinstance(read, CheckResult):
        return read

    def poll() -> list[str]:
        return _link_problems(links, *read())

    return _poll(
        poll,
        len(links),
        f"{len(links)}/{len(links)} cabled ports up with the planned LLDP neighbour",
        "cabled ports as planned",
        timeout,
        interval,
        clock,
        sleep,
    )


@dataclass(frozen=True)
class Port:
    """A physical port of the device model and the speed the rendered config runs it at."""

    interface: str
    mbps: int


def expected_ports(model: DeviceModel) -> list[Port]:
    """Every port the model gives a speed (its cabled links): the rendered config brings each
    up (no `shutdown`) at that speed."""
    return [
        Port(i.name, i.speed_gbps * 1000)
        for i in model.interfaces
        if i.speed_gbps is not None and i.kind == "routed" and i.parent is None
    ]


def _port_problems(ports: list[Port], interfaces: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(problems, evidence): what the device says of each port, per port."""
    problems, evidence = [], []
    for port in ports:
        state = interfaces.get(port.interface)
        if state is None:
            problems.append(f"{port.interface} missing")
            evidence.append(f"{port.interface}: not on the device")
            continue
        up = bool(state.get("is_up"))
        try:  # NAPALM: Mbit/s as a float
            speed = round(float(state.get("speed") or 0))
        except (TypeError, ValueError):
            speed = 0
        evidence.append(f"{port.interface}: {'up' if up else 'down'} at {speed} Mbit/s")
        if not up:
            problems.append(f"{port.interface} down")
        elif speed != port.mbps:
            problems.append(f"{port.interface} at {speed} Mbit/s, rendered {port.mbps} Mbit/s")
    return problems, evidence


def check_ports(
    driver: Any,
    ports: list[Port],
    timeout: float,
    interval: float,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> CheckResult | None:
    """Poll until every port of the model is up at its rendered speed (NAPALM get_interfaces:
    `is_up`, `speed` in Mbit/s), or the deadline passes. The result's evidence is what the
    last poll read of each port. None: the driver has no such getter (nothing was checked)."""
    if not ports:
        return CheckResult(True, "no ports with a speed expected", 0)
    read = _reader(lambda: driver.get_interfaces(), "get_interfaces")
    if read is None or isinstance(read, CheckResult):
        return read
    seen: list[str] = []

    def poll() -> list[str]:
        problems, evidence = _port_problems(ports, read())
        seen[:] = evidence
        return problems

    result = _poll(
        poll,
        len(ports),
        f"{len(ports)}/{len(ports)} ports up at the rendered speed",
        "ports up at the rendered speed",
        timeout,
        interval,
        clock,
        sleep,
    )
    result.evidence = list(seen)
    return result


def vtep_address(model: DeviceModel) -> str | None:
    """The address other VTEPs reach this one at: an MLAG / vPC pair's shared anycast VTEP,
    else its own source address; None on a device that is no VTEP."""
    if model.evpn is None or not model.evpn.vtep:
        return None
    if model.mlag is not None and model.mlag.anycast_vtep:
        return _normal(model.mlag.anycast_vtep.split("/")[0])
    return _normal(model.evpn.source_address) if model.evpn.source_address else None


def expected_remote_vteps(model: DeviceModel, site: Iterable[DeviceModel]) -> tuple[str, ...]:
    """The remote VTEPs this VTEP must see: every other VTEP address of its site that shares
    an L2VNI with it (EVPN type-3 routes announce a VTEP per L2VNI; RFC 8365 §9). Its own
    MLAG partner shares its address and is no remote VTEP."""
    own = vtep_address(model)
    if own is None or model.evpn is None:
        return ()
    vnis = {v.vni for v in model.evpn.vlans}
    found = set()
    for other in site:
        address = vtep_address(other)
        if other.site != model.site or address is None or address == own:
            continue
        assert other.evpn is not None  # vtep_address says so
        if vnis & {v.vni for v in other.evpn.vlans}:
            found.add(address)
    return tuple(sorted(found, key=_sort_key))


def _sort_key(address: str) -> tuple[int, Any]:
    try:
        parsed = ipaddress.ip_address(address)
        return parsed.version, parsed
    except ValueError:
        return 9, address


@dataclass(frozen=True)
class Overlay:
    """What the device model expects of the EVPN overlay on one device."""

    sessions: list[Expected]  # the EVPN sessions (loopback to loopback)
    vteps: tuple[str, ...]  # the remote VTEPs (empty on a device that is no VTEP)
    vnis: tuple[int, ...]  # its L2VNIs (NVUE reads the remote VTEPs per VNI)


def expected_overlay(model: DeviceModel, remote_vteps: tuple[str, ...]) -> Overlay:
    if model.evpn is None:
        return Overlay([], (), ())
    sessions = [Expected(_normal(p.address), p.remote_as) for p in model.evpn.peers]
    return Overlay(sessions, remote_vteps, tuple(v.vni for v in model.evpn.vlans))


def read_remote_vteps(driver: Any, vnis: tuple[int, ...]) -> set[str] | None:
    """The remote VTEPs the device knows, through the vendor's own show command; None: the
    driver has no way to ask.

    - EOS: `show vxlan vtep` in JSON, `{"interfaces": {"Vxlan1": {"vteps": [...]}}}` (newer
      releases: `{"vteps": {ADDRESS: {...}}}`); Arista EOS user manual, "VXLAN" show
      commands, the field names as public eAPI tooling reads them;
    - NX-OS, NVUE: the adapter's `get_remote_vteps` (deploy/nxos_checkpoint.py: `show nve
      peers`; deploy/nvue_rest.py: the VNIs' `remote-vtep`)."""
    if hasattr(driver, "get_remote_vteps"):
        return {_normal(str(a)) for a in driver.get_remote_vteps(vnis)}
    device = getattr(driver, "device", None)
    eos = hasattr(driver, "config_session")  # napalm's EOS driver: eAPI under `device`
    if device is None or not eos or not hasattr(device, "run_commands"):
        return None
    reply = device.run_commands(["show vxlan vtep"])[0]
    found: set[str] = set()
    vteps = reply.get("vteps")
    if isinstance(vteps, dict):
        found |= {_normal(str(a)) for a in vteps}
    for interface in (reply.get("interfaces") or {}).values():
        found |= {_normal(str(a)) for a in (interface or {}).get("vteps") or []}
    return found


def check_overlay(
    driver: Any,
    overlay: Overlay,
    timeout: float,
    interval: float,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> CheckResult | None:
    """Poll until every EVPN session of the model is Established with the right AS and the
    device knows every remote VTEP the model expects, or the deadline passes. None: VTEPs
    are expected and the driver cannot read them (nothing was checked)."""
    wanted = len(overlay.sessions) + len(overlay.vteps)
    if not wanted:
        return CheckResult(True, "no EVPN sessions or remote VTEPs in the device model", 0)
    seen: list[str] = []

    def read_vteps() -> set[str] | None:
        try:
            return read_remote_vteps(driver, overlay.vnis) if overlay.vteps else set()
        except Exception as exc:  # a device that cannot answer is a failed check
            raise _GetterFailed(f"reading the remote VTEPs failed: {exc}") from exc

    try:
        first = read_vteps()
    except _GetterFailed as exc:
        return CheckResult(False, str(exc), 1)
    if first is None:
        return None
    pending: list[set[str]] = [first]

    def poll() -> list[str]:
        vteps = pending.pop() if pending else read_vteps()
        assert vteps is not None
        problems, evidence = [], []
        if overlay.sessions:
            try:
                bgp = driver.get_bgp_neighbors()
            except Exception as exc:  # a getter that cannot answer is a failed check
                raise _GetterFailed(f"get_bgp_neighbors failed: {exc}") from exc
            session_problems = _problems(overlay.sessions, bgp)
            problems += [f"EVPN session {p}" for p in session_problems]
            bad = {p.split()[0] for p in session_problems}
            evidence += [
                f"EVPN session {s.address}: {'not ' if s.address in bad else ''}Established"
                for s in overlay.sessions
            ]
        for address in overlay.vteps:
            known = address in vteps
            evidence.append(f"remote VTEP {address}: {'present' if known else 'absent'}")
            if not known:
                problems.append(f"remote VTEP {address} absent")
        seen[:] = evidence
        return problems

    result = _poll(
        poll,
        wanted,
        f"{len(overlay.sessions)} EVPN sessions Established, {len(overlay.vteps)} remote "
        "VTEPs present",
        "EVPN sessions and remote VTEPs as planned",
        timeout,
        interval,
        clock,
        sleep,
    )
    result.evidence = list(seen)
    return result

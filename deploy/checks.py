"""Post-checks after a commit: the device model's BGP neighbours reach Established in time.

They read the device through NAPALM's `get_bgp_neighbors` getter, so the same check serves
every driver. A getter that fails (the management session dropped) counts as a failed check.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from meetme.generators.model import DeviceModel


@dataclass(frozen=True)
class Expected:
    address: str  # normalised: NAPALM and the model may spell an IPv6 address differently
    remote_as: int


@dataclass
class CheckResult:
    ok: bool
    detail: str
    polls: int


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
    try:  # a driver without these getters checks nothing (None), before any poll
        interfaces, lldp = driver.get_interfaces(), driver.get_lldp_neighbors()
    except (AttributeError, NotImplementedError):
        return None
    except Exception as exc:  # a getter that cannot answer is a failed check
        return CheckResult(False, f"get_interfaces/get_lldp_neighbors failed: {exc}", 1)
    first: list[tuple[Any, Any]] = [(interfaces, lldp)]

    def poll() -> list[str]:
        try:
            states = (
                first.pop() if first else (driver.get_interfaces(), driver.get_lldp_neighbors())
            )
        except Exception as exc:  # a getter that cannot answer is a failed check
            raise _GetterFailed(f"get_interfaces/get_lldp_neighbors failed: {exc}") from exc
        return _link_problems(links, *states)

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

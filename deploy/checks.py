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
    deadline = clock() + timeout
    polls = 0
    while True:
        polls += 1
        try:
            problems = _problems(expected, driver.get_bgp_neighbors())
        except Exception as exc:  # a getter that cannot answer is a failed check
            return CheckResult(False, f"get_bgp_neighbors failed: {exc}", polls)
        if not problems:
            return CheckResult(
                True, f"{len(expected)}/{len(expected)} BGP neighbours Established", polls
            )
        remaining = deadline - clock()
        if remaining <= 0:
            shown = "; ".join(problems[:6]) + (" …" if len(problems) > 6 else "")
            return CheckResult(
                False,
                f"{len(expected) - len(problems)}/{len(expected)} BGP neighbours Established "
                f"after {timeout:g} s: {shown}",
                polls,
            )
        sleep(min(interval, remaining))

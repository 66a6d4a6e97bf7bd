"""The twin's L3VNI repair (twin/runtime.repair_l3vnis) against canned `ip -j` answers.

FRR 8.4's zebra now and then installs a VRF route through a remote VTEP without that VTEP's
router MAC; the twin installs the neighbour and forwarding entries zebra left out, with the MAC
read from the remote VTEP's own bridge, and never a route. Here the kernel is a table of
answers written by hand, so every case is exact and no namespace is needed; the twin
integration tests run the repair on a real twin.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from meetme.twin import runtime
from meetme.twin.topology import Node, Twin

MAC2, MAC3 = "aa:00:00:00:00:02", "aa:00:00:00:00:03"


def leaf(number: int, vrfs: tuple[tuple[str, int], ...]) -> Node:
    return Node(
        name=f"lf{number}",
        namespace=f"mt-lf{number}",
        kind="device",
        role="leaf",
        config="",
        static=False,
        vrfs=tuple(v for v, _ in vrfs),
        l3vnis=vrfs,
        vtep=f"10.0.1.{number}",
    )


class Kernel:
    """Answers `ip -n NS -j ...` from `tables`, records `ip|bridge -n NS -batch -` input."""

    def __init__(self, tables: dict[tuple[str, ...], Any]) -> None:
        self.tables = tables
        self.batches: dict[tuple[str, str], list[str]] = {}

    def run(self, args: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        tool, _, ns, *rest = args
        if rest == ["-batch", "-"]:
            self.batches[(tool, ns)] = kwargs["input"].splitlines()
            return subprocess.CompletedProcess(args, 0, "", "")
        assert tool == "ip" and rest[0] == "-j", args
        answer = self.tables.get((ns, *rest[1:]), [])
        return subprocess.CompletedProcess(args, 0, json.dumps(answer), "")


BLUE = (("blue", 50001),)


def tables(routes4: list[Any], routes6: list[Any], neighbours: list[Any]) -> dict[Any, Any]:
    """lf1's VRF blue holds these routes and neighbours; lf2 and lf3 their bridges' MACs."""
    return {
        ("mt-lf1.blue", "-4", "route", "show"): routes4,
        ("mt-lf1.blue", "-6", "route", "show"): routes6,
        ("mt-lf1.blue", "neigh", "show", "dev", "br50001"): neighbours,
        ("mt-lf1.blue", "link", "show", "br50001"): [{"address": "aa:00:00:00:00:01"}],
        ("mt-lf2.blue", "link", "show", "br50001"): [{"address": MAC2}],
        ("mt-lf3.blue", "link", "show", "br50001"): [{"address": MAC3}],
    }


def repaired(
    monkeypatch: pytest.MonkeyPatch, kernel: Kernel
) -> tuple[list[str], dict[tuple[str, str], list[str]]]:
    monkeypatch.setattr(runtime.subprocess, "run", kernel.run)
    twin = Twin(site="aus1", nodes=[leaf(1, BLUE), leaf(2, BLUE), leaf(3, BLUE)])
    return runtime.repair_l3vnis(twin), kernel.batches


def test_a_vtep_without_its_router_mac_gets_it_and_nothing_else(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    routes4 = [
        {"dst": "10.50.2.0/24", "gateway": "10.0.1.2", "dev": "br50001"},  # resolved
        {"dst": "10.50.3.0/24", "gateway": "10.0.1.3", "dev": "br50001"},  # lacking
        {"dst": "10.50.9.0/24", "gateway": "10.0.1.9", "dev": "br50001"},  # no such VTEP
        {"dst": "10.60.0.0/24", "gateway": "10.0.1.3", "dev": "swp1"},  # not over the L3VNI
        {  # ECMP: both hops over the L3VNI
            "dst": "10.50.0.0/16",
            "nexthops": [
                {"gateway": "10.0.1.2", "dev": "br50001"},
                {"gateway": "10.0.1.3", "dev": "br50001"},
            ],
        },
    ]
    routes6 = [{"dst": "2001:db8:50:3::/64", "gateway": "::ffff:10.0.1.3", "dev": "br50001"}]
    neighbours = [
        {"dst": "10.0.1.2", "lladdr": MAC2, "state": ["NOARP"]},
        {"dst": "10.0.1.3", "state": ["FAILED"]},  # an entry without a MAC resolves nothing
    ]
    kernel = Kernel(tables(routes4, routes6, neighbours))
    lacking, batches = repaired(monkeypatch, kernel)
    assert lacking == ["lf1 blue (VNI 50001)"]
    assert batches == {
        ("bridge", "mt-lf1.blue"): [
            f"fdb replace {MAC3} dev vx50001 dst 10.0.1.3 self extern_learn",
            f"fdb replace {MAC3} dev vx50001 master static",
        ],
        ("ip", "mt-lf1.blue"): [
            f"neigh replace 10.0.1.3 lladdr {MAC3} dev br50001 nud noarp",
            f"neigh replace ::ffff:10.0.1.3 lladdr {MAC3} dev br50001 nud noarp",
        ],
    }


def test_a_sound_l3vni_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    routes4 = [{"dst": "10.50.2.0/24", "gateway": "10.0.1.2", "dev": "br50001"}]
    neighbours = [{"dst": "10.0.1.2", "lladdr": MAC2}]
    lacking, batches = repaired(monkeypatch, Kernel(tables(routes4, [], neighbours)))
    assert lacking == [] and batches == {}


def test_a_lacking_vtep_no_twin_node_owns_is_named_but_never_invented(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    routes4 = [{"dst": "10.50.9.0/24", "gateway": "10.0.1.9", "dev": "br50001"}]
    lacking, batches = repaired(monkeypatch, Kernel(tables(routes4, [], [])))
    assert lacking == ["lf1 blue (VNI 50001)"]
    assert batches == {}


def test_a_vtep_only_an_ipv6_route_lacks_is_sent_to_its_ipv4_address(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    routes6 = [{"dst": "2001:db8:50:2::/64", "gateway": "::ffff:10.0.1.2", "dev": "br50001"}]
    lacking, batches = repaired(monkeypatch, Kernel(tables([], routes6, [])))
    assert lacking == ["lf1 blue (VNI 50001)"]
    assert batches[("bridge", "mt-lf1.blue")] == [
        f"fdb replace {MAC2} dev vx50001 dst 10.0.1.2 self extern_learn",
        f"fdb replace {MAC2} dev vx50001 master static",
    ]
    assert batches[("ip", "mt-lf1.blue")] == [
        f"neigh replace ::ffff:10.0.1.2 lladdr {MAC2} dev br50001 nud noarp"
    ]

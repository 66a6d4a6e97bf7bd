"""SRv6 and the DCI ports as rendered: the IOS-XR border's locator, IS-IS and L3VPN, the SN5600's
static uN SID, and the DCI ports on both sites' borders, pinned line for line (golden files
under tests/golden/srv6/; refresh with MEETME_UPDATE_GOLDEN=1 after reviewing a change)."""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest
from conftest import EXAMPLE_INTENT, replace_in
from meetme.generators.render import render_device
from srv6_example import models_of

from meetme.pipeline import device_models, lint, render_all

GOLDEN = Path(__file__).parent / "golden" / "srv6"


def _section(text: str, first: str, last_prefixes: tuple[str, ...]) -> str:
    """The lines from the one starting with `first` up to (not including) the next line that
    starts with one of `last_prefixes` after it."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(first))
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i].startswith(last_prefixes)),
        len(lines),
    )
    return "\n".join(lines[start:end]) + "\n"


def _stanza(text: str, header: str) -> str:
    return _section(text, header, ("!", "interface ", "\n")).rstrip("\n") + "\n"


@pytest.fixture(scope="module")
def rendered() -> dict[str, str]:
    return render_all(device_models(lint(EXAMPLE_INTENT)))


def _pieces(rendered: dict[str, str]) -> dict[str, str]:
    br1 = rendered["aus1/aus1-br1.cfg"]
    mel = rendered["mel1/mel1-br1.cfg"]
    lf1 = rendered["aus1/aus1-lf1.yaml"]
    return {
        "aus1-br1-srv6.cfg": _stanza(br1, "interface FourHundredGigE0/0/0/27")
        + _section(br1, "router isis SRV6", ("router bgp",)),
        "mel1-br1-dci.cfg": _section(mel, "interface Ethernet35/1", ("!",)),
        "aus1-lf1-srv6.yaml": _section(lf1, "      segment-routing:", ("    vrf:",)),
    }


@pytest.mark.parametrize("name", ["aus1-br1-srv6.cfg", "mel1-br1-dci.cfg", "aus1-lf1-srv6.yaml"])
def test_srv6_sections_match_golden(rendered: dict[str, str], name: str) -> None:
    got = _pieces(rendered)[name]
    golden = GOLDEN / name
    if os.environ.get("MEETME_UPDATE_GOLDEN"):
        golden.write_text(got)
    expected = golden.read_text()
    if got != expected:
        diff = difflib.unified_diff(expected.splitlines(), got.splitlines(), lineterm="")
        pytest.fail("rendered section differs from its golden file:\n" + "\n".join(diff))


def test_the_iosxr_locator_and_dci_port_are_what_the_plan_says(rendered: dict[str, str]) -> None:
    """Hand-written expectations beside the golden file: the values, not just the shape."""
    br1 = rendered["aus1/aus1-br1.cfg"]
    assert (
        "interface FourHundredGigE0/0/0/27\n"
        " description DCI syd-mel-coastal to mel1-br1 Ethernet35/1\n"
        " mtu 9228\n"  # IP MTU 9214 + 14 (XR counts the Ethernet header)
        " ipv4 address 10.255.0.0 255.255.255.254\n"
        " ipv6 address 2001:db8:ffff::/127\n"
    ) in br1
    assert (
        "  locators\n   locator MAIN\n    micro-segment behavior unode psp-usd\n"
        "    prefix 5f00:0:101::/48\n"
    ) in br1
    assert "  encapsulation\n   source-address 2001:db8:0:ff::1\n" in br1
    # the example asks no VRF of SRv6: mel1's EOS borders cannot end it (docs/srv6.md); the
    # VPN families stand under `router bgp` for the VRF-lite VRFs, but no session runs them
    assert "\n  address-family vpnv6 unicast\n" not in br1
    assert "\n  address-family vpnv4 unicast\n" not in br1
    assert "alloc mode per-vrf" not in br1
    mel = rendered["mel1/mel1-br1.cfg"]
    assert "interface Ethernet35/1\n   description DCI syd-mel-coastal to aus1-br1 " in mel
    assert "   ip address 10.255.0.1/31\n   ipv6 address 2001:db8:ffff::1/127\n" in mel


def test_a_vrf_over_srv6_renders_vpn_sessions_sids_and_route_targets_on_iosxr(
    example: Path,
) -> None:
    """storage between the sites: aus1's IOS-XR borders render their whole side (mel1's EOS
    borders are refused by PLAT-018/019, tests/test_rules_srv6.py)."""
    srv6 = example / "intent/srv6.yaml"
    replace_in(srv6, "mel1: {id: 2, devices: []}", "mel1: {id: 2}")
    with srv6.open("a") as handle:
        handle.write("  vrfs:\n    storage: {id: 10, sites: [aus1, mel1]}\n")
    _, models = models_of(example)
    br1 = render_device(models["aus1-br1"])
    assert (
        "vrf storage\n address-family ipv4 unicast\n  import route-target\n   64500:10\n  !\n"
        "  export route-target\n   64500:10\n  !\n"
    ) in br1
    assert " address-family vpnv4 unicast\n !\n address-family vpnv6 unicast\n !\n" in br1
    for address, far in (("2001:db8:2:ff::1", "mel1-br1"), ("2001:db8:2:ff::2", "mel1-br2")):
        assert (
            f" neighbor {address}\n  remote-as 64500\n"
            f"  description SRv6 L3VPN to {far} (mel1)\n  update-source Loopback0\n"
            "  address-family vpnv4 unicast\n  !\n  address-family vpnv6 unicast\n  !\n !\n"
        ) in br1
    bgp = br1.split("\nrouter bgp ", 1)[1]
    vrf_block = bgp.split("\n vrf storage\n", 1)[1].split("\n !\n", 1)[0]
    assert (
        "  address-family ipv4 unicast\n   maximum-paths ebgp 64\n   segment-routing srv6\n"
        "    locator MAIN\n    alloc mode per-vrf\n   !\n"
    ) in vrf_block
    # the far border is in the domain now: IS-IS runs over the DCI port too, with BFD at the
    # site's underlay timers (300 ms x 3), so a wave that dies with its port up is seen at once
    isis = br1.split("router isis SRV6\n", 1)[1].split("\n!\n", 1)[0]
    assert (
        " interface FourHundredGigE0/0/0/27\n  bfd minimum-interval 300\n  bfd multiplier 3\n"
        "  bfd fast-detect ipv6\n  point-to-point\n"
    ) in isis
    # the loopback, passive, runs no BFD
    assert " interface Loopback0\n  passive\n  address-family ipv6 unicast\n" in isis
    # gpu-a does not ride SRv6: no route target, no SID
    assert "vrf gpu-a\n address-family ipv4 unicast\n  import from default-vrf" in br1

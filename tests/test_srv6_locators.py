"""SRV6-006 and the underlay behind it: an SRv6 leaf's static uN SID is an IPv6 route that the
NICs' steered packets follow through the fabric, so the leaf originates its locator into the
IPv6 underlay and every underlay policy lets exactly the fabric members' locators through; a
device the locator does not reach is a finding naming it."""

from __future__ import annotations

from pathlib import Path

from conftest import line_of, replace_in
from meetme.generators.model import DeviceModel, RouteMap
from meetme.generators.render import render_device
from meetme.validators.policy_eval import propagate
from meetme.validators.rules.srv6 import LOCATORS_CROSS_THE_FABRIC, srv6_findings
from srv6_example import models_of

from meetme.intent.loader import load_intent

SRV6 = "intent/srv6.yaml"
LF1, LF2 = "5f00:0:165::/48", "5f00:0:166::/48"  # site 1, devices 101 and 102 (0x65, 0x66)


def _stranded(models: dict[str, DeviceModel], example: Path) -> list[str]:
    found = srv6_findings(load_intent(example / "intent"), models.values())
    return [
        f"{f.location.file}:{f.location.line}: {f.message}"
        for f in found
        if f.rule == LOCATORS_CROSS_THE_FABRIC
    ]


def test_each_srv6_leaf_originates_its_locator_and_every_aus1_device_learns_it(
    example: Path,
) -> None:
    _loaded, models = models_of(example)
    assert LF1 in models["aus1-lf1"].bgp.networks_v6
    assert LF2 in models["aus1-lf2"].bgp.networks_v6
    assert LF1 not in models["aus1-lf2"].bgp.networks_v6  # each its own, no one else's
    aus1 = {name: m for name, m in models.items() if m.site == "aus1"}
    assert len(aus1) == 18
    for origin, prefix in (("aus1-lf1", LF1), ("aus1-lf2", LF2)):
        assert set(propagate(aus1, origin, prefix).paths) == set(aus1), origin
    # a border's locator rides IS-IS between the borders: it is not in the underlay
    assert not any(n.startswith("5f00") for n in models["aus1-br1"].bgp.networks_v6)
    assert _stranded(models, example) == []


def test_the_underlay_lets_exactly_the_fabric_locators_through(example: Path) -> None:
    _loaded, models = models_of(example)
    sp1 = models["aus1-sp1"]
    (locators,) = [p for p in sp1.prefix_lists if p.name == "PL-SRV6-LOCATORS-V6"]
    assert [(e.seq, e.action, e.prefix, e.ge, e.le) for e in locators.entries] == [
        (10, "permit", LF1, None, None),
        (20, "permit", LF2, None, None),
    ]
    text = render_device(sp1)  # EOS
    assert (
        "ipv6 prefix-list PL-SRV6-LOCATORS-V6\n   seq 10 permit 5f00:0:165::/48\n"
        "   seq 20 permit 5f00:0:166::/48\n"
    ) in text
    assert (
        "route-map RM-UNDERLAY-V6-IN permit 20\n"
        "   description accept the fabric's SRv6 locators (static uN SIDs)\n"
        "   match ipv6 address prefix-list PL-SRV6-LOCATORS-V6\n"
    ) in text
    # mel1 has no SRv6 member: its underlay carries loopbacks only
    assert all(p.name != "PL-SRV6-LOCATORS-V6" for p in models["mel1-sp11"].prefix_lists)


def test_srv6_006_a_spine_that_drops_the_locators_is_named(example: Path) -> None:
    _loaded, models = models_of(example)
    sp1 = models["aus1-sp1"]
    loopbacks_only = tuple(
        RouteMap(name=r.name, afi=r.afi, entries=r.entries[:1])
        if r.name == "RM-UNDERLAY-V6-IN"
        else r
        for r in sp1.route_maps
    )
    models["aus1-sp1"] = sp1.model_copy(update={"route_maps": loopbacks_only})
    line = line_of(example / SRV6, "aus1: {id: 1")
    assert _stranded(models, example) == [
        f"{SRV6}:{line}: aus1-{leaf}'s locator {prefix} (its uN SID) is not routed on "
        f"aus1-sp1: the underlay policies on the way do not let the locator through; a device "
        f"without the route drops every packet the NICs steer through aus1-{leaf}"
        for leaf, prefix in (("lf1", LF1), ("lf2", LF2))
    ]


def test_srv6_006_a_leaf_that_does_not_originate_its_locator(example: Path) -> None:
    _loaded, models = models_of(example)
    lf1 = models["aus1-lf1"]
    bgp = lf1.bgp.model_copy(
        update={"networks_v6": tuple(p for p in lf1.bgp.networks_v6 if p != LF1)}
    )
    models["aus1-lf1"] = lf1.model_copy(update={"bgp": bgp})
    (message,) = _stranded(models, example)
    assert message.endswith(
        "aus1-lf1's locator 5f00:0:165::/48 (its uN SID) is not routed on aus1-bl1, aus1-bl2, "
        "aus1-bl3, aus1-bl4, aus1-bl5, aus1-bl6, aus1-br1, aus1-br2 and 9 more: aus1-lf1 does "
        "not originate it into the IPv6 underlay; a device without the route drops every packet "
        "the NICs steer through aus1-lf1"
    )


def test_srv6_006_a_site_without_an_ipv6_underlay_cannot_carry_them(example: Path) -> None:
    """Without pools.p2p_v6 no IPv6 underlay session runs: nothing originates or carries the
    locators (the handoff's own finding, HANDOFF-006, comes first in a full lint)."""
    replace_in(example / "intent/aus1/site.yaml", "      p2p_v6: 2001:db8:0:1000::/52\n", "")
    _loaded, models = models_of(example)
    assert LF1 not in models["aus1-lf1"].bgp.networks_v6
    assert all(p.name != "PL-SRV6-LOCATORS-V6" for p in models["aus1-sp1"].prefix_lists)
    found = _stranded(models, example)
    assert len(found) == 2
    assert all(
        "the site has no IPv6 underlay (pools loopback_v6 and p2p_v6) to carry it" in f
        for f in found
    )


def test_an_mlag_pair_of_one_asn_passes_its_locators_over_the_peer_link(example: Path) -> None:
    """lf1 and lf2 on one ASN (a declared pair): lf2's locator comes back from the spines with
    lf1's own ASN in its path, which BGP drops; the pair's iBGP session over the peer link
    carries it instead, with nothing prepended."""
    devices = example / "intent/aus1/devices.yaml"
    replace_in(devices, "192.168.10.102/24\n", "192.168.10.102/24\n        asn: 4200000101\n")
    replace_in(
        example / "intent/aus1/site.yaml",
        "        spine: 4200009000",
        "        spine: 4200009000\n      shared_pairs: [[aus1-lf2, aus1-lf1]]",
    )
    _loaded, models = models_of(example)
    aus1 = {name: m for name, m in models.items() if m.site == "aus1"}
    spread = propagate(aus1, "aus1-lf2", LF2)
    assert spread.paths["aus1-lf1"] == ()  # over the peer link, iBGP
    assert spread.loop_drops["aus1-lf1"][-1] == 4200000101  # back from a spine: dropped
    assert set(spread.paths) == set(aus1)
    assert _stranded(models, example) == []

"""SRV6-005 and the filter behind it: every external port of an SRv6 domain member drops packets
addressed to the SRv6 block (RFC 8754 section 5.1), on IOS-XR as an ingress IPv6 ACL merged into
the one the port may already have; a member's port left without it is a finding naming device,
port and party."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from conftest import EXAMPLE_INTENT, borders_to, line_of, lint_repo, replace_in
from meetme.generators.build.srv6 import SID_FILTER, sid_filter
from meetme.generators.model import Acl, AclRule, Address, DeviceModel, Interface
from meetme.generators.platforms import PLATFORMS
from meetme.generators.render import render_device
from meetme.validators.rules.srv6 import EDGE_DROPS_SIDS, srv6_findings
from srv6_example import models_of

from meetme.intent.loader import load_intent

SRV6 = "intent/srv6.yaml"
# aus1-br1's external ports: the IX LAN (ix-syd), transit-a, transit-b, the PNI (pni-cdn)
BR1_EXTERNAL = (
    "FourHundredGigE0/0/0/23",
    "HundredGigE0/0/0/20",
    "HundredGigE0/0/0/21",
    "HundredGigE0/0/0/22",
)


def _unfiltered(models: dict[str, DeviceModel], example: Path) -> list[str]:
    loaded = load_intent(example / "intent")
    found = srv6_findings(loaded, models.values())
    return [
        f"{f.location.file}:{f.location.line}: {f.message}"
        for f in found
        if f.rule == EDGE_DROPS_SIDS
    ]


def test_every_external_port_of_a_member_takes_the_filter(example: Path) -> None:
    _loaded, models = models_of(example)
    br1 = models["aus1-br1"]
    filtered = {i.name for i in br1.interfaces if SID_FILTER in i.acls_in}
    assert filtered == set(BR1_EXTERNAL)
    (acl,) = [a for a in br1.acls if a.name == SID_FILTER]
    assert [(r.seq, r.action, r.source, r.destination) for r in acl.rules] == [
        (10, "deny", None, "5f00::/32"),
        (20, "permit", None, None),
    ]
    # the pair links, DCI ports and fabric ports face the domain: unfiltered
    assert all(SID_FILTER not in i.acls_in for i in br1.interfaces if i.name not in filtered)


def test_borders_outside_the_domain_take_no_filter(example: Path) -> None:
    _loaded, models = models_of(example)
    assert models["mel1-br1"].srv6 is None
    assert all(a.name != SID_FILTER for a in models["mel1-br1"].acls)


def test_iosxr_renders_the_acl_and_binds_it_ingress(example: Path) -> None:
    _loaded, models = models_of(example)
    text = render_device(models["aus1-br1"])
    assert (
        "ipv6 access-list ACL-SRV6-EDGE-IN-V6\n 10 deny ipv6 any 5f00::/32\n"
        " 20 permit ipv6 any any\n!\n"
    ) in text
    stanza = text.split("interface HundredGigE0/0/0/20\n", 1)[1].split("\n!\n", 1)[0]
    assert " ipv6 access-group ACL-SRV6-EDGE-IN-V6 ingress" in stanza.splitlines()
    assert text.count(" ipv6 access-group ACL-SRV6-EDGE-IN-V6 ingress\n") == len(BR1_EXTERNAL)


def test_the_example_has_no_unfiltered_port(example: Path) -> None:
    _loaded, models = models_of(example)
    assert _unfiltered(models, example) == []


def test_srv6_005_a_port_without_the_filter_is_named_with_its_party(example: Path) -> None:
    _loaded, models = models_of(example)
    br1 = models["aus1-br1"]
    stripped = tuple(
        i.model_copy(update={"acls_in": ()}) if i.name == "HundredGigE0/0/0/20" else i
        for i in br1.interfaces
    )
    models["aus1-br1"] = br1.model_copy(update={"interfaces": stripped})
    line = line_of(example / SRV6, "aus1: {id: 1")
    assert _unfiltered(models, example) == [
        f"{SRV6}:{line}: aus1-br1 HundredGigE0/0/0/20 (toward transit transit-a) forwards "
        "packets addressed to the SRv6 block 5f00::/32: no ingress IPv6 ACL on it drops them, "
        "so anyone outside can run aus1-br1's SIDs"
    ]


def test_srv6_005_a_permit_before_the_deny_lets_packets_in(example: Path) -> None:
    """The first entry that matches a packet to the block decides: a permit for any
    destination ahead of the deny opens every port the ACL is on."""
    _loaded, models = models_of(example)
    br1 = models["aus1-br1"]
    (acl,) = [a for a in br1.acls if a.name == SID_FILTER]
    opened = acl.model_copy(
        update={"rules": (AclRule(seq=5, action="permit", source=None, description="x"),
                          *acl.rules)}
    )  # fmt: skip
    models["aus1-br1"] = br1.model_copy(
        update={"acls": tuple(opened if a.name == SID_FILTER else a for a in br1.acls)}
    )
    got = _unfiltered(models, example)
    assert sorted(g.split(": ", 1)[1].split(" (")[0] for g in got) == sorted(
        f"aus1-br1 {port}" for port in BR1_EXTERNAL
    )


def test_srv6_005_a_deny_for_one_source_is_not_enough(example: Path) -> None:
    _loaded, models = models_of(example)
    br1 = models["aus1-br1"]
    partial = Acl(
        name=SID_FILTER,
        afi="ipv6",
        rules=(
            AclRule(seq=10, action="deny", source="2001:db8::/32", destination="5f00::/32",
                    description="one source"),
            AclRule(seq=20, action="permit", source=None, description="the rest"),
        ),
    )  # fmt: skip
    models["aus1-br1"] = br1.model_copy(
        update={"acls": tuple(partial if a.name == SID_FILTER else a for a in br1.acls)}
    )
    assert len(_unfiltered(models, example)) == len(BR1_EXTERNAL)


def test_the_deny_is_merged_into_a_ports_existing_ingress_acl() -> None:
    """One IPv6 ACL per direction per port (IOS-XR): a port that already has one gets the deny
    at its top, renumbered, and no second ACL; a port with IPv4 only gets nothing."""
    intent = load_intent(EXAMPLE_INTENT).intent
    device = intent.sites["aus1"].devices["aus1-br1"]
    edge = Acl(
        name="ACL-EDGE-INTERNET-IN-V6",
        afi="ipv6",
        rules=(
            AclRule(seq=10, action="deny", source="2001:db8::/32", description="own"),
            AclRule(seq=20, action="permit", source=None, description="the rest"),
        ),
    )
    ports = [
        Interface(name="Hu0", kind="routed", description="transit",
                  ipv6=Address.of("2001:db8:a::1/127"), acls_in=(edge.name,)),
        Interface(name="Hu1", kind="routed", description="v4 only",
                  ipv4=Address.of("192.0.2.0/31")),
    ]  # fmt: skip
    interfaces, acls = sid_filter(intent, "aus1-br1", device, ports, [edge], {"Hu0", "Hu1"})
    assert [i.acls_in for i in interfaces] == [(edge.name,), ()]
    assert [(a.name, [(r.seq, r.action, r.source, r.destination) for r in a.rules])
            for a in acls] == [
        ("ACL-EDGE-INTERNET-IN-V6", [
            (10, "deny", None, "5f00::/32"),
            (20, "deny", "2001:db8::/32", None),
            (30, "permit", None, None),
        ]),
    ]  # fmt: skip


def _nvue_borders_in_the_domain(repo: Path) -> None:
    """aus1's borders on Cumulus (SN5600: Spectrum-4, the only ASIC NVUE's SRv6 runs on), kept
    in the SRv6 domain that borders_to takes them out of."""
    borders_to(repo, "nvidia_nvue", "SN5600", "swp{}")
    replace_in(repo / SRV6, "[aus1-lf1", "[aus1-br1, aus1-br2, aus1-lf1")


def test_nvue_member_drops_the_block_on_every_external_port(example: Path) -> None:
    """On Cumulus the deny is an IPv6 ACL rule matching the block as destination, first in
    the port's ingress ACL; SRV6-005 then finds nothing open."""
    _nvue_borders_in_the_domain(example)
    _loaded, models = models_of(example)
    br1 = models["aus1-br1"]
    assert br1.platform == "nvidia_nvue" and br1.srv6 is not None
    external = {n.local_interface for n in br1.bgp.neighbors if n.external}
    acls = {a.name: a for a in br1.acls}
    by_port = {i.name: i for i in br1.interfaces}
    v6_external = sorted(p for p in external if by_port[p].ipv6 is not None)
    assert len(v6_external) == len(BR1_EXTERNAL)  # the IX LAN, both transits, the PNI
    for port in v6_external:
        (v6,) = [n for n in by_port[port].acls_in if acls[n].afi == "ipv6"]
        first = min(acls[v6].rules, key=lambda r: r.seq)
        assert (first.action, first.source, first.destination) == ("deny", None, "5f00::/32")
    assert _unfiltered(models, example) == []


def test_srv6_005_on_cumulus_a_packet_no_rule_matches_passes(example: Path) -> None:
    """IOS-XR ends every ACL in an implicit deny; Cumulus's netfilter chains accept what no
    rule matched: an ACL whose only rule denies one source stops the block on XR, not there."""
    _nvue_borders_in_the_domain(example)
    _loaded, models = models_of(example)
    one_source = (AclRule(seq=10, action="deny", source="2001:db8::/32", description="one source"),)
    br1 = models["aus1-br1"]
    models["aus1-br1"] = br1.model_copy(
        update={
            "acls": tuple(
                a.model_copy(update={"rules": one_source}) if a.afi == "ipv6" else a
                for a in br1.acls
            )
        }
    )
    assert len(_unfiltered(models, example)) == len(BR1_EXTERNAL)
    models["aus1-br1"] = models["aus1-br1"].model_copy(update={"platform": "cisco_iosxr"})
    assert _unfiltered(models, example) == []


def _border_leaf_in_the_domain_without_a_filter_form(
    repo: Path, monkeypatch: pytest.MonkeyPatch, model: str
) -> None:
    """aus1-bl5 (Cumulus, the Google on-ramp) on `model`, in the SRv6 domain, its GCP session
    on swp9 given IPv6, on a Cumulus plug-in whose SRv6 has no SID-filter form (as a plug-in
    may have: `Srv6Support.sid_filter` False), so the port stays open to the block."""
    replace_in(repo / "intent/aus1/devices.yaml", "model: SN4700", f"model: {model}")
    replace_in(
        repo / "intent/aus1/clouds.yaml",
        "ipv4: 169.254.20.2/29, peer_ipv4: 169.254.20.1,",
        'ipv4: 169.254.20.2/29, peer_ipv4: 169.254.20.1, ipv6: "2001:db8:ffff::2/126", '
        'peer_ipv6: "2001:db8:ffff::1",',
    )
    replace_in(repo / SRV6, "aus1-lf1, aus1-lf2]}", "aus1-lf1, aus1-lf2, aus1-bl5]}")
    nvue = PLATFORMS["nvidia_nvue"]
    assert nvue.srv6 is not None
    monkeypatch.setitem(
        PLATFORMS, "nvidia_nvue", replace(nvue, srv6=replace(nvue.srv6, sid_filter=False))
    )


def test_srv6_005_leaves_a_locator_the_asic_cannot_hold_to_plat_019(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an SN4700 (Spectrum-3) PLAT-019 refuses the locator: the switch would hold no SID,
    so its open GCP port is not a second problem, and SRV6-005 said it again ("anyone outside
    can run aus1-bl5's SIDs"). One finding, PLAT-019's, which names the ASIC."""
    _border_leaf_in_the_domain_without_a_filter_form(example, monkeypatch, "SN4700")
    result = lint_repo(example)
    assert [(f.rule, f.location.file, f.location.line) for f in result.errors] == [
        ("PLAT-019", SRV6, line_of(example / SRV6, "aus1: {id: 1"))
    ]
    assert "SN4700 (Spectrum-3) is not Spectrum-4" in result.errors[0].message


def test_srv6_005_reports_the_open_port_of_a_locator_the_switch_holds(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same port on an SN5600 (Spectrum-4), whose locator renders: SRV6-005 names it."""
    _border_leaf_in_the_domain_without_a_filter_form(example, monkeypatch, "SN5600")
    result = lint_repo(example)
    assert [f.rule for f in result.errors] == ["SRV6-005"]
    assert result.errors[0].message.startswith(
        "aus1-bl5 swp9.301 (toward gcp gcp-ic/syd-ead1) forwards packets addressed to the SRv6"
    )

"""Platform plug-ins: the registry, typed facts, MTU arithmetic, vendor spellings, the gaps
each platform declares (PLAT-*), and a toy fifth platform rendered from one module and one
template folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from conftest import findings_of, line_of, lint_repo, move_device, replace_in
from meetme.generators.model import (
    Address,
    AsPathEntry,
    DeviceModel,
    PrefixListEntry,
    RouteMapEntry,
    StaticRoute,
)
from meetme.generators.platforms import PLATFORMS, register, unregister
from meetme.generators.platforms.spellings import (
    as_path_regexes,
    dotted_mac,
    eos_esi,
    eos_rpki_cache_name,
    netmask,
    yaml_str,
)
from meetme.generators.render import PlatformGapError, output_name, render, render_device
from meetme.validators.engine import RULES
from meetme.validators.rules.platform import platform_findings
from toy_platform import toy_os

from meetme.pipeline import LintResult, device_models


@pytest.fixture(scope="module")
def example_lint() -> LintResult:
    return lint_repo(Path(__file__).resolve().parent.parent)


@pytest.fixture(scope="module")
def models(example_lint: LintResult) -> dict[str, DeviceModel]:
    return device_models(example_lint)


@pytest.fixture
def toy() -> Iterator[None]:
    register(toy_os.PLATFORM)
    yield
    unregister(toy_os.PLATFORM.name)


# --- the registry and the facts ------------------------------------------------------------


def test_the_four_platforms_are_registered_with_their_push_drivers() -> None:
    assert {name: p.push_drivers for name, p in PLATFORMS.items()} == {
        "arista_eos": ("eos",),
        "cisco_iosxr": ("iosxr", "iosxr_netconf"),
        "cisco_nxos": ("nxos", "nxos_ssh"),
        "nvidia_nvue": ("nvue",),
    }


def test_a_second_plugin_under_a_taken_name_is_refused(toy: None) -> None:
    register(toy_os.PLATFORM)  # the same plug-in again is harmless
    other = toy_os.PLATFORM.__class__(**{**toy_os.PLATFORM.__dict__, "title": "Other"})
    with pytest.raises(ValueError, match="toy_os is registered twice"):
        register(other)


def test_capabilities_are_typed_fields_and_still_answer_in() -> None:
    eos, nxos, nvue = (
        PLATFORMS[n].capabilities for n in ("arista_eos", "cisco_nxos", "nvidia_nvue")
    )
    assert eos.rpki and not nxos.rpki and not nvue.rpki
    assert "rpki" in eos and "rpki" not in nxos
    assert "mlag" in nvue and "mlag" in eos and "mlag" in nxos  # NX-OS: as vPC
    assert "esi_multihoming" in eos and "esi_multihoming" not in nxos
    assert "mlag" not in PLATFORMS["cisco_iosxr"].capabilities
    assert "bfd" not in eos  # never read, so no longer declared
    assert "no_such_capability" not in nvue


@pytest.mark.parametrize(
    ("platform", "ip_mtu", "routed", "subinterface"),
    [
        ("cisco_iosxr", 9000, 9014, 9018),  # XR counts the Ethernet header (and the tag)
        ("cisco_iosxr", 1500, 1514, 1518),
        ("arista_eos", 9214, 9214, 9214),
        ("nvidia_nvue", 9216, 9216, 9216),
    ],
)
def test_mtu_is_the_ip_mtu_plus_what_the_platform_counts(
    platform: str, ip_mtu: int, routed: int, subinterface: int
) -> None:
    assert PLATFORMS[platform].mtu(ip_mtu) == routed
    assert PLATFORMS[platform].mtu(ip_mtu, subinterface=True) == subinterface


@pytest.mark.parametrize(
    ("wanted", "l2"),
    [(1499, 1500), (1500, 1500), (1501, 9216), (9216, 9216), (9217, 9216)],
)
def test_nxos_layer2_mtu_rounds_up_to_the_two_it_takes(wanted: int, l2: int) -> None:
    assert PLATFORMS["cisco_nxos"].l2_mtu(wanted) == l2
    assert PLATFORMS["nvidia_nvue"].l2_mtu(wanted) == wanted  # any value


def test_vendor_spellings() -> None:
    assert dotted_mac("00:1C:73:00:00:99") == "001c.7300.0099"
    assert netmask("10.1.0.1/31") == "255.255.255.254"
    assert netmask("192.168.10.11/24") == "255.255.255.0"
    assert netmask("10.0.0.1/32") == "255.255.255.255"
    assert set(PLATFORMS["cisco_nxos"].filters) == {"dotted_mac", "as_path_regexes"}
    assert set(PLATFORMS["cisco_iosxr"].filters) == {"netmask", "as_path_regexes"}
    assert set(PLATFORMS["arista_eos"].filters) == {
        "as_path_regexes",
        "dotted_mac",
        "eos_esi",
        "eos_rpki_cache_name",
    }
    # EOS `evpn ethernet-segment` `identifier`: the 10-byte ESI as five groups of four digits
    assert eos_esi("00:44:38:39:FF:00:01:00:00:2a") == "0044:3839:ff00:0100:002a"
    # EOS `rpki cache NAME`: the address with ':' and '.' as '-', compressed first
    assert eos_rpki_cache_name("10.9.0.12") == "RPKI-10-9-0-12"
    assert eos_rpki_cache_name("2001:db8:9:2::12") == "RPKI-2001-db8-9-2--12"
    assert eos_rpki_cache_name("2001:DB8:9:2:0:0:0:12") == "RPKI-2001-db8-9-2--12"
    assert eos_rpki_cache_name("::ffff:10.9.0.12") == "RPKI---ffff-a09-c"
    # NVUE has no AS-path length match: a list of one regex stands in (EDGE-013)
    assert set(PLATFORMS["nvidia_nvue"].filters) == {
        "as_path_regexes",
        "as_path_length_list",
        "as_path_length_regex",
        "yaml_str",
    }
    # private 16-bit ASNs as EOS, NX-OS and NVUE as-path lists need them: one regex per digit run
    entry = AsPathEntry(seq=10, action="deny", first=64512, last=65534, description="private")
    assert as_path_regexes(entry) == [
        "_6451[2-9]_",
        "_645[2-9][0-9]_",
        "_64[6-9][0-9][0-9]_",
        "_65[0-4][0-9][0-9]_",
        "_655[0-2][0-9]_",
        "_6553[0-4]_",
    ]


def test_the_filters_print_what_the_model_spelled_before(models: dict[str, DeviceModel]) -> None:
    xr = render_device(models["aus1-br1"])
    assert "ipv4 address 192.168.10.11 255.255.255.0" in xr
    nxos = next(m for m in models.values() if m.platform == "cisco_nxos" and m.evpn and m.evpn.vtep)
    assert "fabric forwarding anycast-gateway-mac 001c.7300.0099" in render_device(nxos)


# --- gaps ------------------------------------------------------------------------------------


def _rules(model: DeviceModel) -> list[str]:
    return [gap.rule for gap in PLATFORMS[model.platform].gaps(model)]


def test_the_example_has_no_gap(models: dict[str, DeviceModel]) -> None:
    assert {name: _rules(m) for name, m in models.items() if _rules(m)} == {}


def test_every_gap_rule_is_registered_as_an_error() -> None:
    from meetme.generators.platforms import gaps

    for rule_id in gaps.RULE_IDS:
        assert RULES[rule_id].severity == "error"
        assert "docs/standards.md#platform-gate" in RULES[rule_id].source


def _with_prefix_action(model: DeviceModel, action: str) -> DeviceModel:
    first = model.prefix_lists[0]
    entry = PrefixListEntry(seq=5, action=action, prefix="192.0.2.0/24")
    changed = first.model_copy(update={"entries": [entry, *first.entries]})
    return model.model_copy(update={"prefix_lists": [changed, *model.prefix_lists[1:]]})


def test_xr_prefix_set_takes_permits_only(models: dict[str, DeviceModel]) -> None:
    border = models["aus1-br1"]
    assert "PLAT-004" not in _rules(_with_prefix_action(border, "permit"))
    assert _rules(_with_prefix_action(border, "deny")) == ["PLAT-004"]
    # the same deny renders on EOS, whose prefix lists have deny entries
    eos = models["aus1-sp1"].model_copy(update={"prefix_lists": border.prefix_lists})
    assert _rules(_with_prefix_action(eos, "deny")) == []


def _with_match_all_at(model: DeviceModel, index: int) -> DeviceModel:
    rm = model.route_maps[0]
    match_all = RouteMapEntry(seq=1000, action="permit")
    entries = list(rm.entries)
    entries.insert(index, match_all)
    entries = [e.model_copy(update={"seq": 10 * (i + 1)}) for i, e in enumerate(entries)]
    return model.model_copy(
        update={"route_maps": [rm.model_copy(update={"entries": entries}), *model.route_maps[1:]]}
    )


def test_xr_match_everything_clause_must_come_last(models: dict[str, DeviceModel]) -> None:
    border = models["aus1-br1"]
    last = len(border.route_maps[0].entries)
    assert _rules(_with_match_all_at(border, last)) == []  # the final `else`: fine
    assert _rules(_with_match_all_at(border, last - 1)) == ["PLAT-006"]  # one clause after it


def test_static_route_with_a_next_hop_is_a_gap_where_only_discard_renders(
    models: dict[str, DeviceModel],
) -> None:
    route = StaticRoute(prefix="198.51.100.0/24", afi="ipv4", discard=False, description="x")
    discard = route.model_copy(update={"discard": True})
    for name in ("aus1-br1",):
        model = models[name]
        assert _rules(model.model_copy(update={"static_routes": [discard]})) == []
        assert _rules(model.model_copy(update={"static_routes": [route]})) == ["PLAT-002"]


def test_rpki_match_is_a_gap_on_nxos_not_on_eos(models: dict[str, DeviceModel]) -> None:
    nxos = next(m for m in models.values() if m.platform == "cisco_nxos")
    eos = models["aus1-sp1"]
    rm = eos.route_maps[0]
    asking = rm.model_copy(
        update={"entries": [rm.entries[0].model_copy(update={"match_rpki_invalid": True})]}
    )
    assert _rules(nxos.model_copy(update={"route_maps": [asking]})) == ["PLAT-001"]
    assert _rules(eos.model_copy(update={"route_maps": [asking]})) == []


def test_render_refuses_a_model_with_a_gap(models: dict[str, DeviceModel]) -> None:
    model = _with_prefix_action(models["aus1-br1"], "deny")
    with pytest.raises(PlatformGapError, match=r"aus1-br1 \(cisco_iosxr\).*PLAT-004 prefix list"):
        render(model)


def test_a_gap_finding_names_device_platform_and_feature_at_the_platform_line(
    example_lint: LintResult, models: dict[str, DeviceModel]
) -> None:
    model = _with_prefix_action(models["aus1-br2"], "deny")
    [finding] = platform_findings(example_lint.loaded, [model])
    assert finding.rule == "PLAT-004" and finding.severity == "error"
    name = model.prefix_lists[0].name
    assert finding.message == (
        f"aus1-br2 (Cisco IOS-XR) cannot render prefix list {name} 5: a deny entry"
    )
    devices = Path("intent/aus1/devices.yaml")
    repo = Path(__file__).resolve().parent.parent
    assert finding.location.file.endswith(str(devices))
    assert finding.location.line == line_of(repo / devices, "platform: cisco_iosxr", 2)
    assert finding.path == "sites.aus1.devices.aus1-br2.platform"


# --- a toy fifth platform ------------------------------------------------------------------


def test_a_toy_platform_renders_the_example_spines_in_two_files(
    toy: None, models: dict[str, DeviceModel]
) -> None:
    spines = [m for m in models.values() if m.role == "spine"]
    # four in aus1, and mel1's two pods of two (the super-spines are a role of their own)
    assert sorted(m.hostname for m in spines) == [
        *(f"aus1-sp{n}" for n in range(1, 5)),
        *("mel1-sp11", "mel1-sp12", "mel1-sp21", "mel1-sp22"),
    ]
    for spine in spines:
        moved = spine.model_copy(update={"platform": "toy_os", "evpn": None})
        files = render(moved)
        stem = f"{spine.site}/{spine.hostname}"  # each in its own site's folder
        assert sorted(files) == [f"{stem}.bgp", f"{stem}.conf"]
        assert output_name(moved) == f"{stem}.conf"
        main = files[f"{stem}.conf"]
        assert main.startswith(f"# Toy OS 1.0\nhostname {spine.hostname}\n")
        ports = [line for line in main.splitlines() if line.startswith("interface ")]
        assert len(ports) == len(spine.interfaces)
        assert all(" mtu " in line and line.split()[1].isupper() for line in ports)
        bgp = files[f"{stem}.bgp"]
        assert bgp.splitlines()[0] == f"bgp {spine.bgp.asn} router-id {spine.bgp.router_id}"
        assert bgp.count("\npeer ") == len(spine.bgp.neighbors)


def test_aus1_sp1_on_the_toy_platform_by_hand(toy: None, models: dict[str, DeviceModel]) -> None:
    spine = models["aus1-sp1"].model_copy(update={"platform": "toy_os", "evpn": None})
    main = render(spine)["aus1/aus1-sp1.conf"]
    first = spine.interfaces[0]
    # the model's EOS-shaped numbers are printed as they are: the toy reads the model only
    assert f"interface {first.name.upper()} mtu {first.mtu} address {first.ipv4.cidr}" in main


def test_the_toy_platform_has_its_own_gaps(toy: None, models: dict[str, DeviceModel]) -> None:
    border = models["aus1-br1"].model_copy(update={"platform": "toy_os"})
    assert "PLAT-001" in _rules(border)  # the border's RTR caches: the toy has no RPKI
    with pytest.raises(PlatformGapError, match="PLAT-001 RPKI origin validation"):
        render(border)


@pytest.mark.parametrize(
    "text",
    ["monitor", "it's", "a: b # c", "''", "x" * 300, "10.0.0.1/32", "- [not, a, list]", "yes"],
)
def test_nvue_text_is_quoted_by_the_yaml_library(text: str) -> None:
    """Every text value NVUE templates print is one single-quoted scalar that reads back as
    the same string: no value can open a key, a list, a comment or a second line."""
    quoted = yaml_str(text)
    assert quoted.startswith("'") and quoted.endswith("'") and "\n" not in quoted
    assert yaml.safe_load(f"key: {quoted}") == {"key": text}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # printable ASCII: the fast path, a `'` doubled and nothing else
        ("vrf gpu-a", "'vrf gpu-a'"),
        ("it's", "'it''s'"),
        ("", "''"),
        (" ~ ", "' ~ '"),
        ("x" * 300, "'" + "x" * 300 + "'"),  # no line folding
        # just outside it, the library: a tab and a DEL are escaped in double quotes, a
        # non-ASCII letter stays as it is
        ("a\tb", '"a\\tb"'),
        ("a\x7fb", '"a\\x7Fb"'),
        ("caf\u00e9", "'caf\u00e9'"),
    ],
)
def test_nvue_quoting_by_hand(text: str, expected: str) -> None:
    assert yaml_str(text) == expected


def test_xr_as_path_set_takes_permits_only(models: dict[str, DeviceModel]) -> None:
    """PLAT-005: an RPL as-path-set lists what matches; a deny entry has no form in it."""
    border = models["aus1-br1"]
    first = border.as_path_lists[0]
    entry = AsPathEntry(seq=5, action="deny", first=64999, last=64999, description="x")
    permit = entry.model_copy(update={"action": "permit"})

    def with_entry(model: DeviceModel, added: AsPathEntry) -> DeviceModel:
        changed = first.model_copy(update={"entries": (added, *first.entries)})
        return model.model_copy(update={"as_path_lists": (changed, *border.as_path_lists[1:])})

    assert "PLAT-005" not in _rules(with_entry(border, permit))
    assert _rules(with_entry(border, entry)) == ["PLAT-005"]
    # EOS as-path access lists have deny entries: the same list renders there
    eos = models["aus1-sp1"]
    assert _rules(with_entry(eos, entry)) == []


def test_nvue_mlag_pair_without_peer_link_ports_is_a_gap(models: dict[str, DeviceModel]) -> None:
    """PLAT-014: an MLAG pair is printed with its peer link; without ports it cannot be."""
    leaf = next(m for m in models.values() if m.platform == "nvidia_nvue" and m.mlag is not None)
    assert leaf.mlag is not None and leaf.mlag.peer_link_members
    assert _rules(leaf) == []
    lone = leaf.mlag.model_copy(update={"peer_link_members": ()})
    assert _rules(leaf.model_copy(update={"mlag": lone})) == ["PLAT-014"]


@pytest.mark.parametrize(
    ("cidr", "ip", "prefixlen", "written"),
    [
        # as the allocators write them: taken as they are
        ("10.1.0.1/31", "10.1.0.1", 31, "10.1.0.1/31"),
        ("255.255.255.255/32", "255.255.255.255", 32, "255.255.255.255/32"),
        ("0.0.0.0/0", "0.0.0.0", 0, "0.0.0.0/0"),
        ("192.168.10.11/24", "192.168.10.11", 24, "192.168.10.11/24"),  # host bits kept
        # written otherwise: parsed, and written as ipaddress writes them
        ("10.1.0.1/032", "10.1.0.1", 32, "10.1.0.1/32"),
        ("10.1.0.1", "10.1.0.1", 32, "10.1.0.1/32"),
        ("10.1.0.1/255.255.255.0", "10.1.0.1", 24, "10.1.0.1/24"),
        ("2001:DB8:0:0::1/127", "2001:db8::1", 127, "2001:db8::1/127"),
    ],
)
def test_an_address_in_every_spelling(cidr: str, ip: str, prefixlen: int, written: str) -> None:
    assert Address.of(cidr) == Address(ip=ip, prefixlen=prefixlen, cidr=written)


@pytest.mark.parametrize("cidr", ["256.1.0.1/31", "10.01.0.1/31", "10.1.0.1/33", "10.1.0/24"])
def test_an_address_ipaddress_refuses_is_refused(cidr: str) -> None:
    with pytest.raises(ValueError):
        Address.of(cidr)


def test_plat009_an_iosxr_leaf_with_a_host_port_is_refused_once(example: Path) -> None:
    """IOS-XR has no host port, bond or MLAG template: a leaf moved to it with a host is
    refused, never rendered without the port, by EVPN-009 at its platform line (IOS-XR
    renders no VTEP); PLAT-009 said the same of its host port again at that line."""
    devices = move_device(example, "aus1", "aus1-lf3", "cisco_iosxr", "8201-32FH")
    attachments = example / "intent/aus1/attachments.yaml"
    attachments.write_text(
        attachments.read_text().replace(
            "    attachments:\n",
            "    attachments:\n      dh2-xr-host:\n        mode: single\n"
            "        leaves: [aus1-lf3]\n        ports: [HundredGigE0/0/0/5]\n"
            "        networks: [gpu-a-compute-1]\n",
            1,
        )
    )
    result = lint_repo(example)
    platform_line = line_of(devices, "aus1-lf3:") + 3
    assert [
        (f.rule, f.message.split(" is ")[0])
        for f in result.errors
        if (f.location.file, f.location.line) == ("intent/aus1/devices.yaml", platform_line)
    ] == [("EVPN-009", "aus1-lf3")]
    assert result.models is None  # refused: nothing is rendered


def test_plat008_an_nxos_vrf_without_its_carrier_vlan_is_reported_once(example: Path) -> None:
    """NX-OS carries an L3VNI on a VLAN: a VRF written without one is one problem, told once at
    the VRF (EVPN-021) naming every NX-OS switch that carries it (two leaves of its networks,
    two border leaves of its cloud sessions); the models' gap, one per switch, is not added."""
    tenants = example / "intent/aus1/tenants.yaml"
    replace_in(tenants, "storage: {l3vni: 50010, vlan: 3010}", "storage: {l3vni: 50010}")
    result = lint_repo(example)
    assert [(f.rule, f.location.line) for f in result.errors] == [
        ("EVPN-021", line_of(tenants, "storage: {l3vni: 50010}"))
    ]
    assert "aus1-bl3, aus1-bl4, aus1-lf3, aus1-lf4 on Cisco NX-OS" in result.errors[0].message


def test_an_mlag_attachment_without_its_peer_link_is_reported_once(example: Path) -> None:
    """MH-002 says it from the intent on every platform; NVUE's PLAT-014 said it again."""
    attachments = example / "intent/aus1/attachments.yaml"
    text = attachments.read_text()
    line = next(x for x in text.splitlines(keepends=True) if "peer_link: [swp57, swp58]" in x)
    attachments.write_text(text.replace(line, "", 1))
    result = lint_repo(example)
    rules = [f.rule for f in result.findings if f.rule in ("MH-002", "PLAT-014")]
    assert rules == ["MH-002"]


def test_an_eos_border_in_the_srv6_domain_is_refused_once_per_fault(example: Path) -> None:
    """A locator EOS cannot render is PLAT-019's; its Internet ports' missing SID filter
    (SRV6-005) followed only from that and was reported three times besides."""
    srv6 = example / "intent/srv6.yaml"
    srv6.write_text(
        srv6.read_text().replace("mel1: {id: 2, devices: []}", "mel1: {id: 2, devices: [mel1-br1]}")
    )
    result = lint_repo(example)
    rules = [f.rule for f in result.findings if f.rule in ("PLAT-019", "SRV6-005")]
    assert rules == ["PLAT-019"]


def test_a_leaf_moved_to_iosxr_is_refused_once_for_what_a_vtep_does(example: Path) -> None:
    """aus1-lf1 (an MLAG leaf) given IOS-XR: EVPN-009 says at its platform line that IOS-XR
    renders no VTEP. Its MLAG was reported again by EVPN-011 at the attachment, and by five
    PLAT-009s at that same platform line (four host bonds and the MLAG pair: "no bond
    template"): one fault, EVPN-009's."""
    devices = move_device(example, "aus1", "aus1-lf1", "cisco_iosxr", "8201-32FH")
    result = lint_repo(example)
    rules = [f.rule for f in result.errors]
    assert "EVPN-011" not in rules and "PLAT-009" not in rules
    platform_line = line_of(devices, "platform: cisco_iosxr", 3)  # after the two borders
    assert [
        (f.rule, f.location.line) for f in result.errors if f.location.line == platform_line
    ] == [("EVPN-009", platform_line)]
    # nor by what follows from the platform elsewhere: its pair across two platforms (MH-001),
    # its ports' NVUE names (PLAT-016) and no uplink (TOPO-001: link rules select by platform)
    assert rules == ["EVPN-009"]


def test_a_leaf_whose_platform_is_a_slip_is_told_the_platform_its_model_runs(
    example: Path,
) -> None:
    """aus1-lf1 (an SN5600) written as IOS-XR, a slip of the platform line: EVPN-009 at that
    line, and HW-003 at the model line saying what the SN5600 runs, without its usual advice
    to find a model that runs IOS-XR, which as a leaf no model would make right."""
    devices = move_device(example, "aus1", "aus1-lf1", "cisco_iosxr", "SN5600")
    result = lint_repo(example)
    lf1 = line_of(devices, "aus1-lf1:")
    assert [(f.rule, f.location.line) for f in result.errors] == [
        ("EVPN-009", lf1 + 3),
        ("HW-003", lf1 + 4),
    ]
    assert result.errors[1].message.endswith(
        "aus1-lf1: the SN5600 runs nvidia_nvue (validators/data/hardware.yaml), not "
        "cisco_iosxr; give the device the platform its model runs"
    )


def test_an_uncabled_srv6_member_is_reported_once_for_its_missing_links(example: Path) -> None:
    """aus1-bl5 (Cumulus on an SN5600, whose locator renders) in the SRv6 domain, its border
    link rule deleted: PHY-006 names the missing links. SRV6-006 reported it again, as a
    locator "the underlay policies on the way do not let through", sending the reader to
    policies that were never on its way."""
    replace_in(example / "intent/aus1/devices.yaml", "model: SN4700", "model: SN5600")
    replace_in(
        example / "intent/srv6.yaml", "aus1-lf1, aus1-lf2]}", "aus1-lf1, aus1-lf2, aus1-bl5]}"
    )
    links = example / "intent/aus1/links.yaml"
    text = links.read_text()
    rule = text[text.index("      - name: border-leaf-to-border-cumulus") : text.index("    # The")]
    links.write_text(text.replace(rule, ""))
    result = lint_repo(example)
    assert findings_of(result, "SRV6-006") == []
    assert [f.rule for f in result.errors] == ["PHY-006", "PHY-006"]  # aus1-bl5, aus1-bl6
    assert "border_leaf aus1-bl5 has no link to border" in result.errors[0].message


def test_an_eos_spine_in_the_srv6_domain_is_refused_once(example: Path) -> None:
    """A locator EOS cannot render is PLAT-019's; SRV6-006 reported it again, as a locator
    "the underlay policies on the way do not let through" to aus1-sp2..sp4: a second report
    of one fault, under a cause that sends the reader to the wrong place."""
    srv6 = example / "intent/srv6.yaml"
    replace_in(srv6, "aus1-lf1, aus1-lf2]}", "aus1-lf1, aus1-lf2, aus1-sp1]}")
    result = lint_repo(example)
    assert [(f.rule, f.location.file, f.location.line) for f in result.errors] == [
        ("PLAT-019", "intent/srv6.yaml", line_of(srv6, "aus1-sp1]}"))
    ]
    assert findings_of(result, "SRV6-006") == []

"""The border side of the VRF-lite handoff on Arista EOS (and Cisco NX-OS) borders.

The example's two IOS-XR borders moved to EOS (7060X6-64PE, ports `Ethernet<n+1>/1`, as the
platform matrix moves them): the lint is clean (no PLAT-003, no FLOW finding), and the rendered
border has the plain VRFs, the 802.1Q sub-interfaces in them, the BGP sessions in each VRF's
block and the route leaking with the Internet table: `router general` / `leak routes` with one
policy per VRF and direction serving both families, and `redistribute bgp leaked` where the
leaked routes must enter BGP. The FLOW rules evaluate those per-VRF policies family by family.
One EOS border with the handoff is pinned by a golden file. NX-OS borders (N9K-C9364D-GX2A,
`Ethernet1/<n+1>`, RTR caches removed: PLAT-001) print the same per family, as IOS-XR does:
`vrf context` / `import|export vrf default map`, and are pinned by a golden file too.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest
from conftest import (
    PAIR_BEYOND_INTERNET,
    findings_of,
    lint_repo,
    private_vrfs_online,
    replace_in,
)
from meetme.generators.model import DeviceModel
from meetme.generators.platforms import PLATFORMS
from meetme.validators.policy_eval import Route, evaluate
from typer.testing import CliRunner
from variants import borders_to_eos, borders_to_nxos

from meetme.cli import app
from meetme.pipeline import device_models

HANDOFF = Path("intent/aus1/attachments.yaml")
MATRIX = Path(__file__).parent / "golden" / "matrix"
GOLDEN = MATRIX / "arista_eos-border-handoff-aus1-br1.cfg"
NXOS_GOLDEN = MATRIX / "cisco_nxos-border-handoff-aus1-br1.cfg"


def _render_br1(repo: Path) -> str:
    result = CliRunner().invoke(app, ["render"])
    assert result.exit_code == 0, result.output
    return (repo / "rendered/aus1/aus1-br1.cfg").read_text()


def _block(config: str, header: str) -> str:
    """The lines of the block opened by `header` (a whole line), up to the next line at the
    same or a lower indent."""
    lines = config.splitlines()
    start = lines.index(header)
    indent = len(header) - len(header.lstrip())
    body = [header]
    for line in lines[start + 1 :]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        body.append(line)
    return "\n".join(body) + "\n"


def _bgp_vrf(config: str, vrf: str) -> str:
    """The VRF's block under `router bgp` (`router general` has a `vrf` block of its own)."""
    return _block(config[config.index("\nrouter bgp ") :], f"   vrf {vrf}")


def test_eos_borders_with_the_handoff_lint_clean(example: Path) -> None:
    borders_to_eos(example)
    result = lint_repo(example)
    rules = {f.rule for f in result.findings}
    assert not {r for r in rules if r == "PLAT-003" or r.startswith("FLOW-")}, rules
    assert result.errors == []
    assert CliRunner().invoke(app, ["lint"]).exit_code == 0


def test_eos_border_renders_plain_vrfs_subinterfaces_and_vrf_sessions(example: Path) -> None:
    private_vrfs_online(example)
    borders_to_eos(example)
    config = _render_br1(example)
    # the VRFs, IPv6 routing only in the VRF with IPv6 sessions
    assert "\nvrf instance gpu-a\n!\nvrf instance gpu-a-mgmt\n!\nvrf instance storage\n" in config
    assert (
        "\nip routing vrf gpu-a\nipv6 unicast-routing vrf gpu-a\n"
        "ip routing vrf gpu-a-mgmt\nip routing vrf storage\n"
    ) in config
    # a sub-interface per VRF on the link's port, the link's /31 and /127 reused
    assert _block(config, "interface Ethernet9/1.3101") == (
        "interface Ethernet9/1.3101\n"
        "   description handoff gpu-a to aus1-bl1 Ethernet1/1.3101\n"
        "   no shutdown\n"
        "   mtu 9214\n"
        "   encapsulation dot1q vlan 3101\n"
        "   vrf gpu-a\n"
        "   ip address 10.1.21.1/31\n"
        "   ipv6 address 2001:db8:0:1000::1501/127\n"
    )
    assert _block(config, "interface Ethernet9/1.3102") == (
        "interface Ethernet9/1.3102\n"
        "   description handoff gpu-a-mgmt to aus1-bl1 Ethernet1/1.3102\n"
        "   no shutdown\n"
        "   mtu 9214\n"
        "   encapsulation dot1q vlan 3102\n"
        "   vrf gpu-a-mgmt\n"
        "   ip address 10.1.21.1/31\n"
    )
    vrf = _bgp_vrf(config, "storage")
    assert vrf.startswith(
        "   vrf storage\n"
        "      rd 10.0.0.1:3110\n"
        "      maximum-paths 64 ecmp 64\n"
        "      neighbor 10.1.21.0 remote-as 4200000021\n"
        "      neighbor 10.1.21.0 description handoff storage aus1-bl1 Ethernet1/1\n"
        "      neighbor 10.1.21.0 bfd\n"
        "      neighbor 10.1.21.0 route-map RM-HANDOFF-STORAGE-IN-V4 in\n"
        "      neighbor 10.1.21.0 route-map RM-HANDOFF-STORAGE-OUT-V4 out\n"
        # the tenant's /16 up to /24: 2 + 4 + ... + 256 prefixes
        "      neighbor 10.1.21.0 maximum-routes 511 warning-limit 80 percent\n"
    )
    assert vrf.endswith(
        "      address-family ipv4\n"
        "         bgp missing-policy direction in action deny\n"
        "         bgp missing-policy direction out action deny\n"
        "         neighbor 10.1.21.0 activate\n"
        "         neighbor 10.1.21.2 activate\n"
        "         neighbor 10.1.22.0 activate\n"
        "         neighbor 10.1.22.2 activate\n"
        "         redistribute bgp leaked\n"
    )
    assert "address-family ipv6" not in vrf  # storage routes no IPv6
    gpu_a = _bgp_vrf(config, "gpu-a")
    assert "      neighbor 2001:db8:0:1000::1500 route-map RM-HANDOFF-GPU-A-IN-V6 in\n" in gpu_a
    assert gpu_a.endswith(
        "      address-family ipv6\n"
        "         bgp missing-policy direction in action deny\n"
        "         bgp missing-policy direction out action deny\n"
        "         neighbor 2001:db8:0:1000::1500 activate\n"
        "         neighbor 2001:db8:0:1000::1502 activate\n"
        "         neighbor 2001:db8:0:1000::1600 activate\n"
        "         neighbor 2001:db8:0:1000::1602 activate\n"
        "         redistribute bgp leaked\n"
    )
    # each VRF session only in its VRF's block (the default VRF's 10.1.21.0 is the underlay)
    assert config.count("neighbor 10.1.21.0 route-map RM-HANDOFF-STORAGE-IN-V4 in") == 1
    assert config.count("neighbor 10.1.21.0 route-map RM-UNDERLAY-V4-IN in") == 1
    # the border pair's iBGP passes the Internet table on with itself as next hop
    assert "   neighbor 10.1.1.1 next-hop-self\n" in config


def test_eos_border_leaks_with_one_policy_per_vrf_and_direction(example: Path) -> None:
    private_vrfs_online(example)
    borders_to_eos(example)
    config = _render_br1(example)
    assert _block(config, "router general") == (
        "router general\n"
        "   vrf default\n"
        "      leak routes source-vrf gpu-a subscribe-policy RM-LEAK-GPU-A-TO-DEFAULT\n"
        "      exit\n"
        "   !\n"
        "   vrf gpu-a\n"
        "      leak routes source-vrf default subscribe-policy RM-LEAK-GPU-A-FROM-DEFAULT\n"
        "      exit\n"
        "   !\n"
        "   vrf gpu-a-mgmt\n"
        "      leak routes source-vrf default subscribe-policy RM-LEAK-GPU-A-MGMT-FROM-DEFAULT\n"
        "      exit\n"
        "   !\n"
        "   vrf storage\n"
        "      leak routes source-vrf default subscribe-policy RM-LEAK-STORAGE-FROM-DEFAULT\n"
        "      exit\n"
        "   !\n"
        "   exit\n"
    )
    assert (
        "route-map RM-LEAK-GPU-A-FROM-DEFAULT permit 10\n"
        "   description the default route of the Internet table (IPv4)\n"
        "   match ip address prefix-list PL-HANDOFF-DEFAULT-V4\n"
        "!\n"
        "route-map RM-LEAK-GPU-A-FROM-DEFAULT permit 20\n"
        "   description the default route of the Internet table (IPv6)\n"
        "   match ipv6 address prefix-list PL-HANDOFF-DEFAULT-V6\n"
    ) in config
    assert (
        "route-map RM-LEAK-GPU-A-TO-DEFAULT permit 10\n"
        "   description the tenant's public prefixes (IPv4)\n"
        "   match ip address prefix-list PL-HANDOFF-GPU-A-PUBLIC-V4\n"
        "!\n"
        "route-map RM-LEAK-GPU-A-TO-DEFAULT permit 20\n"
        "   description the tenant's public prefixes (IPv6)\n"
        "   match ipv6 address prefix-list PL-HANDOFF-GPU-A-PUBLIC-V6\n"
    ) in config
    # no per-family leak maps on EOS: `leak routes` takes one policy per source VRF
    assert "RM-LEAK-GPU-A-FROM-DEFAULT-V4" not in config
    # the public prefixes leaked into the default VRF enter its BGP in both families
    assert config.count("      network 198.51.100.0/24\n      redistribute bgp leaked\n") == 1
    v6 = "      network 2001:db8:4000::/36\n      network 2001:db8:4000::/40\n"
    assert config.count(f"{v6}      redistribute bgp leaked\n") == 1


def test_without_ipv6_public_prefixes_nothing_ipv6_leaks_into_the_default_vrf(
    example: Path,
) -> None:
    """Boundary: gpu-a keeps its IPv4 public /26 only (its front ends' IPv6 subnet numbered
    from private space, or HANDOFF-018 refuses it); the default VRF's IPv6 family
    redistributes nothing and the export policy has its IPv4 entry only."""
    private_vrfs_online(example)
    replace_in(
        example / HANDOFF,
        'public: [198.51.100.128/26, "2001:db8:4000:50::/64"]',
        "public: [198.51.100.128/26]",
    )
    replace_in(
        example / "intent/aus1/tenants.yaml",
        'gateway_v6: "2001:db8:4000:50::1/64"',
        'gateway_v6: "2001:db8:50:5::1/64"',
    )
    borders_to_eos(example)
    assert lint_repo(example).errors == []
    config = _render_br1(example)
    assert config.count("redistribute bgp leaked") == 5  # default IPv4, 4 VRF families
    assert "      network 198.51.100.0/24\n      redistribute bgp leaked\n" in config
    assert "route-map RM-LEAK-GPU-A-TO-DEFAULT permit 20" not in config
    assert "route-map RM-LEAK-GPU-A-TO-DEFAULT permit 10\n" in config
    models = device_models(lint_repo(example))
    gpu_a = next(v for v in models["aus1-br1"].vrfs if v.name == "gpu-a")
    assert [(x.afi, x.export_to_default) for x in gpu_a.leaks] == [
        ("ipv4", "RM-LEAK-GPU-A-TO-DEFAULT"),
        ("ipv6", None),
    ]


def test_a_vrf_without_internet_access_leaks_nothing(example: Path) -> None:
    """Boundary: storage with `internet: none` has no leak and no redistribution on EOS."""
    private_vrfs_online(example)
    replace_in(
        example / HANDOFF,
        "storage: {vlan: 3110, export_north: [10.60.0.0/16], internet: default,",
        "storage: {vlan: 3110, export_north: [10.60.0.0/16], internet: none,",
    )
    borders_to_eos(example)
    assert lint_repo(example).errors == []
    config = _render_br1(example)
    assert "source-vrf default subscribe-policy RM-LEAK-STORAGE" not in config
    assert "redistribute bgp leaked" not in _bgp_vrf(config, "storage")
    assert "redistribute bgp leaked" in _bgp_vrf(config, "gpu-a-mgmt")


def _leak_policy(model: DeviceModel, vrf: str, afi: str, direction: str) -> str:
    plain = next(v for v in model.vrfs if v.name == vrf)
    leak = plain.leak(afi)
    assert leak is not None
    name = leak.import_from_default if direction == "in" else leak.export_to_default
    assert name is not None
    return name


@pytest.mark.parametrize(
    ("afi", "prefix", "direction", "clause"),
    [
        ("ipv4", "0.0.0.0/0", "in", 10),
        ("ipv6", "::/0", "in", 20),
        ("ipv4", "198.51.100.128/26", "out", 10),
        ("ipv6", "2001:db8:4000:50::/64", "out", 20),
    ],
)
def test_one_policy_serves_both_families_entry_by_family(
    example: Path, afi: str, prefix: str, direction: str, clause: int
) -> None:
    """What the EOS border's per-VRF leak policies do, evaluated on the model as the FLOW
    rules do: each family's route passes at its own entry, and nothing else passes."""
    borders_to_eos(example)
    br1 = device_models(lint_repo(example))["aus1-br1"]
    policy = _leak_policy(br1, "gpu-a", afi, direction)
    verdict = evaluate(br1, policy, Route(prefix=prefix, as_path=(64501,)))
    assert (verdict.accepted, verdict.clause) == (True, clause)
    others = ["0.0.0.0/0", "::/0", "198.51.100.128/26", "2001:db8:4000:50::/64"]
    others += ["198.51.100.128/27", "10.50.0.0/16", "::/1"]  # a more specific, private, not ::/0
    for other in (p for p in others if p != prefix):
        if direction == "in" and other in ("0.0.0.0/0", "::/0"):
            continue  # the other family's default: the same policy passes it, rightly
        if direction == "out" and other in ("198.51.100.128/26", "2001:db8:4000:50::/64"):
            continue
        assert not evaluate(br1, policy, Route(prefix=other)).accepted, other


def test_flow003_names_the_eos_leak_policy_that_stops_one_family(example: Path) -> None:
    """The per-VRF policy without its IPv6 entry (the model edited as a template bug would):
    FLOW-003 reports IPv6 at aus1-br1 and nothing for IPv4, which the same policy still
    passes."""
    from meetme.validators.rules.flow import flow_findings

    borders_to_eos(example)
    result = lint_repo(example)
    models = device_models(result)
    br1 = models["aus1-br1"]
    name = "RM-LEAK-GPU-A-FROM-DEFAULT"
    maps = tuple(
        rm.model_copy(update={"entries": rm.entries[:1]}) if rm.name == name else rm
        for rm in br1.route_maps
    )
    models["aus1-br1"] = br1.model_copy(update={"route_maps": maps})
    found = [
        f.message
        for f in flow_findings(result.loaded, result.fabrics, models.values())
        if f.rule == "FLOW-003"
    ]
    assert found == [
        f"VRF gpu-a, aus1-br1: the leak policy {name} denies the default route (no clause "
        "matches it), so it stops at aus1-br1"
    ]


def test_nxos_borders_with_the_handoff_lint_clean(example: Path) -> None:
    borders_to_nxos(example)
    result = lint_repo(example)
    rules = {f.rule for f in result.findings}
    assert not {r for r in rules if r.startswith(("PLAT-", "FLOW-"))}, rules
    assert result.errors == []


@pytest.mark.parametrize(("internet", "refused"), [(287_994, False), (287_995, True)])
def test_the_border_pairs_limit_must_fit_nxos_too(
    example: Path, internet: int, refused: bool
) -> None:
    """The pair carries the other border's Internet table and, in IPv6, 12,006 routes more
    (underlay, own, the /36 and aus1's /40, the leaked /64; IPv4 has one aggregate less):
    287,994 + 12,006 is NX-OS's 300,000 exactly. One more is refused by name at lint time, on
    the IPv6 sessions only, never capped into a pair that resets as it converges."""
    borders_to_nxos(example)  # the transits' limits cut to 300,000 - 12,006
    peering = example / "intent/aus1/peering.yaml"
    full = str(PLATFORMS["cisco_nxos"].max_prefix_limit - PAIR_BEYOND_INTERNET)
    assert peering.read_text().count(full) == 4  # two transits, two families
    peering.write_text(peering.read_text().replace(full, str(internet)))
    found = findings_of(lint_repo(example), "PLAT-022")
    if not refused:
        assert found == []
        return
    # the pair's limit is not written but follows from the transits': the advice says so
    assert [f.split(": ", 1)[1] for f in found] == [
        f"{border} (Cisco NX-OS) cannot render prefix limit 300001 on 2 session(s) (first: "
        f"border pair {other} Ethernet1/25): it takes 1-300000; the border pair's session "
        "carries the other border's table, as large as the largest Internet party's max_prefix "
        "with the site's underlay.max_prefix and public prefixes added: take smaller tables "
        "from the parties, or put the borders on another platform"
        for border, other in (("aus1-br1", "aus1-br2"), ("aus1-br2", "aus1-br1"))
    ]


def test_nxos_border_renders_vrf_context_leaks_and_vrf_sessions(example: Path) -> None:
    private_vrfs_online(example)
    borders_to_nxos(example)
    config = _render_br1(example)
    assert (
        "vrf context gpu-a\n"
        "  rd 10.0.0.1:3101\n"
        "  address-family ipv4 unicast\n"
        "    import vrf default map RM-LEAK-GPU-A-FROM-DEFAULT-V4\n"
        "    export vrf default map RM-LEAK-GPU-A-TO-DEFAULT-V4\n"
        "  address-family ipv6 unicast\n"
        "    import vrf default map RM-LEAK-GPU-A-FROM-DEFAULT-V6\n"
        "    export vrf default map RM-LEAK-GPU-A-TO-DEFAULT-V6\n"
        "\n"
        "vrf context gpu-a-mgmt\n"
        "  rd 10.0.0.1:3102\n"
        "  address-family ipv4 unicast\n"
        "    import vrf default map RM-LEAK-GPU-A-MGMT-FROM-DEFAULT-V4\n"
        "\n"
    ) in config
    # the VRF is defined before the sub-interface joins it
    assert config.index("vrf context storage") < config.index("interface Ethernet1/9.3110")
    assert (
        "interface Ethernet1/9.3110\n"
        "  description handoff storage to aus1-bl1 Ethernet1/1.3110\n"
        "  encapsulation dot1q 3110\n"
        "  mtu 9214\n"
        "  vrf member storage\n"
    ) in config
    bgp = config[config.index("\nrouter bgp ") :]
    assert (
        "  vrf storage\n"
        "    bestpath as-path multipath-relax\n"
        "    address-family ipv4 unicast\n"
        "      maximum-paths 64\n"
        "    neighbor 10.1.21.0\n"
        "      remote-as 4200000021\n"
        "      description handoff storage aus1-bl1 Ethernet1/1\n"
        "      bfd\n"
        "      address-family ipv4 unicast\n"
        "        route-map RM-HANDOFF-STORAGE-IN-V4 in\n"
        "        route-map RM-HANDOFF-STORAGE-OUT-V4 out\n"
        "        maximum-prefix 511 80 restart 5\n"
    ) in bgp


@pytest.mark.parametrize(
    ("move", "golden"),
    [(borders_to_eos, GOLDEN), (borders_to_nxos, NXOS_GOLDEN)],
    ids=["eos", "nxos"],
)
def test_border_with_the_handoff_matches_golden(example: Path, move: object, golden: Path) -> None:
    move(example)  # type: ignore[operator]
    text = _render_br1(example)
    if os.environ.get("MEETME_UPDATE_GOLDEN"):
        golden.write_text(text)
    expected = golden.read_text()
    if text != expected:
        diff = difflib.unified_diff(
            expected.splitlines(), text.splitlines(), str(golden), "aus1-br1.cfg", lineterm=""
        )
        pytest.fail("rendered output differs from the golden file:\n" + "\n".join(diff))


def test_eos_border_pair_sends_every_community_kind_and_no_outside_party_any(
    example: Path,
) -> None:
    """EOS sends a neighbor only the communities `send-community` selects: the border pair's
    iBGP carries our class tags and graceful shutdown (RFC 8326) to the other border; the
    transits, the IX and the PNIs get none of them."""
    result = CliRunner().invoke(app, ["render"])
    assert result.exit_code == 0, result.output
    config = (example / "rendered/mel1/mel1-br1.cfg").read_text()
    sending = [line.split()[1] for line in config.splitlines() if " send-community " in line]
    pair = ["10.3.1.1", "2001:db8:2:1000::101", "10.3.1.3", "2001:db8:2:1000::103"]
    assert sorted(set(sending)) == sorted(pair)  # a border runs no EVPN session
    assert "   neighbor 10.3.1.1 send-community standard extended large\n" in config


def test_nxos_border_pair_sends_standard_and_extended_communities(example: Path) -> None:
    borders_to_nxos(example)
    config = _render_br1(example)
    router = config[config.index("\nrouter bgp ") :]
    block = _block(router, "  neighbor 10.1.1.1")
    assert "    description border pair aus1-br2 " in block
    family = _block(block, "    address-family ipv4 unicast")
    assert "      next-hop-self\n      send-community\n      send-community extended\n" in family
    transit = _block(router, "  neighbor 192.0.2.0")
    assert "send-community" not in transit


def test_an_eos_session_a_limit_tears_down_comes_back_after_its_restart(example: Path) -> None:
    """EOS's `maximum-routes` has no restart: a torn-down peer stays idle until its idle
    restart timer (seconds) brings it back. mel1-br1's handoff sessions restart after 5 minutes
    (the schema's promise), so each carries 300 s; an external session without a restart
    carries no timer."""
    models = device_models(lint_repo(example))
    text = (
        CliRunner().invoke(app, ["render"]).exit_code == 0
        and (example / "rendered/mel1/mel1-br1.cfg").read_text()
    )
    assert text
    lines = text.splitlines()
    restarted = unrestarted = 0
    by_address: dict[str, list[str]] = {}  # one address may be a session in several VRFs
    for n in models["mel1-br1"].bgp.neighbors:
        if n.max_prefix is None:
            continue
        timer = f"neighbor {n.address} idle-restart-timer"
        wanted = by_address.setdefault(timer, [])
        if n.max_prefix_restart:
            wanted.append(f"{timer} {n.max_prefix_restart * 60}")
            restarted += 1
        else:
            unrestarted += 1
    for timer, wanted in by_address.items():
        assert [x.strip() for x in lines if x.strip().startswith(timer)] == wanted, timer
    assert restarted >= 12 and unrestarted >= 1  # the 12 handoff sessions; the IX and transits
    assert "      neighbor 10.3.31.0 idle-restart-timer 300" in lines

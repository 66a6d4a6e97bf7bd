"""The config lint (CFG-*): edge hygiene checked again on the rendered text.

The intent rules prove the device model asks for a prefix limit and both policies on every
session; these tests prove the lint catches a template that fails to print them, names the
rendered file and the config line, and follows peer groups, neighbor-groups, af-groups and
templates before it complains. Neighbours are told apart by VRF: a handoff session reuses the
address of a default-VRF neighbour. On VTEPs the lint proves every VLAN and VRF of the model
is mapped to its VNI and every VRF exports to EVPN (CFG-006..008).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import EXAMPLE_INTENT, REPO
from meetme.generators.model import (
    Address,
    Afi,
    BgpNeighbor,
    DeviceModel,
    Evpn,
    EvpnPeer,
    EvpnVlan,
    EvpnVrf,
    Interface,
)
from meetme.generators.render import output_name, render_device, render_traced
from meetme.validators.config_lint import RenderedConfig, lint_configs, needs_lint
from typer.testing import CliRunner

from meetme.cli import app
from meetme.core.findings import Finding
from meetme.pipeline import device_models, lint

DATA = Path(__file__).parent / "data" / "config_lint"
CFG_RULES = [f"CFG-00{n}" for n in range(1, 9)]


def sessions_and_overlay(findings: list[Finding]) -> list[str]:
    """cfg_findings without CFG-010/011: the hand-written files exercise the BGP and EVPN
    checks; the management plane and external ports are tested in test_hardening.py."""
    return cfg_findings([f for f in findings if f.rule not in ("CFG-010", "CFG-011")])


def cfg_findings(findings: list[Finding]) -> list[str]:
    """'file:line: RULE message' of every config-lint finding."""
    return [
        f"{f.location.file}:{f.location.line}: {f.rule} {f.message}"
        for f in findings
        if f.rule.startswith("CFG-")
    ]


def line_in(text: str, needle: str, occurrence: int = 1) -> int:
    """1-based number of the n-th line of `text` containing `needle`."""
    seen = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            seen += 1
            if seen == occurrence:
                return number
    raise AssertionError(f"{needle!r} not in the text")


@pytest.fixture(scope="module")
def example_models() -> dict[str, DeviceModel]:
    result = lint(EXAMPLE_INTENT, configs=False)
    assert result.errors == []
    return device_models(result)


@pytest.fixture
def broken_templates(tmp_path: Path) -> Callable[[str, str, str], Path]:
    """A copy of templates/ with one edit in one file: (relative file, old text, new text)."""

    def make(relative: str, old: str, new: str) -> Path:
        folder = tmp_path / "templates"
        if not folder.exists():
            shutil.copytree(REPO / "templates", folder)
        target = folder / relative
        text = target.read_text()
        assert old in text, f"{old!r} is no longer in templates/{relative}: update this test"
        target.write_text(text.replace(old, new))
        return folder

    return make


# --- the example -----------------------------------------------------------------------------


def test_the_example_configs_pass_and_every_border_is_read(
    example_models: dict[str, DeviceModel],
) -> None:
    result = lint(EXAMPLE_INTENT)
    assert result.render_errors == []
    assert cfg_findings(result.findings) == []
    # not vacuous: every platform has a device with external neighbours, and the lint found
    # every neighbour of those devices (CFG-005 would say otherwise)
    linted = {
        m.platform for m in example_models.values() if any(n.external for n in m.bgp.neighbors)
    }
    assert linted == {"cisco_iosxr", "arista_eos", "cisco_nxos", "nvidia_nvue"}


def test_rules_are_listed_and_explained() -> None:
    runner = CliRunner()
    listed = runner.invoke(app, ["rules"])
    assert listed.exit_code == 0
    for rule_id in CFG_RULES:
        assert rule_id in listed.output
    explained = runner.invoke(app, ["explain", "CFG-001"])
    assert explained.exit_code == 0
    assert "prefix limit" in explained.output


# --- a deliberately broken template (the acceptance test of issue 3) --------------------------

XR_LIMIT = (
    "   maximum-prefix {{ nbr.max_prefix }} {{ nbr.max_prefix_warning_pct }}"
    "{% if nbr.max_prefix_restart %} restart {{ nbr.max_prefix_restart }}{% endif %}\n"
)
IX_PEER = "203.0.113.50"


def test_a_template_that_drops_one_neighbours_limit_fails_at_that_neighbour(
    example: Path,
    example_models: dict[str, DeviceModel],
    broken_templates: Callable[[str, str, str], Path],
) -> None:
    templates = broken_templates(
        "cisco_iosxr/bgp.j2",
        XR_LIMIT,
        f'{{% if nbr.address != "{IX_PEER}" %}}\n{XR_LIMIT}{{% endif %}}\n',
    )
    result = lint(example / "intent", templates=templates)

    expected = []
    for border in ("aus1-br1", "aus1-br2"):  # the peer is on both borders of the pair
        broken = render_device(example_models[border], templates)
        line = line_in(broken, f" neighbor {IX_PEER}")
        assert broken.splitlines()[line - 1] == f" neighbor {IX_PEER}"
        circuit = next(
            n.circuit for n in example_models[border].bgp.neighbors if n.address == IX_PEER
        )
        expected.append(
            f"rendered/aus1/{border}.cfg:{line}: CFG-001 neighbor {IX_PEER} (ix_peer "
            f"ix-syd/content-a {circuit}) has no prefix limit (maximum-prefix) for ipv4 unicast, "
            "neither on the neighbour nor through a group or template"
        )
    # the intent is clean: only the config lint can see this
    assert cfg_findings(result.errors) == expected


def test_meetme_lint_exits_1_naming_the_file_and_line(
    example: Path,
    example_models: dict[str, DeviceModel],
    broken_templates: Callable[[str, str, str], Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same bug as a user meets it: `meetme lint` on the repository fails."""
    templates = broken_templates("cisco_iosxr/bgp.j2", XR_LIMIT, "")
    monkeypatch.setattr(
        "meetme.generators.render.render_traced", lambda m, _=None: render_traced(m, templates)
    )

    run = CliRunner().invoke(app, ["lint"])
    assert run.exit_code == 1, run.output
    line = line_in(render_device(example_models["aus1-br1"], templates), f" neighbor {IX_PEER}")
    # the report groups findings under the file's name, then `line:column  severity  rule`
    assert "rendered/aus1/aus1-br1.cfg\n" in run.output
    reported = [
        row.split()[:3]
        for row in run.output.splitlines()
        if "CFG-001" in row and f"neighbor {IX_PEER} (" in row
    ]
    assert [f"{line}:2", "error", "CFG-001"] in reported


def test_eos_template_without_maximum_routes_fails_on_every_neighbour(
    example: Path,
    example_models: dict[str, DeviceModel],
    broken_templates: Callable[[str, str, str], Path],
) -> None:
    templates = broken_templates(
        "arista_eos/bgp.j2",
        "{{ i }}neighbor {{ n.address }} maximum-routes {{ n.max_prefix }} warning-limit "
        "{{ n.max_prefix_warning_pct }} percent\n",
        "",
    )
    result = lint(example / "intent", templates=templates)

    model = example_models["aus1-bl1"]
    text = render_device(model, templates)
    lines = text.splitlines()
    bgp = line_in(text, "router bgp")

    def first_line(nbr: BgpNeighbor) -> int:  # a VRF's session is in its `vrf` block
        start = lines.index(f"   vrf {nbr.vrf}", bgp) + 1 if nbr.vrf else bgp
        return line_from(text, start, f"neighbor {nbr.address} ")

    expected = sorted(f"rendered/aus1/aus1-bl1.cfg:{first_line(n)}" for n in model.bgp.neighbors)
    found = sorted(
        f"{f.location.file}:{f.location.line}"
        for f in result.findings
        if f.rule == "CFG-001" and f.location.file.endswith("aus1-bl1.cfg")
    )
    assert found == expected
    assert len(found) == len(model.bgp.neighbors)  # underlay sessions are checked too


def test_a_template_that_fails_to_render_is_left_to_meetme_render(
    example: Path,
    example_models: dict[str, DeviceModel],
    broken_templates: Callable[[str, str, str], Path],
) -> None:
    """`meetme show` must keep working while a template is broken: no traceback from lint."""
    templates = broken_templates("cisco_nxos/bgp.j2", "{{ n.remote_as }}", "{{ n.no_such_field }}")
    result = lint(example / "intent", templates=templates)
    # every NX-OS device the lint reads: the border leaves and the VTEP leaves of both sites
    read = sorted(
        n for n, m in example_models.items() if m.platform == "cisco_nxos" and needs_lint(m)
    )
    assert read == [
        "aus1-bl3",
        "aus1-bl4",
        "aus1-lf3",
        "aus1-lf4",
        "mel1-bl1",
        "mel1-bl2",
        "mel1-lf101",
        "mel1-lf102",
        "mel1-lf103",
        "mel1-lf104",
        "mel1-lf201",
        "mel1-lf202",
    ]
    assert [str(e).split(" ")[0] for e in result.render_errors] == read
    assert cfg_findings(result.findings) == []


# --- hand-written configs, one failing case per check ----------------------------------------

PLATFORM_FILES = {
    "cisco_iosxr": "iosxr.cfg",
    "arista_eos": "eos.cfg",
    "cisco_nxos": "nxos.cfg",
    "nvidia_nvue": "nvue.yaml",
}


def fixture_model(base: DeviceModel, platform: str) -> DeviceModel:
    """A device model whose neighbours are the ones the hand-written configs declare: one
    through a group (peer group, neighbor-group + af-group, template), two on their own."""

    def neighbor(
        address: str, afi: str, kind: str, party: str, policy: str, limit: int
    ) -> BgpNeighbor:
        return BgpNeighbor(
            address=address,
            afi=afi,
            remote_as=64501,
            description=f"{kind} {party} XC-1",
            local_interface="Ethernet1",
            peer_device=party,
            bfd=False,
            route_map_in=f"RM-{policy}-IN" + ("-V6" if afi == "ipv6" else ""),
            route_map_out=f"RM-{policy}-OUT" + ("-V6" if afi == "ipv6" else ""),
            max_prefix=limit,
            max_prefix_warning_pct=80,
            kind=kind,
            party=party,
        )

    neighbors = [
        neighbor("192.0.2.1", "ipv4", "transit", "transit-a", "TRANSIT", 1000),
        neighbor("198.51.100.1", "ipv4", "pni", "pni-a", "PNI", 500),
        neighbor("2001:db8::1", "ipv6", "ix_peer", "ix/peer-a", "IX", 100),
    ]
    bgp = base.bgp.model_copy(update={"neighbors": neighbors})
    return base.model_copy(update={"platform": platform, "bgp": bgp})


def lint_text(base: DeviceModel, platform: str, text: str) -> list[str]:
    model = fixture_model(base, platform)
    name = f"rendered/lab/{PLATFORM_FILES[platform]}"
    return sessions_and_overlay(lint_configs([RenderedConfig(model, name, text)]))


@pytest.mark.parametrize("platform", sorted(PLATFORM_FILES))
def test_hand_written_configs_pass_with_inheritance(
    platform: str, example_models: dict[str, DeviceModel]
) -> None:
    text = (DATA / PLATFORM_FILES[platform]).read_text()
    assert lint_text(example_models["aus1-br1"], platform, text) == []


# (platform, case, old, new, rule, needle of the line the finding must name)
CASES = [
    # IOS-XR: af-group and neighbor-group inheritance; route-policy bodies
    (
        "cisco_iosxr",
        "no import policy",
        "   route-policy RM-PNI-IN in\n",
        "",
        "CFG-002",
        " neighbor 198.51.100.1",
    ),
    (
        "cisco_iosxr",
        "no export policy in the neighbor-group",
        "   route-policy RM-TRANSIT-OUT out\n",
        "",
        "CFG-003",
        " neighbor 192.0.2.1",
    ),
    (
        "cisco_iosxr",
        "no limit in the af-group",
        "  maximum-prefix 1000 80\n",
        "",
        "CFG-001",
        " neighbor 192.0.2.1",
    ),
    (
        "cisco_iosxr",
        "no limit on an IPv6 neighbour",
        "   maximum-prefix 100 80\n",
        "",
        "CFG-001",
        " neighbor 2001:db8::1",
    ),
    (
        "cisco_iosxr",
        "limit other than the model's",
        "maximum-prefix 500 80",
        "maximum-prefix 5000 80",
        "CFG-001",
        "maximum-prefix 5000 80",
    ),
    (
        "cisco_iosxr",
        "undefined route-policy",
        "route-policy RM-PNI-OUT\n",
        "route-policy RM-PNI-OUT-OLD\n",
        "CFG-004",
        "   route-policy RM-PNI-OUT out",
    ),
    (
        "cisco_iosxr",
        "undefined prefix-set",
        "prefix-set PS-OWN-V6\n",
        "prefix-set PS-OWN-V6-OLD\n",
        "CFG-004",
        "if destination in PS-OWN-V6 then",
    ),
    (
        "cisco_iosxr",
        "undefined neighbor-group",
        "\n neighbor-group TRANSIT\n",
        "\n neighbor-group TRANSIT-OLD\n",
        "CFG-004",
        "use neighbor-group TRANSIT",
    ),
    (
        "cisco_iosxr",
        "neighbour not rendered",
        " neighbor 198.51.100.1\n",
        " neighbor 198.51.100.99\n",
        "CFG-005",
        "hostname lint-xr",
    ),
    # EOS: peer group at router bgp level, per-family route-maps
    (
        "arista_eos",
        "no import policy",
        "   neighbor 198.51.100.1 route-map RM-PNI-IN in\n",
        "",
        "CFG-002",
        "neighbor 198.51.100.1 remote-as",
    ),
    (
        "arista_eos",
        "no export policy in the peer group",
        "   neighbor TRANSIT route-map RM-TRANSIT-OUT out\n",
        "",
        "CFG-003",
        "neighbor 192.0.2.1 peer group",
    ),
    (
        "arista_eos",
        "no export policy in the address family",
        "      neighbor 2001:db8::1 route-map RM-IX-OUT-V6 out\n",
        "",
        "CFG-003",
        "neighbor 2001:db8::1 remote-as",
    ),
    (
        "arista_eos",
        "no limit in the peer group",
        "   neighbor TRANSIT maximum-routes 1000",
        "   neighbor TRANSIT timers 10 30",
        "CFG-001",
        "neighbor 192.0.2.1 peer group",
    ),
    (
        "arista_eos",
        "unlimited maximum-routes",
        "neighbor 198.51.100.1 maximum-routes 500",
        "neighbor 198.51.100.1 maximum-routes 0",
        "CFG-001",
        "neighbor 198.51.100.1 maximum-routes 0",
    ),
    (
        "arista_eos",
        "undefined route-map",
        "route-map RM-PNI-OUT permit 10\n",
        "route-map RM-PNI-OUT-OLD permit 10\n",
        "CFG-004",
        "neighbor 198.51.100.1 route-map RM-PNI-OUT out",
    ),
    (
        "arista_eos",
        "undefined prefix-list",
        "ipv6 prefix-list PL-OWN-V6\n",
        "ipv6 prefix-list PL-OWN-V6-OLD\n",
        "CFG-004",
        "match ipv6 address prefix-list PL-OWN-V6",
    ),
    # NX-OS: template peer and template peer-policy
    (
        "cisco_nxos",
        "no import policy",
        "      route-map RM-PNI-IN in\n",
        "",
        "CFG-002",
        "neighbor 198.51.100.1",
    ),
    (
        "cisco_nxos",
        "no import policy in the peer-policy template",
        "    route-map RM-TRANSIT-IN in\n",
        "",
        "CFG-002",
        "neighbor 192.0.2.1",
    ),
    (
        "cisco_nxos",
        "no export policy in the peer template",
        "      route-map RM-TRANSIT-OUT out\n",
        "",
        "CFG-003",
        "neighbor 192.0.2.1",
    ),
    (
        "cisco_nxos",
        "no limit in the peer-policy template",
        "    maximum-prefix 1000 80\n",
        "",
        "CFG-001",
        "neighbor 192.0.2.1",
    ),
    (
        "cisco_nxos",
        "undefined route-map",
        "route-map RM-IX-OUT-V6 permit 10\n",
        "route-map RM-IX-OUT-V6-OLD permit 10\n",
        "CFG-004",
        "route-map RM-IX-OUT-V6 out",
    ),
    (
        "cisco_nxos",
        "undefined template",
        "  template peer TRANSIT\n",
        "  template peer TRANSIT-OLD\n",
        "CFG-004",
        "inherit peer TRANSIT",
    ),
    # NVUE: peer-group inheritance, per-family policy and prefix-limits
    (
        "nvidia_nvue",
        "no import policy",
        "                      inbound:\n                        route-map: RM-PNI-IN\n",
        "",
        "CFG-002",
        "'198.51.100.1':",
    ),
    (
        "nvidia_nvue",
        "no export policy in the peer group",
        "                      outbound:\n                        route-map: RM-TRANSIT-OUT\n",
        "",
        "CFG-003",
        "'192.0.2.1':",
    ),
    (
        "nvidia_nvue",
        "route-map none",
        "route-map: RM-IX-OUT-V6",
        "route-map: none",
        "CFG-003",
        "'2001:db8::1':",
    ),
    (
        "nvidia_nvue",
        "undefined route-map",
        "          RM-PNI-OUT:\n",
        "          RM-PNI-OUT-OLD:\n",
        "CFG-004",
        "route-map: RM-PNI-OUT",
    ),
    (
        "nvidia_nvue",
        "undefined prefix-list",
        "          PL-OWN-V6:\n",
        "          PL-OWN-V6-OLD:\n",
        "CFG-004",
        "ip-prefix-list: PL-OWN-V6",
    ),
]


@pytest.mark.parametrize(
    ("platform", "old", "new", "rule_id", "needle"),
    [pytest.param(p, o, n, r, w, id=f"{p}: {c}") for p, c, o, n, r, w in CASES],
)
def test_each_check_fails_on_a_hand_written_config(
    platform: str,
    old: str,
    new: str,
    rule_id: str,
    needle: str,
    example_models: dict[str, DeviceModel],
) -> None:
    text = (DATA / PLATFORM_FILES[platform]).read_text()
    assert text.count(old) == 1, f"{old!r} must appear once in {PLATFORM_FILES[platform]}"
    broken = text.replace(old, new)
    found = lint_text(example_models["aus1-br1"], platform, broken)
    file = f"rendered/lab/{PLATFORM_FILES[platform]}"
    expected = [[f"{file}:{line_in(broken, needle)}:", rule_id]]
    if rule_id == "CFG-004" and ("group" in old or "template" in old):
        # a missing group takes what it gave with it: reported at the neighbour as well
        neighbour = line_in(broken, "192.0.2.1")
        expected += [[f"{file}:{neighbour}:", r] for r in ("CFG-001", "CFG-002", "CFG-003")]
    assert sorted(f.split(" ")[0:2] for f in found) == sorted(expected), found


def test_nvue_yaml_that_does_not_parse_is_reported(
    example_models: dict[str, DeviceModel],
) -> None:
    text = (DATA / "nvue.yaml").read_text().replace("type: numbered", "type: [numbered", 1)
    found = lint_text(example_models["aus1-br1"], "nvidia_nvue", text)
    assert len(found) == 1
    assert "CFG-005 the rendered config cannot be read (YAML:" in found[0]


# --- NVUE: prefix-limits removed from the rendered example ----------------------------------


def test_nvue_neighbour_without_prefix_limits_is_reported_at_its_key(
    example_models: dict[str, DeviceModel],
) -> None:
    model = example_models["aus1-bl5"]
    gcp = next(n for n in model.bgp.neighbors if n.kind == "gcp")
    lines = render_device(model).splitlines(keepends=True)
    key = line_in("".join(lines), f"'{gcp.address}':")
    start = next(i for i in range(key, len(lines)) if lines[i].strip() == "prefix-limits:")
    indent = len(lines[start]) - len(lines[start].lstrip())
    end = next(
        i for i in range(start + 1, len(lines)) if len(lines[i]) - len(lines[i].lstrip()) <= indent
    )
    broken = "".join(lines[:start] + lines[end:])

    name = f"rendered/{output_name(model)}"
    found = cfg_findings(lint_configs([RenderedConfig(model, name, broken)]))
    assert found == [
        f"rendered/aus1/aus1-bl5.yaml:{key}: CFG-001 neighbor {gcp.address} in vrf {gcp.vrf} "
        f"({gcp.description}) has no prefix limit (prefix-limits inbound maximum) for ipv4 "
        "unicast, neither on the neighbour nor through a group or template"
    ]


# --- VRF neighbours and the EVPN services (CFG-006..008) ------------------------------------


def line_from(text: str, start: int, needle: str) -> int:
    """1-based number of the first line at or after line `start` containing `needle`."""
    for number, line in enumerate(text.splitlines()[start - 1 :], start=start):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in the text from line {start}")


def line_after(text: str, anchor: str, needle: str) -> int:
    """The first line containing `needle` at or after the first one containing `anchor`."""
    return line_from(text, line_in(text, anchor) if anchor else 1, needle)


def line_at(text: str, *path: str) -> int:
    """The line of the last needle, each needle searched from the line of the one before."""
    line = 1
    for needle in path:
        line = line_from(text, line, needle)
    return line


def test_the_example_vteps_and_handoff_sessions_are_read(
    example_models: dict[str, DeviceModel],
) -> None:
    """The example's clean lint is not vacuous: it has VTEPs with VLANs and VRFs to map on
    every VTEP platform, and handoff sessions that share an address with a default-VRF one."""
    vteps = [m for m in example_models.values() if m.evpn is not None and m.evpn.vtep]
    with_vrfs = {m.platform for m in vteps if m.evpn is not None and m.evpn.vrfs}
    with_vlans = {m.platform for m in vteps if m.evpn is not None and m.evpn.vlans}
    assert with_vrfs == {"arista_eos", "cisco_nxos", "nvidia_nvue"}
    assert with_vlans >= {"cisco_nxos", "nvidia_nvue"}
    shared: dict[str, set[str]] = {}
    for model in example_models.values():
        default = {n.address for n in model.bgp.neighbors if n.vrf is None}
        if any(n.kind == "handoff" and n.address in default for n in model.bgp.neighbors):
            shared.setdefault(model.site, set()).add(model.platform)
    # aus1: EOS border leaves and IOS-XR borders; mel1: NX-OS border leaves and EOS borders
    assert shared == {"aus1": {"arista_eos", "cisco_iosxr"}, "mel1": {"arista_eos", "cisco_nxos"}}


def test_a_handoff_neighbour_without_its_limit_fails_though_the_underlay_one_has_it(
    example_models: dict[str, DeviceModel],
) -> None:
    """aus1-br1 peers with 10.1.21.0 twice over: in the default VRF (underlay) and in VRF
    gpu-a (handoff). Dropping the handoff session's limit must not be hidden by the other."""
    model = example_models["aus1-br1"]
    handoff = next(n for n in model.bgp.neighbors if n.kind == "handoff" and n.vrf == "gpu-a")
    assert any(n.vrf is None and n.address == handoff.address for n in model.bgp.neighbors)
    lines = render_device(model).splitlines(keepends=True)
    text = "".join(lines)
    vrf = line_after(text, "router bgp", " vrf gpu-a")
    neighbour = line_from(text, vrf, f" neighbor {handoff.address}")
    limit = line_from(text, neighbour, "maximum-prefix")
    broken = "".join(lines[: limit - 1] + lines[limit:])

    name = f"rendered/{output_name(model)}"
    found = cfg_findings(lint_configs([RenderedConfig(model, name, broken)]))
    assert found == [
        f"rendered/aus1/aus1-br1.cfg:{neighbour}: CFG-001 handoff neighbor {handoff.address} in "
        f"vrf gpu-a ({handoff.peer_device}) has no prefix limit (maximum-prefix) for ipv4 "
        "unicast, neither on the neighbour nor through a group or template"
    ]


# --- hand-written VTEPs: VRF neighbours, VLAN/VRF mappings, EVPN exports ---------------------

VTEP_FILES = {
    "arista_eos": "eos_vtep.cfg",
    "cisco_nxos": "nxos_vtep.cfg",
    "nvidia_nvue": "nvue_vtep.yaml",
    "cisco_iosxr": "iosxr_vrf.cfg",  # not a VTEP: the other end of the handoff
}
SHARED = "192.0.2.1"  # the transit session in VRF default and a handoff session in each VRF


def vtep_model(base: DeviceModel, platform: str) -> DeviceModel:
    """The device the *_vtep fixtures configure: VLAN 101 (VRF gpu-a, IPv4 gateway) and 201
    (VRF storage, IPv4 and IPv6 gateways); both VRFs with an L3VNI and a handoff session to
    the address of the default VRF's transit neighbour; one EVPN peer, a spine's loopback."""

    def neighbor(vrf: str | None, kind: str, policy: str, limit: int) -> BgpNeighbor:
        return BgpNeighbor(
            address=SHARED,
            afi="ipv4",
            remote_as=64501 if vrf is None else 64510,
            description=f"{kind} {vrf or 'transit-a'}",
            local_interface="Ethernet1",
            peer_device="lint-border",
            bfd=False,
            route_map_in=f"RM-{policy}-IN",
            route_map_out=f"RM-{policy}-OUT",
            max_prefix=limit,
            max_prefix_warning_pct=80,
            kind=kind,
            vrf=vrf,
            party="transit-a" if vrf is None else None,
        )

    def network(vlan: int, name: str, vrf: str, v4: str, v6: str | None = None) -> EvpnVlan:
        svi = Interface(
            name=f"Vlan{vlan}",
            kind="svi",
            description=name,
            vrf=vrf,
            ipv4=Address.of(v4),
            ipv6=Address.of(v6) if v6 else None,
        )
        vni = 10000 + vlan
        return EvpnVlan(
            id=vlan,
            name=name,
            vni=vni,
            vrf=vrf,
            rd=f"10.0.0.21:{vni}",
            route_target=f"65000:{vni}",
            svi=svi,
        )

    def tenant(name: str, vni: int, vlan: int, families: tuple[Afi, ...] = ("ipv4",)) -> EvpnVrf:
        return EvpnVrf(
            name=name,
            vni=vni,
            vlan=vlan,
            rd=f"10.0.0.21:{vni}",
            route_target=f"65000:{vni}",
            address_families=families,
        )

    neighbors = [
        neighbor(None, "transit", "TRANSIT", 1000),
        neighbor("gpu-a", "handoff", "HANDOFF-GPU-A", 10),
        neighbor("storage", "handoff", "HANDOFF-STORAGE", 10),
    ]
    evpn = Evpn(
        vtep=True,
        source_interface="Loopback1",
        source_address="10.0.1.21",
        anycast_mac="00:1c:73:00:00:99",
        arp_nd_suppression=True,
        vlans=[
            network(101, "gpu-a-compute", "gpu-a", "10.20.1.1/24"),
            network(201, "storage-data", "storage", "10.30.1.1/24", "2001:db8:30:1::1/64"),
        ],
        vrfs=[tenant("gpu-a", 50001, 3001), tenant("storage", 50010, 3010, ("ipv4", "ipv6"))],
        peers=[
            EvpnPeer(
                address="10.0.0.1",
                remote_as=65100,
                description="lint-spine",
                peer_device="lint-spine",
                update_source="Loopback0",
                update_source_address="10.0.0.21",
                ebgp_multihop=3,
                max_routes=20000,
                max_routes_warning_pct=80,
                next_hop_unchanged=False,
            )
        ],
    )
    bgp = base.bgp.model_copy(update={"neighbors": neighbors})
    update = {"platform": platform, "bgp": bgp, "evpn": None if platform == "cisco_iosxr" else evpn}
    return base.model_copy(update=update)


def lint_vtep(base: DeviceModel, platform: str, text: str) -> list[str]:
    model = vtep_model(base, platform)
    name = f"rendered/lab/{VTEP_FILES[platform]}"
    return sessions_and_overlay(lint_configs([RenderedConfig(model, name, text)]))


@pytest.mark.parametrize("platform", sorted(VTEP_FILES))
def test_hand_written_vteps_pass(platform: str, example_models: dict[str, DeviceModel]) -> None:
    text = (DATA / VTEP_FILES[platform]).read_text()
    assert lint_vtep(example_models["aus1-bl1"], platform, text) == []


# (platform, case, old, new, [(rule, lines leading to the one the finding must name)])
Expected = list[tuple[str, ...]]
VTEP_CASES: list[tuple[str, str, str, str, Expected]] = [
    # a VRF's session without its limit, while the default VRF's at the same address has one
    (
        "arista_eos",
        "VRF neighbour without its limit",
        "      neighbor 192.0.2.1 maximum-routes 10 warning-limit 80 percent\n",
        "",
        [("CFG-001", "router bgp", "   vrf storage", "neighbor 192.0.2.1 remote-as")],
    ),
    (
        "cisco_nxos",
        "VRF neighbour without its limit",
        "        maximum-prefix 10 80\n",
        "",
        [("CFG-001", "  vrf storage", "neighbor 192.0.2.1")],
    ),
    (
        "nvidia_nvue",
        "VRF neighbour without its limit",
        "                        maximum: 10\n                        warning-threshold: 80\n"
        "            address-family:\n",
        "            address-family:\n",
        [("CFG-001", "      storage:", "'192.0.2.1':")],
    ),
    (
        "cisco_iosxr",
        "VRF neighbour without its limit",
        "    maximum-prefix 10 80\n",
        "",
        [("CFG-001", " vrf storage", " neighbor 192.0.2.1")],
    ),
    # the limit a VRF's session inherits from a group or template defined for the whole router
    (
        "arista_eos",
        "no limit in the peer group a VRF neighbour uses",
        "   neighbor HANDOFF maximum-routes 10 warning-limit 80 percent\n",
        "",
        [("CFG-001", "router bgp", "   vrf gpu-a", "neighbor 192.0.2.1 peer group")],
    ),
    (
        "cisco_nxos",
        "no limit in the peer-policy template a VRF neighbour inherits",
        "    maximum-prefix 10 80\n  neighbor",
        "  neighbor",
        [("CFG-001", "  vrf gpu-a", "neighbor 192.0.2.1")],
    ),
    (
        "cisco_iosxr",
        "no limit in the af-group a VRF neighbour uses",
        " af-group AF-HANDOFF address-family ipv4 unicast\n  maximum-prefix 10 80\n",
        " af-group AF-HANDOFF address-family ipv4 unicast\n",
        [("CFG-001", " vrf gpu-a", " neighbor 192.0.2.1")],
    ),
    (
        "nvidia_nvue",
        "VRF neighbour without its import policy",
        "                        route-map: RM-HANDOFF-GPU-A-IN\n",
        "                        route-map: none\n",
        [("CFG-002", "      gpu-a:", "'192.0.2.1':")],
    ),
    (
        "arista_eos",
        "VRF neighbour not rendered",
        "      neighbor 192.0.2.1 remote-as 64510\n      neighbor 192.0.2.1 route-map "
        "RM-HANDOFF-STORAGE-IN in\n      neighbor 192.0.2.1 route-map RM-HANDOFF-STORAGE-OUT "
        "out\n      neighbor 192.0.2.1 maximum-routes 10 warning-limit 80 percent\n",
        "",
        [("CFG-005", "hostname")],
    ),
    # CFG-006: VLAN to L2VNI
    (
        "arista_eos",
        "VLAN not mapped",
        "   vxlan vlan 201 vni 10201\n",
        "",
        [("CFG-006", "interface Vxlan1")],
    ),
    (
        "arista_eos",
        "VLAN mapped to another VNI",
        "vxlan vlan 101 vni 10101",
        "vxlan vlan 101 vni 10199",
        [("CFG-006", "vxlan vlan 101 vni 10199")],
    ),
    (
        "cisco_nxos",
        "VLAN without its vn-segment",
        "  vn-segment 10201\n",
        "",
        [("CFG-006", "vlan 201")],
    ),
    (
        "cisco_nxos",
        "VLAN not declared",
        "vlan 101\n  name gpu-a-compute\n  vn-segment 10101\n",
        "",
        [("CFG-006", "interface nve1")],
    ),
    (
        "cisco_nxos",
        "L2VNI not a member of nve1",
        "  member vni 10101\n    ingress-replication protocol bgp\n",
        "",
        [("CFG-006", "interface nve1")],
    ),
    (
        "nvidia_nvue",
        "VLAN not in the bridge domain",
        "            '201':\n              vni:\n                '10201': {}\n",
        "",
        [("CFG-006", "br_default:", "vlan:")],
    ),
    (
        "nvidia_nvue",
        "VLAN mapped to another VNI",
        "'10101': {}",
        "'10199': {}",
        [("CFG-006", "'10199': {}")],
    ),
    (
        "arista_eos",
        "no VXLAN interface at all: every mapping reported at the top",
        "interface Vxlan1\n   vxlan source-interface Loopback1\n   vxlan udp-port 4789\n"
        "   vxlan vlan 101 vni 10101\n   vxlan vlan 201 vni 10201\n"
        "   vxlan vrf gpu-a vni 50001\n   vxlan vrf storage vni 50010\n",
        "",
        [
            ("CFG-006", "hostname"),
            ("CFG-006", "hostname"),
            ("CFG-007", "hostname"),
            ("CFG-007", "hostname"),
        ],
    ),
    # CFG-007: VRF to L3VNI
    (
        "arista_eos",
        "VRF not mapped",
        "   vxlan vrf storage vni 50010\n",
        "",
        [("CFG-007", "interface Vxlan1")],
    ),
    (
        "cisco_nxos",
        "VRF context without its vni",
        "  vni 50010\n",
        "",
        [("CFG-007", "vrf context storage")],
    ),
    (
        "cisco_nxos",
        "L3VNI without associate-vrf",
        "  member vni 50001 associate-vrf\n",
        "  member vni 50001\n",
        [("CFG-007", "member vni 50001")],
    ),
    (
        "cisco_nxos",
        "L3VNI carrier VLAN without its vn-segment",
        "vlan 3010\n  vn-segment 50010\n",
        "vlan 3010\n",
        [("CFG-007", "vlan 3010")],
    ),
    (
        "nvidia_nvue",
        "VRF mapped to another L3VNI",
        "'50001': {}",
        "'50002': {}",
        [("CFG-007", "'50002': {}")],
    ),
    (
        "nvidia_nvue",
        "VRF EVPN disabled",
        "      storage:\n        evpn:\n          state: enabled\n",
        "      storage:\n        evpn:\n          state: disabled\n",
        [("CFG-007", "      storage:", "state: disabled")],
    ),
    # CFG-008: the VRF's routes exported to EVPN with its route target
    (
        "arista_eos",
        "VRF without its EVPN export",
        "      route-target export evpn 65000:50001\n",
        "",
        [("CFG-008", "router bgp", "   vrf gpu-a")],
    ),
    (
        "arista_eos",
        "VRF exporting another route target",
        "route-target export evpn 65000:50010",
        "route-target export evpn 65000:50099",
        [("CFG-008", "route-target export evpn 65000:50099")],
    ),
    (
        "cisco_nxos",
        "VRF without its IPv6 EVPN export",
        "    route-target import 65000:50010 evpn\n    route-target export 65000:50010 evpn\n",
        "    route-target import 65000:50010 evpn\n",
        [("CFG-008", "vrf context storage", "address-family ipv6 unicast")],
    ),
    (
        "cisco_nxos",
        "VRF exporting another route target",
        "route-target export 65000:50001 evpn",
        "route-target export 65000:50099 evpn",
        [("CFG-008", "route-target export 65000:50099 evpn")],
    ),
    (
        "nvidia_nvue",
        "VRF without its IPv6 export to EVPN",
        "      ipv6-unicast:\n                state: enabled\n                redistribute:\n"
        "                  connected:\n                    state: enabled\n"
        "                route-export:\n                  to-evpn:\n"
        "                    state: enabled\n",
        "      ipv6-unicast:\n                state: enabled\n                redistribute:\n"
        "                  connected:\n                    state: enabled\n",
        [("CFG-008", "      storage:", "ipv6-unicast:")],
    ),
    (
        "nvidia_nvue",
        "VRF exported without its route target",
        "            route-export:\n              to-evpn:\n                route-target:\n"
        "                  '65000:50001': {}\n",
        "",
        [("CFG-008", "      gpu-a:", "bgp:")],
    ),
    # CFG-009: each EVPN peer with the model's prefix limit
    (
        "arista_eos",
        "no limit in the EVPN peer's peer group",
        "   neighbor EVPN-OVERLAY maximum-routes 20000 warning-limit 80 percent\n",
        "",
        [("CFG-009", "neighbor 10.0.0.1 peer group")],
    ),
    (
        "arista_eos",
        "EVPN peer limit different",
        "EVPN-OVERLAY maximum-routes 20000",
        "EVPN-OVERLAY maximum-routes 12000",
        [("CFG-009", "EVPN-OVERLAY maximum-routes 12000")],
    ),
    (
        "arista_eos",
        "EVPN peer not rendered",
        "   neighbor 10.0.0.1 peer group EVPN-OVERLAY\n   neighbor 10.0.0.1 remote-as 65100\n",
        "",
        [("CFG-009", "router bgp")],
    ),
    (
        "cisco_nxos",
        "EVPN peer without maximum-prefix in l2vpn evpn",
        "      maximum-prefix 20000 80\n",
        "",
        [("CFG-009", "  neighbor 10.0.0.1")],
    ),
    (
        "cisco_nxos",
        "EVPN peer limit different",
        "maximum-prefix 20000 80",
        "maximum-prefix 2000 80",
        [("CFG-009", "maximum-prefix 2000 80")],
    ),
    (
        "cisco_nxos",
        "EVPN peer not rendered",
        "  neighbor 10.0.0.1\n    remote-as 65100\n",
        "  neighbor 10.0.0.9\n    remote-as 65100\n",
        [("CFG-009", "router bgp")],
    ),
    (
        "nvidia_nvue",
        "EVPN peer without its inbound maximum",
        "                        maximum: 20000\n",
        "",
        [("CFG-009", "'10.0.0.1':")],
    ),
    (
        "nvidia_nvue",
        "EVPN peer limit different",
        "maximum: 20000",
        "maximum: 2000",
        [("CFG-009", "maximum: 2000")],
    ),
    (
        "nvidia_nvue",
        "EVPN peer not rendered",
        "'10.0.0.1':",
        "'10.0.0.9':",
        [("CFG-009", "      default:", "neighbor:")],
    ),
]


@pytest.mark.parametrize(
    ("platform", "old", "new", "expected"),
    [pytest.param(p, o, n, e, id=f"{p}: {c}") for p, c, o, n, e in VTEP_CASES],
)
def test_each_vtep_check_fails_on_a_hand_written_config(
    platform: str,
    old: str,
    new: str,
    expected: Expected,
    example_models: dict[str, DeviceModel],
) -> None:
    text = (DATA / VTEP_FILES[platform]).read_text()
    assert text.count(old) == 1, f"{old!r} must appear once in {VTEP_FILES[platform]}"
    broken = text.replace(old, new)
    found = lint_vtep(example_models["aus1-bl1"], platform, broken)
    file = f"rendered/lab/{VTEP_FILES[platform]}"
    wanted = [[f"{file}:{line_at(broken, *path)}:", rule_id] for rule_id, *path in expected]
    assert sorted(f.split(" ")[0:2] for f in found) == sorted(wanted), found


def test_vtep_findings_say_what_is_missing_in_the_platforms_words(
    example_models: dict[str, DeviceModel],
) -> None:
    text = (DATA / "nxos_vtep.cfg").read_text()
    broken = text.replace("  member vni 10201\n    suppress-arp\n", "  member vni 10201\n")
    broken = broken.replace("  member vni 50010 associate-vrf\n", "")
    nve = line_in(broken, "interface nve1")
    assert lint_vtep(example_models["aus1-bl1"], "cisco_nxos", broken) == [
        f"rendered/lab/nxos_vtep.cfg:{nve}: CFG-007 VRF storage: VNI 50010 is not on the VTEP, "
        "no `member vni 50010 associate-vrf` under interface nve1"
    ]


def test_a_vtep_without_external_sessions_is_read_for_its_evpn_services(
    example_models: dict[str, DeviceModel],
) -> None:
    """A leaf has no external or handoff session: only the EVPN checks read it, and YAML that
    does not parse is reported once, by them."""
    base = vtep_model(example_models["aus1-bl1"], "nvidia_nvue")
    leaf = base.model_copy(update={"bgp": base.bgp.model_copy(update={"neighbors": []})})
    text = (DATA / "nvue_vtep.yaml").read_text()
    name = "rendered/lab/nvue_vtep.yaml"

    dropped = text.replace("'10201': {}", "'10299': {}")
    found = sessions_and_overlay(lint_configs([RenderedConfig(leaf, name, dropped)]))
    assert found == [
        f"{name}:{line_in(dropped, '10299')}: CFG-006 VLAN 201 (storage-data) is mapped to VNI "
        "10299; the device model's is 10201"
    ]

    unreadable = text.replace("state: enabled", "state: [enabled", 1)
    found = sessions_and_overlay(lint_configs([RenderedConfig(leaf, name, unreadable)]))
    assert len(found) == 1
    assert "CFG-006 the rendered config cannot be read (YAML:" in found[0]
    assert found[0].endswith("none of its 2 VLAN(s) and 2 VRF(s) could be checked")
    # with BGP sessions to check as well, CFG-005 reports it and the EVPN checks stay quiet
    assert [f.split(" ")[1] for f in lint_vtep(base, "nvidia_nvue", unreadable)] == ["CFG-005"]


# --- a template that drops an EVPN line fails on the example ---------------------------------


def vtep_findings(result_findings: list[Finding], rule_id: str) -> list[str]:
    return sorted(
        f"{f.location.file}:{f.location.line}: {f.message}"
        for f in result_findings
        if f.rule == rule_id
    )


def test_nxos_template_without_member_vni_fails_at_nve1_for_every_vlan(
    example: Path,
    example_models: dict[str, DeviceModel],
    broken_templates: Callable[[str, str, str], Path],
) -> None:
    templates = broken_templates(
        "cisco_nxos/overlay_interfaces.j2", "  member vni {{ vlan.vni }}\n", ""
    )
    result = lint(example / "intent", templates=templates)

    expected = []
    for model in example_models.values():
        if model.platform != "cisco_nxos" or model.evpn is None or not model.evpn.vtep:
            continue
        nve = line_in(render_device(model, templates), "interface nve1")
        expected += [
            f"rendered/{output_name(model)}:{nve}: VLAN {v.id} ({v.name}): VNI {v.vni} is not "
            f"on the VTEP, no `member vni {v.vni}` under interface nve1"
            for v in model.evpn.vlans
        ]
    assert len(expected) >= 2
    assert vtep_findings(result.findings, "CFG-006") == sorted(expected)


def test_eos_template_without_vxlan_vrf_fails_at_vxlan1_for_every_vrf(
    example: Path,
    example_models: dict[str, DeviceModel],
    broken_templates: Callable[[str, str, str], Path],
) -> None:
    templates = broken_templates(
        "arista_eos/overlay.j2", "   vxlan vrf {{ vrf.name }} vni {{ vrf.vni }}\n", ""
    )
    result = lint(example / "intent", templates=templates)

    expected = []
    for model in example_models.values():
        if model.platform != "arista_eos" or model.evpn is None or not model.evpn.vtep:
            continue
        vxlan = line_in(render_device(model, templates), "interface Vxlan1")
        expected += [
            f"rendered/{output_name(model)}:{vxlan}: VRF {v.name} is not mapped to its L3VNI "
            f"{v.vni}: no `vxlan vrf {v.name} vni {v.vni}` under interface Vxlan1"
            for v in model.evpn.vrfs
        ]
    assert len(expected) >= 2
    assert vtep_findings(result.findings, "CFG-007") == sorted(expected)


def test_nvue_template_without_the_l2vni_fails_at_each_bridge_vlan(
    example: Path,
    example_models: dict[str, DeviceModel],
    broken_templates: Callable[[str, str, str], Path],
) -> None:
    templates = broken_templates(
        "nvidia_nvue/overlay.j2", "                {{ vlan.vni | yaml_str }}: {}\n", ""
    )
    result = lint(example / "intent", templates=templates)

    expected = []
    for model in example_models.values():
        if model.platform != "nvidia_nvue" or model.evpn is None or not model.evpn.vlans:
            continue
        text = render_device(model, templates)
        bridge = text.splitlines().index("    bridge:") + 1  # the top-level key
        for v in model.evpn.vlans:
            key = line_from(text, bridge, f"            '{v.id}':")
            expected.append(
                f"rendered/{output_name(model)}:{key}: VLAN {v.id} ({v.name}) has no "
                f"`vni {v.vni}` in its bridge domain"
            )
    assert len(expected) >= 2
    assert vtep_findings(result.findings, "CFG-006") == sorted(expected)


def test_evpn_peer_findings_name_the_limit_in_the_platforms_words(
    example_models: dict[str, DeviceModel],
) -> None:
    base = example_models["aus1-bl1"]
    eos = (DATA / "eos_vtep.cfg").read_text().replace("maximum-routes 20000", "maximum-routes 0")
    assert lint_vtep(base, "arista_eos", eos) == [
        f"rendered/lab/eos_vtep.cfg:{line_in(eos, 'maximum-routes 0')}: CFG-009 EVPN peer "
        "10.0.0.1 (lint-spine) has maximum-routes 0, which is no limit; the device model's is "
        "20000"
    ]
    nxos = (DATA / "nxos_vtep.cfg").read_text().replace("      maximum-prefix 20000 80\n", "")
    assert lint_vtep(base, "cisco_nxos", nxos) == [
        f"rendered/lab/nxos_vtep.cfg:{line_in(nxos, 'neighbor 10.0.0.1')}: CFG-009 EVPN peer "
        "10.0.0.1 (lint-spine) has no prefix limit: no `maximum-prefix` under the neighbour's "
        "address-family l2vpn evpn"
    ]


def test_eos_template_without_the_evpn_limit_fails_on_every_overlay_session(
    example: Path,
    example_models: dict[str, DeviceModel],
    broken_templates: Callable[[str, str, str], Path],
) -> None:
    """Spines have no VTEP and no external session: only CFG-009 reads them."""
    templates = broken_templates(
        "arista_eos/bgp.j2",
        "   neighbor {{ p.address }} maximum-routes {{ p.max_routes }} warning-limit "
        "{{ p.max_routes_warning_pct }} percent\n",
        "",
    )
    result = lint(example / "intent", templates=templates)

    expected = []
    spines = 0
    for model in example_models.values():
        if model.platform != "arista_eos" or model.evpn is None:
            continue
        spines += not model.evpn.vtep
        text = render_device(model, templates)
        expected += [
            f"rendered/{output_name(model)}:{line_in(text, f'neighbor {p.address} remote-as')}: "
            f"EVPN peer {p.address} ({p.peer_device}) has no prefix limit: no `maximum-routes` "
            "on the neighbour or its peer group"
            for p in model.evpn.peers
        ]
    assert spines >= 2 and len(expected) >= 4
    assert vtep_findings(result.findings, "CFG-009") == sorted(expected)


# --- one read-back per file, the same inheritance for every session --------------------------

NXOS_EVPN_TEMPLATE = (
    "  template peer SPINES\n    address-family l2vpn evpn\n      maximum-prefix {limit} 80\n"
)


@pytest.mark.parametrize(("limit", "found"), [(20000, []), (19999, ["CFG-009"])])
def test_an_nxos_evpn_peer_limit_inherited_from_a_template_is_read_there(
    limit: int, found: list[str], example_models: dict[str, DeviceModel]
) -> None:
    """The EVPN session's limit is resolved like a unicast one: through `inherit peer`. The
    model's limit passes; one less is reported at the template's line, not the neighbour's."""
    text = (DATA / "nxos_vtep.cfg").read_text()
    old = "  neighbor 10.0.0.1\n"
    assert text.count("      maximum-prefix 20000 80\n") == 1
    broken = text.replace("      maximum-prefix 20000 80\n", "")  # the neighbour's own
    template = NXOS_EVPN_TEMPLATE.format(limit=limit)
    broken = broken.replace(old, template + old + "    inherit peer SPINES\n", 1)
    hits = lint_vtep(example_models["aus1-bl1"], "cisco_nxos", broken)
    assert [h.split(" ")[1] for h in hits] == found
    if found:
        line = line_in(broken, f"maximum-prefix {limit} 80")
        assert hits[0].startswith(f"rendered/lab/nxos_vtep.cfg:{line}: CFG-009 EVPN peer 10.0.0.1")
        assert hits[0].endswith(f"has maximum-prefix {limit}; the device model's is 20000")


@pytest.mark.parametrize("platform", ["arista_eos", "cisco_nxos"])
def test_a_vtep_with_external_sessions_is_parsed_once(
    platform: str, example_models: dict[str, DeviceModel], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sessions (CFG-001..005), EVPN services (CFG-006..009) and the management plane
    (CFG-010..011) read the same read-back: one parse of the file into blocks, and a broken
    line found by both kinds of check."""
    from meetme.validators.config_lint import cisco

    parses: list[int] = []
    real = cisco.blocks

    def counting(text: str) -> object:
        parses.append(len(text.splitlines()))
        return real(text)

    monkeypatch.setattr(cisco, "blocks", counting)
    text = (DATA / VTEP_FILES[platform]).read_text() + "! read once\n"
    assert lint_vtep(example_models["aus1-bl1"], platform, text) == []
    assert parses == [len(text.splitlines())]


def test_a_limit_the_model_does_not_have_is_drift(example_models: dict[str, DeviceModel]) -> None:
    """A session without a limit in the model (EDGE-001 waived) must render none: a limit the
    text still carries is drift, reported where it is written."""
    model = example_models["aus1-br1"]
    text = render_device(model)
    first = next(n for n in model.bgp.neighbors if n.max_prefix is not None and n.vrf is None)
    unlimited = tuple(
        n.model_copy(update={"max_prefix": None}) if n is first else n for n in model.bgp.neighbors
    )
    without = model.model_copy(
        update={"bgp": model.bgp.model_copy(update={"neighbors": unlimited})}
    )
    found = cfg_findings(lint_configs([RenderedConfig(without, "rendered/aus1/br1.cfg", text)]))
    assert len(found) == 1
    assert found[0].startswith("rendered/aus1/br1.cfg:")
    assert f"CFG-001 underlay neighbor {first.address} ({first.peer_device})" in found[0]
    assert found[0].endswith(
        f"has maximum-prefix {first.max_prefix}; the device model has no limit"
    )
    # and the text rendered from the unlimited model carries no limit for it: clean
    again = RenderedConfig(without, "rendered/aus1/br1.cfg", render_device(without))
    assert cfg_findings(lint_configs([again])) == []

"""The config lint (CFG-*): edge hygiene checked again on the rendered text.

The intent rules prove the device model asks for a prefix limit and both policies on every
session; these tests prove the lint catches a template that fails to print them, names the
rendered file and the config line, and follows peer groups, neighbor-groups, af-groups and
templates before it complains.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import EXAMPLE_INTENT, REPO
from meetme.generators.model import BgpNeighbor, DeviceModel
from meetme.generators.render import output_name, render_device
from meetme.validators.config_lint import RenderedConfig, lint_configs
from meetme.validators.rules.engine import Finding
from typer.testing import CliRunner

from meetme.cli import app
from meetme.pipeline import device_models, lint

DATA = Path(__file__).parent / "data" / "config_lint"
CFG_RULES = ["CFG-001", "CFG-002", "CFG-003", "CFG-004", "CFG-005"]


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

XR_LIMIT = "   maximum-prefix {{ nbr.max_prefix }} {{ nbr.max_prefix_warning_pct }}\n"
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
        "meetme.pipeline.render_device", lambda m, _=None: render_device(m, templates)
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
        "   neighbor {{ n.address }} maximum-routes {{ n.max_prefix }} warning-limit "
        "{{ n.max_prefix_warning_pct }} percent\n",
        "",
    )
    result = lint(example / "intent", templates=templates)

    model = example_models["aus1-bl1"]
    text = render_device(model, templates)
    expected = sorted(
        f"rendered/aus1/aus1-bl1.cfg:{line_in(text, f'neighbor {nbr.address} ')}"
        for nbr in model.bgp.neighbors
    )
    found = sorted(
        f"{f.location.file}:{f.location.line}"
        for f in result.findings
        if f.rule == "CFG-001" and f.location.file.endswith("aus1-bl1.cfg")
    )
    assert found == expected
    assert len(found) == len(model.bgp.neighbors)  # underlay sessions are checked too


def test_a_template_that_fails_to_render_is_left_to_meetme_render(
    example: Path, broken_templates: Callable[[str, str, str], Path]
) -> None:
    """`meetme show` must keep working while a template is broken: no traceback from lint."""
    templates = broken_templates("cisco_nxos/bgp.j2", "{{ n.remote_as }}", "{{ n.no_such_field }}")
    result = lint(example / "intent", templates=templates)
    assert [str(e).split(" ")[0] for e in result.render_errors] == ["aus1-bl3", "aus1-bl4"]
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
    return cfg_findings(lint_configs([RenderedConfig(model, name, text)]))


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
        f"rendered/aus1/aus1-bl5.yaml:{key}: CFG-001 neighbor {gcp.address} "
        f"({gcp.description}) has no prefix limit (prefix-limits inbound maximum) for ipv4 "
        "unicast, neither on the neighbour nor through a group or template"
    ]

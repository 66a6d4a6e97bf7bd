"""The platform x role matrix.

- Every (platform, role) pair applied to every kind of device of the example, keeping its
  interface names, hardware model and links as they are, ends in exit 0 or exit 1 with findings
  (never 2, never 3); every platform refusal names device, platform and feature. The pipeline
  runs in-process on one shared copy of the example (only devices.yaml changes per case).
- Moving the spines or the borders to each platform, ports renamed, the lint refuses exactly
  what docs/platforms.md says the platform refuses in that role; that page is generated.
- Golden files pin one rendered device per (platform, role) pair that renders and that the
  example itself does not show (tests/golden/matrix/; test_golden.py pins the example's).
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml
from conftest import EXAMPLE_INTENT, REPO, borders_to, line_of, replace_in
from helpers import PINNED
from meetme.generators.platforms import PLATFORMS, support
from typer.testing import CliRunner
from variants import BORDER_PORTS, border_on, borders_to_eos, nxos_leaves_on_eos

from meetme.cli import app
from meetme.core.problems import IntentError
from meetme.pipeline import LintResult, device_models, lint, rendered_files

DEVICES = Path("intent/aus1/devices.yaml")


def _spines_to(repo: Path, platform: str, model: str, interface: str) -> None:
    devices = repo / DEVICES
    text = devices.read_text()
    old = "platform: arista_eos\n        model: 7060X6-64PE"
    assert text.count(old) == 4
    devices.write_text(text.replace(old, f"platform: {platform}\n        model: {model}"))
    links = repo / "intent/aus1/links.yaml"
    text, count = re.subn(
        r'(\{role: spine, interface: )"Ethernet\{n\}/1"', rf'\1"{interface}"', links.read_text()
    )
    assert count == 3  # spine-to-border and both leaf-to-spine rules
    links.write_text(text)


def _findings(output: str) -> list[tuple[int, str, str]]:
    """(line, rule, message) of every finding the text report prints for devices.yaml."""
    return [
        (int(m[1]), m[2], m[3])
        for m in re.finditer(r"^\s+(\d+):\d+\s+error\s+(\S+)\s+(.*)$", output, re.MULTILINE)
    ]


@pytest.mark.parametrize(
    ("move", "title", "devices", "feature"),
    [
        (
            lambda repo: _spines_to(repo, "nvidia_nvue", "SN5600", "swp{n}"),
            "NVIDIA Cumulus Linux 5.16 (NVUE)",
            ["aus1-sp1", "aus1-sp2", "aus1-sp3", "aus1-sp4"],
            "EVPN next hop unchanged toward VTEPs",
        ),
    ],
    ids=["spines-nvue"],  # EOS borders render: test_eos_border_handoff.py; NX-OS spines below
)
@pytest.mark.parametrize("command", ["lint", "render"])
def test_moving_a_role_to_another_platform_never_crashes(
    example: Path, move: object, title: str, devices: list[str], feature: str, command: str
) -> None:
    move(example)  # type: ignore[operator]
    result = CliRunner().invoke(app, [command])
    assert result.exit_code == 1, result.output  # findings, not 3 (a template bug)
    assert "internal error" not in result.output
    findings = _findings(result.output)
    plat = [f for f in findings if f[1].startswith("PLAT-")]
    assert len(plat) == len(findings) == len(devices)  # nothing but the platform's limit
    for (line, _rule, message), device in zip(sorted(plat), devices, strict=True):
        assert message.startswith(f"{device} ({title}) cannot render {feature}")
        # at the device's own `platform:` line
        block = line_of(example / DEVICES, f"  {device}:")
        assert line == line_of(example / DEVICES, "platform:", _nth_platform(example, block))
    if command == "render":
        assert not (example / "rendered").exists()  # nothing written


def spines_on_nxos(repo: Path) -> None:
    """aus1's four spines on NX-OS N9K-C9364D-GX2A (ports Ethernet1/<n>)."""
    _spines_to(repo, "cisco_nxos", "N9K-C9364D-GX2A", "Ethernet1/{n}")


def test_nxos_spines_render_as_route_servers(example: Path) -> None:
    """Were PLAT-007 on every spine: each leaf's EVPN session sends through the map that
    keeps the VTEP next hop, and the spine keeps every route target."""
    spines_on_nxos(example)
    result = CliRunner().invoke(app, ["render"])
    assert result.exit_code == 0, result.output
    for spine in ("aus1-sp1", "aus1-sp4"):
        config = (example / f"rendered/aus1/{spine}.cfg").read_text()
        sessions = config.count("      route-map RM-EVPN-NEXT-HOP-UNCHANGED out\n")
        assert sessions == config.count("    address-family l2vpn evpn\n      send-community\n")
        assert sessions >= 10  # every VTEP of the site
        assert (
            "\nroute-map RM-EVPN-NEXT-HOP-UNCHANGED permit 10\n  set ip next-hop unchanged\n"
            in (config)
        )


def test_fabric_switches_balance_across_an_mlag_pairs_two_asns(example: Path) -> None:
    """An MLAG pair's anycast VTEP is originated by both leaves, each with its own ASN: an
    NX-OS spine relaxes its default VRF's AS-path comparison to balance across them, as the
    NVUE leaves do (EOS relaxes unasked). A border's default VRF, the Internet table, is not
    relaxed: two transits' paths stay unequal."""
    spines_on_nxos(example)
    result = CliRunner().invoke(app, ["render"])
    assert result.exit_code == 0, result.output
    spine = (example / "rendered/aus1/aus1-sp1.cfg").read_text()
    router = spine[spine.index("\nrouter bgp ") :]
    head = router[: router.index("\n  vrf ") if "\n  vrf " in router else len(router)]
    assert head.count("\n  bestpath as-path multipath-relax\n") == 1
    leaf = yaml.safe_load((example / "rendered/aus1/aus1-lf1.yaml").read_text())
    default = next(
        d["set"]["vrf"]["default"] for d in leaf if "default" in d.get("set", {}).get("vrf", {})
    )
    assert default["router"]["bgp"]["path-selection"] == {"multipath": {"aspath-ignore": "enabled"}}
    border = (example / "rendered/aus1/aus1-br1.cfg").read_text()
    global_bgp = border[border.index("\nrouter bgp ") :]
    assert "bgp bestpath as-path multipath-relax" not in global_bgp[: global_bgp.index("\n vrf ")]


def _nth_platform(repo: Path, block_line: int) -> int:
    """Which `platform:` line of devices.yaml follows the device's block at `block_line`."""
    lines = (repo / DEVICES).read_text().splitlines()
    return sum(1 for line in lines[:block_line] if "platform:" in line) + 1


def test_rpki_asking_borders_on_nxos_are_findings_at_the_rpki_line(example: Path) -> None:
    """The builder leaves RPKI out of a platform without it: the lint says so instead."""
    borders_to(example, "cisco_nxos", "N9K-C9364D-GX2A", "Ethernet1/{}")
    result = CliRunner().invoke(app, ["lint"])
    assert result.exit_code == 1, result.output
    rpki_line = line_of(example / "intent/aus1/peering.yaml", "rpki_caches:")
    parties = (
        "ix-syd/content-a, ix-syd/eyeball-b, ix-syd/rs1, ix-syd/rs2, pni-cdn, transit-a, transit-b"
    )
    assert [f for f in _findings(result.output) if f[1] == "PLAT-001"] == [
        (
            rpki_line,
            "PLAT-001",
            f"{border} (Cisco NX-OS) cannot render RPKI origin validation toward {parties}: "
            "no verified RTR cache or origin-validation form",
        )
        for border in ("aus1-br1", "aus1-br2")
    ]


def test_rpki_on_eos_borders_is_no_finding(example: Path) -> None:
    """The boundary: the same intent on a platform with RPKI raises no PLAT-001."""
    borders_to_eos(example)
    result = CliRunner().invoke(app, ["lint"])
    assert "PLAT-001" not in result.output


# --- the whole matrix, in-process --------------------------------------------------------------

# Every kind of device the example has: its role, platform and what it carries.
KINDS = {
    "border (IOS-XR, edge and handoff)": ["aus1-br1", "aus1-br2"],
    "spine (EOS)": ["aus1-sp1", "aus1-sp2", "aus1-sp3", "aus1-sp4"],
    "leaf (NVUE, MLAG hosts)": ["aus1-lf1", "aus1-lf2"],
    "leaf (NVUE, ESI hosts)": ["aus1-lf5", "aus1-lf6"],
    "leaf (NX-OS)": ["aus1-lf3", "aus1-lf4"],
    "border leaf (EOS, AWS and handoff)": ["aus1-bl1", "aus1-bl2"],
    "border leaf (NX-OS, Azure)": ["aus1-bl3", "aus1-bl4"],
    "border leaf (NVUE, Google)": ["aus1-bl5", "aus1-bl6"],
    # the second site: three tiers in two pods
    "border (EOS, edge and handoff)": ["mel1-br1", "mel1-br2"],
    "super-spine (EOS, EVPN route server)": ["mel1-ss1", "mel1-ss2"],
    "pod spine (EOS)": ["mel1-sp11", "mel1-sp12"],
    "pod leaf (NX-OS, vPC hosts)": ["mel1-lf101", "mel1-lf102"],
    "border leaf (NX-OS, breakout and handoff)": ["mel1-bl1", "mel1-bl2"],
}
ROLES = list(support.ROLES)
MESSAGE = re.compile(r"^(?P<devices>[\w, -]+) \((?P<title>[^)]+(?:\))?)\) (?P<says>.+)$")


def set_devices(text: str, names: list[str], **values: str) -> str:
    """devices.yaml with `key: value` replaced inside each named device's block."""
    lines = text.splitlines(keepends=True)
    for name in names:
        start = next(i for i, line in enumerate(lines) if line.strip() == f"{name}:")
        for index in range(start + 1, len(lines)):
            if not lines[index].startswith("        "):
                break
            for key, value in values.items():
                lines[index] = re.sub(rf"^(\s+{key}: ).*$", rf"\g<1>{value}", lines[index])
    return "".join(lines)


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One copy of the example for the whole matrix; each case rewrites devices.yaml only."""
    repo = tmp_path_factory.mktemp("matrix")
    shutil.copytree(EXAMPLE_INTENT, repo / "intent")
    yield repo


def outcome(repo: Path) -> tuple[int, LintResult | None]:
    """The exit code `meetme render` would give, from the pipeline in-process (an exception
    escaping it is exit 3, as the CLI reports it)."""
    try:
        result = lint(repo / "intent")
    except IntentError as exc:
        pytest.fail("exit 2: " + "; ".join(str(p) for p in exc.problems[:5]))
    assert not result.render_errors, f"exit 3: {result.render_errors[0]}"
    if result.errors:
        return 1, result
    rendered_files(result)  # raises on a template failure: exit 3
    return 0, result


def _cases() -> Iterator[tuple[str, list[str], str, str]]:
    for platform in sorted(PLATFORMS):
        for role in ROLES:
            for kind, names in KINDS.items():
                yield kind, names, platform, role


@pytest.mark.parametrize("platform", sorted(PLATFORMS))
@pytest.mark.parametrize("scope", ["one device", "every device of the kind"])
def test_every_pair_on_every_kind_of_device_is_exit_0_or_findings(
    shared: Path, platform: str, scope: str
) -> None:
    sites = sorted({n.split("-")[0] for names in KINDS.values() for n in names})
    originals = {s: (EXAMPLE_INTENT / s / "devices.yaml").read_text() for s in sites}
    seen_codes = set()
    try:
        for kind, names, _, role in (c for c in _cases() if c[2] == platform):
            moved = names[:1] if scope == "one device" else names
            site = names[0].split("-")[0]
            for other, text in originals.items():
                if other != site:
                    (shared / "intent" / other / "devices.yaml").write_text(text)
            (shared / "intent" / site / "devices.yaml").write_text(
                set_devices(originals[site], moved, platform=platform, role=role)
            )
            code, result = outcome(shared)
            seen_codes.add(code)
            if code == 1:
                assert result is not None and result.errors, (kind, role)
                _assert_refusals_name_device_platform_feature(result, f"{kind} -> {role}")
    finally:
        for other, text in originals.items():
            (shared / "intent" / other / "devices.yaml").write_text(text)
    assert 1 in seen_codes  # the matrix met refusals, not only clean moves


def _assert_refusals_name_device_platform_feature(result: LintResult, case: str) -> None:
    devices = {
        n: d for site in result.loaded.intent.sites.values() for n, d in site.devices.items()
    }
    for finding in result.errors:
        if not finding.rule.startswith("PLAT-"):
            continue
        parsed = MESSAGE.match(finding.message)
        assert parsed is not None, (case, finding.message)
        named = parsed["devices"].split(", ")
        assert all(n in devices for n in named), (case, finding.message)
        titles = {PLATFORMS[devices[n].platform].title for n in named}
        assert titles == {parsed["title"]}, (case, finding.message)  # the device's platform
        if finding.rule == "PLAT-016":
            assert re.match(r"(has|have) no interface \S+, a name of ", parsed["says"]), case
        else:  # a gap: "cannot render <feature>: <why>"
            assert re.match(r"cannot render .+: .+", parsed["says"]), (case, finding.message)
        assert finding.location.file.startswith("intent/") or "/intent/" in finding.location.file
        assert finding.location.line > 0


def test_the_committed_support_matrix_is_up_to_date() -> None:
    result = CliRunner().invoke(app, ["platforms", "--format", "markdown"])
    assert result.exit_code == 0
    committed = (REPO / "docs/platforms.md").read_text(encoding="utf-8")
    assert committed == result.stdout, (
        "docs/platforms.md is out of date; regenerate it from the repository root: "
        "meetme platforms --format markdown > docs/platforms.md"
    )


# --- what a moved device does to the link rules: findings, not unusable input ------------------

LINKS = Path("intent/aus1/links.yaml")


def _errors(repo: Path, rule_id: str) -> list[tuple[str, int, str]]:
    result = lint(repo / "intent")
    return [
        (f.location.file, f.location.line, f.message) for f in result.errors if f.rule == rule_id
    ]


def _move(repo: Path, names: list[str], **values: str) -> None:
    devices = repo / DEVICES
    devices.write_text(set_devices(devices.read_text(), names, **values))


@pytest.mark.parametrize(("peer_id_base", "negative"), [(25, False), (26, True)])
def test_a_device_below_a_rules_peer_id_base_is_phy_016_at_the_base(
    example: Path, peer_id_base: int, negative: bool
) -> None:
    """Border leaf bl5 (id 25) made a leaf: the Cumulus leaf rule numbers the spine ports from
    peer_id_base; was exit 2 at resolve. 25 is just inside, 26 just outside."""
    _move(example, ["aus1-bl5"], role="leaf")
    old = 'b: {role: spine, interface: "Ethernet{n}/1", first: 9, peer_id_base: 101}'
    text = (example / LINKS).read_text()
    assert text.count(old) == 2
    (example / LINKS).write_text(text.replace(old, old.replace("101", str(peer_id_base)), 1))
    line = line_of(example / LINKS, "name: leaf-to-spine-cumulus") + 2  # its b side
    expected = [
        (
            "intent/aus1/links.yaml",
            line,
            "link rule 'leaf-to-spine-cumulus': device 'aus1-bl5' (id 25) has an id below "
            f"b.peer_id_base ({peer_id_base}), so its port number would be negative",
        )
    ]
    assert _errors(example, "PHY-016") == (expected if negative else [])


@pytest.mark.parametrize(("links_per_device", "outside"), [(202, False), (201, True)])
def test_rule_links_past_links_per_device_are_phy_016_per_device(
    example: Path, links_per_device: int, outside: bool
) -> None:
    """Leaf lf1 (id 101) made a border: every spine's ports toward it are 201 and 202 (index
    200 and 201), so links_per_device 202 holds them and 201 does not; was exit 2."""
    _move(example, ["aus1-lf1"], role="border", platform="cisco_iosxr", model="8201-32FH")
    site = example / "intent/aus1/site.yaml"
    site.write_text(
        site.read_text().replace("links_per_device: 128", f"links_per_device: {links_per_device}")
    )
    found = [m for _, _, m in _errors(example, "PHY-016") if "spine-to-border" in m]
    expected = [
        f"link rule 'spine-to-border': the links of {spine} (id {spine_id}) fall outside the "
        f"p2p pools (link index 201 is beyond links_per_device ({links_per_device})); raise "
        "links_per_device to at least 202 (widening the pools if they no longer hold every "
        "device's block)"
        for spine, spine_id in (
            ("aus1-sp1", 11),
            ("aus1-sp2", 12),
            ("aus1-sp3", 13),
            ("aus1-sp4", 14),
        )
    ]
    assert found == (expected if outside else [])


def _explicit_links(repo: Path, *ends: tuple[str, str]) -> None:
    """Explicit links aus1-sp1 <name> - aus1-lf2 swp<33+i>, one per name."""
    rows = "".join(
        f"      - {{a: {{device: aus1-sp1, interface: {name}}}, b: {{device: aus1-lf2, "
        f"interface: swp{33 + i}}}, index: {100 + i}, speed: 400G}}\n"
        for i, (_, name) in enumerate(ends)
    )
    with (repo / LINKS).open("a") as handle:
        handle.write(rows)  # after the border pair's explicit links


def test_a_port_channel_named_by_two_links_is_one_phy_017(example: Path) -> None:
    """PHY-013 cannot read a port-channel as a front-panel port; PHY-017 reports the clash
    (was a duplicate-port exit 2 at resolve)."""
    _explicit_links(example, ("sp1", "Port-Channel5"), ("sp1", "Port-Channel5"))
    line = line_of(example / LINKS, "Port-Channel5", 2)
    assert [(ln, m.split(" is already")[0]) for _, ln, m in _errors(example, "PHY-017")] == [
        (line, "aus1-sp1 Port-Channel5")
    ]
    assert _errors(example, "PHY-013") == []


def test_a_front_panel_port_named_by_two_links_is_phy_013_only(example: Path) -> None:
    """The same clash on a port PHY-013 reads: one finding, PHY-013's, not two."""
    _explicit_links(example, ("sp1", "Ethernet40/1"), ("sp1", "Ethernet40/1"))
    assert len(_errors(example, "PHY-013")) == 1
    assert _errors(example, "PHY-017") == []


# --- docs/platforms.md says what the lint does -------------------------------------------------

SPINE_PORTS = {
    "arista_eos": ("7060X6-64PE", "Ethernet{n}/1"),
    "cisco_iosxr": ("8201-32FH", "FourHundredGigE0/0/0/{n}"),
    "cisco_nxos": ("N9K-C9364D-GX2A", "Ethernet1/{n}"),
    "nvidia_nvue": ("SN5600", "swp{n}"),
}


def _error_rules(repo: Path) -> set[str]:
    return {f.rule for f in lint(repo / "intent").errors}


def _documented(platform: str, role: support.Role) -> set[str]:
    return {rule for _, rule in support.refused(PLATFORMS[platform], role)}


@pytest.mark.parametrize("platform", sorted(SPINE_PORTS))
def test_spines_are_refused_exactly_as_the_support_matrix_says(
    example: Path, platform: str
) -> None:
    model, ports = SPINE_PORTS[platform]
    _spines_to(example, platform, model, ports)
    assert _error_rules(example) == _documented(platform, "spine")


@pytest.mark.parametrize("platform", sorted(SPINE_PORTS))
def test_super_spines_are_refused_exactly_as_the_support_matrix_says(
    example: Path, platform: str
) -> None:
    """Super-spines are EVPN route servers like spines: refused where spines are."""
    _super_spines_on(platform)(example)
    assert _error_rules(example) == _documented(platform, "super_spine")


@pytest.mark.parametrize("platform", sorted(BORDER_PORTS))
def test_borders_are_refused_as_the_support_matrix_says(example: Path, platform: str) -> None:
    """The example's borders ask for RPKI and the VRF-lite handoff; the lint stops at the
    first refusal it meets (an intent rule before the device models' gaps), so it reports
    some of the documented rules and nothing else; a platform that renders every border
    feature (EOS) lints clean. The example's full-table transit limits meet a limit of some
    values listed below the matrix too: NX-OS's maximum-prefix (PLAT-022)."""
    model, port = BORDER_PORTS[platform]
    borders_to(example, platform, model, port)
    found = _error_rules(example)
    documented = _documented(platform, "border")
    conditional = {rule for rule, _ in support.conditional_limits(PLATFORMS[platform])}
    assert found <= documented | conditional, found
    assert bool(found) == bool(documented), found


# --- golden files: one device per (platform, role) pair that renders ---------------------------

GOLDEN = Path(__file__).parent / "golden" / "matrix"


def _super_spines_on(platform: str) -> Callable[[Path], None]:
    """Spines sp3 and sp4 become super-spines on `platform`, cabled to both borders by the
    spine-to-border rule and to sp1 and sp2 (the leaves' spines) by a rule of their own, with an
    ASN of their own: a 3-tier site TOPO-002/004 accept."""

    def scenario(repo: Path) -> None:
        model, ports = SPINE_PORTS[platform]
        _move(repo, ["aus1-sp3", "aus1-sp4"], role="super_spine", platform=platform, model=model)
        first = 0 if platform == "cisco_iosxr" else 1  # IOS-XR numbers its ports from 0
        replace = (
            'a: {role: spine, interface: "Ethernet{n}/1", first: 1, peer_id_base: 1}',
            f'a: {{role: super_spine, interface: "{ports}", first: {first}, peer_id_base: 1}}',
        )
        links = repo / LINKS
        assert replace[0] in links.read_text()
        links.write_text(links.read_text().replace(*replace))
        replace_in(
            links,
            "      - name: leaf-to-spine-cumulus\n",
            "      - name: spine-to-super-spine\n"
            '        a: {role: spine, interface: "Ethernet{n}/1", first: 1, peer_id_base: 13}\n'
            f'        b: {{role: super_spine, interface: "{ports}", first: {first + 8}, '
            "peer_id_base: 11}\n"
            "        speed: 400G\n"
            "      - name: leaf-to-spine-cumulus\n",
        )
        replace_in(
            repo / "intent/aus1/site.yaml",
            "        spine: 4200009000",
            "        spine: 4200009000\n        super_spine: 4200009500",
        )

    return scenario


# (scenario, device): pairs the example itself does not render (test_golden.py pins those)
PAIRS: dict[str, tuple[Callable[[Path], None], str]] = {
    "arista_eos border": (border_on("arista_eos"), "aus1-br1"),
    "cisco_nxos border": (border_on("cisco_nxos"), "aus1-br1"),
    "nvidia_nvue border": (border_on("nvidia_nvue"), "aus1-br1"),
    # super-spines are EVPN route servers: on EOS and NX-OS, as spines (PLAT-007, EVPN-009)
    "arista_eos super_spine": (_super_spines_on("arista_eos"), "aus1-sp3"),
    "cisco_nxos super_spine": (_super_spines_on("cisco_nxos"), "aus1-sp3"),
    "cisco_nxos spine": (spines_on_nxos, "aus1-sp1"),
    "arista_eos leaf": (nxos_leaves_on_eos, "aus1-lf3"),
}


@pytest.mark.parametrize("pair", sorted(PAIRS))
def test_rendered_pair_matches_golden(example: Path, pair: str) -> None:
    scenario, device = PAIRS[pair]
    scenario(example)
    result = CliRunner().invoke(app, ["render"])
    assert result.exit_code == 0, result.output
    platform = PLATFORMS[pair.split()[0]]
    name = f"{device}{platform.file_suffix}"
    text = (example / "rendered/aus1" / name).read_text()
    golden = GOLDEN / f"{pair.replace(' ', '-')}-{name}"
    if os.environ.get("MEETME_UPDATE_GOLDEN"):
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(text)
    expected = golden.read_text()
    if text != expected:
        diff = difflib.unified_diff(
            expected.splitlines(), text.splitlines(), str(golden), name, lineterm=""
        )
        pytest.fail("rendered output differs from the golden file:\n" + "\n".join(diff))


def test_every_rendering_pair_is_pinned() -> None:
    """The golden files and the support matrix agree: each (platform, role) pair that renders
    is pinned by the example (test_golden.py, both sites) or here, and no refused pair is.
    The example pins the EOS border with the handoff (mel1-br1); the matrix pins EOS, NX-OS
    and NVUE borders without it (test_eos_border_handoff.py pins EOS and NX-OS with it)."""
    # what a pinned example file pins: its device's own platform and role (the labels are
    # free text: "mel1 arista_eos pod-2 spine")
    models = device_models(lint(EXAMPLE_INTENT))
    example_pairs = {
        f"{models[Path(name).stem].platform} {models[Path(name).stem].role}" for name in PINNED
    }
    # the labels name the pair they pin
    assert all(
        models[Path(name).stem].platform in label
        and models[Path(name).stem].role.replace("_", " ") in label.replace("-", " ")
        for name, label in PINNED.items()
    )
    pinned = example_pairs | set(PAIRS)
    rendering = {
        f"{platform} {role}"
        for platform in sorted(PLATFORMS)
        for role in support.ROLES
        if support.renders(PLATFORMS[platform], role)
    }
    assert pinned == rendering
    assert len(rendering) == 14  # 4 borders, 2 super-spines, 2 spines, 3 leaves, 3 border leaves

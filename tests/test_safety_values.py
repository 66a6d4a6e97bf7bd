"""Every value that reaches a config is typed: no intent text can become a config line.

Issue #9: a newline in an interface name injected top-level commands on every platform, a
`.`-suffix hid anything from the hardware check, a secret placeholder in any field was filled
in by push, and link-rule patterns went through str.format. Each is refused at load (exit 2,
at the value's file:line:column, nothing rendered); the renderer refuses what slips past.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from types import SimpleNamespace

import jinja2
import pytest
from conftest import EXAMPLE_INTENT, line_of, lint_repo, move_device
from helpers import runner
from meetme.generators.model import DeviceModel
from meetme.generators.render import RenderError, environment, render_device
from meetme.generators.resolve.fabric import resolve_fabric
from pydantic import TypeAdapter, ValidationError

from meetme.cli import app
from meetme.intent.interfaces import platform_problem
from meetme.intent.loader import load_intent
from meetme.intent.types import (
    Breakout,
    Community,
    FreeText,
    HardwareModel,
    InterfaceName,
    InterfaceTemplate,
    has_placeholder,
)
from meetme.pipeline import build_models, device_models

LINKS = "intent/aus1/links.yaml"
CIRCUITS = "intent/aus1/circuits.yaml"

# One device per platform and a free port on it, with a payload in that platform's own
# language: a login with full rights on EOS, IOS-XR and NX-OS, an extra key in NVUE YAML.
PLATFORM_CASES = {
    "arista_eos": (
        "aus1-sp1",
        "Ethernet5/1",
        "\\n!\\nusername backdoor privilege 15 role network-admin nopassword",
    ),
    "cisco_iosxr": ("aus1-br1", "FourHundredGigE0/0/0/30", "\\nusername backdoor\\n group root-lr"),
    "cisco_nxos": ("aus1-lf3", "Ethernet1/50", "\\nusername backdoor role network-admin"),
    "nvidia_nvue": ("aus1-lf1", "swp33", ":\\n  system: {hostname: owned}"),
}


def position(repo: Path, file: str, needle: str, line_with: str = "") -> str:
    """`file:line:column` where `needle` starts (on the first line that also holds
    `line_with`), as meetme reports it."""
    for number, line in enumerate((repo / file).read_text().splitlines(), start=1):
        if needle in line and line_with in line:
            return f"{file}:{number}:{line.index(needle) + 1}"
    raise AssertionError(f"{needle!r} not in {file}")


def add_link(repo: Path, a: str, b: str) -> None:
    """An explicit link between two written ends (`device: X, interface: Y`)."""
    with (repo / LINKS).open("a") as handle:
        # after the border pair's explicit links
        handle.write(f"      - {{a: {{{a}}}, b: {{{b}}}, index: 100, speed: 400G}}\n")


def refused_at(repo: Path, where: str, kind: str, *fragments: str) -> str:
    """Run `meetme render`: exit 2, this problem reported at `where`, nothing written."""
    result = runner.invoke(app, ["render"])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.startswith(f"{where}: ")]
    assert lines, result.output
    assert any(f"error[{kind}]" in line and all(f in line for f in fragments) for line in lines)
    assert not (repo / "rendered").exists()
    return result.output


@pytest.mark.parametrize("platform", sorted(PLATFORM_CASES))
def test_a_newline_in_a_link_interface_is_refused_at_the_value(
    example: Path, platform: str
) -> None:
    device, port, payload = PLATFORM_CASES[platform]
    peer = "device: aus1-lf2, interface: swp33" if device != "aus1-lf2" else ""
    add_link(example, f'device: {device}, interface: "{port}{payload}"', peer)
    output = refused_at(
        example, position(example, LINKS, f'"{port}'), "bad-value", "links.2.a.interface", "U+000A"
    )
    # the message quotes a short escaped prefix: no payload line reaches the terminal or CI
    assert not any(line.lstrip().startswith(("username", "system")) for line in output.splitlines())


@pytest.mark.parametrize("platform", sorted(PLATFORM_CASES))
def test_a_newline_in_a_cross_connect_interface_is_refused_at_the_value(
    example: Path, platform: str
) -> None:
    device, port, payload = PLATFORM_CASES[platform]
    with (example / CIRCUITS).open("a") as handle:
        handle.write(
            f"      XC-EVIL: {{party: transit-a, room: aus1-mmr1, entrance: north, "
            f'device: {device}, interface: "{port}{payload}", speed: 100G}}\n'
        )
    refused_at(
        example,
        position(example, CIRCUITS, f'"{port}'),
        "bad-value",
        "cross_connects.XC-EVIL.interface",
        "U+000A",
    )


@pytest.mark.parametrize(
    ("written", "why"),
    [
        ("Ethernet1/1.foo", "is not an interface name"),  # the hardware check read 'Ethernet1/1'
        ("Ethernet1/1.5 extra", "is not an interface name"),
        ("Ethernet1/1.5.6", "is not an interface name"),
        ("Ethernet1/1.0", "is not an interface name"),
        ("Ethernet1/1.4095", "sub-interface 4095 is out of range"),
    ],
)
def test_a_sub_interface_suffix_is_a_vlan_number_and_nothing_else(
    example: Path, written: str, why: str
) -> None:
    add_link(
        example, f'device: aus1-sp1, interface: "{written}"', "device: aus1-lf2, interface: swp33"
    )
    refused_at(example, position(example, LINKS, f'"{written}'), "bad-value", why)


def test_a_valid_sub_interface_suffix_loads(example: Path) -> None:
    add_link(
        example,
        "device: aus1-sp1, interface: Ethernet5/1.4094",
        "device: aus1-lf1, interface: swp33.1",
    )
    load_intent(example / "intent")  # raises IntentError on any problem


def found_at(repo: Path, file: str, line: int, rule: str, *fragments: str) -> None:
    """Run `meetme render`: exit 1, exactly one finding, of `rule` at `file:line`, holding
    every fragment; nothing written."""
    result = runner.invoke(app, ["render"])
    assert result.exit_code == 1, result.output
    found = re.findall(r"^  (\d+):\d+\s+error\s+(\S+)\s+(.*)$", result.output, re.MULTILINE)
    assert len(found) == 1, result.output
    (at, got, message), heading = found[0], result.output.splitlines()[0]
    assert (heading, int(at), got) == (file, line, rule), result.output
    assert all(f in message for f in fragments), message
    assert not (repo / "rendered").exists()


def test_a_port_of_another_platform_is_a_finding_naming_device_platform_and_port(
    example: Path,
) -> None:
    """Was exit 2 at load; a name of another platform is a design question (PLAT-016), and
    HW-001 does not report the same name again."""
    # to another spine: a second link to a leaf would be TOPO-001's unequal uplinks as well
    add_link(
        example, "device: aus1-sp1, interface: swp5", "device: aus1-sp2, interface: Ethernet30/1"
    )
    found_at(
        example,
        LINKS,
        line_of(example / LINKS, "swp5"),
        "PLAT-016",
        "aus1-sp1 (Arista EOS) has no interface swp5, a name of NVIDIA Cumulus Linux",
        "arista_eos writes Ethernet<port>",
    )


def test_a_port_of_no_platform_is_still_refused_with_the_platform_grammar(example: Path) -> None:
    """The boundary: `Swp5` fits the shared grammar but no platform's (case matters)."""
    add_link(example, "device: aus1-sp1, interface: Swp5", "device: aus1-lf2, interface: swp33")
    refused_at(
        example,
        position(example, LINKS, "Swp5"),
        "bad-interface",
        "'Swp5' is not an interface name on arista_eos",
        "(device aus1-sp1)",
    )


@pytest.mark.parametrize(
    ("file", "old", "new", "where_text", "kind"),
    [
        (  # a waiver's reason: free text that reaches reports
            "intent/organisation.yaml",
            "    - 2001:db8:4000::/36\n",
            "    - 2001:db8:4000::/36\nwaivers:\n  - {rule: PHY-001, object: sites.aus1, "
            'reason: "see <<secret:admin-hash>>", owner: netops, expires: 2099-01-01}\n',
            '"see <<secret',
            "bad-value",
        ),
        (  # a provider's action community
            "intent/aus1/peering.yaml",
            'communities: ["64501:666"]',
            'communities: ["64501:666", "<<secret:transit-a>>"]',
            '"<<secret:transit-a>>"',
            "bad-value",
        ),
        (  # an interface name
            CIRCUITS,
            "interface: HundredGigE0/0/0/20,",
            'interface: "HundredGigE0/0/0/20 <<secret:admin-hash>>",',
            '"HundredGigE0/0/0/20 <<secret',
            "bad-value",
        ),
    ],
)
def test_a_secret_placeholder_is_refused_outside_secret_fields(
    example: Path, file: str, old: str, new: str, where_text: str, kind: str
) -> None:
    path = example / file
    path.write_text(path.read_text().replace(old, new, 1))
    output = refused_at(
        example, position(example, file, where_text), kind, "secret placeholder (<<secret:...>>)"
    )
    assert output.count("secret placeholder") == 1  # one problem for one mistake


@pytest.mark.parametrize("pattern", ["swp{n}{0}", "swp{n}{n:>20000000}", "swp{n}{n}", "swp1"])
def test_a_link_rule_pattern_holds_exactly_one_n_and_no_other_field(
    example: Path, pattern: str
) -> None:
    links = example / LINKS
    links.write_text(links.read_text().replace('"swp{n}", first: 61', f'"{pattern}", first: 61', 1))
    started = time.monotonic()
    refused_at(
        example, position(example, LINKS, f'"{pattern}"'), "bad-value", "needs exactly one {n}"
    )
    assert time.monotonic() - started < 2  # the 20 MB padding is never built


def test_a_link_rule_pattern_with_its_n_is_expanded_by_plain_replacement() -> None:
    loaded = load_intent(EXAMPLE_INTENT)
    fabric = resolve_fabric(loaded)["aus1"]
    names = {end.interface for link in fabric.links for end in (link.a, link.b)}
    assert {"swp61", "Ethernet1/61", "Ethernet9/1", "FourHundredGigE0/0/0/0"} <= names


def test_a_link_rule_pattern_is_checked_against_the_platform_of_its_side(example: Path) -> None:
    """A pattern of another platform: one finding for the devices the side selects."""
    links = example / LINKS
    text = links.read_text().replace('"Ethernet1/{n}", first: 61', '"swp{n}", first: 61', 1)
    links.write_text(text)
    found_at(
        example,
        LINKS,
        int(position(example, LINKS, '"swp{n}"', line_with="platform: cisco_nxos").split(":")[1]),
        "PLAT-016",
        "aus1-lf3, aus1-lf4 (Cisco NX-OS) have no interface swp61",
    )


def test_a_link_rule_pattern_of_no_platform_is_refused(example: Path) -> None:
    links = example / LINKS
    text = links.read_text().replace('"Ethernet1/{n}", first: 61', '"Eth{n}", first: 61', 1)
    links.write_text(text)
    refused_at(
        example,
        position(example, LINKS, '"Eth{n}"', line_with="platform: cisco_nxos"),
        "bad-interface",
        "link rule side a, with n=61: 'Eth61' is not an interface name on cisco_nxos",
    )


@pytest.mark.parametrize(
    ("platform", "name", "ok"),
    [
        ("arista_eos", "Ethernet1", True),
        ("arista_eos", "Ethernet1/1", True),
        ("arista_eos", "Ethernet3/1/4", True),  # modular: slot/port/lane
        ("arista_eos", "Ethernet3/1/4/1", False),
        ("arista_eos", "Port-Channel1000.4094", True),
        ("arista_eos", "Port-Channel0", False),
        ("arista_eos", "port-channel10", False),  # NX-OS spelling
        ("arista_eos", "swp1", False),
        ("cisco_iosxr", "FourHundredGigE0/0/0/31", True),
        ("cisco_iosxr", "HundredGigE0/0/0/20.1", True),
        ("cisco_iosxr", "HundredGigE0/0/0/31/3", True),  # breakout
        ("cisco_iosxr", "TwentyFiveGigE0/0/0/1", True),
        ("cisco_iosxr", "HundredGigE0/0/0", False),
        ("cisco_iosxr", "HundredGigabitEthernet0/0/0/1", False),
        ("cisco_iosxr", "Bundle-Ether65535", True),
        ("cisco_iosxr", "Bundle-Ether65536", False),
        ("cisco_iosxr", "Ethernet1/1", False),
        ("cisco_nxos", "Ethernet1/64", True),
        ("cisco_nxos", "Ethernet1/1/4", True),
        ("cisco_nxos", "Ethernet1", False),
        ("cisco_nxos", "port-channel4096", True),
        ("cisco_nxos", "port-channel4097", False),
        ("cisco_nxos", "Port-Channel10", False),  # EOS spelling
        ("nvidia_nvue", "swp1", True),
        ("nvidia_nvue", "swp64s3", True),
        ("nvidia_nvue", "swp1.4094", True),
        ("nvidia_nvue", "peerlink.4094", True),
        ("nvidia_nvue", "bond10", True),
        ("nvidia_nvue", "swp1s", False),
        ("nvidia_nvue", "Ethernet1/1", False),
    ],
)
def test_platform_interface_grammar(platform: str, name: str, ok: bool) -> None:
    assert (platform_problem(platform, name) is None) is ok


@pytest.mark.parametrize(
    ("name", "ok"),
    [
        ("Ethernet1/1.1", True),
        ("Ethernet1/1.4094", True),
        ("Ethernet1/1.0", False),
        ("Ethernet1/1.4095", False),
        ("Ethernet1/1.01", False),
        ("E" + "1" * 39, True),  # 40 characters before the suffix
        ("E" + "1" * 40, False),
        ("Ethernet1/1\n", False),
        ("Ethernet1/1\u2028", False),
        ("Ethernet1/1\x85", False),
        ("Ethernet 1/1", False),
        ("1/1", False),
        ("", False),
    ],
)
def test_interface_name_grammar_boundaries(name: str, ok: bool) -> None:
    try:
        TypeAdapter(InterfaceName).validate_python(name)
    except ValidationError:
        assert not ok
    else:
        assert ok


@pytest.mark.parametrize(
    ("pattern", "ok"),
    [
        ("swp{n}", True),
        ("Ethernet{n}/1", True),
        ("FourHundredGigE0/0/0/{n}", True),
        ("swp1", False),
        ("swp{n}{n}", False),
        ("swp{n}{0}", False),
        ("swp{n}{n:>20000000}", False),
        ("swp{ n}", False),
        ("swp{n}}", False),
        ("swp{n}\nx", False),
    ],
)
def test_link_rule_pattern_grammar(pattern: str, ok: bool) -> None:
    try:
        TypeAdapter(InterfaceTemplate).validate_python(pattern)
    except ValidationError:
        assert not ok
    else:
        assert ok


def test_attachment_ports_are_names_of_the_leaves_platform(example: Path) -> None:
    attachments = example / "intent/aus1/attachments.yaml"
    text = attachments.read_text()
    attachments.write_text(text.replace("ports: [swp1,", "ports: [Ethernet1/1,", 1))
    result = runner.invoke(app, ["lint"])
    assert result.exit_code == 1, result.output
    line = line_of(attachments, "Ethernet1/1")
    # one finding per leaf of the pair, at the port; no HW-001 for the same name
    assert re.findall(rf"^  {line}:\d+\s+error\s+(\S+)\s+(\S+) ", result.output, re.M) == [
        ("PLAT-016", "aus1-lf1"),
        ("PLAT-016", "aus1-lf2"),
    ]
    assert "HW-001" not in result.output


@pytest.mark.parametrize(
    ("kind", "text", "ok"),
    [
        ("reason", "MDF-B is rebuilt until March; br2 sits in MDF-A (CHG-1234)", True),
        ("reason", "x" * 200, True),
        ("reason", "x" * 201, False),
        ("reason", "CHG-1234 # see ticket", False),
        ("reason", "ok ! not a comment", False),
        ("reason", "{{ device.password }}", False),
        ("reason", "rebuild\u2028username x", False),
        ("reason", "rebuild ", False),
        ("reason", "- rebuild", False),
        ("community", "65535:65535", True),
        ("community", "65536:1", False),
        ("community", "4294967295:1:4294967295", True),
        ("community", "4294967296:1:1", False),
        ("community", "1:2:3:4", False),
        ("model", "8201-32FH", True),
        ("model", "N9K-C9364D-GX2A", True),
        ("model", "8201-32FH\nusername x", False),
        ("breakout", "4x100G", True),
        ("breakout", "4x", True),
        ("breakout", "9x", False),
    ],
)
def test_value_grammars(kind: str, text: str, ok: bool) -> None:
    adapter = {
        "reason": TypeAdapter(FreeText),
        "community": TypeAdapter(Community),
        "model": TypeAdapter(HardwareModel),
        "breakout": TypeAdapter(Breakout),
    }[kind]
    value = text.encode().decode("unicode_escape")
    try:
        adapter.validate_python(value)
    except ValidationError:
        assert not ok
    else:
        assert ok


def test_an_address_with_an_ipv6_scope_carries_no_text(example: Path) -> None:
    """ipaddress accepts `fe80::1%anything`, newlines included: the address types do not."""
    peering = example / "intent/aus1/peering.yaml"
    text = peering.read_text()
    assert 'peer_ipv6: "2001:db8:a::"' in text
    peering.write_text(
        text.replace('peer_ipv6: "2001:db8:a::"', 'peer_ipv6: "fe80::1%a\\nusername x"', 1)
    )
    refused_at(
        example,
        position(example, "intent/aus1/peering.yaml", '"fe80::1%a'),
        "bad-value",
        "U+000A",
    )


def test_a_secret_reference_with_a_trailing_newline_is_refused(example: Path) -> None:
    peering = example / "intent/aus1/peering.yaml"
    peering.write_text(
        peering.read_text().replace('key: "secret:transit-a"', 'key: "secret:transit-a\\n"', 1)
    )
    refused_at(
        example,
        position(example, "intent/aus1/peering.yaml", '"secret:transit-a\\n"'),
        "bad-value",
        "a key must be a secret reference",
    )


def example_model(name: str) -> DeviceModel:
    loaded = load_intent(EXAMPLE_INTENT)
    return build_models(loaded, resolve_fabric(loaded))[name]


@pytest.mark.parametrize("bad", ["\n", "\r", "\t", "\x00", "\x7f", "\x85", "\u2028"])
def test_the_renderer_refuses_a_model_value_with_a_control_character(bad: str) -> None:
    model = example_model("aus1-sp1")
    interfaces = list(model.interfaces)
    interfaces[1] = interfaces[1].model_copy(
        update={"description": f"to aus1-br1{bad}username backdoor"}
    )
    changed = model.model_copy(update={"interfaces": interfaces})
    with pytest.raises(RenderError) as raised:
        render_device(changed)
    message = str(raised.value)
    assert message.startswith("aus1-sp1 (arista_eos): model value device.interfaces[1].description")
    assert f"U+{ord(bad):04X}" in message


def test_the_renderer_lets_a_placeholder_through_only_in_a_secret_field() -> None:
    model = example_model("aus1-br1")
    assert "<<secret:transit-a>>" in render_device(model)  # a BGP key: a secret field
    interfaces = list(model.interfaces)
    interfaces[1] = interfaces[1].model_copy(update={"description": "<<secret:transit-a>>"})
    with pytest.raises(
        RenderError, match=r"interfaces\[1\]\.description holds a secret placeholder"
    ):
        render_device(model.model_copy(update={"interfaces": interfaces}))


def test_a_template_cannot_print_a_value_with_a_control_character_from_anywhere() -> None:
    """The environment checks what templates read, not only the device model."""
    template = environment("arista_eos").from_string("description {{ thing.name }}\n")
    assert template.render(thing=SimpleNamespace(name="uplink")) == "description uplink\n"
    with pytest.raises(Exception, match="U\\+000A") as raised:
        template.render(thing=SimpleNamespace(name="uplink\nusername backdoor"))
    assert not isinstance(raised.value, jinja2.UndefinedError)


@pytest.mark.parametrize(
    ("description", "password", "refused"),
    [
        # a quote and a backslash are escaped in the model's JSON, yet clean
        ('to "br2" \\ core', "<<secret:transit-a>>", None),
        ("<<Secret:transit-a>>", "<<secret:transit-a>>", "description holds a secret"),
        ("uplink", "<<secret:transit-a>>x", "password holds a secret"),
        ("uplink", "<<secret:transit-a>><<secret:transit-b>>", "password holds a secret"),
    ],
)
def test_the_renderer_checks_every_string_however_json_spells_it(
    description: str, password: str, refused: str | None
) -> None:
    """The renderer's quick check of a model (its JSON) and its walk agree on each side of
    every boundary: an escaped character, a placeholder's letter case, a secret field holding
    more than exactly one placeholder."""
    model = example_model("aus1-br1")
    interfaces = list(model.interfaces)
    interfaces[1] = interfaces[1].model_copy(update={"description": description})
    bgp = model.bgp
    assert bgp is not None
    neighbors = list(bgp.neighbors)
    index = next(i for i, n in enumerate(neighbors) if n.password is not None)
    neighbors[index] = neighbors[index].model_copy(update={"password": password})
    changed = model.model_copy(
        update={"interfaces": interfaces, "bgp": bgp.model_copy(update={"neighbors": neighbors})}
    )
    if refused is None:
        assert description in render_device(changed)
    else:
        with pytest.raises(RenderError, match=refused):
            render_device(changed)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("<<secret:bgp-key>>", True),
        ("key <<SECRET:bgp-key>>", True),  # any letter case
        ("<<Secret:", True),
        ("<<secret", False),  # no colon: not the marker
        ("< <secret:bgp-key>>", False),
        ("<secret:bgp-key>>", False),
        ("a << b", False),
    ],
)
def test_what_is_a_secret_placeholder(text: str, found: bool) -> None:
    assert has_placeholder(text) is found


def test_a_pod_moved_to_another_platform_is_checked_against_its_own_pods_rule(
    example: Path,
) -> None:
    """mel1's pod 2 leaf pair to NVUE with its own rule's names: each per-pod rule names the
    ports of its own pod's devices only, so neither rule's pattern is held against the other
    pod (both were PLAT-016 errors, and the render refused)."""
    for leaf in ("mel1-lf201", "mel1-lf202"):
        move_device(example, "mel1", leaf, "nvidia_nvue", "SN5600")
    attachments = example / "intent/mel1/attachments.yaml"
    attachments.write_text(
        attachments.read_text().replace(
            "ports: [Ethernet1/1, Ethernet1/2, Ethernet1/3, Ethernet1/4]\n"
            "        peer_link: [Ethernet1/53, Ethernet1/54]\n        anycast_vtep: 10.2.1.243/32",
            "ports: [swp1, swp2, swp3, swp4]\n"
            "        peer_link: [swp53, swp54]\n        anycast_vtep: 10.2.1.243/32",
        )
    )
    links = example / "intent/mel1/links.yaml"
    links.write_text(
        links.read_text().replace(
            'a: {role: leaf, pod: pod2, interface: "Ethernet1/{n}"',
            'a: {role: leaf, pod: pod2, interface: "swp{n}"',
        )
    )
    assert "swp53" in attachments.read_text() and '"swp{n}"' in links.read_text()
    result = lint_repo(example)
    assert [f for f in result.findings if f.rule in ("PLAT-016", "HW-001")] == []
    models = device_models(result)
    assert models["mel1-lf201"].platform == "nvidia_nvue"
    uplinks = {i.name for i in models["mel1-lf201"].interfaces if i.peer and "sp2" in i.peer.device}
    assert uplinks == {"swp61", "swp62"}
    assert not result.errors, [str(f) for f in result.errors]

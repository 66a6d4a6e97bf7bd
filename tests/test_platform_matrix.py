"""The platform x role matrix: the example with its spines on NX-OS or NVUE, or its borders on
EOS, lints and renders to exit 0 or exit 1 with findings at intent lines, never exit 3."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import line_of
from typer.testing import CliRunner

from meetme.cli import app

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


def _borders_to(repo: Path, platform: str, model: str, port: str) -> None:
    """Both borders on `platform`; XR port N becomes `port` formatted with N + 1 in the link
    rules and the circuits (both hardware models number from 1)."""
    devices = repo / DEVICES
    old = "platform: cisco_iosxr\n        model: 8201-32FH"
    text = devices.read_text()
    assert text.count(old) == 2
    devices.write_text(text.replace(old, f"platform: {platform}\n        model: {model}"))
    for path in (repo / "intent/aus1").glob("*.yaml"):
        text = re.sub(
            r'(?:FourHundred|Hundred)GigE0/0/0/\{n\}", first: (\d+)',
            lambda m: f'{port.format("{n}")}", first: {int(m[1]) + 1}',
            path.read_text(),
        )
        text = re.sub(
            r"(?:FourHundred|Hundred)GigE0/0/0/(\d+)", lambda m: port.format(int(m[1]) + 1), text
        )
        path.write_text(text)


def _borders_to_eos(repo: Path) -> None:
    """7060X6-64PE (hardware.yaml: 64 x 800G OSFP, Ethernet<port>/<lane>)."""
    _borders_to(repo, "arista_eos", "7060X6-64PE", "Ethernet{}/1")


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
            lambda repo: _spines_to(repo, "cisco_nxos", "N9K-C9364D-GX2A", "Ethernet1/{n}"),
            "Cisco NX-OS",
            ["aus1-sp1", "aus1-sp2", "aus1-sp3", "aus1-sp4"],
            "EVPN next hop unchanged toward VTEPs",
        ),
        (
            lambda repo: _spines_to(repo, "nvidia_nvue", "SN5600", "swp{n}"),
            "NVIDIA Cumulus Linux 5.16 (NVUE)",
            ["aus1-sp1", "aus1-sp2", "aus1-sp3", "aus1-sp4"],
            "EVPN next hop unchanged toward VTEPs",
        ),
        (
            _borders_to_eos,
            "Arista EOS",
            ["aus1-br1"] * 3 + ["aus1-br2"] * 3,  # VRFs gpu-a, gpu-a-mgmt and storage each
            "BGP sessions in VRF",
        ),
    ],
    ids=["spines-nxos", "spines-nvue", "borders-eos"],
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


def _nth_platform(repo: Path, block_line: int) -> int:
    """Which `platform:` line of devices.yaml follows the device's block at `block_line`."""
    lines = (repo / DEVICES).read_text().splitlines()
    return sum(1 for line in lines[:block_line] if "platform:" in line) + 1


def test_rpki_asking_borders_on_nxos_are_findings_at_the_rpki_line(example: Path) -> None:
    """The builder leaves RPKI out of a platform without it: the lint says so instead."""
    _borders_to(example, "cisco_nxos", "N9K-C9364D-GX2A", "Ethernet1/{}")
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
    _borders_to_eos(example)
    result = CliRunner().invoke(app, ["lint"])
    assert "PLAT-001" not in result.output

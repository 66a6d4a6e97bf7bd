"""A port on an IX peering LAN sends nothing but IPv4, ARP and IPv6 onto it
(docs/standards.md#edge-ix-port): each platform's border is told to stop the router
advertisements and discovery protocols it sends unasked, on the IX port only.

aus1-br1's IX port is the circuit XC-IX-1 (`ix ix-syd XC-IX-1`, with IPv4 and IPv6 addresses);
its transit port (`transit transit-a ...`) is the boundary: an external port, but no exchange's.
"""

from __future__ import annotations

import shutil
import tempfile
from functools import cache
from pathlib import Path

import pytest
import yaml
from ciscoconfparse2 import CiscoConfParse
from conftest import EXAMPLE_INTENT
from helpers import block
from meetme.generators.model import DeviceModel
from meetme.generators.render import output_name
from variants import border_on

from meetme.pipeline import device_models, lint, render_all

QUIET = {
    "cisco_nxos": [
        "  ipv6 nd suppress-ra",
        "  no cdp enable",
        "  no lldp transmit",
        "  no lldp receive",
    ],
    "arista_eos": ["   ipv6 nd ra disabled", "   no lldp transmit", "   no lldp receive"],
}


@cache
def border(platform: str) -> tuple[DeviceModel, str]:
    """aus1-br1 with both borders on `platform` (tests/variants.py border_on): its model and
    its main rendered file."""
    repo = Path(tempfile.mkdtemp(prefix="meetme-ixport-"))
    try:
        shutil.copytree(EXAMPLE_INTENT, repo / "intent")
        border_on(platform)(repo)
        result = lint(repo / "intent")
        assert [f.message for f in result.findings if f.severity == "error"] == []
        model = device_models(result)["aus1-br1"]
        return model, render_all({"aus1-br1": model})[output_name(model)]
    finally:
        shutil.rmtree(repo)


def _port(model: DeviceModel, prefix: str) -> str:
    (name,) = [i.name for i in model.interfaces if i.description.startswith(prefix)]
    return name


def test_only_the_ix_port_is_on_an_exchange_lan() -> None:
    model = device_models(lint(EXAMPLE_INTENT))["aus1-br1"]
    assert [i.name for i in model.interfaces if i.exchange_lan] == [_port(model, "ix ix-syd")]


@pytest.mark.parametrize("platform", sorted(QUIET))
def test_the_ix_port_stops_what_the_platform_sends_unasked(platform: str) -> None:
    model, text = border(platform)
    parse = CiscoConfParse(text.splitlines(), syntax="nxos" if "nxos" in platform else "ios")
    ix = block(parse, f"interface {_port(model, 'ix ix-syd')}")
    transit = block(parse, f"interface {_port(model, 'transit transit-a')}")
    assert [line for line in QUIET[platform] if line in ix] == QUIET[platform]
    assert [line for line in QUIET[platform] if line in transit] == []


def test_the_nvue_ix_port_runs_no_lldp() -> None:
    """Cumulus runs LLDP (and CDP, when a CDP speaker appears) on every port: the IX port has
    it disabled, the transit port keeps it."""
    model, text = border("nvidia_nvue")
    interfaces = next(
        d["set"]["interface"] for d in yaml.safe_load(text) if "interface" in d.get("set", {})
    )
    assert interfaces[_port(model, "ix ix-syd")]["lldp"] == {"state": "disabled"}
    assert "lldp" not in interfaces[_port(model, "transit transit-a")]


def test_iosxr_runs_lldp_for_the_post_checks_and_not_on_the_ix_port() -> None:
    """IOS-XR runs LLDP only when told globally: without it no post-check could hear a far
    end on an XR border, nor its neighbours on their ports toward it. On the IX port it is
    stopped both ways; the transit port keeps it."""
    model = device_models(lint(EXAMPLE_INTENT))["aus1-br1"]
    assert model.platform == "cisco_iosxr"
    text = render_all({"aus1-br1": model})[output_name(model)]
    lines = text.splitlines()
    assert lines[lines.index("lldp") + 1] == "!"
    parse = CiscoConfParse(lines, syntax="iosxr")
    ix = block(parse, f"interface {_port(model, 'ix ix-syd')}")
    transit = block(parse, f"interface {_port(model, 'transit transit-a')}")
    quiet = [" lldp", "  receive disable", "  transmit disable"]
    assert [line for line in quiet if line in ix] == quiet
    assert [line for line in quiet if line in transit] == []

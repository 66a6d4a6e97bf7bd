"""IOS-XR border configs, read back through ciscoconfparse2 as an engineer would read them."""

from __future__ import annotations

import re
from typing import Any

import jinja2
import pytest
from ciscoconfparse2 import CiscoConfParse
from conftest import EXAMPLE_INTENT
from meetme.generators.model import DeviceModel, PrefixList, PrefixListEntry
from meetme.generators.platforms import PLATFORMS
from meetme.generators.render import output_name, render_device

from meetme.pipeline import device_models, lint, render_all

PLATFORM = "cisco_iosxr"

Rendered = tuple[dict[str, DeviceModel], dict[str, str]]


@pytest.fixture(scope="module")
def rendered() -> Rendered:
    """Every device model of the example (far ends included), and the IOS-XR files."""
    result = lint(EXAMPLE_INTENT)
    assert result.errors == []
    models = device_models(result)
    # Only this platform's files: another platform's template must not fail these tests.
    return models, render_all({n: m for n, m in models.items() if m.platform == PLATFORM})


def xr_configs(rendered: Rendered) -> dict[str, tuple[DeviceModel, Any]]:
    """Hostname -> (model, parsed config) of every IOS-XR device; never empty."""
    models, files = rendered
    parsed = {
        name: (model, CiscoConfParse(files[output_name(model)].splitlines(), syntax="iosxr"))
        for name, model in models.items()
        if model.platform == PLATFORM
    }
    assert parsed, "the example has no IOS-XR device"
    return parsed


def children(obj: Any, pattern: str) -> list[Any]:
    return [c for c in obj.children if re.match(pattern, c.text.strip())]


def one(obj: Any, pattern: str) -> Any:
    found = children(obj, pattern)
    assert len(found) == 1, f"{obj.text.strip()!r}: expected one {pattern!r}, got {found}"
    return found[0]


def top(parse: Any, pattern: str) -> list[Any]:
    return [o for o in parse.objs if o.indent == 0 and re.match(pattern, o.text)]


def test_every_iosxr_file_parses_as_iosxr(rendered: Rendered) -> None:
    for name, (model, parse) in xr_configs(rendered).items():
        assert [o.text for o in top(parse, r"hostname ")] == [f"hostname {name}"]
        # Every RPL set and policy is closed, so nothing after it is swallowed into it.
        lines = [o.text for o in parse.objs if o.indent == 0]
        for opener, closer in (("prefix-set ", "end-set"), ("route-policy ", "end-policy")):
            opened = [i for i, text in enumerate(lines) if text.startswith(opener)]
            assert opened, f"{name}: no {opener.strip()}"
            for i in opened:
                assert lines[i + 1] == closer, f"{name}: {lines[i]} not closed by {closer}"
        assert model.hostname == name


def test_every_neighbor_is_complete(rendered: Rendered) -> None:
    for name, (model, parse) in xr_configs(rendered).items():
        (bgp,) = top(parse, rf"router bgp {model.bgp.asn}$")
        neighbors = children(bgp, r"neighbor ")
        assert len(neighbors) == len(model.bgp.neighbors), name
        global_afs = {c.text.strip() for c in children(bgp, r"address-family ")}
        for nbr in neighbors:
            address = nbr.text.split()[1]
            afi = "ipv6" if ":" in address else "ipv4"
            one(nbr, r"remote-as \d+$")
            one(nbr, r"description \S")
            one(nbr, r"bfd fast-detect$")
            one(nbr, r"bfd minimum-interval \d+$")
            one(nbr, r"bfd multiplier \d+$")
            af = one(nbr, r"address-family ")
            assert af.text.strip() == f"address-family {afi} unicast", f"{name} {address}"
            # XR only activates a neighbor AF that is also enabled under router bgp.
            assert af.text.strip() in global_afs, f"{name} {address}"
            # RFC 8212 on XR: without both policies the session carries no routes at all.
            one(af, r"route-policy \S+ in$")
            one(af, r"route-policy \S+ out$")
            one(af, r"maximum-prefix \d+ \d+$")


def test_every_policy_and_prefix_set_used_is_defined(rendered: Rendered) -> None:
    for name, (_, parse) in xr_configs(rendered).items():
        policies = {o.text.split()[1]: o for o in top(parse, r"route-policy ")}
        prefix_sets = {o.text.split()[1] for o in top(parse, r"prefix-set ")}
        used = {
            o.text.split()[1]
            for o in parse.objs
            if re.fullmatch(r"\s+route-policy \S+ (in|out)", o.text)
        }
        assert used, name
        assert used <= set(policies), f"{name}: undefined {used - set(policies)}"
        for policy_name in sorted(used):
            policy = policies[policy_name]
            tests = [c for c in policy.all_children if "destination in" in c.text]
            assert tests, f"{name}: {policy_name} matches nothing"
            for test in tests:
                prefix_set = re.search(r"destination in (\S+) then", test.text)
                assert prefix_set, test.text
                assert prefix_set.group(1) in prefix_sets, f"{name}: {test.text.strip()}"
            # Same meaning as the route map: whatever the prefix-sets do not pass is dropped.
            (final,) = children(policy, r"else$")
            assert [c.text.strip() for c in final.children] == ["drop"], policy_name


def test_routed_ports_name_the_far_end_and_agree_on_ip_mtu(rendered: Rendered) -> None:
    models, _ = rendered
    overhead = PLATFORMS[PLATFORM].mtu_overhead
    for name, (model, parse) in xr_configs(rendered).items():
        routed = [i for i in model.interfaces if i.kind == "routed"]
        assert routed, name
        for port in routed:
            assert port.peer is not None
            (block,) = top(parse, rf"interface {re.escape(port.name)}$")
            description = one(block, r"description ").text
            assert port.peer.device in description, f"{name} {port.name}"
            assert port.peer.interface in description, f"{name} {port.name}"
            # XR `mtu` counts the 14-byte Ethernet header; the IP MTU must match the far end.
            mtu = int(one(block, r"mtu \d+$").text.split()[1])
            far_end = next(
                i for i in models[port.peer.device].interfaces if i.name == port.peer.interface
            )
            assert mtu - overhead == far_end.ip_mtu, f"{name} {port.name}"
            one(block, r"no shutdown$")


def test_prefix_list_deny_entry_fails_the_render(rendered: Rendered) -> None:
    """An RPL prefix-set cannot deny; rendering must stop rather than permit what was denied."""
    model = next(m for m, _ in xr_configs(rendered).values())
    first = model.prefix_lists[0]
    denying = PrefixList(
        name=first.name,
        afi=first.afi,
        entries=[
            PrefixListEntry(seq=5, action="deny", prefix=first.entries[0].prefix, le=32),
            *first.entries,
        ],
    )
    broken = model.model_copy(update={"prefix_lists": [denying, *model.prefix_lists[1:]]})
    with pytest.raises(jinja2.UndefinedError, match="deny"):
        render_device(broken)

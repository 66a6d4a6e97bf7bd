"""IOS-XR border configs, read back through ciscoconfparse2 as an engineer would read them."""

from __future__ import annotations

import ipaddress
import re
from typing import Any

import pytest
from ciscoconfparse2 import CiscoConfParse
from conftest import EXAMPLE_INTENT
from meetme.generators.model import (
    Address,
    AsPathEntry,
    DeviceModel,
    Interface,
    PrefixList,
    PrefixListEntry,
    RouteMap,
    RouteMapEntry,
)
from meetme.generators.platforms import PLATFORMS
from meetme.generators.render import RenderError, output_name, render_device
from meetme.validators.policy_eval import Route, evaluate

from meetme.core.secret_refs import PLACEHOLDER_RE
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
        name: (model, parse(files[output_name(model)]))
        for name, model in models.items()
        if model.platform == PLATFORM
    }
    assert parsed, "the example has no IOS-XR device"
    return parsed


def parse(text: str) -> Any:
    return CiscoConfParse(text.splitlines(), syntax="iosxr")


def children(obj: Any, pattern: str) -> list[Any]:
    return [c for c in obj.children if re.match(pattern, c.text.strip())]


def one(obj: Any, pattern: str) -> Any:
    found = children(obj, pattern)
    assert len(found) == 1, f"{obj.text.strip()!r}: expected one {pattern!r}, got {found}"
    return found[0]


def none(obj: Any, pattern: str) -> None:
    found = children(obj, pattern)
    assert not found, f"{obj.text.strip()!r}: unexpected {found}"


def top(parse: Any, pattern: str) -> list[Any]:
    return [o for o in parse.objs if o.indent == 0 and re.match(pattern, o.text)]


def bgp_container(model: DeviceModel, parse: Any, vrf: str | None = None) -> Any:
    """`router bgp`, or the `vrf NAME` block under it: where a session of that VRF sits."""
    (bgp,) = top(parse, rf"router bgp {model.bgp.asn}$")
    return bgp if vrf is None else one(bgp, rf"vrf {re.escape(vrf)}$")


def neighbor_blocks(model: DeviceModel, parse: Any, vrf: str | None = None) -> dict[str, Any]:
    container = bgp_container(model, parse, vrf)
    return {n.text.split()[1]: n for n in children(container, r"neighbor ")}


def external(model: DeviceModel) -> list[Any]:
    return [n for n in model.bgp.neighbors if n.external]


def test_every_iosxr_file_parses_as_iosxr(rendered: Rendered) -> None:
    for name, (model, parse) in xr_configs(rendered).items():
        assert [o.text for o in top(parse, r"hostname ")] == [f"hostname {name}"]
        # Every RPL set and policy is closed, so nothing after it is swallowed into it.
        lines = [o.text for o in parse.objs if o.indent == 0]
        for opener, closer in (
            ("prefix-set ", "end-set"),
            ("as-path-set ", "end-set"),
            ("community-set ", "end-set"),
            ("large-community-set ", "end-set"),
            ("route-policy ", "end-policy"),
        ):
            opened = [i for i, text in enumerate(lines) if text.startswith(opener)]
            assert opened, f"{name}: no {opener.strip()}"
            for i in opened:
                assert lines[i + 1] == closer, f"{name}: {lines[i]} not closed by {closer}"
        assert model.hostname == name


def test_every_neighbor_is_complete(rendered: Rendered) -> None:
    for name, (model, parse) in xr_configs(rendered).items():
        # Each session sits in its own VRF's block (the handoff sessions reuse the underlay
        # links' addresses in other VRFs), and nowhere else.
        vrfs = [None, *(v.name for v in model.vrfs)]
        blocks = {vrf: neighbor_blocks(model, parse, vrf) for vrf in vrfs}
        for vrf in vrfs:
            in_vrf = [n.address for n in model.bgp.neighbors if n.vrf == vrf]
            assert sorted(blocks[vrf]) == sorted(in_vrf), f"{name} vrf {vrf}"
        for nbr in model.bgp.neighbors:
            block = blocks[nbr.vrf][nbr.address]
            where = f"{name} {nbr.vrf or 'default'} {nbr.address}"
            # XR only activates a neighbor AF that is also enabled one level up.
            global_afs = {
                c.text.strip()
                for c in children(bgp_container(model, parse, nbr.vrf), r"address-family ")
            }
            assert one(block, r"remote-as ").text.split() == ["remote-as", str(nbr.remote_as)]
            assert one(block, r"description ").text.strip() == f"description {nbr.description}"
            if nbr.bfd:
                timers = nbr.bfd_timers or model.bgp.bfd
                one(block, r"bfd fast-detect$")
                assert one(block, r"bfd minimum-interval ").text.split()[-1] == str(
                    timers.interval
                ), where
                assert one(block, r"bfd multiplier ").text.split()[-1] == str(timers.multiplier), (
                    where
                )
            else:
                none(block, r"bfd ")
            # One address family per session: an IPv6 session carries only IPv6.
            af = one(block, r"address-family ")
            assert af.text.strip() == f"address-family {nbr.afi} unicast", where
            assert af.text.strip() in global_afs, where
            # RFC 8212 on XR: without both policies the session carries no routes at all.
            assert one(af, r"route-policy \S+ in$").text.split()[1] == nbr.route_map_in
            assert one(af, r"route-policy \S+ out$").text.split()[1] == nbr.route_map_out
            restart = ["restart", str(nbr.max_prefix_restart)] if nbr.max_prefix_restart else []
            assert one(af, r"maximum-prefix ").text.split()[1:] == [
                str(nbr.max_prefix),
                str(nbr.max_prefix_warning_pct),
                *restart,
            ], where


def test_external_neighbors_are_hardened_as_the_intent_says(rendered: Rendered) -> None:
    kinds = set()
    for name, (model, parse) in xr_configs(rendered).items():
        blocks = neighbor_blocks(model, parse)
        for nbr in external(model):
            kinds.add(nbr.kind)
            block = blocks[nbr.address]
            where = f"{name} {nbr.address}"
            description = one(block, r"description ").text
            assert nbr.party is not None and nbr.party in description, where
            assert nbr.circuit is not None and nbr.circuit in description, where
            if nbr.password is not None:
                assert one(block, r"password ").text.strip() == f"password clear {nbr.password}"
            else:
                none(block, r"password ")
            assert bool(children(block, r"ttl-security$")) == nbr.ttl_security, where
            assert bool(children(block, r"enforce-first-as disable$")) == (
                not nbr.enforce_first_as
            ), where
    # The example exercises every border party the IOS-XR pair peers with.
    assert {"transit", "ix_rs", "ix_peer", "pni"} <= kinds


def test_session_bfd_timers_override_the_device_defaults(rendered: Rendered) -> None:
    """The example's session timers equal the device's; give one session its own to tell."""
    model = next(m for m, _ in xr_configs(rendered).values())
    nbr = next(n for n in external(model) if n.bfd and n.bfd_timers is not None)
    assert nbr.bfd_timers is not None
    own = nbr.bfd_timers.model_copy(update={"interval": 150, "min_rx": 150, "multiplier": 4})
    assert (own.interval, own.multiplier) != (model.bgp.bfd.interval, model.bgp.bfd.multiplier)
    neighbors = [
        n.model_copy(update={"bfd_timers": own}) if n is nbr else n for n in model.bgp.neighbors
    ]
    changed = model.model_copy(
        update={"bgp": model.bgp.model_copy(update={"neighbors": neighbors})}
    )
    block = neighbor_blocks(changed, parse(render_device(changed)))[nbr.address]
    assert one(block, r"bfd minimum-interval ").text.strip() == "bfd minimum-interval 150"
    assert one(block, r"bfd multiplier ").text.strip() == "bfd multiplier 4"


def test_hardening_knobs_each_appear_somewhere(rendered: Rendered) -> None:
    """The example has a session of each kind; a template that drops a knob fails here."""
    texts = "\n".join(o.text for _, parse in xr_configs(rendered).values() for o in parse.objs)
    for knob in ("ttl-security", "enforce-first-as disable", "password clear <<secret:"):
        assert knob in texts, knob


def test_passwords_are_placeholders_never_values(rendered: Rendered) -> None:
    _, files = rendered
    seen = 0
    for name, (model, parse) in xr_configs(rendered).items():
        for line in (o.text.strip() for o in parse.objs):
            if line.startswith("password"):
                seen += 1
                _, form, value = line.split()
                assert form == "clear", f"{name}: {line}"
                assert PLACEHOLDER_RE.fullmatch(value), f"{name}: {line}"
        assert "encrypted" not in files[output_name(model)], name
    assert seen, "no session with a password in the example"


def test_every_set_and_policy_used_is_defined(rendered: Rendered) -> None:
    uses = {
        "destination in": "prefix-set",
        "as-path in": "as-path-set",
        "community matches-any": "community-set",
        "large-community matches-any": "large-community-set",
    }
    for name, (_, parse) in xr_configs(rendered).items():
        defined = {
            kind: {o.text.split()[1] for o in top(parse, rf"{kind} ")}
            for kind in (*uses.values(), "route-policy")
        }
        used = {
            o.text.split()[1]
            for o in parse.objs
            if re.fullmatch(r"\s+route-policy \S+ (in|out)", o.text)
        }
        assert used, name
        assert used <= defined["route-policy"], (
            f"{name}: undefined {used - defined['route-policy']}"
        )
        checked = set()
        for policy in top(parse, r"route-policy "):
            for line in (c.text.strip() for c in policy.all_children):
                for test in re.findall(r"(?:if|elseif|and) (.+?)(?= and | then$)", line):
                    if test == "validation-state is invalid" or re.fullmatch(
                        r"as-path length ge \d+", test
                    ):
                        continue  # no set named: RPKI state, the path's length (EDGE-013)
                    prefix, _, ref = test.rpartition(" ")
                    assert prefix in uses, f"{name}: unknown condition in {line!r}"
                    assert ref in defined[uses[prefix]], f"{name}: {line}"
                    checked.add(uses[prefix])
        assert checked == set(uses.values()), f"{name}: only {checked} referenced"


# --- Behaviour: the printed RPL must do what the model's route maps do -------------------------

SAMPLES_V4 = [
    Route("10.20.0.0/16", as_path=(64501,)),  # bogon
    Route("8.8.8.0/25", as_path=(64501, 15169)),  # too long
    Route("198.51.100.0/24", as_path=(64501, 64999)),  # our aggregate, from outside
    Route("198.51.100.128/25", as_path=(64501, 64999)),
    Route("0.0.0.0/0", as_path=(64501,)),
    Route("203.0.113.0/24", as_path=(64505,)),  # the IX LAN
    Route("8.8.8.0/24", as_path=(64501, 15169)),  # legitimate
    Route("8.8.8.0/24", as_path=(64505, 65001, 15169)),  # private ASN
    Route("8.8.8.0/24", as_path=(64501, 23456)),  # AS_TRANS
    Route("8.8.8.0/24", as_path=(64501, 0)),  # AS 0
    Route("8.8.8.0/24", as_path=(64501, 70000)),  # IANA reserved range
    Route("8.8.8.0/24", as_path=(64505, 174, 15169)),  # transit-free network behind a peer
    Route("8.8.8.0/24", as_path=(64501, *[15169] * 98)),  # a path of 99 ASNs: passes
    Route("8.8.8.0/24", as_path=(64501, *[15169] * 99)),  # 100: dropped (EDGE-013)
    Route("8.8.8.0/24", as_path=(64501, 15169), rpki_invalid=True),
    Route("8.8.8.0/24", as_path=(64501, 15169), communities=frozenset({"65535:0"})),
    Route("8.8.8.0/24", as_path=(64501,), large_communities=frozenset({"64500:1:100"})),
    Route("192.0.2.128/26", as_path=(64503,)),  # inside the PNI allow-list
    Route("192.0.2.128/26", as_path=(64503,), communities=frozenset({"65535:0"})),
    Route("10.0.0.5/32", as_path=(4200009000,)),  # a fabric loopback
    Route("10.0.1.7/32", as_path=(4200009000, 4200000021)),
]
SAMPLES_V6 = [
    Route("fc00:1::/48", as_path=(64501,)),
    Route("2a00:1450::/49", as_path=(64501, 15169)),
    Route("2001:db8:4000::/48", as_path=(64501, 64999)),
    Route("2001:db8:4000::/36", as_path=(64501, 64999)),
    Route("::/0", as_path=(64501,)),
    Route("2001:db8:ff00::/64", as_path=(64505,)),
    Route("2a00:1450::/32", as_path=(64501, 15169)),
    Route("2a00:1450::/32", as_path=(64501, 4200000001)),
    Route("2a00:1450::/32", as_path=(64505, 3356, 15169)),
    Route("2a00:1450::/32", as_path=(64505, *[15169] * 98)),
    Route("2a00:1450::/32", as_path=(64505, *[15169] * 99)),
    Route("2a00:1450::/32", as_path=(64501, 15169), rpki_invalid=True),
    Route("2a00:1450::/32", as_path=(64501, 15169), communities=frozenset({"65535:0"})),
    Route("2a00:1450::/32", as_path=(64501,), large_communities=frozenset({"64500:1:300"})),
    Route("2001:db8:c000::/40", as_path=(64503,)),
    Route("2001:db8:0:ff::1/128", as_path=(4200009000,)),
]


class Rpl:
    """The RPL sets and route-policies of one rendered file, evaluated as XR evaluates them."""

    def __init__(self, text: str) -> None:
        self.sets: dict[tuple[str, str], list[str]] = {}
        self.policies: dict[str, list[str]] = {}
        block: list[str] | None = None
        for raw in text.splitlines():
            line = raw.strip()
            head = re.fullmatch(
                r"(prefix-set|as-path-set|community-set|large-community-set|route-policy) (\S+)",
                raw,
            )
            if head:
                block = []
                if head.group(1) == "route-policy":
                    self.policies[head.group(2)] = block
                else:
                    self.sets[(head.group(1), head.group(2))] = block
            elif line in ("end-set", "end-policy"):
                block = None
            elif block is not None and line and not line.startswith("#"):
                block.append(line.rstrip(","))

    def _prefix_set(self, name: str, prefix: str) -> bool:
        route = ipaddress.ip_network(prefix)
        for element in self.sets[("prefix-set", name)]:
            words = element.split()
            net = ipaddress.ip_network(words[0])
            options = dict(zip(words[1::2], map(int, words[2::2]), strict=True))
            if route.version != net.version or not route.subnet_of(net):  # type: ignore[arg-type]
                continue
            low = options.get("ge", net.prefixlen)
            high = options.get("le", route.max_prefixlen if "ge" in options else net.prefixlen)
            if low <= route.prefixlen <= high:
                return True
        return False

    def _as_path_set(self, name: str, as_path: tuple[int, ...]) -> bool:
        text = " ".join(str(asn) for asn in as_path)
        for element in self.sets[("as-path-set", name)]:
            kind, quoted = element.split(" ", 1)
            value = quoted.strip("'")
            if kind == "passes-through":
                low, _, high = value.strip("[]").partition("..")
                if any(int(low) <= asn <= int(high or low) for asn in as_path):
                    return True
            elif kind == "ios-regex":
                # Cisco `_` matches the start, the end or a separator between ASNs.
                pattern = value.replace("_", r"(?:^|$|[ ,{}()])")
                if re.search(pattern, text):
                    return True
            else:
                raise AssertionError(f"as-path-set {name}: unknown element {element!r}")
        return False

    def _condition(self, condition: str, route: Route) -> bool:
        kind, _, name = condition.rpartition(" ")
        if condition == "validation-state is invalid":
            return route.rpki_invalid
        if kind == "destination in":
            return self._prefix_set(name, route.prefix)
        if kind == "as-path in":
            return self._as_path_set(name, route.as_path)
        if kind == "as-path length ge":  # the path holds that many ASNs or more
            return len(route.as_path) >= int(name)
        if kind == "community matches-any":
            return bool(set(self.sets[("community-set", name)]) & route.communities)
        if kind == "large-community matches-any":
            return bool(set(self.sets[("large-community-set", name)]) & route.large_communities)
        raise AssertionError(f"condition the test cannot evaluate: {condition!r}")

    def evaluate(self, policy: str, route: Route) -> tuple[bool, int | None, frozenset[str]]:
        """(accepted, local preference, large communities) for one route; flat if chains."""
        taken = False  # a branch of the current if-chain already ran
        active = True  # statements here run
        passed, local_pref, large = False, None, set(route.large_communities)
        for line in self.policies[policy]:
            test = re.fullmatch(r"(if|elseif) (.+) then", line)
            if test:
                if test.group(1) == "if":
                    taken = False
                hold = not taken and all(
                    self._condition(c, route) for c in test.group(2).split(" and ")
                )
                active, taken = hold, taken or hold
            elif line == "else":
                active, taken = not taken, True
            elif line == "endif":
                active, taken = True, False
            elif not active:
                continue
            elif line == "drop":
                return False, None, frozenset(route.large_communities)
            elif line == "pass":
                passed = True
            elif line.startswith("set local-preference "):
                local_pref = int(line.split()[-1])
            elif added := re.fullmatch(r"set large-community \((.+)\) additive", line):
                large |= set(added.group(1).split(", "))
            else:
                raise AssertionError(f"{policy}: statement the test cannot evaluate: {line!r}")
        return passed, local_pref if passed else None, frozenset(large)


def test_rpl_does_what_the_route_maps_say(rendered: Rendered) -> None:
    _, files = rendered
    outcomes = set()
    for name, (model, _) in xr_configs(rendered).items():
        rpl = Rpl(files[output_name(model)])
        assert sorted(rpl.policies) == sorted(m.name for m in model.route_maps), name
        for route_map in model.route_maps:
            for route in SAMPLES_V4 if route_map.afi == "ipv4" else SAMPLES_V6:
                expected = evaluate(model, route_map.name, route)
                got = rpl.evaluate(route_map.name, route)
                want = (
                    expected.accepted,
                    expected.local_preference if expected.accepted else None,
                    expected.large_communities if expected.accepted else route.large_communities,
                )
                assert got == want, f"{name} {route_map.name} {route}: RPL {got}, model {want}"
                outcomes.add(got[0])
    assert outcomes == {True, False}, "the samples must both pass and drop somewhere"


def test_rpki_caches_and_origin_validation(rendered: Rendered) -> None:
    for name, (model, parse) in xr_configs(rendered).items():
        (bgp,) = top(parse, rf"router bgp {model.bgp.asn}$")
        servers = children(bgp, r"rpki server ")
        caches = model.bgp.rpki_caches
        assert [s.text.split()[-1] for s in servers] == [c.address for c in caches], name
        for server, cache in zip(servers, caches, strict=True):
            assert one(server, r"transport ").text.strip() == f"transport tcp port {cache.port}"
        uses_rov = any(e.match_rpki_invalid for m in model.route_maps for e in m.entries)
        assert uses_rov == bool(model.bgp.rpki_caches), name
        for af in children(bgp, r"address-family ipv[46] unicast$"):
            # Without it XR (6.5.1+) marks no path invalid: `validation-state is invalid` never
            # matches and RPKI-invalid routes are accepted.
            found = children(af, r"bgp origin-as validation enable$")
            assert bool(found) == bool(model.bgp.rpki_caches), f"{name} {af.text}"
    assert any(m.bgp.rpki_caches for m, _ in xr_configs(rendered).values())


def test_originated_aggregates_are_anchored_by_discard_routes(rendered: Rendered) -> None:
    for name, (model, parse) in xr_configs(rendered).items():
        (static,) = top(parse, r"router static$")
        for afi in ("ipv4", "ipv6"):
            routes = [r for r in model.static_routes if r.afi == afi]
            afs = children(static, rf"address-family {afi} unicast$")
            if not routes:
                assert not afs, name
                continue
            (af,) = afs
            assert [c.text.strip() for c in af.children] == [f"{r.prefix} Null0" for r in routes]
        (bgp,) = top(parse, rf"router bgp {model.bgp.asn}$")
        networks = {
            c.text.split()[1]
            for af in children(bgp, r"address-family ")
            for c in af.children
            if c.text.strip().startswith("network ")
        }
        assert {r.prefix for r in model.static_routes} <= networks, name
        # The management default stays in its VRF.
        vrf = one(static, rf"vrf {re.escape(model.management.vrf)}$")
        assert one(one(vrf, r"address-family ipv4 unicast$"), r"0\.0\.0\.0/0 ").text.split() == [
            "0.0.0.0/0",
            model.management.gateway,
        ]


def test_routed_ports_agree_on_ip_mtu(rendered: Rendered) -> None:
    models, _ = rendered
    overhead = PLATFORMS[PLATFORM].mtu_overhead
    for name, (model, parse) in xr_configs(rendered).items():
        routed = [i for i in model.interfaces if i.kind == "routed"]
        assert any(p.peer is None for p in routed), f"{name}: no external port"
        for port in routed:
            (block,) = top(parse, rf"interface {re.escape(port.name)}$")
            description = one(block, r"description ").text
            # XR `mtu` counts the 14-byte Ethernet header.
            mtu = int(one(block, r"mtu \d+$").text.split()[1])
            assert mtu - overhead == port.ip_mtu, f"{name} {port.name}"
            one(block, r"no shutdown$")
            if port.peer is None:
                continue
            assert port.peer.device in description, f"{name} {port.name}"
            assert port.peer.interface in description, f"{name} {port.name}"
            far_end = next(
                i for i in models[port.peer.device].interfaces if i.name == port.peer.interface
            )
            assert mtu - overhead == far_end.ip_mtu, f"{name} {port.name}"


def test_subinterface_is_tagged_and_keeps_the_agreed_ip_mtu(rendered: Rendered) -> None:
    """No XR border has a cloud sub-interface in the example; the template must still print one
    as XR takes it: `interface PARENT.VLAN`, `encapsulation dot1q VLAN`, and the IP MTU set as
    such, since a sub-interface's `mtu` would count the 4-byte tag as well."""
    model = next(m for m, _ in xr_configs(rendered).values())
    parent = Interface(
        name="HundredGigE0/0/0/30",
        kind="routed",
        description="carrier of cloud sub-interfaces",
        ip_mtu=9214,
        mtu=9228,
    )
    sub = Interface(
        name="HundredGigE0/0/0/30.412",
        kind="subinterface",
        description="aws dx-1 vif private",
        vlan=412,
        ipv4=Address.of("169.254.100.1/30"),
        ipv6=Address.of("2001:db8:aa::1/126"),
        ip_mtu=1500,
        mtu=1514,
    )
    text = render_device(model.model_copy(update={"interfaces": [parent, sub]}))
    config = parse(text)
    (block,) = top(config, r"interface HundredGigE0/0/0/30\.412$")
    assert one(block, r"encapsulation ").text.strip() == "encapsulation dot1q 412"
    assert one(block, r"ipv4 mtu ").text.strip() == "ipv4 mtu 1500"
    assert one(block, r"ipv6 mtu ").text.strip() == "ipv6 mtu 1500"
    assert one(block, r"ipv4 address ").text.split()[2:] == ["169.254.100.1", "255.255.255.252"]
    none(block, r"mtu ")
    (carrier,) = top(config, r"interface HundredGigE0/0/0/30$")
    assert one(carrier, r"mtu ").text.strip() == "mtu 9228"
    none(carrier, r"ipv4 address")


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
    with pytest.raises(RenderError, match="deny"):
        render_device(broken)


def test_as_path_deny_entry_fails_the_render(rendered: Rendered) -> None:
    model = next(m for m, _ in xr_configs(rendered).values())
    first = model.as_path_lists[0]
    entry = first.entries[0]
    denying = first.model_copy(
        update={
            "entries": [
                AsPathEntry(
                    seq=5,
                    action="deny",
                    first=64999,
                    last=64999,
                    description="deny",
                ),
                *first.entries,
            ]
        }
    )
    assert entry.action == "permit"
    broken = model.model_copy(update={"as_path_lists": [denying, *model.as_path_lists[1:]]})
    with pytest.raises(RenderError, match="deny"):
        render_device(broken)


def test_clause_after_a_match_everything_clause_fails_the_render(rendered: Rendered) -> None:
    """RPL has no way to reach a clause after `else`; silently dropping it would change the
    policy, so the render stops."""
    model = next(m for m, _ in xr_configs(rendered).values())
    catch_all = RouteMapEntry(seq=10, action="permit", set_local_preference=50)
    after = RouteMapEntry(seq=20, action="deny", match_prefix_list=model.prefix_lists[0].name)
    broken_map = RouteMap(name="RM-BROKEN", afi="ipv4", entries=[catch_all, after])
    broken = model.model_copy(update={"route_maps": [*model.route_maps, broken_map]})
    with pytest.raises(RenderError, match="PLAT-006 "):
        render_device(broken)
    # Alone, a match-everything clause is the whole policy.
    alone = model.model_copy(
        update={
            "route_maps": [
                *model.route_maps,
                broken_map.model_copy(update={"entries": [catch_all]}),
            ]
        }
    )
    policy = Rpl(render_device(alone)).policies["RM-BROKEN"]
    assert policy == ["set local-preference 50", "pass"]


# --- Management plane: what a replace push must not remove ---------------------------------


def management_lines(model: DeviceModel, parse: Any) -> dict[str, list[str]]:
    """What the config says about NTP, syslog, users, SSH and NETCONF, block by block."""
    users = {}
    for block in top(parse, r"username "):
        users[block.text.split()[1]] = [c.text.strip() for c in block.children]
    return {
        "ntp": [c.text.strip() for o in top(parse, r"ntp$") for c in o.children],
        "logging": [o.text for o in top(parse, r"logging ")],
        "users": [f"{name}: {' / '.join(lines)}" for name, lines in users.items()],
        "ssh": [o.text for o in top(parse, r"ssh server ")],
        "netconf": [c.text.strip() for o in top(parse, r"netconf-yang agent$") for c in o.children],
    }


def expected_management(model: DeviceModel) -> dict[str, list[str]]:
    mgmt = model.management
    vrf = mgmt.vrf
    return {
        "ntp": [f"server vrf {vrf} {s}" for s in mgmt.ntp_servers],
        "logging": [f"logging {s} vrf {vrf}" for s in mgmt.syslog_servers],
        "users": [
            f"{u.name}: "
            + " / ".join([*(f"group {g}" for g in u.roles), f"secret 10 {u.password_hash}"])
            for u in mgmt.users
        ],
        "ssh": ["ssh server v2", f"ssh server vrf {vrf}", f"ssh server netconf vrf {vrf}"]
        if mgmt.api
        else [],
        "netconf": ["ssh"] if mgmt.api else [],
    }


def test_management_plane_follows_the_model(rendered: Rendered) -> None:
    intent_users = lint(EXAMPLE_INTENT).loaded.intent.sites["aus1"].management.users
    groups = PLATFORMS[PLATFORM].local_users
    for name, (model, parse) in xr_configs(rendered).items():
        mgmt = model.management
        assert mgmt.users and mgmt.api and mgmt.ntp_servers and mgmt.syslog_servers, name
        assert management_lines(model, parse) == expected_management(model), name
        # From the intent: XR's groups for each role, and the SHA-512-crypt hash by reference.
        assert sorted(u.name for u in mgmt.users) == sorted(intent_users)
        for user in mgmt.users:
            assert user.roles == groups.role(intent_users[user.name].role).names
            assert user.password_hash == f"<<{intent_users[user.name].password_hash}>>"
            assert PLACEHOLDER_RE.fullmatch(user.password_hash)
        admin = next(u for u in mgmt.users if intent_users[u.name].role == "admin")
        assert admin.roles[0] == "root-lr", name


def test_management_plane_changes_with_the_model(rendered: Rendered) -> None:
    model = next(m for m, _ in xr_configs(rendered).values())
    user = model.management.users[0].model_copy(update={"name": "breakglass"})
    mgmt = model.management.model_copy(
        update={"users": [user], "api": False, "ntp_servers": [], "syslog_servers": ["192.0.2.9"]}
    )
    changed = model.model_copy(update={"management": mgmt})
    lines = management_lines(changed, parse(render_device(changed)))
    assert lines == expected_management(changed)
    assert lines["ssh"] == lines["netconf"] == lines["ntp"] == []
    assert lines["users"][0].startswith("breakglass: ")


# --- VRF-lite handoff: the borders' end of the tenant VRFs ---------------------------------------


def handoff_borders(rendered: Rendered) -> dict[str, tuple[DeviceModel, Any]]:
    """The IOS-XR devices with plain VRFs and sessions in them; never empty in the example."""
    found = {
        name: (model, config)
        for name, (model, config) in xr_configs(rendered).items()
        if model.vrfs and any(n.vrf for n in model.bgp.neighbors)
    }
    assert found, "no IOS-XR border hands off a VRF in the example"
    return found


def test_border_vrfs_are_defined_with_a_unique_rd(rendered: Rendered) -> None:
    for name, (model, config) in handoff_borders(rendered).items():
        rds = []
        for vrf in model.vrfs:
            # Defined with IPv4 enabled, or an interface in it cannot carry its /31.
            (definition,) = top(config, rf"vrf {re.escape(vrf.name)}$")
            one(definition, r"address-family ipv4 unicast$")
            block = bgp_container(model, config, vrf.name)
            rd = one(block, r"rd ").text.split()[1]
            assert rd == vrf.rd, f"{name} {vrf.name}"
            one(block, r"address-family ipv4 unicast$")
            rds.append(rd)
        assert len(set(rds)) == len(rds), f"{name}: RD reused across VRFs {rds}"
        # Every `vrf` block under router bgp is one the device defines, and only once.
        (bgp,) = top(config, rf"router bgp {model.bgp.asn}$")
        blocks = [c.text.split()[1] for c in children(bgp, r"vrf ")]
        assert sorted(blocks) == sorted(v.name for v in model.vrfs), name


def test_handoff_sessions_sit_in_their_vrf_with_policies_limit_and_bfd(
    rendered: Rendered,
) -> None:
    for name, (model, config) in handoff_borders(rendered).items():
        for nbr in (n for n in model.bgp.neighbors if n.vrf is not None):
            where = f"{name} {nbr.vrf} {nbr.address}"
            block = neighbor_blocks(model, config, nbr.vrf)[nbr.address]
            assert one(block, r"remote-as ").text.split()[1] == str(nbr.remote_as), where
            one(block, r"bfd fast-detect$")
            af = one(block, rf"address-family {nbr.afi} unicast$")
            # XR is RFC 8212 compliant: both policies, or no route crosses the handoff.
            assert one(af, r"route-policy \S+ in$").text.split()[1] == nbr.route_map_in, where
            assert one(af, r"route-policy \S+ out$").text.split()[1] == nbr.route_map_out, where
            restart = ["restart", str(nbr.max_prefix_restart)] if nbr.max_prefix_restart else []
            assert one(af, r"maximum-prefix ").text.split()[1:] == [
                str(nbr.max_prefix),
                str(nbr.max_prefix_warning_pct),
                *restart,
            ], where
            # default-originate is printed exactly when the model asks for it (never here:
            # the default route is leaked from the Internet table instead)
            if nbr.default_originate:
                one(af, r"default-originate$")
            else:
                none(af, r"default-originate")
        # Sessions of the default VRF never originate a default route.
        for block in neighbor_blocks(model, config).values():
            for af in children(block, r"address-family "):
                none(af, r"default-originate")


def test_handoff_subinterface_carries_the_session_in_its_vrf(rendered: Rendered) -> None:
    """The session's peer is on a /31 of a sub-interface in the same VRF, tagged with the VLAN
    the far end uses, and the far end's sub-interface is in the VRF of the same name."""
    models, _ = rendered
    for name, (model, config) in handoff_borders(rendered).items():
        subs = [i for i in model.interfaces if i.kind == "subinterface" and i.vrf is not None]
        assert subs, name
        for sub in subs:
            assert sub.ipv4 is not None and sub.vlan is not None and sub.ip_mtu is not None
            (block,) = top(config, rf"interface {re.escape(sub.name)}$")
            lines = [c.text.strip() for c in block.children]
            assert one(block, r"vrf ").text.strip() == f"vrf {sub.vrf}", f"{name} {sub.name}"
            assert one(block, r"encapsulation ").text.strip() == f"encapsulation dot1q {sub.vlan}"
            address = one(block, r"ipv4 address ").text.split()[2:]
            mask = str(ipaddress.ip_interface(sub.ipv4.cidr).netmask)
            assert address == [sub.ipv4.ip, mask], f"{name} {sub.name}"
            assert one(block, r"ipv4 mtu ").text.strip() == f"ipv4 mtu {sub.ip_mtu}"
            # The VRF is named before the address it holds.
            assert lines.index(f"vrf {sub.vrf}") < lines.index(" ".join(["ipv4 address", *address]))
        for nbr in (n for n in model.bgp.neighbors if n.vrf is not None):
            where = f"{name} {nbr.vrf} {nbr.address}"
            (sub,) = [i for i in subs if i.name == nbr.local_interface]
            local = sub.ipv6 if nbr.afi == "ipv6" else sub.ipv4
            assert sub.vrf == nbr.vrf and local is not None, where
            link = ipaddress.ip_interface(local.cidr).network
            assert ipaddress.ip_address(nbr.address) in link, where
            far = next(
                i
                for i in models[nbr.peer_device].interfaces
                if nbr.address in (i.ipv4.ip if i.ipv4 else None, i.ipv6.ip if i.ipv6 else None)
                and i.vrf == nbr.vrf
            )
            assert (far.kind, far.vlan) == ("subinterface", sub.vlan), where


def test_a_session_in_an_undefined_vrf_fails_the_render(rendered: Rendered) -> None:
    """Sessions are printed inside their VRF's block: one whose VRF the device does not define
    would silently vanish, so the render stops instead."""
    model, _ = next(iter(handoff_borders(rendered).values()))
    with pytest.raises(RenderError, match="PLAT-003 "):
        render_device(model.model_copy(update={"vrfs": model.vrfs[1:]}))


def test_a_border_without_vrfs_prints_no_vrf_bgp(rendered: Rendered) -> None:
    model, _ = next(iter(handoff_borders(rendered).values()))
    plain = model.model_copy(
        update={
            "vrfs": [],
            "interfaces": [i for i in model.interfaces if i.vrf is None],
            "bgp": model.bgp.model_copy(
                update={"neighbors": [n for n in model.bgp.neighbors if n.vrf is None]}
            ),
        }
    )
    config = parse(render_device(plain))
    (bgp,) = top(config, rf"router bgp {plain.bgp.asn}$")
    none(bgp, r"vrf ")
    none(bgp, r"address-family vpnv4")
    assert [o.text for o in top(config, r"vrf ")] == [f"vrf {plain.management.vrf}"]


def _global_families(model: DeviceModel, config: Any) -> list[str]:
    (bgp,) = top(config, rf"router bgp {model.bgp.asn}$")
    return [c.text.strip() for c in children(bgp, r"address-family ")]


def test_every_vrf_family_has_its_parent_families_under_router_bgp(rendered: Rendered) -> None:
    """XR refuses `vrf X` / `address-family ipv6 unicast` until `address-family ipv6 unicast`
    and `address-family vpnv6 unicast` exist under `router bgp` ("The parent address family has
    not been initialized"), and likewise for IPv4 with VPNv4."""
    for name, (model, config) in handoff_borders(rendered).items():
        families = _global_families(model, config)
        used = {afi for vrf in model.vrfs for afi in vrf.address_families}
        assert used == {"ipv4", "ipv6"}, name  # the example's borders route both in VRFs
        for afi in sorted(used):
            vpn = afi.replace("ip", "vpn")
            assert f"address-family {afi} unicast" in families, name
            assert f"address-family {vpn} unicast" in families, name


def test_ipv4_only_vrfs_enable_vpnv4_and_not_vpnv6(rendered: Rendered) -> None:
    """The boundary: a border whose VRFs route IPv4 only (and no SRv6 L3VPN) gets VPNv4 and no
    VPNv6; its VRFs print no IPv6 family."""
    model, _ = next(iter(handoff_borders(rendered).values()))
    v4_only = model.model_copy(
        update={
            "vrfs": tuple(v.model_copy(update={"address_families": ("ipv4",)}) for v in model.vrfs),
            "bgp": model.bgp.model_copy(
                update={
                    "neighbors": tuple(
                        n for n in model.bgp.neighbors if not (n.vrf and n.afi == "ipv6")
                    )
                }
            ),
            "srv6": None,
        }
    )
    config = parse(render_device(v4_only))
    families = _global_families(v4_only, config)
    assert "address-family vpnv4 unicast" in families
    assert "address-family vpnv6 unicast" not in families

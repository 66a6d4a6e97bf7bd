"""Rendered Cumulus Linux 5.16 startup.yaml files against NVIDIA's NVUE 5.16 object model.

The nvueschema package carries pydantic models generated from the NVUE OpenAPI spec, but they
ignore unknown keys, so a misspelled key (the 5.14 `enable: on` instead of 5.15+ `state: enabled`)
would pass silently. The fixture `forbid_schema` (tests/conftest.py) loads a private copy of the
5.16 module and sets `extra='forbid'` on every class, so an unknown key anywhere in the tree
fails validation.
The border leaves (Google Cloud Interconnect VLAN attachments on 802.1Q sub-interfaces) are read
back as an engineer would: every external session hardened, every policy object it names defined.
"""

from __future__ import annotations

import copy
import ctypes
import ctypes.util
import importlib.util
import re
import shutil
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLE_INTENT, SCHEMA_MODULE, lint_repo, replace_in
from helpers import Tree, set_tree, validate
from meetme.generators.model import (
    Acl,
    AclRule,
    BfdTimers,
    Breakout,
    DeviceModel,
    Evpn,
    Lag,
    PortSpeed,
    StaticRoute,
)
from meetme.generators.platforms import PLATFORMS
from meetme.generators.platforms.spellings import as_path_length_list, as_path_length_regex
from meetme.generators.render import RenderError, output_name, render_device
from pydantic import BaseModel, ValidationError

from meetme.core.secret_refs import PLACEHOLDER_RE, placeholder, reference_name
from meetme.pipeline import device_models, lint, render_all

PLATFORM = "nvidia_nvue"


def nvue_files(models: dict[str, DeviceModel]) -> list[tuple[DeviceModel, str]]:
    """(model, rendered startup.yaml) of every NVUE device, by hostname. Only this platform's
    templates run: another platform's template must not fail these tests."""
    mine = {name: model for name, model in sorted(models.items()) if model.platform == PLATFORM}
    files = render_all(mine)
    return [(model, files[output_name(model)]) for model in mine.values()]


@pytest.fixture(scope="session")
def nvue_devices() -> list[tuple[DeviceModel, str]]:
    """(device model, rendered startup.yaml text) of every NVUE device of the example."""
    result = lint(EXAMPLE_INTENT)
    assert result.errors == []
    devices = nvue_files(device_models(result))
    assert devices, "the example has no NVIDIA NVUE device"
    return devices


@pytest.fixture(scope="session")
def border_leaf(nvue_devices: list[tuple[DeviceModel, str]]) -> tuple[DeviceModel, str]:
    """The first NVUE device with external sessions on sub-interfaces (a Google border leaf)."""
    for model, text in nvue_devices:
        has_sub = any(i.kind == "subinterface" for i in model.interfaces)
        if has_sub and any(n.external for n in model.bgp.neighbors):
            return model, text
    raise AssertionError("the example has no NVUE border leaf with cloud sub-interfaces")


def test_rendered_files_are_valid_nvue_516(
    forbid_schema: type[BaseModel], nvue_devices: list[tuple[DeviceModel, str]]
) -> None:
    for model, text in nvue_devices:
        validate(forbid_schema, model.hostname, text)
    # the border leaves are among them: their edge keys are checked too, not only the fabric's
    assert any(n.external for model, _ in nvue_devices for n in model.bgp.neighbors)


def walk(node: Any, path: tuple[str, ...]) -> Any:
    """Follow `path`; `*` is any entry of a collection keyed by id (the first one from which the
    rest of the path exists), `*KEY` any entry holding KEY."""
    if not path:
        return node
    step, rest = path[0], path[1:]
    if not step.startswith("*"):
        return walk(node[step], rest) if step in node else None
    for child in node.values():
        if isinstance(child, dict) and (step == "*" or step[1:] in child):
            found = walk(child, rest)
            if found is not None:
                return found
    return None


@pytest.mark.parametrize(
    ("path", "bad_key"),
    [
        # 5.14 spelling of the BGP switch; 5.15+ uses `state: enabled`
        (("router", "bgp"), "enable"),
        # deep in a neighbor: a typo of `warning-threshold`
        (
            (
                "vrf",
                "default",
                "router",
                "bgp",
                "neighbor",
                "*",
                "address-family",
                "*",
                "prefix-limits",
                "inbound",
            ),
            "warning-treshold",
        ),
        # 5.14 per-neighbor BFD timer, replaced by profiles in 5.15
        (("vrf", "default", "router", "bgp", "neighbor", "*", "bfd"), "detect-multiplier"),
        # 5.14 interface address container, `ipv4` since 5.15
        (("interface", "lo"), "ip"),
        # a sub-interface's tag is `vlan`, not the `vlan-id` other systems use
        (("interface", "*base-interface"), "vlan-id"),
        # an AS-path rule's regex is `aspath-exp`
        (("router", "policy", "as-path-list", "*", "rule", "*"), "regex"),
        # a large-community-list rule holds `large-community`, not `community`
        (("router", "policy", "large-community-list", "*", "rule", "*"), "community"),
        # a route-map matches `large-community-list`, not `large-community`
        (("router", "policy", "route-map", "*", "rule", "*", "match"), "large-community"),
        # 5.16 has no additive flag for `set large-community`
        (("router", "policy", "route-map", "*", "rule", "*", "set"), "additive"),
        # 5.16 has no RPKI: a route-map cannot match on it
        (("router", "policy", "route-map", "*", "rule", "*", "match"), "rpki"),
        # a local user's hash is `hashed-password`
        (("system", "aaa", "user", "*"), "password-hash"),
        # a syslog server names its `vrf`; `use-vrf` is NX-OS
        (("system", "syslog", "server", "*"), "use-vrf"),
    ],
)
def test_misspelled_key_is_rejected(
    forbid_schema: type[BaseModel],
    border_leaf: tuple[DeviceModel, str],
    path: tuple[str, ...],
    bad_key: str,
) -> None:
    tree = copy.deepcopy(set_tree(border_leaf[1]))
    node = walk(tree, path)
    assert isinstance(node, dict), f"{border_leaf[0].hostname} has no {path}"
    node[bad_key] = "on"
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        forbid_schema.model_validate(tree)


def all_neighbors(tree: dict[str, Any]) -> dict[str, Any]:
    """Every BGP neighbor of every VRF (a cloud session sits in the tenant VRF it serves)."""
    found: dict[str, Any] = {}
    for vrf in tree["vrf"].values():
        found.update(vrf.get("router", {}).get("bgp", {}).get("neighbor", {}))
    return found


def test_every_neighbor_is_protected(nvue_devices: list[tuple[DeviceModel, str]]) -> None:
    """remote-as, description, BFD with the profile holding its timers, both route-maps (which
    exist) and a prefix limit in the address family the session carries."""
    for model, text in nvue_devices:
        tree = set_tree(text)
        route_maps = tree["router"]["policy"]["route-map"]
        bfd_profiles = tree["router"]["bfd"]["profile"]
        neighbors = all_neighbors(tree)
        overlay = {p.address for p in model.evpn.peers} if model.evpn else set()
        session = model.mlag.peer_link_session if model.mlag else None
        peer_link = {session.interface} if session else set()  # test_overlay_fixes.py
        assert set(neighbors) == {n.address for n in model.bgp.neighbors} | overlay | peer_link
        for expected in model.bgp.neighbors:
            where = f"{model.hostname} neighbor {expected.address}"
            neighbor = neighbors[expected.address]
            assert neighbor["remote-as"] == expected.remote_as, where
            assert neighbor["type"] == "numbered", where
            assert neighbor["description"] == expected.description, where
            if expected.external:  # the party and the circuit it rides on, for the NOC
                assert expected.party is not None and expected.circuit is not None, where
                assert expected.party in neighbor["description"], where
                assert expected.circuit in neighbor["description"], where
            if expected.bfd:
                timers = expected.bfd_timers or model.bgp.bfd
                profile = bfd_profiles[neighbor["bfd"]["profile"]]
                assert neighbor["bfd"]["profile"] == timers.profile, where
                assert profile["min-tx-interval"] == timers.interval, where
                assert profile["min-rx-interval"] == timers.min_rx, where
                assert profile["detect-multiplier"] == timers.multiplier, where
            else:
                assert "bfd" not in neighbor, where
            family = neighbor["address-family"][f"{expected.afi}-unicast"]
            assert family["state"] == "enabled", where
            for direction in ("inbound", "outbound"):
                assert family["policy"][direction]["route-map"] in route_maps, where
            limits = family["prefix-limits"]["inbound"]
            assert limits["maximum"] == expected.max_prefix, where
            assert limits["warning-threshold"] == expected.max_prefix_warning_pct, where
            if expected.afi == "ipv6":  # an IPv6 session must not also carry IPv4
                assert neighbor["address-family"]["ipv4-unicast"]["state"] == "disabled", where
        assert tree["router"]["bfd"]["state"] == "enabled", model.hostname


def _hardened(model: DeviceModel) -> DeviceModel:
    """The border leaf with what the example's Google sessions do not exercise: an MD5
    placeholder, GTSM, enforce-first-as off (route-server style), own BFD timers, a session
    without BFD, and discard routes for originated aggregates."""
    external = [n for n in model.bgp.neighbors if n.external]
    assert len(external) >= 2, model.hostname
    first = external[0].model_copy(
        update={
            "password": placeholder("ix-rs-md5"),
            "ttl_security": True,
            "enforce_first_as": False,
            "bfd_timers": BfdTimers(profile="BFD-IX-RS", interval=500, min_rx=400, multiplier=4),
        }
    )
    second = external[1].model_copy(update={"bfd": False, "bfd_timers": None})
    neighbors = [
        first if n is external[0] else second if n is external[1] else n
        for n in model.bgp.neighbors
    ]
    statics = [
        StaticRoute(prefix="192.0.2.0/24", afi="ipv4", discard=True, description="aggregate"),
        StaticRoute(prefix="2001:db8::/32", afi="ipv6", discard=True, description="aggregate"),
    ]
    return model.model_copy(
        update={
            "bgp": model.bgp.model_copy(update={"neighbors": neighbors}),
            "static_routes": statics,
        }
    )


def test_session_hardening_is_printed_and_valid(
    forbid_schema: type[BaseModel], border_leaf: tuple[DeviceModel, str]
) -> None:
    model = _hardened(border_leaf[0])
    tree = validate(forbid_schema, model.hostname, render_device(model))
    default = tree["vrf"]["default"]["router"]
    neighbors = all_neighbors(tree)
    for expected in model.bgp.neighbors:
        neighbor = neighbors[expected.address]
        where = f"{model.hostname} neighbor {expected.address}"
        assert neighbor.get("password") == expected.password, where
        if expected.ttl_security:
            assert neighbor["ttl-security"] == {"state": "enabled", "hops": 1}, where
        else:
            assert "ttl-security" not in neighbor, where
        # the switch enforces the first AS unless told otherwise (CLDOCS 5.16)
        wanted = None if expected.enforce_first_as else "disabled"
        assert neighbor.get("enforce-first-as") == wanted, where
        assert ("bfd" in neighbor) == expected.bfd, where
    profile = tree["router"]["bfd"]["profile"]["BFD-IX-RS"]
    assert profile == {"detect-multiplier": 4, "min-tx-interval": 500, "min-rx-interval": 400}
    assert default["static"] == {
        "192.0.2.0/24": {"via": {"blackhole": {}}},
        "2001:db8::/32": {"via": {"blackhole": {}}},
    }


def test_md5_key_from_intent_is_a_placeholder(
    example: Path, forbid_schema: type[BaseModel]
) -> None:
    """A key named in intent reaches the file as its marked placeholder, nothing else."""
    replace_in(  # the example keys the Google sessions: name another secret
        example / "intent/aus1/clouds.yaml",
        'key: "secret:gcp-ic-md5"',
        'key: "secret:gcp-md5"',
        count=4,
    )
    result = lint_repo(example)
    assert result.errors == []
    devices = nvue_files(device_models(result))
    seen = 0
    for model, text in devices:
        tree = validate(forbid_schema, model.hostname, text)
        for address, neighbor in all_neighbors(tree).items():
            if "password" in neighbor:  # every password in the file is a whole placeholder
                assert PLACEHOLDER_RE.fullmatch(neighbor["password"]), f"{model.hostname} {address}"
                seen += neighbor["password"] == "<<secret:gcp-md5>>"
    external = sum(n.kind == "gcp" for model, _ in devices for n in model.bgp.neighbors)
    assert seen == external > 0


def test_policy_objects_are_defined_and_faithful(
    nvue_devices: list[tuple[DeviceModel, str]],
) -> None:
    """Every list a route-map names exists (an undefined list matches nothing in FRR, so a deny
    clause would silently stop protecting); each rule matches and sets what the model says."""
    for model, text in nvue_devices:
        policy = set_tree(text)["router"]["policy"]
        for route_map in model.route_maps:
            rules = policy["route-map"][route_map.name]["rule"]
            assert list(rules) == [str(e.seq) for e in route_map.entries], route_map.name
            for entry in route_map.entries:
                where = f"{model.hostname} route-map {route_map.name} rule {entry.seq}"
                rule = rules[str(entry.seq)]
                match = rule["match"]
                assert match["type"] == route_map.afi, where
                assert list(rule["action"]) == [entry.action], where
                # the length match (EDGE-013) is an as-path-list of its own regex
                length = entry.match_as_path_length_ge
                as_path = as_path_length_list(length) if length else entry.match_as_path
                if length:
                    (only,) = policy["as-path-list"][as_path]["rule"].values()
                    assert only == {
                        "action": "permit",
                        "aspath-exp": as_path_length_regex(length),
                    }, where
                references = {
                    "ip-prefix-list": ("prefix-list", entry.match_prefix_list),
                    "as-path-list": ("as-path-list", as_path),
                    "community-list": ("community-list", entry.match_community),
                    "large-community-list": ("large-community-list", entry.match_large_community),
                }
                for key, (collection, expected) in references.items():
                    assert match.get(key) == expected, where
                    if expected is not None:
                        assert expected in policy[collection], where
                if entry.match_prefix_list is not None:
                    listed = policy["prefix-list"][entry.match_prefix_list]
                    assert listed["type"] == route_map.afi, where  # an IPv6 map, an IPv6 list
                sets = rule.get("set", {})
                assert sets.get("local-preference") == entry.set_local_preference, where
                communities = list(entry.set_large_communities)
                assert list(sets.get("large-community", {})) == communities, where


def test_community_lists_match_any_listed_value(
    nvue_devices: list[tuple[DeviceModel, str]],
) -> None:
    """One value per rule: values sharing a rule would all have to be present (FRR)."""
    for model, text in nvue_devices:
        policy = set_tree(text)["router"]["policy"]
        for listed in model.community_lists:
            collection, key = {
                "standard": ("community-list", "community"),
                "large": ("large-community-list", "large-community"),
            }[listed.kind]
            rules = policy[collection][listed.name]["rule"].values()
            assert all(rule["action"] == "permit" for rule in rules), listed.name
            assert [list(rule[key]) for rule in rules] == [[c] for c in listed.communities]


def frr_as_path_regex(expression: str) -> re.Pattern[str]:
    """How FRR reads an AS-path regex: `_` is a space, comma, `{ } ( )`, start or end."""
    return re.compile(expression.replace("_", "(^|[,{}() ]|$)"))


def test_as_path_lists_match_their_asn_ranges(
    nvue_devices: list[tuple[DeviceModel, str]],
) -> None:
    """Behaviour, not text: each rule's regex, read the way FRR reads it, matches a path holding
    an ASN of its range (first and last) and no path holding only the neighbours of the range."""
    for model, text in nvue_devices:
        policy = set_tree(text)["router"]["policy"]
        for as_path_list in model.as_path_lists:
            rules = policy["as-path-list"][as_path_list.name]["rule"]
            for entry in as_path_list.entries:
                where = f"{model.hostname} {as_path_list.name} rule {entry.seq}"
                rule = rules[str(entry.seq)]
                assert rule["action"] == entry.action, where
                regex = frr_as_path_regex(rule["aspath-exp"])
                for asn in (entry.first, entry.last):
                    assert regex.search(f"64500 {asn} 15169"), f"{where}: misses {asn}"
                    assert regex.search(f"{{{asn},64501}}"), f"{where}: misses {asn} in a set"
                for asn in (entry.first - 1, entry.last + 1):
                    if asn >= 0 and asn != 64500 and asn != 15169:
                        assert not regex.search(f"64500 {asn} 15169"), f"{where}: hits {asn}"
                assert not regex.search(f"64500 1{entry.first}9 15169"), where  # digits inside


def test_every_port_has_mtu_and_says_what_it_is(
    nvue_devices: list[tuple[DeviceModel, str]],
) -> None:
    """Fabric ports name their peer; a cloud sub-interface is an 802.1Q child of a port that is
    itself configured, with the provider's MTU and our address on the attachment."""
    for model, text in nvue_devices:
        interfaces = set_tree(text)["interface"]
        ports = {name for name, body in interfaces.items() if body["type"] in ("swp", "sub")}
        # bond members and the peer link's control VLAN: the MLAG tests below check those
        bonded = {member for lag in model.lags for member in lag.members}
        if model.mlag is not None:
            bonded |= {*model.mlag.peer_link_members, f"{model.mlag.peer_link}.4094"}
        assert ports - bonded == {i.name for i in model.interfaces}, model.hostname
        for expected in model.interfaces:
            where = f"{model.hostname} {expected.name}"
            port = interfaces[expected.name]
            assert port["link"]["mtu"] == expected.mtu, where
            if expected.peer is not None:
                assert expected.peer.device in port["description"], where
                assert expected.peer.interface in port["description"], where
            if expected.kind == "subinterface":
                assert port["type"] == "sub", where
                assert port["vlan"] == expected.vlan, where
                base = port["base-interface"]
                assert expected.name == f"{base}.{expected.vlan}", where
                assert interfaces[base]["type"] == "swp", where
            else:
                assert port["type"] == "swp", where
            for address, family in ((expected.ipv4, "ipv4"), (expected.ipv6, "ipv6")):
                if address is None:
                    assert family not in port, where
                else:
                    assert list(port[family]["address"]) == [address.cidr], where


def test_management_and_loopbacks(nvue_devices: list[tuple[DeviceModel, str]]) -> None:
    """eth0 in VRF mgmt with its default gateway; every loopback address on `lo`."""
    for model, text in nvue_devices:
        tree = set_tree(text)
        eth0 = tree["interface"]["eth0"]
        management = model.management
        assert eth0["vrf"] == "mgmt", model.hostname
        assert management.interface.ipv4 is not None
        assert list(eth0["ipv4"]["address"]) == [management.interface.ipv4.cidr]
        assert list(eth0["ipv4"]["gateway"]) == [management.gateway], model.hostname
        lo = tree["interface"]["lo"]
        assert lo["type"] == "loopback", model.hostname
        for loopback in model.loopbacks:
            for address, family in ((loopback.ipv4, "ipv4"), (loopback.ipv6, "ipv6")):
                if address is not None:
                    assert address.cidr in lo[family]["address"], model.hostname
        assert tree["router"]["bgp"]["router-id"] == model.bgp.router_id, model.hostname


def test_unpatched_models_would_not_catch_typos(
    forbid_schema: type[BaseModel], nvue_devices: list[tuple[DeviceModel, str]]
) -> None:
    """Why the forbid fixture exists; also shows the shared module was left unpatched."""
    shared = importlib.import_module(SCHEMA_MODULE)
    tree = copy.deepcopy(set_tree(nvue_devices[0][1]))
    tree["router"]["bgp"]["enable"] = "on"
    shared.NvueConfig.model_validate(tree)  # accepted: extra keys are ignored by default
    with pytest.raises(ValidationError):  # the patched copy rejects the 5.14 spelling
        forbid_schema.model_validate(tree)


def test_management_plane_follows_the_model(
    forbid_schema: type[BaseModel], nvue_devices: list[tuple[DeviceModel, str]]
) -> None:
    """Users, the REST API, NTP and syslog under `system`, as the model and the intent say."""
    intent_users = lint(EXAMPLE_INTENT).loaded.intent.sites["aus1"].management.users
    roles = PLATFORMS[PLATFORM].local_users
    for model, text in nvue_devices:
        system = validate(forbid_schema, model.hostname, text)["system"]
        mgmt = model.management
        assert mgmt.users and mgmt.api and mgmt.ntp_servers and mgmt.syslog_servers
        users = system["aaa"]["user"]
        assert users == {
            u.name: {"role": " ".join(u.roles), "hashed-password": u.password_hash}
            for u in mgmt.users
        }, model.hostname
        assert sorted(users) == sorted(intent_users)
        for name, user in intent_users.items():
            assert users[name]["role"] == roles.role(user.role).names[0]
            # The SHA-512-crypt hash by reference: a placeholder, never a value.
            assert users[name]["hashed-password"] == placeholder(reference_name(user.password_hash))
            assert PLACEHOLDER_RE.fullmatch(users[name]["hashed-password"])
        assert users["netops"]["role"] == "system-admin"
        assert mgmt.interface.ipv4 is not None
        assert system["api"] == {
            "state": "enabled",
            "listening-address": {mgmt.interface.ipv4.ip: {}},  # never every address
        }
        assert system["ssh-server"] == {"vrf": {"mgmt": {}}}
        assert system["ntp"] == {"vrf": "mgmt", "server": {s: {} for s in mgmt.ntp_servers}}
        assert system["syslog"] == {"server": {s: {"vrf": "mgmt"} for s in mgmt.syslog_servers}}


def test_management_plane_changes_with_the_model(
    forbid_schema: type[BaseModel], nvue_devices: list[tuple[DeviceModel, str]]
) -> None:
    model = nvue_devices[0][0]
    # A user named like a YAML 1.1 boolean stays a user name, not `true`.
    user = model.management.users[0].model_copy(update={"name": "on"})
    mgmt = model.management.model_copy(
        update={"users": [user], "api": False, "ntp_servers": [], "syslog_servers": ["192.0.2.9"]}
    )
    changed = model.model_copy(update={"management": mgmt})
    system = validate(forbid_schema, model.hostname, render_device(changed))["system"]
    assert list(system["aaa"]["user"]) == ["on"]
    assert "api" not in system and "ntp" not in system
    assert system["syslog"] == {"server": {"192.0.2.9": {"vrf": "mgmt"}}}


# EVPN-VXLAN (issue 4): what an engineer checks on an NVUE VTEP before pasting the file.


def evpn_trees(
    nvue_devices: list[tuple[DeviceModel, str]],
) -> list[tuple[DeviceModel, Evpn, Tree]]:
    """(model, its EVPN part, NVUE tree) of every NVUE device in the overlay."""
    found = [(m, m.evpn, set_tree(t)) for m, t in nvue_devices if m.evpn is not None]
    assert any(evpn.vlans for _, evpn, _ in found), "no NVUE VTEP carries a network"
    return found


@pytest.fixture(scope="session")
def vtep_leaf(nvue_devices: list[tuple[DeviceModel, str]]) -> tuple[DeviceModel, str]:
    """The first NVUE leaf with an anycast gateway."""
    for model, text in nvue_devices:
        if model.evpn is not None and any(v.svi for v in model.evpn.vlans):
            return model, text
    raise AssertionError("the example has no NVUE leaf with an anycast gateway")


def test_every_network_is_mapped_on_its_vtep(nvue_devices: list[tuple[DeviceModel, str]]) -> None:
    """Each VLAN is in br_default with exactly its VNI, with its RD and the fabric-wide RT in
    and out; VXLAN is sourced from a loopback the underlay advertises."""
    route_targets: dict[int, set[str]] = {}
    for model, evpn, tree in evpn_trees(nvue_devices):
        where = model.hostname
        assert evpn.vtep and evpn.source_address is not None, where
        domain = tree.get("bridge", {}).get("domain", {}).get("br_default", {})
        assert domain.get("vlan", {}) == {
            str(v.id): {"vni": {str(v.vni): {}}} for v in evpn.vlans
        }, where
        assert tree["evpn"]["state"] == "enabled", where
        vnis = tree["evpn"].get("vni", {})
        assert list(vnis) == [str(v.vni) for v in evpn.vlans], where
        for vlan in evpn.vlans:
            rts = vnis[str(vlan.vni)]["route-target"]
            assert vnis[str(vlan.vni)]["rd"] == vlan.rd, where
            assert rts == {"import": {vlan.route_target: {}}, "export": {vlan.route_target: {}}}
            route_targets.setdefault(vlan.vni, set()).add(vlan.route_target)
        vxlan = tree["nve"]["vxlan"]
        assert vxlan["state"] == "enabled", where
        assert vxlan["source"]["address"] == evpn.source_address, where
        assert f"{evpn.source_address}/32" in tree["interface"]["lo"]["ipv4"]["address"], where
        default = tree["vrf"]["default"]["router"]["bgp"]["address-family"]
        assert f"{evpn.source_address}/32" in default["ipv4-unicast"]["network"], where
        suppress = "enabled" if evpn.arp_nd_suppression else "disabled"
        assert vxlan["arp-nd-suppress"] == suppress, where
    assert all(len(rts) == 1 for rts in route_targets.values()), route_targets


def test_every_l3vni_vrf_is_routed_symmetrically(
    nvue_devices: list[tuple[DeviceModel, str]],
) -> None:
    """Each VRF maps its L3VNI, imports and exports its RT in EVPN and exports its connected
    subnets as type-5 routes; every SVI is in a VRF the file defines; one RT per VRF."""
    route_targets: dict[str, set[str]] = {}
    for model, evpn, tree in evpn_trees(nvue_devices):
        vrfs = tree["vrf"]
        for expected in evpn.vrfs:
            where = f"{model.hostname} vrf {expected.name}"
            vrf = vrfs[expected.name]
            assert vrf["evpn"] == {"state": "enabled", "vni": {str(expected.vni): {}}}, where
            bgp = vrf["router"]["bgp"]
            assert bgp["state"] == "enabled" and bgp["rd"] == expected.rd, where
            assert bgp["autonomous-system"] == model.bgp.asn, where
            assert bgp["route-import"]["from-evpn"]["route-target"] == {
                expected.route_target: {}
            }, where
            assert bgp["route-export"]["to-evpn"]["route-target"] == {expected.route_target: {}}, (
                where
            )
            for family in ("ipv4-unicast", "ipv6-unicast"):
                af = bgp["address-family"][family]
                assert af["state"] == "enabled", where
                assert af["redistribute"]["connected"]["state"] == "enabled", where
                assert af["route-export"]["to-evpn"]["state"] == "enabled", where
            route_targets.setdefault(expected.name, set()).add(expected.route_target)
        for vlan in evpn.vlans:
            if vlan.svi is not None:
                assert vlan.svi.vrf in vrfs, f"{model.hostname} {vlan.svi.name}"
                assert vlan.svi.vrf in {v.name for v in evpn.vrfs}, model.hostname
    assert route_targets and all(len(rts) == 1 for rts in route_targets.values())


def test_svis_carry_the_anycast_gateway(nvue_devices: list[tuple[DeviceModel, str]]) -> None:
    """Every routed network has its SVI in its VRF with the network's MTU and the gateway
    address(es) on VRR with the one fabric-wide gateway MAC; VRR itself is on."""
    macs: set[str] = set()
    for model, evpn, tree in evpn_trees(nvue_devices):
        interfaces = tree["interface"]
        svis = {name for name, body in interfaces.items() if body["type"] == "svi"}
        assert svis == {v.svi.name for v in evpn.vlans if v.svi}, model.hostname
        bridged = tree.get("bridge", {}).get("domain", {}).get("br_default", {}).get("vlan", {})
        for vlan in evpn.vlans:
            svi = vlan.svi
            if svi is None:
                continue
            where = f"{model.hostname} {svi.name}"
            body = interfaces[svi.name]
            assert body["vlan"] == vlan.id and str(vlan.id) in bridged, where
            assert body["vrf"] == svi.vrf == vlan.vrf, where
            assert body["link"]["mtu"] == svi.mtu, where
            families = ((svi.ipv4, vlan.gateway_v4, "ipv4"), (svi.ipv6, vlan.gateway_v6, "ipv6"))
            for own, gateway, family in families:
                if own is None or gateway is None:
                    assert family not in body, where
                    continue
                # VRR needs the leaf's own address besides the shared gateway (CLDOCS VRR)
                assert body[family]["address"] == {own.cidr: {}}, where
                assert own.ip != gateway.ip, where
                vrr = body[family]["vrr"]
                assert vrr["address"] == {gateway.cidr: {}}, where
                assert vrr["state"] == "enabled", where
                assert vrr["vrr-state"] == {"up": {}}, where  # NVUE's default is down
                assert vrr["mac-address"] == evpn.anycast_mac, where
                macs.add(vrr["mac-address"])
        if svis:
            assert tree["router"]["vrr"] == {"state": "enabled"}, model.hostname
    assert len(macs) == 1, macs


def test_evpn_sessions_run_loopback_to_loopback(
    nvue_devices: list[tuple[DeviceModel, str]],
) -> None:
    """Each overlay session reaches the spine's loopback from the address the spine peers with,
    multihop, EVPN only and unfiltered by the underlay's loopback route-maps; underlay sessions
    never carry EVPN."""
    everyone = device_models(lint(EXAMPLE_INTENT))
    for model, evpn, tree in evpn_trees(nvue_devices):
        bgp = tree["vrf"]["default"]["router"]["bgp"]
        assert bgp["address-family"]["l2vpn-evpn"] == {"state": "enabled"}, model.hostname
        neighbors = bgp["neighbor"]
        assert evpn.peers, model.hostname
        for peer in evpn.peers:
            where = f"{model.hostname} evpn neighbor {peer.address}"
            neighbor = neighbors[peer.address]
            remote = everyone[peer.peer_device]
            assert remote.evpn is not None, where
            back = {p.address: p for p in remote.evpn.peers}
            assert neighbor["update-source"] in back, where  # the address the spine expects
            assert back[neighbor["update-source"]].remote_as == model.bgp.asn, where
            assert neighbor["remote-as"] == peer.remote_as == remote.bgp.asn, where
            assert neighbor["type"] == "numbered", where
            assert neighbor["multihop-ttl"] == peer.ebgp_multihop > 1, where
            # EVPN only, with the prefix limit every BGP session carries.
            limit = {"maximum": peer.max_routes, "warning-threshold": peer.max_routes_warning_pct}
            assert neighbor["address-family"] == {
                "ipv4-unicast": {"state": "disabled"},
                "l2vpn-evpn": {"state": "enabled", "prefix-limits": {"inbound": limit}},
            }, where
        for underlay in model.bgp.default_vrf_neighbors:
            assert "l2vpn-evpn" not in neighbors[underlay.address]["address-family"]


def test_an_nvue_evpn_spine_is_refused_not_guessed(border_leaf: tuple[DeviceModel, str]) -> None:
    """A session asking for the VTEP next hop to pass through untouched fails the render: the
    NVUE form is unverified, and a rewritten next hop black-holes the overlay."""
    model = border_leaf[0]
    assert model.evpn is not None
    relayed = [p.model_copy(update={"next_hop_unchanged": True}) for p in model.evpn.peers]
    spine = model.evpn.model_copy(update={"vtep": False, "vlans": [], "peers": relayed})
    with pytest.raises(RenderError, match="PLAT-007 "):
        render_device(model.model_copy(update={"evpn": spine}))


def test_device_without_evpn_has_no_overlay(
    forbid_schema: type[BaseModel], border_leaf: tuple[DeviceModel, str]
) -> None:
    # without EVPN the device has no tenant VRF: its cloud sessions go too (else PLAT-003)
    bgp = border_leaf[0].bgp
    bgp = bgp.model_copy(update={"neighbors": bgp.default_vrf_neighbors})
    model = border_leaf[0].model_copy(update={"evpn": None, "bgp": bgp, "static_routes": ()})
    tree = validate(forbid_schema, model.hostname, render_device(model))
    assert not {"bridge", "evpn", "nve"} & set(tree)
    assert "vrr" not in tree["router"]
    assert "l2vpn-evpn" not in tree["vrf"]["default"]["router"]["bgp"]["address-family"]


@pytest.mark.parametrize(
    ("path", "bad_key"),
    [
        # 5.14 spellings: `enable: on` and the `ip` container
        (("nve", "vxlan"), "enable"),
        (("evpn",), "enable"),
        (("interface", "*vlan"), "ip"),
        (("interface", "*vlan", "ipv4", "vrr"), "enable"),
        (("vrf", "*evpn", "evpn"), "enable"),
        # FRR/EOS words NVUE does not use: `multihop-ttl`, `route-export to-evpn`
        (("vrf", "default", "router", "bgp", "neighbor", "*multihop-ttl"), "ebgp-multihop"),
        (("vrf", "*evpn", "router", "bgp", "address-family", "ipv4-unicast"), "advertise"),
        # a bridge VLAN has no name in the schema (the name is a YAML comment)
        (("bridge", "domain", "br_default", "vlan", "*vni"), "name"),
    ],
)
def test_misspelled_evpn_key_is_rejected(
    forbid_schema: type[BaseModel],
    vtep_leaf: tuple[DeviceModel, str],
    path: tuple[str, ...],
    bad_key: str,
) -> None:
    tree = copy.deepcopy(set_tree(vtep_leaf[1]))
    node = walk(tree, path)
    assert isinstance(node, dict), f"{vtep_leaf[0].hostname} has no {path}"
    node[bad_key] = "on"
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        forbid_schema.model_validate(tree)


# MLAG and host bonds (issue 4, host attachments): what an engineer checks on an NVUE MLAG pair.

PEER_LINK_VLAN = 4094  # NVUE's fixed clagd subinterface, peerlink.4094 (CLDOCS 5.16 MLAG)


def mlag_trees(nvue_devices: list[tuple[DeviceModel, str]]) -> list[tuple[DeviceModel, Tree]]:
    """(model, NVUE tree) of every NVUE leaf in an MLAG pair."""
    found = [(m, set_tree(t)) for m, t in nvue_devices if m.mlag is not None]
    assert found, "the example has no NVUE MLAG leaf"
    return found


def bonds_of(tree: Tree) -> dict[str, Tree]:
    return {name: body for name, body in tree["interface"].items() if body["type"] == "bond"}


@pytest.fixture(scope="session")
def mlag_leaf(nvue_devices: list[tuple[DeviceModel, str]]) -> tuple[DeviceModel, str]:
    """The first NVUE leaf of an MLAG pair with host bonds."""
    for model, text in nvue_devices:
        if model.mlag is not None and model.lags:
            return model, text
    raise AssertionError("the example has no NVUE MLAG leaf with host bonds")


def test_every_host_bond_is_printed_as_the_model_says(
    nvue_devices: list[tuple[DeviceModel, str]],
) -> None:
    """One LACP bond per host: its members (configured switch ports), its MLAG id, exactly its
    trunked VLANs with no untagged VLAN, its MTU; every VLAN it trunks is in br_default."""
    for model, tree in mlag_trees(nvue_devices):
        interfaces = tree["interface"]
        assert set(bonds_of(tree)) == {lag.name for lag in model.lags}, model.hostname
        bridged = set(tree["bridge"]["domain"]["br_default"]["vlan"])
        for lag in model.lags:
            where = f"{model.hostname} {lag.name}"
            body = interfaces[lag.name]
            assert body["description"] == lag.description, where
            assert body["bond"] == {
                "member": {member: {} for member in lag.members},
                "mode": "lacp",
                "mlag": {"id": lag.segment_id, "state": "enabled"},
            }, where
            assert body["bridge"] == {
                "domain": {
                    "br_default": {"untagged": "none", "vlan": {str(v): {} for v in lag.vlans}}
                }
            }, where
            assert lag.vlans and {str(v) for v in lag.vlans} <= bridged, where
            assert body["link"] == {"mtu": lag.mtu}, where
            for member in lag.members:
                assert interfaces[member]["type"] == "swp", f"{where} {member}"


def test_mlag_follows_the_model(nvue_devices: list[tuple[DeviceModel, str]]) -> None:
    """clagd: on, the pair's system MAC, the heartbeat to the peer in its VRF, link-local peering
    over peerlink.4094; the peer link bonds its ports; with EVPN, the shared VTEP and the pair's
    router MAC, which is never the fabric-wide gateway MAC."""
    for model, tree in mlag_trees(nvue_devices):
        mlag = model.mlag
        assert mlag is not None
        where = model.hostname
        interfaces = tree["interface"]
        assert tree["mlag"] == {
            "state": "enabled",
            "mac-address": mlag.system_mac,
            "backup": {mlag.backup_address: {"vrf": mlag.backup_vrf}},
            "peer-ip": "linklocal",
        }, where
        # NVIDIA's reserved MLAG range, so the LACP system ID clashes with no real interface
        assert mlag.system_mac.lower().startswith("44:38:39:ff:"), where
        peer_link = interfaces[mlag.peer_link]
        assert peer_link["type"] == "peerlink", where
        assert peer_link["bond"] == {"member": {m: {} for m in mlag.peer_link_members}}, where
        for member in mlag.peer_link_members:
            assert interfaces[member]["type"] == "swp", f"{where} {member}"
        assert interfaces[f"{mlag.peer_link}.{PEER_LINK_VLAN}"] == {
            "type": "sub",
            "base-interface": mlag.peer_link,
            "vlan": PEER_LINK_VLAN,
        }, where
        # "Do not add VLAN 4094 to the bridge VLAN list" (CLDOCS 5.16 MLAG)
        assert str(PEER_LINK_VLAN) not in tree["bridge"]["domain"]["br_default"]["vlan"], where
        if model.evpn is not None and model.evpn.vtep:
            assert mlag.anycast_vtep is not None, where
            assert tree["system"]["global"] == {"anycast-mac": mlag.system_mac}, where
            assert mlag.system_mac != model.evpn.anycast_mac, where
            vxlan = tree["nve"]["vxlan"]
            assert vxlan["mlag"] == {"shared-address": mlag.anycast_vtep}, where
            # the unique VTEP stays the source; clagd adds the shared one to `lo` itself
            assert vxlan["source"]["address"] != mlag.anycast_vtep, where
            assert f"{mlag.anycast_vtep}/32" not in interfaces["lo"]["ipv4"]["address"], where


def test_both_leaves_of_an_mlag_pair_agree(nvue_devices: list[tuple[DeviceModel, str]]) -> None:
    """What clagd's consistency checker compares, read from the two files: the same bonds with
    the same MLAG ids, members, VLANs and MTU, the same system MAC, anycast MAC and shared VTEP,
    the same bridge VLANs (the peer link carries them all); each heartbeat goes to the other
    leaf's eth0 address in the VRF eth0 is in."""
    trees: dict[str, Tree] = {}
    pairs: set[frozenset[str]] = set()
    for model, tree in mlag_trees(nvue_devices):
        assert model.mlag is not None
        trees[model.hostname] = tree
        pairs.add(frozenset((model.hostname, model.mlag.peer)))
    macs: list[str] = []
    for pair in sorted(pairs, key=sorted):
        first, second = sorted(pair)
        assert first in trees and second in trees, f"{first}/{second}: one leaf has no MLAG"
        a, b = trees[first], trees[second]
        where = f"{first}/{second}"
        assert bonds_of(a) == bonds_of(b), where
        ids = [body["bond"]["mlag"]["id"] for body in bonds_of(a).values()]
        assert len(ids) == len(set(ids)), f"{where}: an MLAG id names two hosts"
        assert a["mlag"]["mac-address"] == b["mlag"]["mac-address"], where
        macs.append(a["mlag"]["mac-address"])
        assert a["system"].get("global") == b["system"].get("global"), where
        assert a["nve"]["vxlan"].get("mlag") == b["nve"]["vxlan"].get("mlag"), where
        bridged = [set(t["bridge"]["domain"]["br_default"]["vlan"]) for t in (a, b)]
        assert bridged[0] == bridged[1], where
        for own, other in ((a, b), (b, a)):
            eth0 = other["interface"]["eth0"]
            addresses = [cidr.split("/")[0] for cidr in eth0["ipv4"]["address"]]
            assert own["mlag"]["backup"] == {addresses[0]: {"vrf": eth0["vrf"]}}, where
    # pairs of different racks must not share a system MAC (CLDOCS 5.16 MLAG)
    assert macs and len(macs) == len(set(macs))


def test_the_shared_vtep_is_reachable_through_the_underlay(
    nvue_devices: list[tuple[DeviceModel, str]],
) -> None:
    """Type-2 routes of MLAG hosts carry the shared VTEP as next hop (CLDOCS 5.16 Inter-subnet
    Routing, Advertise Primary IP address): remote VTEPs need a route to it, so both leaves
    announce it and their outbound underlay policy lets it through."""
    for model, tree in mlag_trees(nvue_devices):
        assert model.mlag is not None and model.mlag.anycast_vtep is not None
        family = tree["vrf"]["default"]["router"]["bgp"]["address-family"]["ipv4-unicast"]
        assert f"{model.mlag.anycast_vtep}/32" in family["network"], model.hostname


def test_device_without_mlag_has_no_mlag(
    forbid_schema: type[BaseModel], mlag_leaf: tuple[DeviceModel, str]
) -> None:
    model = mlag_leaf[0].model_copy(update={"mlag": None, "lags": []})
    tree = validate(forbid_schema, model.hostname, render_device(model))
    assert "mlag" not in tree
    kinds = {body["type"] for body in tree["interface"].values()}
    assert not {"bond", "peerlink"} & kinds
    assert "global" not in tree["system"]
    assert "mlag" not in tree["nve"]["vxlan"]
    assert tree["bridge"]["domain"]["br_default"]["vlan"]  # the overlay stays


def test_an_all_digit_mlag_mac_stays_a_mac(
    forbid_schema: type[BaseModel], mlag_leaf: tuple[DeviceModel, str]
) -> None:
    """Unquoted, 44:38:39:12:00:01 is a YAML 1.1 base-60 integer, not a MAC."""
    model = mlag_leaf[0]
    assert model.mlag is not None
    mlag = model.mlag.model_copy(update={"system_mac": "44:38:39:12:00:01"})
    changed = model.model_copy(update={"mlag": mlag})
    tree = validate(forbid_schema, model.hostname, render_device(changed))
    assert tree["mlag"]["mac-address"] == "44:38:39:12:00:01"
    assert tree["system"]["global"]["anycast-mac"] == "44:38:39:12:00:01"


@pytest.mark.parametrize(
    ("path", "bad_key"),
    [
        # ifupdown2 / clagd words NVUE does not use
        (("interface", "*bond", "bond"), "clag-id"),
        (("interface", "*bond", "bridge", "domain", "br_default"), "vids"),
        (("mlag",), "sys-mac"),
        (("nve", "vxlan", "mlag"), "anycast-ip"),
        # 5.14 spellings: `enable: on`
        (("interface", "*bond", "bond", "mlag"), "enable"),
        (("mlag",), "enable"),
        # clagd's peer address is global MLAG state, not a peer-link key
        (("interface", "peerlink"), "peer-ip"),
        # the backup heartbeat's VRF is `vrf`
        (("mlag", "backup", "*"), "vrf-name"),
    ],
)
def test_misspelled_mlag_key_is_rejected(
    forbid_schema: type[BaseModel],
    mlag_leaf: tuple[DeviceModel, str],
    path: tuple[str, ...],
    bad_key: str,
) -> None:
    tree = copy.deepcopy(set_tree(mlag_leaf[1]))
    node = walk(tree, path)
    assert isinstance(node, dict), f"{mlag_leaf[0].hostname} has no {path}"
    node[bad_key] = "on"
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        forbid_schema.model_validate(tree)


# EVPN multihoming (issue 4, host attachments): what an engineer checks on an NVUE ESI leaf pair.


def esi_lags(model: DeviceModel) -> list[Lag]:
    return [lag for lag in model.lags if lag.mode == "esi"]


def esi_trees(nvue_devices: list[tuple[DeviceModel, str]]) -> list[tuple[DeviceModel, Tree]]:
    """(model, NVUE tree) of every NVUE leaf with EVPN multihoming bonds."""
    found = [(m, set_tree(t)) for m, t in nvue_devices if esi_lags(m)]
    assert found, "the example has no NVUE leaf with ESI bonds"
    return found


@pytest.fixture(scope="session")
def esi_leaf(nvue_devices: list[tuple[DeviceModel, str]]) -> tuple[DeviceModel, str]:
    """The first NVUE leaf with EVPN multihoming bonds."""
    for model, text in nvue_devices:
        if esi_lags(model):
            return model, text
    raise AssertionError("the example has no NVUE leaf with ESI bonds")


def segment_of(body: Tree) -> Tree:
    segment = body["evpn"]["multihoming"]["segment"]
    assert isinstance(segment, dict)
    return segment


def test_every_esi_bond_is_printed_as_the_model_says(
    nvue_devices: list[tuple[DeviceModel, str]],
) -> None:
    """One LACP bond per host in its Ethernet segment: the host's local id and the segment MAC
    (NVUE derives the type-3 ESI from them; the MAC is the LACP system ID the host sees), the
    segment on; its members, exactly its trunked VLANs with no untagged VLAN, its MTU. The leaf
    runs no MLAG and has ARP/ND suppression, which EVPN-MH requires (CLDOCS 5.16)."""
    for model, tree in esi_trees(nvue_devices):
        interfaces = tree["interface"]
        assert set(bonds_of(tree)) == {lag.name for lag in model.lags}, model.hostname
        bridged = set(tree["bridge"]["domain"]["br_default"]["vlan"])
        for lag in esi_lags(model):
            where = f"{model.hostname} {lag.name}"
            body = interfaces[lag.name]
            assert body["description"] == lag.description, where
            assert body["bond"] == {
                "member": {member: {} for member in lag.members},
                "mode": "lacp",
            }, where
            assert body["evpn"] == {
                "multihoming": {
                    "segment": {
                        "local-id": lag.segment_id,
                        "mac-address": lag.lacp_system_mac,
                        "state": "enabled",
                    }
                }
            }, where
            assert body["bridge"] == {
                "domain": {
                    "br_default": {"untagged": "none", "vlan": {str(v): {} for v in lag.vlans}}
                }
            }, where
            assert lag.vlans and {str(v) for v in lag.vlans} <= bridged, where
            assert body["link"] == {"mtu": lag.mtu}, where
            for member in lag.members:
                assert interfaces[member]["type"] == "swp", f"{where} {member}"
        assert model.mlag is None, model.hostname
        assert "mlag" not in tree, model.hostname
        assert "peerlink" not in {body["type"] for body in interfaces.values()}, model.hostname
        assert "mlag" not in tree["nve"]["vxlan"], model.hostname
        assert tree["nve"]["vxlan"]["arp-nd-suppress"] == "enabled", model.hostname


def test_the_leaves_of_an_ethernet_segment_agree(
    nvue_devices: list[tuple[DeviceModel, str]],
) -> None:
    """Read from the files: every segment (segment MAC, local id) is on at least two leaves with
    the same bond (name, host, members, VLANs, MTU), so both advertise the same ESI and the
    host's LACP sees one partner; each segment names one host; each leaf keeps its own VTEP."""
    segments: dict[tuple[str, int], dict[str, Tree]] = defaultdict(dict)
    vteps: dict[str, str] = {}
    for model, tree in esi_trees(nvue_devices):
        vteps[model.hostname] = tree["nve"]["vxlan"]["source"]["address"]
        for body in bonds_of(tree).values():
            segment = segment_of(body)
            key = (segment["mac-address"].lower(), segment["local-id"])
            segments[key][model.hostname] = body
    assert segments
    for key, bodies in sorted(segments.items()):
        where = f"segment {key}"
        assert len(bodies) >= 2, f"{where} is on {sorted(bodies)} only"
        first, *others = bodies.values()
        for other in others:  # the description names the host: one segment, one host
            assert other == first, where
        assert len({vteps[leaf] for leaf in bodies}) == len(bodies), where


def test_multihoming_is_enabled_only_where_a_segment_needs_it(
    nvue_devices: list[tuple[DeviceModel, str]],
) -> None:
    """On a leaf with ESI bonds: EVPN multihoming on, and every fabric link (towards the
    devices carrying its EVPN sessions) tracked as an uplink, so the leaf takes its segments
    down when it loses the fabric. Elsewhere neither."""
    seen = set()
    for model, text in nvue_devices:
        tree = set_tree(text)
        where = model.hostname
        tracked = {
            name
            for name, body in tree["interface"].items()
            if "uplink" in body.get("evpn", {}).get("multihoming", {})
        }
        if esi_lags(model):
            assert model.evpn is not None, where
            assert tree["evpn"]["multihoming"] == {"state": "enabled"}, where
            fabric = {i.name for i in model.interfaces if i.kind == "routed" and i.peer}
            assert fabric and tracked == fabric, where
            overlay = {peer.peer_device for peer in model.evpn.peers}
            for intf in model.interfaces:
                if intf.name in tracked:
                    assert intf.peer is not None and intf.peer.device in overlay, where
                    body = tree["interface"][intf.name]
                    assert body["evpn"] == {"multihoming": {"uplink": "enabled"}}, where
        else:
            assert "multihoming" not in tree.get("evpn", {}), where
            assert not tracked, where
        seen.add(bool(esi_lags(model)))
    assert seen == {True, False}


def test_device_without_esi_bonds_has_no_multihoming(
    forbid_schema: type[BaseModel], esi_leaf: tuple[DeviceModel, str]
) -> None:
    model = esi_leaf[0].model_copy(update={"lags": []})
    tree = validate(forbid_schema, model.hostname, render_device(model))
    assert "multihoming" not in tree["evpn"]
    assert not any("evpn" in body for body in tree["interface"].values())
    assert tree["bridge"]["domain"]["br_default"]["vlan"]  # the overlay stays


def test_an_all_digit_segment_mac_stays_a_mac(
    forbid_schema: type[BaseModel], esi_leaf: tuple[DeviceModel, str]
) -> None:
    """Unquoted, 44:38:39:12:00:02 is a YAML 1.1 base-60 integer, not a MAC."""
    model = esi_leaf[0]
    mac = "44:38:39:12:00:02"
    lags = [lag.model_copy(update={"lacp_system_mac": mac}) for lag in model.lags]
    tree = validate(
        forbid_schema, model.hostname, render_device(model.model_copy(update={"lags": lags}))
    )
    assert {segment_of(body)["mac-address"] for body in bonds_of(tree).values()} == {mac}


@pytest.mark.parametrize(
    ("case", "refusal"),
    [
        ("mlag_leaf", "PLAT-012 "),
        ("no_evpn", "PLAT-010 "),
        ("not_vtep", "PLAT-010 "),
        ("no_arp_nd_suppression", "PLAT-013 "),
    ],
)
def test_an_esi_bond_nvue_cannot_run_is_refused(
    esi_leaf: tuple[DeviceModel, str],
    mlag_leaf: tuple[DeviceModel, str],
    case: str,
    refusal: str,
) -> None:
    """EVPN-MH excludes MLAG on the switch and needs a VTEP with ARP/ND suppression (CLDOCS
    5.16): a bond printed without them would come up on both leaves with nothing to keep it
    loop-free. The rules refuse such intent; the template refuses such a model too."""
    model = esi_leaf[0]
    assert model.evpn is not None
    evpn = model.evpn
    options: dict[str, dict[str, Any]] = {
        "mlag_leaf": {"mlag": mlag_leaf[0].mlag},
        "no_evpn": {"evpn": None},
        "not_vtep": {"evpn": evpn.model_copy(update={"vtep": False})},
        "no_arp_nd_suppression": {"evpn": evpn.model_copy(update={"arp_nd_suppression": False})},
    }
    with pytest.raises(RenderError, match=refusal):
        render_device(model.model_copy(update=options[case]))


@pytest.mark.parametrize(
    ("path", "bad_key"),
    [
        # FRR / ifupdown2 words NVUE does not use: `evpn mh es-id`, `es-sys-mac`
        (("interface", "*evpn", "evpn", "multihoming", "segment"), "es-id"),
        (("interface", "*evpn", "evpn", "multihoming", "segment"), "es-sys-mac"),
        # 5.14 spellings: `enable: on`
        (("interface", "*evpn", "evpn", "multihoming", "segment"), "enable"),
        (("evpn", "multihoming"), "enable"),
        # 5.16 has no per-bond LACP system MAC: the segment MAC is the LACP system ID
        (("interface", "*bond", "bond"), "lacp-system-mac"),
    ],
)
def test_misspelled_multihoming_key_is_rejected(
    forbid_schema: type[BaseModel],
    esi_leaf: tuple[DeviceModel, str],
    path: tuple[str, ...],
    bad_key: str,
) -> None:
    tree = copy.deepcopy(set_tree(esi_leaf[1]))
    node = walk(tree, path)
    assert isinstance(node, dict), f"{esi_leaf[0].hostname} has no {path}"
    node[bad_key] = "on"
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        forbid_schema.model_validate(tree)


def test_matrix_golden_files_are_valid_nvue_516(forbid_schema: type[BaseModel]) -> None:
    """NVUE in the roles the example does not show (borders with the full edge and the
    border pair's iBGP; super-spines are EVPN route servers, refused on NVUE) is valid 5.16
    too."""
    golden = sorted((Path(__file__).parent / "golden" / "matrix").glob("nvidia_nvue-*.yaml"))
    assert len(golden) >= 1
    for path in golden:
        validate(forbid_schema, path.name, path.read_text())


def test_breakout_and_port_speeds_are_valid_nvue_516(
    forbid_schema: type[BaseModel], nvue_devices: list[tuple[DeviceModel, str]]
) -> None:
    """A cage broken out 4x (parent `link breakout`) and a sub-port told its speed validate."""
    model = next(m for m, _ in nvue_devices if m.hostname == "aus1-lf1")
    uplink = model.interfaces[0]
    sub_port = uplink.model_copy(
        update={"name": "swp50s1", "port_speed": PortSpeed(gbps=200, lanes=2)}
    )
    broken = model.model_copy(
        update={
            "interfaces": (*model.interfaces, sub_port),
            "breakouts": (
                Breakout(
                    parent="swp50",
                    module=0,
                    port=50,
                    count=4,
                    speed_gbps=200,
                    lanes=2,
                    sub_ports=("swp50s0", "swp50s1", "swp50s2", "swp50s3"),
                ),
            ),
        }
    )
    tree = validate(forbid_schema, broken.hostname, render_device(broken))
    interfaces = tree["interface"]
    assert interfaces["swp50"]["link"] == {"breakout": {"4x": {}}}
    assert interfaces["swp50s1"]["link"]["speed"] == "200G"


def test_acl_destination_match_is_valid_516(
    forbid_schema: type[BaseModel], border_leaf: tuple[DeviceModel, str]
) -> None:
    """An ingress IPv6 ACL whose first rule denies a destination prefix (the SRv6 block filter
    of a domain member, docs/srv6.md#filter) prints `match: ip: dest-ip:` and stays valid."""
    model, _ = border_leaf
    sid_filter = Acl(
        name="ACL-SRV6-EDGE-IN-V6",
        afi="ipv6",
        rules=(
            AclRule(seq=10, action="deny", source=None, destination="5f00::/32", description="x"),
            AclRule(seq=20, action="permit", source=None, description="the rest"),
        ),
    )
    port = next(i for i in model.interfaces if i.kind == "subinterface")
    filtered = model.model_copy(
        update={
            "acls": (*model.acls, sid_filter),
            "interfaces": tuple(
                i.model_copy(update={"acls_in": (*i.acls_in, sid_filter.name)}) if i is port else i
                for i in model.interfaces
            ),
        }
    )
    tree = validate(forbid_schema, model.hostname, render_device(filtered))
    rules = tree["acl"]["ACL-SRV6-EDGE-IN-V6"]["rule"]
    assert rules["10"] == {"match": {"ip": {"dest-ip": "5f00::/32"}}, "action": {"deny": {}}}
    assert rules["20"] == {"action": {"permit": {}}}
    assert "ACL-SRV6-EDGE-IN-V6" in tree["interface"][port.name]["acl"]


def test_names_yaml_would_read_as_other_types_stay_strings(
    nvue_devices: list[tuple[DeviceModel, str]],
) -> None:
    """A host named `null` and VRFs named `yes` and `on` (each a boolean or None to a YAML 1.1
    reader, as the push adapter's yaml.safe_load is) stay strings: two VRFs never merge into
    one `True` key, and the switch is not named None."""
    model = next(m for m, _ in nvue_devices if m.evpn is not None and len(m.evpn.vrfs) >= 2)
    assert model.evpn is not None
    renamed = {model.evpn.vrfs[0].name: "yes", model.evpn.vrfs[1].name: "on"}
    vrfs = [v.model_copy(update={"name": renamed.get(v.name, v.name)}) for v in model.evpn.vrfs]
    changed = model.model_copy(
        update={"hostname": "null", "evpn": model.evpn.model_copy(update={"vrfs": vrfs})}
    )
    tree = set_tree(render_device(changed))
    assert tree["system"]["hostname"] == "null"
    assert {"yes", "on"} <= set(tree["vrf"])
    assert all(isinstance(name, str) for name in tree["vrf"])


def test_63_character_names_keep_every_session_description_within_80(
    forbid_schema: type[BaseModel], tmp_path: Path
) -> None:
    """A device name may be 63 characters long; NVUE refuses a neighbor description over 80.
    With aus1-lf2 so named, aus1-lf1's peer-link session ("mlag peer link to " + 63 = 81
    characters) keeps its start and the name's end; the files stay valid NVUE 5.16, and every
    session description of every platform's model fits 80."""
    long_name = "aus1-lf2-" + "x" * 50 + "-end"
    assert len(long_name) == 63
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE_INTENT, repo / "intent")
    for path in (repo / "intent").rglob("*.yaml"):
        path.write_text(re.sub(r"\baus1-lf2\b(?![0-9])", long_name, path.read_text()))
    result = lint_repo(repo)
    assert result.errors == []
    models = device_models(result)
    for model, text in nvue_files(models):
        validate(forbid_schema, model.hostname, text)
    peer_link = models["aus1-lf1"].mlag
    assert peer_link is not None and peer_link.peer_link_session is not None
    described = peer_link.peer_link_session.description
    # 39 characters of the start, "...", the last 38 of the name
    assert described == "mlag peer link to aus1-lf2-" + "x" * 12 + "..." + "x" * 34 + "-end"
    assert len(described) == 80
    sessions = [
        *(n.description for m in models.values() for n in m.bgp.neighbors),
        *(p.description for m in models.values() if m.evpn for p in m.evpn.peers),
    ]
    assert any(long_name in d for d in sessions)  # names that fit are kept whole
    assert max(len(d) for d in sessions) <= 80


def _glibc_ere(expression: str) -> Callable[[str], bool]:
    """The expression compiled as FRR compiles AS-path regexes: glibc regcomp, REG_EXTENDED
    (with no `_` in it, FRR's rewrite of `_` does not apply)."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    compiled = ctypes.create_string_buffer(256)  # a regex_t, 64 bytes on x86_64 glibc
    assert libc.regcomp(compiled, expression.encode(), 1) == 0, expression  # REG_EXTENDED = 1

    def matches(path: str) -> bool:
        return libc.regexec(compiled, path.encode(), 0, None, 0) == 0

    return matches


@pytest.mark.parametrize("length", [2, 50, 100, 255])
def test_the_as_path_length_regex_counts_asns_under_posix_ere(length: int) -> None:
    """NVUE's (and the twin's FRR) stand-in for a length match: a path of `length` ASNs or more
    matches, one ASN fewer does not, whatever the ASNs' digits and with an AS_SET in it."""
    expression = as_path_length_regex(length)
    assert "_" not in expression
    matches = _glibc_ere(expression)
    for asns in (["15169"], ["64500", "4200000001", "7"]):
        at, over, under = (" ".join((asns * n)[:n]) for n in (length, length + 1, length - 1))
        assert matches(at) and matches(over), (length, asns)
        assert not matches(under), (length, asns)
    # an AS_SET's members count one each (BGP counts the set as one: dropped a little early)
    assert matches(" ".join(["64500"] * (length - 1)) + " {1,2}")
    assert not matches("")


def test_a_long_path_drop_in_the_form_a_platform_cannot_print_is_refused() -> None:
    """NX-OS drops long AS paths with BGP's own limit, the others with a route-map clause: a
    model holding the other form would render without the drop, so the template refuses it
    (PLAT-027), naming the clause or the VRF."""
    models = device_models(lint(EXAMPLE_INTENT))
    nxos = models["aus1-bl3"]
    assert nxos.platform == "cisco_nxos" and nxos.bgp.drop_as_path_length
    route_map = nxos.route_maps[0]
    clause = route_map.entries[0].model_copy(
        update={"match_as_path_length_ge": 100, "match_as_path": None}
    )
    with_clause = nxos.model_copy(
        update={
            "route_maps": (
                route_map.model_copy(update={"entries": (clause, *route_map.entries[1:])}),
                *nxos.route_maps[1:],
            )
        }
    )
    with pytest.raises(RenderError, match=f"PLAT-027 .*{route_map.name} clause {clause.seq}"):
        render_device(with_clause)
    nvue = models["aus1-bl5"]
    assert nvue.platform == PLATFORM and not nvue.bgp.drop_as_path_length
    drop = nxos.bgp.drop_as_path_length[0]
    with_bgp_drop = nvue.model_copy(
        update={"bgp": nvue.bgp.model_copy(update={"drop_as_path_length": (drop,)})}
    )
    with pytest.raises(RenderError, match=f"PLAT-027 .*VRF {drop.vrf}"):
        render_device(with_bgp_drop)
    render_device(nvue)  # the model as built renders

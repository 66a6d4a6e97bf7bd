"""The FRR rendering of the device models (meetme/twin/frr.py, templates/frr/): FRR's own
parser accepts every device of the example, the text means what the model means (a small
reader of FRR's route-map semantics runs routes through it), and names fit Linux."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path

import pytest
from conftest import private_vrfs_online
from meetme.generators.model import DeviceModel
from meetme.generators.platforms import PLATFORMS

from meetme.pipeline import device_models, lint
from meetme.twin import names
from meetme.twin.frr import BFD_STRETCH, render_frr
from meetme.twin.names import IFNAMSIZ, linux_name, namespace

# the names as meetme gives them without MEETME_TWIN_PREFIX (conftest.default_twin_prefix)
pytestmark = pytest.mark.usefixtures("default_twin_prefix")

EXAMPLE = Path(__file__).resolve().parent.parent / "intent"
REQUIRED = os.environ.get("MEETME_TWIN_REQUIRED") == "1"
needs_vtysh = pytest.mark.skipif(
    shutil.which("vtysh") is None and not REQUIRED, reason="FRR's vtysh is not installed"
)


@cache
def models() -> dict[str, DeviceModel]:
    return device_models(lint(EXAMPLE))


def frr_parse(text: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    conf = tmp_path / "frr.conf"
    conf.write_text(text)
    # -C: check the configuration file and exit (vtysh's dry run, no daemon touched)
    return subprocess.run(["vtysh", "-C", "-f", str(conf)], capture_output=True, text=True)


@needs_vtysh
@pytest.mark.parametrize("device", sorted(models()))
def test_frr_accepts_every_line_of_every_example_device(device: str, tmp_path: Path) -> None:
    done = frr_parse(render_frr(models()[device]), tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Unknown command" not in done.stdout + done.stderr


@needs_vtysh
def test_frr_parser_rejects_a_command_it_does_not_know(tmp_path: Path) -> None:
    """The check above can fail: a line FRR does not know is refused."""
    text = render_frr(models()["aus1-sp1"]).replace(" bgp router-id", " bgp router-identity", 1)
    done = frr_parse(text, tmp_path)
    assert done.returncode != 0
    assert "Unknown command" in done.stdout + done.stderr


# --- FRR route-map semantics, read back from the text -------------------------------------


class FrrPolicy:
    """Prefix-lists, as-path lists and route-maps of an FRR text: first matching clause
    wins, every match of a clause must hold, no match denies."""

    def __init__(self, text: str) -> None:
        self.prefix_lists: dict[str, list[tuple[str, str, int | None, int | None]]] = {}
        self.as_paths: dict[str, list[tuple[str, str]]] = {}
        self.route_maps: dict[str, list[dict[str, str]]] = {}
        clause: dict[str, str] | None = None
        for line in text.splitlines():
            words = line.split()
            if line.startswith(("ip prefix-list", "ipv6 prefix-list")):
                name, action, prefix = words[2], words[5], words[6]
                ge = int(words[words.index("ge") + 1]) if "ge" in words else None
                le = int(words[words.index("le") + 1]) if "le" in words else None
                self.prefix_lists.setdefault(name, []).append((action, prefix, ge, le))
            elif line.startswith("bgp as-path access-list"):
                self.as_paths.setdefault(words[3], []).append((words[4], words[5]))
            elif line.startswith("route-map "):
                clause = {"action": words[2]}
                self.route_maps.setdefault(words[1], []).append(clause)
            elif clause is not None and line.startswith((" match ", " set ")):
                clause[" ".join(words[:-1])] = words[-1]
            elif line.strip() == "exit":
                clause = None

    def _prefix_permits(self, name: str, prefix: str) -> bool:
        import ipaddress

        route = ipaddress.ip_network(prefix)
        for action, entry, ge, le in self.prefix_lists[name]:
            net = ipaddress.ip_network(entry)
            if route.version != net.version or not route.subnet_of(net):  # type: ignore[arg-type]
                continue
            low = ge if ge is not None else net.prefixlen
            high = le if le is not None else (net.prefixlen if ge is None else route.max_prefixlen)
            if low <= route.prefixlen <= high:
                return action == "permit"
        return False

    def _path_permits(self, name: str, path: str) -> bool:
        for action, regex in self.as_paths[name]:
            pattern = regex.replace("_", r"(?:^|[ ,{}()]|$)")
            if re.search(pattern, path):
                return action == "permit"
        return False

    def run(self, route_map: str, prefix: str, path: str) -> tuple[str, dict[str, str]]:
        for clause in self.route_maps[route_map]:
            matched = True
            for key, value in clause.items():
                if key in ("match ip address prefix-list", "match ipv6 address prefix-list"):
                    matched &= self._prefix_permits(value, prefix)
                elif key == "match as-path":
                    matched &= self._path_permits(value, path)
                elif key.startswith(("match community", "match large-community")):
                    matched = False  # the sample routes carry no communities
            if matched:
                return clause["action"], clause
        return "deny", {}


@pytest.mark.parametrize(
    ("prefix", "path", "verdict"),
    [
        ("1.1.1.0/24", "64501 13335", "permit"),  # legitimate
        ("100.64.0.0/10", "64501 13335", "deny"),  # bogon (RFC 6598)
        ("100.64.1.0/24", "64501", "deny"),  # inside a bogon
        ("198.51.100.0/24", "64501", "deny"),  # our own aggregate
        ("198.51.100.128/25", "64501", "deny"),  # inside it
        ("1.1.1.0/25", "64501 13335", "deny"),  # longer than /24: just outside the limit
        ("0.0.0.0/0", "64501", "permit"),  # the default transit-a agreed to send
        ("1.1.1.0/24", "64501 64512 13335", "deny"),  # a private ASN in the path
    ],
)
def test_transit_import_in_frr_text_rejects_hostile_routes(
    prefix: str, path: str, verdict: str
) -> None:
    policy = FrrPolicy(render_frr(models()["aus1-br1"]))
    action, clause = policy.run("RM-TRANSIT-TRANSIT-A-IN-V4", prefix, path)
    assert action == verdict
    if verdict == "permit":
        assert clause["set local-preference"] == "100"


def test_a_default_from_a_party_that_did_not_agree_to_send_one_is_rejected() -> None:
    policy = FrrPolicy(render_frr(models()["aus1-br1"]))
    assert policy.run("RM-PNI-PNI-CDN-IN-V4", "0.0.0.0/0", "64503")[0] == "deny"
    assert policy.run("RM-PNI-PNI-CDN-IN-V4", "192.0.2.0/24", "64503")[0] == "permit"


def _block(text: str, head: str) -> str:
    block = text[text.index(head + "\n") :]
    return block[: block.index("\nexit\n")]


def test_border_leaks_the_default_into_each_vrf_and_public_prefixes_out() -> None:
    text = render_frr(models()["aus1-br1"])
    gpu_a = _block(text, "router bgp 64500 vrf gpu-a")
    v4 = gpu_a[gpu_a.index(" address-family ipv4 unicast") :]
    assert "  import vrf default\n  import vrf route-map RM-LEAK-GPU-A-FROM-DEFAULT-V4" in v4
    v6 = gpu_a[gpu_a.index(" address-family ipv6 unicast") :]
    assert "  import vrf default\n  import vrf route-map RM-LEAK-GPU-A-FROM-DEFAULT-V6" in v6
    storage = _block(text, "router bgp 64500 vrf storage")
    assert "import vrf" not in storage  # internet: none, no public prefix: no leak either way
    default = _block(text, "router bgp 64500")
    # only gpu-a exports (public prefixes); storage and gpu-a-mgmt have none
    assert "  import vrf gpu-a\n  import vrf route-map RM-LEAK-GPU-A-TO-DEFAULT-V4" in default
    assert "  import vrf gpu-a\n  import vrf route-map RM-LEAK-GPU-A-TO-DEFAULT-V6" in default
    assert "import vrf storage" not in default and "import vrf gpu-a-mgmt" not in default
    policy = FrrPolicy(text)
    assert policy.run("RM-LEAK-GPU-A-FROM-DEFAULT-V4", "0.0.0.0/0", "64501")[0] == "permit"
    assert policy.run("RM-LEAK-GPU-A-FROM-DEFAULT-V4", "1.1.1.0/24", "64501")[0] == "deny"
    assert policy.run("RM-LEAK-GPU-A-TO-DEFAULT-V4", "198.51.100.128/26", "")[0] == "permit"
    assert policy.run("RM-LEAK-GPU-A-TO-DEFAULT-V4", "10.50.1.0/24", "")[0] == "deny"


def test_border_pair_ibgp_sends_itself_as_next_hop() -> None:
    text = render_frr(models()["aus1-br1"])
    assert " neighbor 10.1.1.1 remote-as 64500" in text  # iBGP: the pair's one ASN
    default = _block(text, "router bgp 64500")
    assert "  neighbor 10.1.1.1 next-hop-self" in default
    assert "  neighbor 2001:db8:0:1000::103 next-hop-self" in default
    assert "  neighbor 192.0.2.0 next-hop-self" not in default


def _community_lines(text: str, address: str) -> list[str]:
    return [x.strip() for x in text.splitlines() if f"neighbor {address} send-community" in x]


def test_the_twin_sends_the_communities_the_device_itself_sends() -> None:
    """FRR sends every community kind unless told not to; the devices do not. The IOS-XR
    border sends none to an eBGP neighbour (its gpu-a handoff to aus1-bl1) and every kind to
    the other border over iBGP (10.1.1.1); EOS and NX-OS send only the kinds a session's
    `send-community` names (none on a handoff or underlay session); NVUE, like FRR, every
    kind. So the twin drops a tag where the device would."""
    unsent = [
        "no neighbor {a} send-community standard",
        "no neighbor {a} send-community extended",
        "no neighbor {a} send-community large",
    ]
    br1 = render_frr(models()["aus1-br1"])
    gpu_a = _block(br1, "router bgp 64500 vrf gpu-a")
    for address in ("10.1.21.0", "2001:db8:0:1000::1500"):
        assert _community_lines(gpu_a, address) == [u.format(a=address) for u in unsent]
    assert _community_lines(br1, "10.1.1.1") == []
    bl1 = render_frr(models()["aus1-bl1"])  # EOS: its gpu-a handoff session to aus1-br1
    handoff = _block(bl1, "router bgp 4200000021 vrf gpu-a")
    assert _community_lines(handoff, "10.1.21.1") == [u.format(a="10.1.21.1") for u in unsent]
    assert "send-community" not in render_frr(models()["aus1-lf1"])  # NVUE


def _evpn_family(text: str) -> str:
    block = text[text.index(" address-family l2vpn evpn\n") :]
    return block[: block.index(" exit-address-family\n")]


def test_the_twin_overlay_sessions_send_the_communities_the_device_sends() -> None:
    """The EVPN sessions too: an NX-OS leaf sends standard and extended communities to its
    spines (no verified form for large ones, docs/syntax.md#nxos-evpn), so its twin strips
    the large ones on the way out, by a map of its own, FRR 8.4 having no `send-community`
    in the EVPN family; the EOS spines and border leaves send all three and NVUE every kind,
    so theirs have no such map."""
    lf3 = render_frr(models()["aus1-lf3"])
    assert [x.strip() for x in _evpn_family(lf3).splitlines() if "route-map" in x] == [
        f"neighbor 10.0.0.{n} route-map TWIN-UNSENT-LARGE out" for n in (11, 12, 13, 14)
    ]
    assert (
        lf3.count("route-map TWIN-UNSENT-LARGE permit 10\n set large-community none\nexit\n") == 1
    )
    for device in ("aus1-sp1", "aus1-bl1", "aus1-lf1"):
        assert "TWIN-UNSENT" not in render_frr(models()[device]), device


def _two_exporting_vrfs() -> DeviceModel:
    """aus1-br1 with storage (online again) exporting its (imagined) public prefixes as well."""
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(EXAMPLE, Path(tmp) / "intent")
        private_vrfs_online(Path(tmp))
        br1 = device_models(lint(Path(tmp) / "intent"))["aus1-br1"]
    vrfs = tuple(
        v.model_copy(
            update={
                "leaks": tuple(
                    leak.model_copy(update={"export_to_default": "RM-LEAK-GPU-A-TO-DEFAULT-V4"})
                    for leak in v.leaks
                )
            }
        )
        if v.name == "storage"
        else v
        for v in br1.vrfs
    )
    return br1.model_copy(update={"vrfs": vrfs})


@needs_vtysh
def test_several_exporting_vrfs_share_one_import_map_by_source_vrf(tmp_path: Path) -> None:
    text = render_frr(_two_exporting_vrfs())
    default = _block(text, "router bgp 64500")
    assert "  import vrf gpu-a\n  import vrf storage\n" in default
    assert "  import vrf route-map TWIN-LEAK-TO-DEFAULT-V4" in default
    assert "  import vrf route-map RM-LEAK-GPU-A-TO-DEFAULT-V6" in default  # v6: gpu-a only
    assert (
        "route-map TWIN-LEAK-TO-DEFAULT-V4 permit 10\n match source-vrf gpu-a\n"
        " call RM-LEAK-GPU-A-TO-DEFAULT-V4\nexit\n!\n"
        "route-map TWIN-LEAK-TO-DEFAULT-V4 permit 20\n match source-vrf storage\n"
        " call RM-LEAK-GPU-A-TO-DEFAULT-V4\nexit"
    ) in text
    done = frr_parse(text, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_vtep_svis_hold_the_anycast_gateway_and_are_advertised_as_type5() -> None:
    nvue = render_frr(models()["aus1-lf1"])
    assert (
        "interface vlan101 vrf gpu-a\n"
        " description vlan101: gpu-tenant-a gpu-a-compute-1 anycast gateway\n"
        " ip address 10.50.1.254/24\n ipv6 address 2001:db8:50:1:ffff:ffff:ffff:ffff/64\n"
        " ip address 10.50.1.1/24\n ipv6 address 2001:db8:50:1::1/64\nexit"
    ) in nvue
    assert "  redistribute connected\n" in _block(nvue, "router bgp 4200000101 vrf gpu-a")
    nxos = render_frr(models()["aus1-lf3"])
    assert " ip address 198.51.100.129/26\n" in nxos  # one address: the anycast gateway
    assert "  redistribute connected route-map RM-EVPN-CONNECTED" in nxos
    spine = render_frr(models()["aus1-sp1"])
    assert "redistribute connected" not in spine


def test_transit_export_in_frr_text_sends_only_our_aggregate() -> None:
    policy = FrrPolicy(render_frr(models()["aus1-br1"]))
    assert policy.run("RM-TRANSIT-TRANSIT-A-OUT-V4", "198.51.100.0/24", "")[0] == "permit"
    assert policy.run("RM-TRANSIT-TRANSIT-A-OUT-V4", "10.0.0.1/32", "")[0] == "deny"
    assert policy.run("RM-TRANSIT-TRANSIT-A-OUT-V4", "1.1.1.0/24", "64502 13335")[0] == "deny"


def test_edge_sessions_carry_limits_gtsm_and_route_server_exceptions() -> None:
    lines = render_frr(models()["aus1-br1"]).splitlines()
    assert "  neighbor 192.0.2.0 maximum-prefix 1500000 80" in lines
    assert "  neighbor 203.0.113.50 maximum-prefix 1200 80" in lines
    assert " neighbor 203.0.113.50 ttl-security hops 1" in lines  # GTSM toward content-a
    assert " no neighbor 203.0.113.1 enforce-first-as" in lines  # a route server (RFC 7947)
    assert " neighbor 192.0.2.0 ttl-security hops 1" not in lines
    assert "ip route 198.51.100.0/24 blackhole" in lines  # the aggregate's anchor


def test_tenant_vrf_with_cloud_session_and_evpn_type5() -> None:
    text = render_frr(models()["aus1-bl5"])
    assert "vrf gpu-a\n vni 50001\n ip route 10.50.0.0/16 blackhole\nexit-vrf" in text
    block = text[text.index("router bgp 4200000025 vrf gpu-a") :]
    block = block[: block.index("\nexit\n")]
    assert "  network 10.50.0.0/16" in block
    assert " neighbor 169.254.20.1 remote-as 16550" in block
    assert "  route-target import 65000:50001" in block
    assert "  advertise ipv4 unicast" in block
    assert "interface swp9.301 vrf gpu-a" in text


def test_spine_keeps_the_vtep_next_hop_and_leaf_advertises_its_vnis() -> None:
    spine = render_frr(models()["aus1-sp1"]).splitlines()
    assert "  neighbor 10.0.0.101 attribute-unchanged next-hop" in spine
    assert "  advertise-all-vni" not in spine
    leaf = render_frr(models()["aus1-lf1"]).splitlines()
    assert "  advertise-all-vni" in leaf
    assert " neighbor 10.0.0.11 ebgp-multihop 3" in leaf
    assert " neighbor 10.0.0.11 update-source 10.0.0.101" in leaf


def test_frr_is_no_platform_a_user_can_select() -> None:
    assert "frr" not in PLATFORMS


@pytest.mark.parametrize(
    ("name", "linux"),
    [
        ("FourHundredGigE0/0/0/23", "fh0-0-0-23"),
        ("HundredGigE0/0/0/8.3101", "hu0-0-0-8.3101"),  # 14 characters
        ("Ethernet14/1.3110", "e14-1.3110"),
        ("swp61", "swp61"),
        ("peerlink.4094", "peerlink.4094"),
        ("HundredGigE0/0/0/10.3101", "hu0-0-0-10.3101"),  # exactly 15: kept
    ],
)
def test_linux_names(name: str, linux: str) -> None:
    assert linux_name(name) == linux


def test_linux_name_past_the_limit_is_a_stable_digest() -> None:
    long = "HundredGigE0/0/0/10.31010"  # 16 characters once shortened: one too many
    first = linux_name(long)
    assert len(first) == IFNAMSIZ and first.startswith("i") and first == linux_name(long)
    assert linux_name("HundredGigE0/0/0/10.31011") != first


def test_every_example_interface_has_a_unique_linux_name() -> None:
    for model in models().values():
        names = [linux_name(i.name) for i in model.interfaces]
        assert len(set(names)) == len(names), model.hostname
        assert all(len(n) <= IFNAMSIZ for n in names)


def test_namespace_names() -> None:
    assert namespace("aus1", "br1") == "mm-aus1-br1"
    assert namespace("aus1", "x-ix-syd/rs1") == "mm-aus1-x-ix-syd-rs1"
    long = namespace("aus1", "x" * 80)
    assert long.startswith("mm-aus1-xxx") and len(long) == 48


@pytest.mark.parametrize(
    ("given", "prefix"),
    [
        ("mt-", "mt-"),
        ("ab-", "ab-"),  # 2 characters: the shortest kept
        ("abcdef-", "abcdef-"),  # 6: the longest kept
        ("abcdefg-", "mm-"),  # 7: past the limit, the default
        ("a-", "mm-"),  # 1: too short
        ("MT-", "mm-"),  # not lower case
        ("mt", "mm-"),  # no dash
    ],
)
def test_namespace_prefix_from_the_environment(
    given: str, prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEETME_TWIN_PREFIX", given)
    assert names._prefix() == prefix


def test_bfd_profiles_of_the_model_with_stretched_intervals() -> None:
    text = render_frr(models()["aus1-bl5"], bfd=True)
    assert (
        "bfd\n"
        " profile BFD-1000MS-X5\n  detect-multiplier 5\n"
        f"  receive-interval {1000 * BFD_STRETCH}\n  transmit-interval {1000 * BFD_STRETCH}\n"
        " exit\n !\n"
        " profile BFD-UNDERLAY\n  detect-multiplier 3\n"
        f"  receive-interval {300 * BFD_STRETCH}\n  transmit-interval {300 * BFD_STRETCH}\n"
        " exit\n !\nexit"
    ) in text
    assert " neighbor 169.254.20.1 bfd profile BFD-1000MS-X5" in text  # Google's timers
    assert " neighbor 10.0.0.11 bfd profile BFD-UNDERLAY" in text  # EVPN, multihop
    # the IX sessions run no BFD in the model, nor here
    br1 = render_frr(models()["aus1-br1"], bfd=True)
    assert " neighbor 192.0.2.0 bfd profile BFD-300MS-X3" in br1
    assert "neighbor 203.0.113.1 bfd" not in br1
    # without `up --bfd` no BFD at all
    assert "bfd" not in render_frr(models()["aus1-bl5"])


@needs_vtysh
def test_frr_accepts_the_bfd_configuration(tmp_path: Path) -> None:
    for device in ("aus1-bl5", "aus1-br1", "aus1-lf1"):
        done = frr_parse(render_frr(models()[device], bfd=True), tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr


def test_an_nxos_device_drops_long_paths_with_a_filter_list_in_the_twin() -> None:
    """NX-OS drops long AS paths with `maxas-limit` in each VRF of an external session (the
    model's Bgp.drop_as_path_length, EDGE-013); FRR has no such limit, so the twin gives every
    eBGP session of that VRF an AS-path filter list denying the length, before its route map.
    aus1-bl3 (NX-OS) holds its Azure sessions in VRF storage: those get it, the default VRF's
    underlay sessions do not."""
    bl3 = models()["aus1-bl3"]
    assert [(d.vrf, d.length) for d in bl3.bgp.drop_as_path_length] == [("storage", 100)]
    text = render_frr(bl3)
    assert (
        "bgp as-path access-list TWIN-MAXAS-100 deny ([0-9]+[^0-9]+){99}[0-9]+\n"
        "bgp as-path access-list TWIN-MAXAS-100 permit .*\n"
    ) in text
    storage = _block(text, "router bgp 4200000023 vrf storage")
    external = [n for n in bl3.bgp.in_vrf("storage") if n.external]
    assert external
    for n in external:
        assert f"  neighbor {n.address} filter-list TWIN-MAXAS-100 in\n" in storage + "\n"
    assert text.count("filter-list TWIN-MAXAS-100 in") == len(external)

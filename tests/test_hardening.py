"""Issue 11 items 3-4 (edge, handoff, management): the rendered text read back, with hand-written
expected lines. Cisco-style files through ciscoconfparse2, NVUE through its YAML tree."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from ciscoconfparse2 import CiscoConfParse
from conftest import EXAMPLE_INTENT
from meetme.generators.build.handoff import admitted
from meetme.generators.model import DeviceModel, PrefixList, PrefixListEntry
from meetme.generators.render import output_name
from meetme.validators.config_lint import hardening

from meetme.pipeline import device_models, lint, render_all

Rendered = tuple[dict[str, DeviceModel], dict[str, str]]


@pytest.fixture(scope="module")
def rendered() -> Rendered:
    result = lint(EXAMPLE_INTENT)
    assert result.errors == []
    models = device_models(result)
    return models, render_all(models)


def text(rendered: Rendered, name: str) -> str:
    models, files = rendered
    return files[output_name(models[name])]


def parse(config: str, syntax: str) -> Any:
    return CiscoConfParse(config.splitlines(), syntax=syntax)


def children(conf: Any, parent: str) -> list[str]:
    """The lines under the first top-level line equal to `parent`, stripped, in order."""
    objs = [o for o in conf.objs if o.indent == 0 and o.text.strip() == parent]
    assert objs, f"no `{parent}`"
    return [c.text.strip() for c in objs[0].all_children if c.text.strip() != "!"]


# --- item 1: handoff prefix limit -----------------------------------------------------------


def test_admitted_counts_every_prefix_the_list_permits() -> None:
    north = PrefixList(
        name="N",
        afi="ipv4",
        entries=(PrefixListEntry(seq=10, action="permit", prefix="10.50.0.0/16", le=24),),
    )
    assert admitted(north) == 511  # /16 .. /24: 1 + 2 + ... + 256
    default = PrefixList(
        name="D",
        afi="ipv4",
        entries=(PrefixListEntry(seq=10, action="permit", prefix="0.0.0.0/0"),),
    )
    assert admitted(default) == 1


def test_iosxr_handoff_limit_admits_the_policy_and_restarts(rendered: Rendered) -> None:
    conf = parse(text(rendered, "aus1-br1"), "iosxr")
    bgp = children(conf, "router bgp 64500")
    # the tenant VRF's sessions: at least the 511 prefixes 10.50.0.0/16 le 24 admits, retried
    assert "maximum-prefix 511 80 restart 5" in bgp
    assert "maximum-prefix 10 80" not in bgp


def test_eos_leaf_handoff_limit_unchanged_without_restart(rendered: Rendered) -> None:
    # the border leaf accepts only a default route: 10 is already more; EOS has no restart form
    config = text(rendered, "aus1-bl1")
    assert "maximum-routes 10 warning-limit 80 percent" in config
    assert "restart" not in "\n".join(
        line for line in config.splitlines() if "maximum-routes" in line
    )


# --- item 2: management services in the management VRF --------------------------------------


def test_eos_ssh_and_eapi_only_in_the_management_vrf(rendered: Rendered) -> None:
    conf = parse(text(rendered, "aus1-bl1"), "ios")
    assert children(conf, "management ssh") == [
        "vrf default",
        "shutdown",
        "vrf MGMT",
        "no shutdown",
    ]
    assert children(conf, "management api http-commands") == [
        "no shutdown",
        "vrf default",
        "shutdown",
        "vrf MGMT",
        "no shutdown",
    ]


def test_nvue_ssh_and_api_bound_to_management(rendered: Rendered) -> None:
    tree = yaml.safe_load(text(rendered, "aus1-bl5"))
    system = tree[0]["set"]["system"]
    assert system["ssh-server"] == {"vrf": {"mgmt": {}}}
    assert system["api"] == {"state": "enabled", "listening-address": {"192.168.10.35": {}}}


def test_iosxr_and_nxos_apis_in_the_management_vrf(rendered: Rendered) -> None:
    xr = text(rendered, "aus1-br1").splitlines()
    assert "ssh server vrf MGMT" in xr and "ssh server netconf vrf MGMT" in xr
    assert "nxapi use-vrf management" in text(rendered, "aus1-bl3").splitlines()


# --- item 3: EOS AAA ------------------------------------------------------------------------


def test_eos_roles_are_enforced(rendered: Rendered) -> None:
    lines = text(rendered, "aus1-sp1").splitlines()
    assert "aaa authorization exec default local" in lines
    assert "aaa authorization commands all default local" in lines


# --- item 4: uRPF on external ports ---------------------------------------------------------


def test_iosxr_transit_port_checks_both_families(rendered: Rendered) -> None:
    models, _ = rendered
    conf = parse(text(rendered, "aus1-br1"), "iosxr")
    ports = hardening.external_ports(models["aus1-br1"])
    assert ports
    for port in ports:
        lines = children(conf, f"interface {port.name}")
        if port.ipv4:
            assert "ipv4 verify unicast source reachable-via any" in lines
        if port.ipv6:
            assert "ipv6 verify unicast source reachable-via any" in lines


def test_eos_and_nxos_cloud_subinterfaces_check_sources(rendered: Rendered) -> None:
    eos = parse(text(rendered, "aus1-bl1"), "ios")
    nxos = parse(text(rendered, "aus1-bl3"), "nxos")
    eos_ports = hardening.external_ports(rendered[0]["aus1-bl1"])
    nxos_ports = hardening.external_ports(rendered[0]["aus1-bl3"])
    assert eos_ports and nxos_ports
    for port in eos_ports:
        assert "ip verify unicast source reachable-via any" in children(
            eos, f"interface {port.name}"
        )
    for port in nxos_ports:
        assert "ip verify unicast source reachable-via any" in children(
            nxos, f"interface {port.name}"
        )


# --- item 5: CFG-010 / CFG-011 on the rendered text -----------------------------------------


def test_config_lint_passes_the_example(rendered: Rendered) -> None:
    models, _ = rendered
    for name, model in models.items():
        assert hardening.check(model, text(rendered, name)) == [], name


def test_cfg010_fails_an_eos_ssh_open_in_the_default_vrf(rendered: Rendered) -> None:
    model = rendered[0]["aus1-sp1"]
    broken = text(rendered, "aus1-sp1").replace("   vrf default\n      shutdown\n", "", 1)
    rules = [hit[0] for hit in hardening.check(model, broken)]
    assert rules == ["CFG-010"]


def test_cfg010_fails_nvue_api_on_every_address(rendered: Rendered) -> None:
    model = rendered[0]["aus1-lf1"]
    broken = text(rendered, "aus1-lf1").replace("        listening-address:\n", "", 1)
    broken = broken.replace("          '192.168.10.101': {}\n", "", 1)
    assert [hit[0] for hit in hardening.check(model, broken)] == ["CFG-010"]


def test_cfg011_fails_a_transit_port_without_urpf(rendered: Rendered) -> None:
    model = rendered[0]["aus1-br1"]
    broken = text(rendered, "aus1-br1").replace(
        " ipv4 verify unicast source reachable-via any\n", "", 1
    )
    assert [hit[0] for hit in hardening.check(model, broken)] == ["CFG-011"]


def test_nxos_ssh_takes_sessions_from_the_management_clients_only(rendered: Rendered) -> None:
    """NX-OS SSH cannot be bound to the management VRF: the VTY lines accept only the
    management clients (by default the device's management subnet), and IPv6, with no client,
    from nobody: the device answers SSH on its IPv6 loopback and tenant gateways too."""
    conf = parse(text(rendered, "aus1-bl3"), "nxos")
    assert children(conf, "ip access-list ACL-MGMT-VTY-V4") == [
        "10 permit ip 192.168.10.0/24 any",
        "20 deny ip any any",
    ]
    assert children(conf, "ipv6 access-list ACL-MGMT-VTY-V6") == ["10 deny ipv6 any any"]
    assert children(conf, "line vty") == [
        "access-class ACL-MGMT-VTY-V4 in",
        "ipv6 access-class ACL-MGMT-VTY-V6 in",
    ]


@pytest.mark.parametrize(
    ("applied", "opened", "acl_message"),
    [
        (  # IPv4, the management subnet's family; an ACL letting a second network in
            "access-class ACL-MGMT-VTY-V4 in",
            ("  20 deny ip any any\n", "  20 permit ip 0.0.0.0/0 any\n  30 deny ip any any\n"),
            "ip access-list ACL-MGMT-VTY-V4 does not permit exactly the management clients "
            "(192.168.10.0/24) and deny the rest",
        ),
        (  # IPv6, with no client: filtered still, or SSH over IPv6 answers every source
            "ipv6 access-class ACL-MGMT-VTY-V6 in",
            ("  10 deny ipv6 any any\n", "  10 permit ipv6 any any\n"),
            "ipv6 access-list ACL-MGMT-VTY-V6 does not permit exactly the management clients "
            "(none) and deny the rest",
        ),
    ],
)
def test_cfg010_fails_nxos_vty_lines_open_to_everyone(
    rendered: Rendered, applied: str, opened: tuple[str, str], acl_message: str
) -> None:
    models, _ = rendered
    model = models["aus1-lf3"]
    broken = text(rendered, "aus1-lf3").replace(f"  {applied}\n", "")
    hits = hardening.check(model, broken)
    assert [hit[0] for hit in hits] == ["CFG-010"]
    assert f"`line vty` / `{applied}` is missing" in hits[0][1]
    wider = text(rendered, "aus1-lf3").replace(*opened)
    assert [hit[1] for hit in hardening.check(model, wider)] == [acl_message]


def _with_clients(tmp_path: Any, clients: str) -> Any:
    """A copy of the example intent whose aus1 management lists `clients`."""
    import shutil

    intent = tmp_path / "intent"
    shutil.copytree(EXAMPLE_INTENT, intent)
    site = intent / "aus1/site.yaml"
    site.write_text(
        site.read_text().replace(
            "      gateway: 192.168.10.1\n",
            f"      gateway: 192.168.10.1\n      clients: [{clients}]\n",
        )
    )
    return intent


def test_declared_management_clients_replace_the_subnet(tmp_path: Any) -> None:
    intent = _with_clients(tmp_path, '10.255.0.0/24, "2001:db8:ffff::/64"')
    result = lint(intent)
    models = device_models(result)
    assert models["aus1-lf3"].management.clients == ("10.255.0.0/24", "2001:db8:ffff::/64")
    config = render_all({"aus1-lf3": models["aus1-lf3"]})["aus1/aus1-lf3.cfg"]
    conf = parse(config, "nxos")
    assert children(conf, "ipv6 access-list ACL-MGMT-VTY-V6") == [
        "10 permit ipv6 2001:db8:ffff::/64 any",
        "20 deny ipv6 any any",
    ]
    assert children(conf, "line vty") == [
        "access-class ACL-MGMT-VTY-V4 in",
        "ipv6 access-class ACL-MGMT-VTY-V6 in",
    ]


@pytest.mark.parametrize(
    ("written", "advice"),
    [
        ("192.168.30.10", "192.168.30.10/32"),  # a jump host: a /24 would have host bits set
        ('"2001:db8:30::10"', "2001:db8:30::10/128"),
        ("10.255.0.0", "10.255.0.0/24"),  # a network's first address: a subnet is likely
    ],
)
def test_a_management_client_without_a_length_is_told_the_length_that_fits(
    tmp_path: Any, written: str, advice: str
) -> None:
    """Management sessions come from jump hosts and automation: an address written without a
    length is shown the host's own prefix, never a /24 that opens the VTY lines to a subnet
    (and that the same address with host bits would not take anyway)."""
    from meetme.core.problems import IntentError

    intent = _with_clients(tmp_path, written)
    with pytest.raises(IntentError) as caught:
        lint(intent)
    (problem,) = caught.value.problems
    assert problem.message.endswith(f"write the prefix as address/length, e.g. {advice}")

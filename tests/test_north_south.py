"""North-south, the cloud part: each cloud attachment serves a tenant VRF on its border leaves,
which originate its agreed prefixes there; FLOW-001/002 follow the routes on the device models
(docs/standards.md#flow-001, docs/architecture.md#north-south)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from ciscoconfparse2 import CiscoConfParse
from conftest import findings_of, line_of, lint_repo, replace_in
from meetme.generators.model import RouteMap
from meetme.validators.rules.flow import flow_findings
from typer.testing import CliRunner

from meetme.cli import app
from meetme.pipeline import device_models

CLOUDS = "intent/aus1/clouds.yaml"
runner = CliRunner()


def _lint_exit(example: Path) -> tuple[int, str]:
    result = runner.invoke(app, ["lint"])
    return result.exit_code, result.output


def test_the_example_sends_every_cloud_its_prefixes_from_the_vrf_it_serves(example: Path) -> None:
    result = lint_repo(example)
    assert not [f for f in result.findings if f.rule.startswith("FLOW-")]
    models = device_models(result)
    wanted = {
        "aus1-bl1": {"gpu-a": "10.50.0.0/16", "storage": "10.60.0.0/16"},
        "aus1-bl3": {"storage": "10.60.0.0/16"},
        "aus1-bl5": {"gpu-a": "10.50.0.0/16"},
    }
    for name, vrfs in wanted.items():
        model = models[name]
        assert model.evpn is not None
        by_name = {v.name: v for v in model.evpn.vrfs}
        for vrf, prefix in vrfs.items():
            assert by_name[vrf].networks_v4 == (prefix,), (name, vrf)
            anchors = [(r.vrf, r.prefix) for r in model.static_routes if r.discard]
            assert (vrf, prefix) in anchors, (name, vrf)
        clouds = [n for n in model.bgp.neighbors if n.kind in ("aws", "azure", "gcp")]
        assert clouds and all(n.vrf in vrfs for n in clouds), name
        # the cloud sub-interfaces sit in the VRF too
        for n in clouds:
            (sub,) = [i for i in model.interfaces if i.name == n.local_interface]
            assert sub.vrf == n.vrf, (name, sub.name)
        # nothing cloud-bound is left in the default VRF
        assert not [n for n in model.bgp.default_vrf_neighbors if n.kind in ("aws", "azure", "gcp")]


def test_rendered_cloud_sessions_sit_in_the_vrf_blocks(example: Path) -> None:
    assert runner.invoke(app, ["render"]).exit_code == 0
    out = example / "rendered/aus1"
    eos = CiscoConfParse((out / "aus1-bl1.cfg").read_text().splitlines(), syntax="ios")
    (bgp,) = eos.find_objects(r"^router bgp ")
    (vrf,) = [c for c in bgp.children if c.text == "   vrf gpu-a"]
    lines = [c.text.strip() for c in vrf.all_children]
    assert "neighbor 169.254.10.2 remote-as 64512" in lines
    assert "neighbor 169.254.10.2 activate" in lines and "network 10.50.0.0/16" in lines
    assert not [c for c in bgp.children if c.text.startswith("   neighbor 169.254.10.2 ")]
    assert eos.find_objects(r"^ip route vrf gpu-a 10\.50\.0\.0/16 Null0$")
    (sub,) = eos.find_objects(r"^interface Ethernet\S+\.101$")
    assert "vrf gpu-a" in [c.text.strip() for c in sub.children]

    nxos = CiscoConfParse((out / "aus1-bl3.cfg").read_text().splitlines(), syntax="nxos")
    (context,) = nxos.find_objects(r"^vrf context storage$")
    assert "ip route 10.60.0.0/16 Null0" in [c.text.strip() for c in context.children]
    (bgp,) = nxos.find_objects(r"^router bgp ")
    (vrf,) = [c for c in bgp.children if c.text == "  vrf storage"]
    (neighbor,) = [c for c in vrf.children if c.text == "    neighbor 172.16.0.2"]
    text = [c.text.strip() for c in neighbor.all_children]
    assert "remote-as 12076" in text and "route-map RM-AZURE-ER-SYD-PRIVATE-OUT-V4 out" in text
    (v4,) = [c for c in vrf.children if c.text == "    address-family ipv4 unicast"]
    assert "network 10.60.0.0/16" in [c.text.strip() for c in v4.children]
    assert not [c for c in bgp.children if c.text == "  neighbor 172.16.0.2"]
    (sub,) = nxos.find_objects(r"^interface Ethernet\S+\.200$")
    assert "vrf member storage" in [c.text.strip() for c in sub.children]

    tree = yaml.safe_load((out / "aus1-bl5.yaml").read_text())
    sets = {k: v for item in tree for k, v in item.items()}["set"]
    gpu = sets["vrf"]["gpu-a"]["router"]
    assert set(gpu["bgp"]["neighbor"]) == {"169.254.20.1", "169.254.21.1"}
    assert gpu["bgp"]["address-family"]["ipv4-unicast"]["network"] == {"10.50.0.0/16": {}}
    assert gpu["static"] == {
        "10.50.0.0/16": {"address-family": "ipv4-unicast", "via": {"blackhole": {}}}
    }
    assert not {"169.254.20.1", "169.254.21.1"} & set(
        sets["vrf"]["default"]["router"]["bgp"]["neighbor"]
    )


def test_yesterdays_clouds_without_a_vrf_fail_flow001(example: Path) -> None:
    """The example as it was before this change: every cloud session in the default VRF, so
    nothing it exports is originated there."""
    clouds = example / CLOUDS
    text = re.sub(r"(vrf: [a-z-]+, )|(\n +vrf: [a-z-]+)", "", clouds.read_text())
    clouds.write_text(text)
    found = findings_of(lint_repo(example), "FLOW-001")
    assert len(found) == 10  # 4 AWS, 2 Azure, 4 Google sessions
    assert all("nothing originates" in f and "VRF default" in f for f in found)
    code, output = _lint_exit(example)
    assert code == 1 and "FLOW-001" in output


def test_variant_aws_vif_without_vrf(example: Path) -> None:
    clouds = example / CLOUDS
    replace_in(clouds, "private-1: {type: private, vrf: gpu-a, ", "private-1: {type: private, ")
    line = line_of(clouds, "private-1:")
    assert findings_of(lint_repo(example), "FLOW-001") == [
        f"{CLOUDS}:{line}: VRF default, aus1-bl1: the session to 169.254.10.2 (aws "
        "aws-syd/private-1 XC-AWS-1) exports 10.50.0.0/16, which nothing originates in VRF "
        "default on aus1-bl1 (no aggregate with a discard anchor, no SVI subnet); the route "
        "stops at aus1-bl1: name the tenant VRF it serves (vrf: NAME), whose subnets the "
        "prefix covers"
    ]
    code, output = _lint_exit(example)
    assert code == 1 and f"{line}:" in output and "FLOW-001" in output


def test_variant_azure_peering_without_vrf(example: Path) -> None:
    clouds = example / CLOUDS
    replace_in(clouds, "              vrf: storage\n", "")
    line = line_of(clouds, "            private:")
    found = findings_of(lint_repo(example), "FLOW-001")
    assert [f.split(" VRF default, ")[0] for f in found] == [f"{CLOUDS}:{line}:"] * 2
    assert "aus1-bl3" in found[0] and "aus1-bl4" in found[1]
    assert _lint_exit(example)[0] == 1


def test_variant_exported_prefix_nothing_originates(example: Path) -> None:
    """A Google attachment asked to advertise space the VRF holds none of: not originated."""
    clouds = example / CLOUDS
    replace_in(
        clouds,
        "availability-domain-1, advertise: [10.50.0.0/16]}",
        "availability-domain-1, advertise: [10.99.0.0/16]}",
    )
    line = line_of(clouds, "syd-ead1:")
    assert findings_of(lint_repo(example), "FLOW-001") == [
        f"{CLOUDS}:{line}: VRF gpu-a, aus1-bl5: the session to 169.254.20.1 (gcp "
        "gcp-ic/syd-ead1 XC-GCP-1) exports 10.99.0.0/16, which nothing originates in VRF "
        "gpu-a on aus1-bl5 (no aggregate with a discard anchor, no SVI subnet); the route "
        "stops at aus1-bl5: advertise only prefixes that hold subnets of VRF gpu-a"
    ]
    assert _lint_exit(example)[0] == 1


def test_a_session_in_a_vrf_its_device_does_not_carry_is_flow002(example: Path) -> None:
    """The builder places every VRF a session asks for; FLOW-002 guards that on the models (an
    intent that leaves a VRF unplaceable, e.g. without an L3VNI, already fails EVPN-005 and
    never reaches the models). Here the border leaf loses VRF gpu-a: the Google sessions in it
    are reported at the attachment's line."""
    result = lint_repo(example)
    model = device_models(result)["aus1-bl5"]
    assert model.evpn is not None
    evpn = model.evpn.model_copy(
        update={"vrfs": tuple(v for v in model.evpn.vrfs if v.name != "gpu-a")}
    )
    found = flow_findings(result.loaded, result.fabrics, [model.model_copy(update={"evpn": evpn})])
    flow002 = sorted((f.location.line, f.message) for f in found if f.rule == "FLOW-002")
    clouds = example / CLOUDS
    assert [line for line, _ in flow002] == [
        line_of(clouds, "syd-ead1:"),
        line_of(clouds, "mel-ead1:"),
    ]
    assert flow002[0][1] == (
        "VRF gpu-a, aus1-bl5: the session to 169.254.20.1 (gcp gcp-ic/syd-ead1 XC-GCP-1) sits "
        "in VRF gpu-a, which aus1-bl5 does not carry (a tenant VRF without an L3VNI is placed "
        "only where its networks are); the route stops at aus1-bl5: give the VRF an l3vni or "
        "serve another VRF"
    )
    # and what it exported is no longer originated anywhere on the device
    assert {f.rule for f in found} == {"FLOW-001", "FLOW-002"}


def test_an_export_policy_that_denies_the_prefix_is_named(example: Path) -> None:
    result = lint_repo(example)
    models = device_models(result)
    model = models["aus1-bl1"]
    name = "RM-AWS-AWS-SYD-PRIVATE-1-OUT-V4"
    maps = [
        RouteMap(name=m.name, afi=m.afi, entries=m.entries[:1]) if m.name == name else m
        for m in model.route_maps
    ]
    broken = model.model_copy(update={"route_maps": tuple(maps)})
    (finding,) = flow_findings(result.loaded, result.fabrics, [broken])
    assert finding.rule == "FLOW-001"
    assert f"its export policy {name} denies it at no clause matches it" in finding.message
    assert "VRF gpu-a, aus1-bl1" in finding.message


def test_a_public_attachment_names_no_vrf(example: Path) -> None:
    replace_in(
        example / CLOUDS,
        "private-1: {type: private, vrf: gpu-a, ",
        "private-1: {type: public, vrf: gpu-a, ",
    )
    result = runner.invoke(app, ["lint"])
    assert result.exit_code == 2
    assert "carries public prefixes in the default VRF: remove vrf: gpu-a" in result.output


def test_an_unknown_vrf_is_a_dangling_reference(example: Path) -> None:
    replace_in(example / CLOUDS, "type: private, vrf: gpu-a,", "type: private, vrf: gpu-b,")
    result = runner.invoke(app, ["lint"])
    assert result.exit_code == 2
    assert "gpu-b" in result.output


def test_a_tenant_anchor_sits_in_its_vrf_only() -> None:
    """The discard route anchoring what gpu-a sends Google is in VRF gpu-a on the NVUE border
    leaf, and nowhere in VRF default (the underlay), where it would black-hole the fabric's own
    view of 10.50/16."""
    tree = yaml.safe_load(
        (Path(__file__).parent.parent / "rendered/aus1/aus1-bl5.yaml").read_text()
    )
    vrfs = tree[0]["set"]["vrf"]
    assert "static" not in vrfs["default"]["router"]
    assert vrfs["gpu-a"]["router"]["static"] == {
        "10.50.0.0/16": {"address-family": "ipv4-unicast", "via": {"blackhole": {}}}
    }

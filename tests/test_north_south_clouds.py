"""North-south, what the clouds send: each attachment's `receive:` prefixes are its import
allow-list and are promised to every leaf of the VRF it serves (docs/standards.md#flow-006)."""

from __future__ import annotations

from pathlib import Path

from ciscoconfparse2 import CiscoConfParse
from conftest import findings_of, line_of, lint_repo, replace_in
from meetme.validators.policy_eval import Route, evaluate
from meetme.validators.rules.flow import flow_findings
from typer.testing import CliRunner

from meetme.cli import app
from meetme.pipeline import device_models

CLOUDS = "intent/aus1/clouds.yaml"
runner = CliRunner()
AMAZON = 64512


def _aws_import(models: dict, device: str = "aus1-bl1") -> tuple:
    model = models[device]
    n = next(n for n in model.bgp.in_vrf("gpu-a") if n.kind == "aws")
    return model, n.route_map_in


def test_each_cloud_imports_only_what_is_agreed(example: Path) -> None:
    result = lint_repo(example)
    assert [f.message for f in result.findings if f.rule == "FLOW-006"] == []
    model, policy = _aws_import(device_models(result))
    assert evaluate(model, policy, Route("10.100.0.0/16", as_path=(AMAZON,))).accepted
    assert evaluate(model, policy, Route("10.100.7.0/24", as_path=(AMAZON,))).accepted
    # a range nobody agreed, and our own tenant space sent back, stop at the border leaf
    assert not evaluate(model, policy, Route("10.99.0.0/16", as_path=(AMAZON,))).accepted
    mine = evaluate(model, policy, Route("10.50.1.0/24", as_path=(AMAZON,)))
    assert not mine.accepted and mine.description == "our own address space"


def test_the_allow_list_is_printed_on_eos(example: Path) -> None:
    assert runner.invoke(app, ["render"]).exit_code == 0
    text = (example / "rendered/aus1/aus1-bl1.cfg").read_text()
    parse = CiscoConfParse(text.splitlines(), syntax="ios")
    (plist,) = parse.find_objects(r"^ip prefix-list PL-AWS-SYD-PRIVATE-1-IN-V4$")
    assert [c.text.strip() for c in plist.children] == ["seq 10 permit 10.100.0.0/16 le 32"]


def test_an_agreed_prefix_the_import_drops_is_flow006(example: Path) -> None:
    clouds = example / CLOUDS
    replace_in(clouds, "receive: [10.120.0.0/16]", "receive: [10.120.0.0/16, 0.0.0.0/0]")
    line = line_of(clouds, "syd-ead1:")
    found = [
        f for f in findings_of(lint_repo(example), "FLOW-006") if f.startswith(f"{CLOUDS}:{line}:")
    ]
    assert found == [
        f"{CLOUDS}:{line}: VRF gpu-a, aus1-bl5: the session to 169.254.20.1 (gcp "
        "gcp-ic/syd-ead1 XC-GCP-1) drops the agreed 0.0.0.0/0 at its import policy "
        "RM-GCP-GCP-IC-SYD-EAD1-IN-V4 (clause 20, default route), so the route stops at aus1-bl5"
    ]
    assert runner.invoke(app, ["lint"]).exit_code == 1


def test_a_leaf_with_another_route_target_is_named(example: Path) -> None:
    result = lint_repo(example)
    models = device_models(result)
    lf1 = models["aus1-lf1"]
    assert lf1.evpn is not None
    vrfs = tuple(
        v.model_copy(update={"route_target": "65000:59999"}) if v.name == "gpu-a" else v
        for v in lf1.evpn.vrfs
    )
    models["aus1-lf1"] = lf1.model_copy(update={"evpn": lf1.evpn.model_copy(update={"vrfs": vrfs})})
    found = {
        f.message
        for f in flow_findings(result.loaded, result.fabrics, models.values())
        if f.rule == "FLOW-006" and "10.100.0.0/16" in f.message
    }
    assert found == {
        "VRF gpu-a, aus1-bl1: aus1-lf1 imports VRF gpu-a with route target 65000:59999, "
        "aus1-bl1 exports 65000:50001, so 10.100.0.0/16 stops at aus1-bl1",
        "VRF gpu-a, aus1-bl2: aus1-lf1 imports VRF gpu-a with route target 65000:59999, "
        "aus1-bl2 exports 65000:50001, so 10.100.0.0/16 stops at aus1-bl2",
    }


def test_a_cloud_without_receive_promises_nothing(example: Path) -> None:
    clouds = example / CLOUDS
    text = clouds.read_text()
    clouds.write_text(text.replace(" receive: [10.120.0.0/16],", ""))
    result = lint_repo(example)
    assert findings_of(result, "FLOW-006") == []
    model = device_models(result)["aus1-bl5"]
    n = next(n for n in model.bgp.in_vrf("gpu-a") if n.kind == "gcp")
    # without an allow-list the import filters decide: any other cloud range passes
    assert evaluate(model, n.route_map_in, Route("10.99.0.0/16", as_path=(16550,))).accepted

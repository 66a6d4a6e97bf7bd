"""Pods (issue 13 item 2): a 3-tier site of two pods, built from the example (two_pods.py).

Intent: pods and the pod of a device or link rule side are names the loader checks at the
line they are written; link rules cable each pod's devices to their own pod's only."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import EXAMPLE_INTENT, line_of, lint_repo, replace_in
from meetme.validators.policy_eval import propagate
from two_pods import DEVICES, LINKS, POD_OF, SITE, three_tier, two_pods
from typer.testing import CliRunner

from meetme.cli import app
from meetme.pipeline import device_models, lint


def lint_output(repo: Path) -> tuple[int, str]:
    outcome = CliRunner().invoke(app, ["lint"])
    return outcome.exit_code, outcome.output


# --- intent ----------------------------------------------------------------------------------


def test_unknown_pod_of_a_device_is_a_dangling_name(example: Path) -> None:
    two_pods(example)
    replace_in(example / DEVICES, "pod: hall2", "pod: hall3")
    line = line_of(example / DEVICES, "pod: hall3")
    code, out = lint_output(example)
    assert code == 2
    assert (
        f"{DEVICES}:{line}:14: error[dangling-name]: unknown pod 'hall3'; did you mean "
        "'hall2'? (known: hall1, hall2)"
    ) in out


def test_a_super_spine_in_a_pod_is_refused_at_its_pod(example: Path) -> None:
    two_pods(example)
    replace_in(example / DEVICES, "role: super_spine\n", "role: super_spine\n        pod: hall1\n")
    line = line_of(example / DEVICES, "role: super_spine") + 1
    code, out = lint_output(example)
    assert code == 1  # a finding, so a role change never stops the run (exit 2)
    assert re.search(
        rf"^  {line}:9 +error +TOPO-008 +aus1-ss1 is a super_spine, which belongs to no pod "
        r"\(super-spines and borders join the pods\); only spines, leaves and border leaves "
        "have one: remove pod: hall1$",
        out,
        re.MULTILINE,
    ), out


def test_a_border_in_a_pod_is_refused(example: Path) -> None:
    two_pods(example)
    replace_in(example / DEVICES, "role: border\n", "role: border\n        pod: hall2\n")
    line = line_of(example / DEVICES, "role: border") + 1
    code, out = lint_output(example)
    assert code == 1
    assert re.search(rf"^  {line}:9 +error +TOPO-008 +aus1-br1 is a border, which", out, re.M), out


def test_a_border_leaf_may_join_a_pod(example: Path) -> None:
    two_pods(example)
    replace_in(example / DEVICES, "role: border_leaf\n", "role: border_leaf\n        pod: hall1\n")
    code, out = lint_output(example)
    assert code in (0, 1), out
    assert "error[" not in out


MEL1_DEVICES = "intent/mel1/devices.yaml"


def _errors(repo: Path) -> list[str]:
    return [
        f"{f.rule} {f.location.file}:{f.location.line}:{f.location.column}: {f.message}"
        for f in lint_repo(repo).findings
        if f.severity == "error"
    ]


def _drop_pod(path: Path, device: str) -> int:
    """Remove `device`'s `pod:` line; the line of the device's key."""
    text = path.read_text()
    start = text.index(f"      {device}:\n")
    line = text.index("        pod: ", start)
    path.write_text(text[:line] + text[text.index("\n", line) + 1 :])
    return line_of(path, f"      {device}:")


@pytest.mark.parametrize(
    ("device", "expected"),
    [
        (
            "mel1-sp11",
            "spine mel1-sp11 names no pod, and mel1 has pods (pod1, pod2): a spine's leaf links "
            "and ASN follow its pod, so link rules naming a pod leave it out and any naming none "
            "cable it to every pod's leaves; add pod: pod1",
        ),
        (
            "mel1-lf202",
            "leaf mel1-lf202 names no pod, and mel1 has pods (pod1, pod2): a leaf's uplinks and "
            "EVPN peers follow its pod, so link rules naming a pod leave it out and any naming "
            "none cable it to every pod's spines; add pod: pod2",
        ),
    ],
)
def test_a_spine_or_leaf_of_a_site_with_pods_names_its_pod(
    example: Path, device: str, expected: str
) -> None:
    """mel1's link rules name a pod: a spine without one silently lost its leaf links (lint
    clean), a leaf its uplinks (TOPO-001, 'link it to every spine of mel1'). Now one error at
    the device, naming the pod of its hall; the example as shipped, its border leaves in no
    pod, has none."""
    assert _errors(example) == []
    line = _drop_pod(example / MEL1_DEVICES, device)
    assert _errors(example) == [f"TOPO-009 {MEL1_DEVICES}:{line}:7: {expected}"]


@pytest.mark.parametrize("device", ["aus1-sp1", "aus1-lf3"])
def test_without_a_pod_a_rule_naming_none_cables_across_the_pods_and_is_refused(
    example: Path, device: str
) -> None:
    """The two-pod aus1's leaf-to-spine rule names no pod: a spine or leaf without one was
    silently cabled to every pod's leaves or spines. One error, at the device."""
    two_pods(example)
    line = _drop_pod(example / DEVICES, device)
    errors = _errors(example)
    assert len(errors) == 1 and errors[0].startswith(f"TOPO-009 {DEVICES}:{line}:7: "), errors
    assert errors[0].endswith(f"add pod: {POD_OF[device]}"), errors


def test_a_site_without_pods_needs_none(example: Path) -> None:
    three_tier(example)  # super-spines, no pods: the spines and leaves name none
    assert [e for e in _errors(example) if e.startswith("TOPO-009")] == []


def test_unknown_pod_of_a_link_rule_side(example: Path) -> None:
    two_pods(example)
    replace_in(
        example / LINKS,
        'b: {role: spine, interface: "Ethernet{n}/1", first: 9, peer_id_base: 101}',
        'b: {role: spine, pod: hal2, interface: "Ethernet{n}/1", first: 9, peer_id_base: 101}',
    )
    line = line_of(example / LINKS, "pod: hal2")
    code, out = lint_output(example)
    assert code == 2
    assert (
        f"{LINKS}:{line}:31: error[dangling-name]: unknown pod 'hal2'; did you mean 'hall2'?"
    ) in out


def test_pod_ids_are_unique(example: Path) -> None:
    two_pods(example, pods="      hall1: {id: 1}\n      hall2: {id: 1}\n")
    line = line_of(example / SITE, "hall2: {id: 1}")
    code, out = lint_output(example)
    assert code == 2
    assert (
        f"{SITE}:{line}:19: error[duplicate-name]: pod id 1 is already used by pod 'hall1'"
    ) in out


def _spines_of(repo: Path, leaf: str) -> list[str]:
    fabric = lint_repo(repo).fabrics["aus1"]
    return sorted(
        far.device for _, far, _ in fabric.links_of(leaf) if far.device.startswith("aus1-sp")
    )


def test_a_rule_cables_each_leaf_to_its_own_pods_spines_only(example: Path) -> None:
    two_pods(example)
    assert _spines_of(example, "aus1-lf1") == ["aus1-sp1", "aus1-sp2"]
    assert _spines_of(example, "aus1-lf3") == ["aus1-sp3", "aus1-sp4"]


def test_a_rule_side_selects_the_devices_of_its_pod(example: Path) -> None:
    """pod: hall2 on the spine side of the Cumulus rule: the hall2 Cumulus leaf lf5, moved to
    hall2, reaches sp3/sp4; the hall1 Cumulus leaves get no spine at all from that rule."""
    two_pods(example)
    text = (example / DEVICES).read_text()
    start = text.index("      aus1-lf5:")
    (example / DEVICES).write_text(
        text[:start] + text[start:].replace("pod: hall1", "pod: hall2", 1)
    )
    replace_in(
        example / LINKS,
        'b: {role: spine, interface: "Ethernet{n}/1", first: 9, peer_id_base: 101}\n'
        "        speed: 400G\n      - name: leaf-to-spine-nxos",
        'b: {role: spine, pod: hall2, interface: "Ethernet{n}/1", first: 9, peer_id_base: 101}\n'
        "        speed: 400G\n      - name: leaf-to-spine-nxos",
    )
    assert _spines_of(example, "aus1-lf5") == ["aus1-sp3", "aus1-sp4"]
    assert _spines_of(example, "aus1-lf1") == []
    assert _spines_of(example, "aus1-lf3") == ["aus1-sp3", "aus1-sp4"]


# --- ASNs ------------------------------------------------------------------------------------


def _asns(repo: Path) -> dict[str, int]:
    """Each device's ASN as its rendered BGP process has it."""
    result = lint_repo(repo)
    return {name: model.bgp.asn for name, model in device_models(result).items()}


def test_each_pods_spines_share_an_asn_of_their_own(example: Path) -> None:
    two_pods(example)
    asns = _asns(example)
    assert [asns[f"aus1-sp{n}"] for n in (1, 2, 3, 4)] == [4200009001] * 2 + [4200009002] * 2
    assert asns["aus1-ss1"] == asns["aus1-ss2"] == 4200009500
    assert asns["aus1-lf1"] == 4200000101
    assert asns["aus1-lf3"] == 4200000103


def test_a_pods_own_asn_wins(example: Path) -> None:
    two_pods(example, pods="      hall1: {id: 1}\n      hall2: {id: 2, asn: 4200008800}\n")
    asns = _asns(example)
    assert asns["aus1-sp1"] == 4200009001
    assert asns["aus1-sp3"] == asns["aus1-sp4"] == 4200008800


def test_adding_a_pod_renumbers_no_other(example: Path) -> None:
    """A third pod (id 3) before the others in the file: hall1 and hall2 keep their ASNs."""
    two_pods(example, pods="      hall0: {id: 3}\n      hall1: {id: 1}\n      hall2: {id: 2}\n")
    replace_in(example / DEVICES, "pod: hall2", "pod: hall0", count=2)  # sp3, sp4
    asns = _asns(example)
    assert asns["aus1-sp1"] == 4200009001
    assert asns["aus1-sp3"] == 4200009003


def test_without_pods_spines_keep_the_shared_asn(example: Path) -> None:
    asns = _asns(example)
    assert {asns[f"aus1-sp{n}"] for n in (1, 2, 3, 4)} == {4200009000}


# --- EVPN scoped by pod ----------------------------------------------------------------------


def _evpn(repo: Path) -> dict[str, list[tuple[str, bool]]]:
    """device -> (EVPN peer, next hop unchanged) of each of its overlay sessions."""
    models = device_models(lint_repo(repo))
    return {
        name: [(p.peer_device, p.next_hop_unchanged) for p in model.evpn.peers]
        for name, model in models.items()
        if model.evpn is not None
    }


BORDER_LEAVES = [f"aus1-bl{n}" for n in range(1, 7)]


def test_vteps_peer_with_their_pods_spines_and_spines_with_the_super_spines(
    example: Path,
) -> None:
    two_pods(example)
    evpn = _evpn(example)
    assert evpn["aus1-lf1"] == [("aus1-sp1", False), ("aus1-sp2", False)]
    assert evpn["aus1-lf3"] == [("aus1-sp3", False), ("aus1-sp4", False)]
    assert evpn["aus1-sp3"] == [
        (name, True) for name in ("aus1-ss1", "aus1-ss2", "aus1-lf3", "aus1-lf4")
    ]
    # the super-spines: route servers between the pods, and for the pod-less border leaves
    # (cabled to the borders only, so no spine of theirs exists)
    spines = [f"aus1-sp{n}" for n in (1, 2, 3, 4)]
    assert evpn["aus1-ss1"] == [(name, True) for name in (*spines, *BORDER_LEAVES)]
    assert evpn["aus1-bl1"] == [("aus1-ss1", False), ("aus1-ss2", False)]


def test_every_overlay_session_has_both_ends(example: Path) -> None:
    two_pods(example)
    evpn = _evpn(example)
    sessions = {(name, peer) for name, peers in evpn.items() for peer, _ in peers}
    assert sessions == {(peer, name) for name, peer in sessions}
    by_site = {
        site: {s for s in sessions if s[0].startswith(f"{site}-")} for site in ("aus1", "mel1")
    }
    assert by_site["aus1"] | by_site["mel1"] == sessions  # no session crosses the sites
    assert all(a[:4] == b[:4] for a, b in sessions)
    assert len(by_site["aus1"]) == 2 * (6 * 2 + 4 * 2 + 6 * 2)  # leaf-spine, spine-ss, bl-ss
    # the shipped mel1: 6 leaves over their pod's 2 spines, 4 spines, 2 pod-less border leaves
    assert len(by_site["mel1"]) == 2 * (6 * 2 + 4 * 2 + 2 * 2)


def test_a_border_leaf_in_a_pod_peers_with_that_pods_spines(example: Path) -> None:
    two_pods(example)
    replace_in(example / DEVICES, "role: border_leaf\n", "role: border_leaf\n        pod: hall2\n")
    evpn = _evpn(example)
    assert evpn["aus1-bl1"] == [("aus1-sp3", False), ("aus1-sp4", False)]
    assert ("aus1-bl1", True) not in evpn["aus1-ss1"]
    assert ("aus1-bl1", True) in evpn["aus1-sp3"]


def test_pods_without_super_spines_keep_the_two_tier_overlay(example: Path) -> None:
    """Pods but no super-spine: every VTEP still peers with every spine, as today."""
    pods = "    pods:\n      hall1: {id: 1}\n    underlay:\n"
    replace_in(example / SITE, "    underlay:\n", pods)
    replace_in(example / DEVICES, "        id: 11\n", "        id: 11\n        pod: hall1\n")
    evpn = _evpn(example)
    assert [peer for peer, _ in evpn["aus1-lf3"]] == [f"aus1-sp{n}" for n in (1, 2, 3, 4)]


def test_an_eos_super_spine_renders_as_a_route_server(example: Path) -> None:
    two_pods(example)
    result = CliRunner().invoke(app, ["render"])
    assert result.exit_code == 0, result.output
    config = (example / "rendered/aus1/aus1-ss1.cfg").read_text().splitlines()
    for address, asn in (("10.0.0.11", 4200009001), ("10.0.0.13", 4200009002)):
        assert f"   neighbor {address} remote-as {asn}" in config
        assert f"   neighbor {address} next-hop-unchanged" in config
        assert f"      neighbor {address} activate" in config


def _super_spines_on_nxos(example: Path) -> None:
    two_pods(example)
    devices = example / DEVICES
    text = devices.read_text()
    eos = "role: super_spine\n        platform: arista_eos\n        model: 7060X6-64PE"
    nxos = "role: super_spine\n        platform: cisco_nxos\n        model: N9K-C9364D-GX2A"
    devices.write_text(text.replace(eos, nxos))
    links = example / LINKS
    links.write_text(
        links.read_text().replace(
            '{role: super_spine, interface: "Ethernet{n}/1"',
            '{role: super_spine, interface: "Ethernet1/{n}"',
        )
    )


def test_an_nxos_super_spine_keeps_the_vtep_next_hop_by_a_route_map(example: Path) -> None:
    """Was PLAT-007 (no form modelled): NX-OS has no per-neighbour next-hop-unchanged, so each
    EVPN session sends through an outbound map that sets `ip next-hop unchanged`, and the
    route server keeps every route target, which no VNI of its own imports."""
    _super_spines_on_nxos(example)
    result = CliRunner().invoke(app, ["render"])
    assert result.exit_code == 0, result.output
    config = (example / "rendered/aus1/aus1-ss1.cfg").read_text()
    lines = config.splitlines()
    assert "nv overlay evpn" in lines and "feature nv overlay" not in lines  # no VTEP
    assert "route-map RM-EVPN-NEXT-HOP-UNCHANGED permit 10\n  set ip next-hop unchanged\n" in (
        config
    )
    assert "  address-family l2vpn evpn\n    retain route-target all\n" in config
    for address in ("10.0.0.11", "10.0.0.13"):  # a spine of each pod
        block = config[config.index(f"  neighbor {address}\n") + 1 :].split("\n  neighbor ")[0]
        assert "      route-map RM-EVPN-NEXT-HOP-UNCHANGED out" in block.splitlines(), block
    spine = (example / "rendered/aus1/aus1-sp1.cfg").read_text()  # EOS: its own form
    assert "RM-EVPN-NEXT-HOP-UNCHANGED" not in spine


def test_an_nvue_super_spine_is_still_refused_naming_device_platform_and_feature(
    example: Path,
) -> None:
    """NVUE's form stays unverified: PLAT-007 names each device, its platform and the feature."""
    _super_spines_on_nxos(example)
    devices = example / DEVICES
    devices.write_text(
        devices.read_text().replace(
            "role: super_spine\n        platform: cisco_nxos\n        model: N9K-C9364D-GX2A",
            "role: super_spine\n        platform: nvidia_nvue\n        model: SN5600",
        )
    )
    links = example / LINKS
    links.write_text(
        links.read_text().replace(
            '{role: super_spine, interface: "Ethernet1/{n}"',
            '{role: super_spine, interface: "swp{n}"',
        )
    )
    code, out = lint_output(example)
    assert code == 1
    plat = [line for line in out.splitlines() if " error " in line and "PLAT-007" in line]
    assert len(plat) == 2, out
    for line, name in zip(plat, ("aus1-ss1", "aus1-ss2"), strict=True):
        assert (
            f"{name} (NVIDIA Cumulus Linux 5.16 (NVUE)) cannot render EVPN next hop unchanged "
            "toward VTEPs (a route server's EVPN sessions)"
        ) in line


# --- acceptance: a pod-1 leaf's loopback reaches a pod-2 leaf --------------------------------

L1, SP_HALL1, SS, SP_HALL2 = 4200000101, 4200009001, 4200009500, 4200009002


def test_a_hall1_leafs_loopback_is_accepted_by_a_hall2_leaf(example: Path) -> None:
    """Through the models' underlay sessions, route maps and AS-path loop checks: aus1-lf1's
    router id reaches aus1-lf3 as leaf, spine (hall1), super-spine, spine (hall2); its VTEP
    address likewise, and the EVPN routes keep lf1's next hop the whole way."""
    two_pods(example)
    result = lint_repo(example)
    assert result.errors == []
    models = device_models(result)
    for prefix in ("10.0.0.101/32", "10.0.1.101/32"):  # router id, VTEP source
        spread = propagate(models, "aus1-lf1", prefix)
        assert spread.paths["aus1-lf3"] == (SP_HALL2, SS, SP_HALL1, L1)
        assert spread.paths["aus1-lf4"] == (SP_HALL2, SS, SP_HALL1, L1)
        assert spread.paths["aus1-sp3"] == (SS, SP_HALL1, L1)
        # the hall1 spines drop it back from the super-spines, the super-spines from the
        # hall2 spines and the borders: the loop check ends each way back
        assert spread.loop_drops["aus1-sp2"] == (SS, SP_HALL1, L1)
        assert SS in spread.loop_drops["aus1-ss2"]
    overlay = propagate(models, "aus1-lf1", "10.0.1.101/32", sessions="overlay")
    assert overlay.paths["aus1-lf3"] == (SP_HALL2, SS, SP_HALL1, L1)
    assert overlay.next_hop_kept["aus1-lf3"] is True
    assert overlay.paths["aus1-bl1"] == (SS, SP_HALL1, L1)  # the pod-less border leaves


def test_one_spine_asn_for_both_pods_loop_drops_and_lint_flags_it(example: Path) -> None:
    """Both pods on the example's one spine ASN: hall2's spines find it in the path from the
    super-spines and drop it, so no hall2 leaf learns hall1's loopbacks; TOPO-006 says so."""
    two_pods(
        example,
        pods="      hall1: {id: 1, asn: 4200009000}\n      hall2: {id: 2, asn: 4200009000}\n",
    )
    result = lint_repo(example)
    # the built models show the same loop in the same run: lf1's and lf2's SRv6 locators
    # reach no device of hall2
    assert [f.rule for f in result.errors] == ["TOPO-006", "SRV6-006", "SRV6-006"]
    for finding in result.errors[1:]:
        assert "is not routed on aus1-lf3, aus1-lf4, aus1-sp3, aus1-sp4:" in finding.message
    spread = propagate(device_models(result), "aus1-lf1", "10.0.0.101/32")
    assert "aus1-lf3" not in spread.paths
    assert spread.loop_drops["aus1-sp3"] == (SS, 4200009000, L1)
    code, _ = lint_output(example)
    assert code == 1


def test_the_walk_applies_the_underlay_route_maps(example: Path) -> None:
    """A prefix outside the loopback pools leaves lf1 toward no one: its out-map denies it."""
    two_pods(example)
    spread = propagate(device_models(lint_repo(example)), "aus1-lf1", "10.99.0.0/24")
    assert spread.paths == {"aus1-lf1": ()}


# --- the shipped second site: mel1's two pods --------------------------------------------------

MEL_LF101, MEL_POD1, MEL_SS, MEL_POD2 = 4200100101, 4200109101, 4200109000, 4200109102


def test_mel1_pod1_leafs_loopback_is_accepted_by_a_pod2_leaf() -> None:
    """The example's mel1 as shipped: mel1-lf101's router id and VTEP address reach the pod-2
    leaves as leaf, pod-1 spine, super-spine, pod-2 spine (each pod's own spine ASN, written by
    hand from site.yaml: 4200109100 + pod id), and its EVPN routes keep lf101's next hop."""
    result = lint(EXAMPLE_INTENT)
    assert result.errors == []
    models = device_models(result)
    for prefix in ("10.2.0.101/32", "10.2.1.101/32"):  # router id, VTEP source
        spread = propagate(models, "mel1-lf101", prefix)
        for leaf in ("mel1-lf201", "mel1-lf202"):
            assert spread.paths[leaf] == (MEL_POD2, MEL_SS, MEL_POD1, MEL_LF101)
        assert spread.paths["mel1-lf103"] == (MEL_POD1, MEL_LF101)  # its own pod: one spine
        assert spread.loop_drops["mel1-sp12"] == (MEL_SS, MEL_POD1, MEL_LF101)
        assert not any(name.startswith("aus1-") for name in spread.paths)  # one site only
    overlay = propagate(models, "mel1-lf101", "10.2.1.101/32", sessions="overlay")
    assert overlay.paths["mel1-lf201"] == (MEL_POD2, MEL_SS, MEL_POD1, MEL_LF101)
    assert overlay.next_hop_kept["mel1-lf201"] is True
    assert overlay.paths["mel1-bl1"] == (MEL_SS, MEL_POD1, MEL_LF101)  # pod-less border leaves

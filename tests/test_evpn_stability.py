"""Adding one network to a tenant changes only the devices that carry it (issue 4 acceptance)."""

from __future__ import annotations

from pathlib import Path

from conftest import lint_repo
from helpers import changed_files, render
from meetme.generators.model import DeviceModel

from meetme.pipeline import device_models

# One more storage network, on rack dh2-r10 only: its leaves are aus1-lf3 and aus1-lf4 (NX-OS).
NEW_NETWORK = (
    "          storage-front-5: {vrf: storage, vlan: 205, l2vni: 10205, "
    "gateway_v4: 10.60.5.1/24, racks: [dh2-r10]}\n"
)
CARRIERS = {"aus1-lf3", "aus1-lf4"}


def add_network(repo: Path) -> None:
    tenants = repo / "intent/aus1/tenants.yaml"
    text = tenants.read_text()
    assert text.endswith("racks: [dh1-r10, dh2-r10]}\n")  # storage-back-2, the last network
    tenants.write_text(text + NEW_NETWORK)


def models(repo: Path) -> dict[str, DeviceModel]:
    result = lint_repo(repo)
    assert result.errors == []
    return device_models(result)


def test_a_new_network_changes_only_the_models_of_its_leaves(example: Path) -> None:
    before = models(example)
    add_network(example)
    after = models(example)
    assert before.keys() == after.keys()
    assert {name for name in before if before[name] != after[name]} == CARRIERS
    for name in sorted(CARRIERS):
        evpn = after[name].evpn
        assert evpn is not None
        vlan = next(v for v in evpn.vlans if v.id == 205)
        assert (vlan.vni, vlan.vrf) == (10205, "storage")
        assert vlan.svi is not None and vlan.svi.ipv4 is not None
        assert vlan.svi.ipv4.cidr == "10.60.5.1/24"  # the anycast gateway


def test_a_new_network_changes_only_the_rendered_files_of_its_leaves(example: Path) -> None:
    before = render(example)
    add_network(example)
    after = render(example)
    # Needs the NX-OS templates to print the model's EVPN VLANs (templates/cisco_nxos/evpn*.j2).
    assert changed_files(before, after) == {"aus1/aus1-lf3.cfg", "aus1/aus1-lf4.cfg"}
    for name in ("aus1/aus1-lf3.cfg", "aus1/aus1-lf4.cfg"):
        assert b"10205" in after[name]  # the new L2VNI is mapped on both VTEPs

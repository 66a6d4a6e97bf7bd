"""CLOUD-010: a cloud attachment's agreed `receive:` ranges overlap no gateway subnet of the VRF
it serves; at the `receive:` entry, with adjacent ranges clean."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import findings_of, line_of, lint_repo, replace_in

CLOUDS = "intent/aus1/clouds.yaml"
# aus1 VRF gpu-a: gpu-a-compute-1..4 10.50.1.0/24..10.50.4.0/24 (IPv6 2001:db8:50:1::/64,
# :2::/64), gpu-a-public 198.51.100.128/26; VRF storage: storage-front-1..4 10.60.1.0/24..
AWS_PRIVATE_1 = "private-1: {type: private, vrf: gpu-a, receive: [10.100.0.0/16]"
AZURE_RECEIVE = "receive: [10.110.0.0/16]"


def _aws_private_1_receives(repo: Path, *ranges: str) -> Path:
    clouds = repo / CLOUDS
    replace_in(
        clouds,
        AWS_PRIVATE_1,
        f"private-1: {{type: private, vrf: gpu-a, receive: [{', '.join(ranges)}]",
    )
    return clouds


def test_example_has_no_cloud010_findings(example: Path) -> None:
    assert findings_of(lint_repo(example), "CLOUD-010") == []


def test_cloud010_a_vpc_range_holding_a_tenant_subnet(example: Path) -> None:
    clouds = _aws_private_1_receives(example, "10.100.0.0/16", "10.50.4.0/22")
    result = lint_repo(example)
    assert findings_of(result, "CLOUD-010") == [
        f"{CLOUDS}:{line_of(clouds, 'private-1:')}: AWS aws-syd/private-1 agrees to send "
        "10.50.4.0/22 into VRF gpu-a, which overlaps subnet 10.50.4.0/24 of network "
        "gpu-tenant-a/gpu-a-compute-4: the network's connected subnet wins there, so "
        "10.50.4.0/24 of the cloud is unreachable from the tenant while the import allow-list "
        "still admits it; agree ranges apart from the VRF's subnets, or renumber the network"
    ]
    assert result.errors


def test_cloud010_a_vnet_range_inside_a_tenant_subnet(example: Path) -> None:
    clouds = example / CLOUDS
    replace_in(clouds, AZURE_RECEIVE, "receive: [10.60.2.128/25]")
    assert findings_of(lint_repo(example), "CLOUD-010") == [
        f"{CLOUDS}:{line_of(clouds, '10.60.2.128/25')}: Azure er-syd/private agrees to send "
        "10.60.2.128/25 into VRF storage, which overlaps subnet 10.60.2.0/24 of network "
        "storage/storage-front-2: the cloud's longer route wins there, so the VRF's leaves "
        "send traffic for 10.60.2.128/25 of the network to the cloud; agree ranges apart from "
        "the VRF's subnets, or renumber the network"
    ]


@pytest.mark.parametrize(
    ("agreed", "network"),
    [
        ("10.50.0.0/24", None),  # just below gpu-a-compute-1 10.50.1.0/24
        ("10.50.1.0/32", "gpu-a-compute-1"),  # its first address
        ("10.50.4.255/32", "gpu-a-compute-4"),  # gpu-a-compute-4's last address
        ("10.50.5.0/24", None),  # just past it
        ("10.60.1.0/24", None),  # storage-front-1's subnet: another VRF's
        ("2001:db8:50:0::/64", None),  # just below gpu-a-compute-1's IPv6 subnet
        ("2001:db8:50:2::/64", "gpu-a-compute-2"),
        ("2001:db8:50:3::/64", None),  # just past gpu-a-compute-2's
    ],
)
def test_cloud010_edges(example: Path, agreed: str, network: str | None) -> None:
    _aws_private_1_receives(example, agreed)
    hits = findings_of(lint_repo(example), "CLOUD-010")
    assert [h.split("of network gpu-tenant-a/")[1].split(":")[0] for h in hits] == (
        [network] if network else []
    ), hits

"""A tenant VRF riding SRv6 between sites reaches the other site's prefixes through the
borders' handoff: the border hands them south and the border leaf takes them, ahead of the
default route and whatever `internet:` says (the sites used to reach each other only through
the Internet's default route, and not at all with `internet: none`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import private_vrfs_online, replace_in
from meetme.generators.model import DeviceModel, RouteMap
from srv6_example import add_third_site, models_of

SRV6 = "intent/srv6.yaml"
STORAGE = "        storage: {vlan: 3110, export_north: [10.60.0.0/16], internet: default"


def _storage_rides_srv6(repo: Path, internet: str = "default") -> dict[str, DeviceModel]:
    """storage between aus1 and mel1 (mel1's own export_north is 10.160.0.0/16)."""
    srv6 = repo / SRV6
    replace_in(srv6, "mel1: {id: 2, devices: []}", "mel1: {id: 2}")
    with srv6.open("a") as handle:
        handle.write("  vrfs:\n    storage: {id: 10, sites: [aus1, mel1]}\n")
    if internet != "default":
        replace_in(
            repo / "intent/aus1/attachments.yaml", STORAGE, STORAGE.replace("default", internet)
        )
    return models_of(repo)[1]


def _map(model: DeviceModel, name: str) -> list[tuple[int, str, str | None]]:
    route_map: RouteMap = next(rm for rm in model.route_maps if rm.name == name)
    return [(e.seq, e.action, e.match_prefix_list) for e in route_map.entries]


def _list(model: DeviceModel, name: str) -> list[tuple[str, int | None]]:
    found = next(pl for pl in model.prefix_lists if pl.name == name)
    return [(e.prefix, e.le) for e in found.entries]


@pytest.mark.parametrize(
    ("internet", "last"),
    [("default", ("permit", "PL-HANDOFF-DEFAULT-V4")), ("none", ("deny", None))],
)
def test_the_other_sites_prefixes_go_south_before_the_default(
    example: Path, internet: str, last: tuple[str, str | None]
) -> None:
    private_vrfs_online(example)
    models = _storage_rides_srv6(example, internet)
    for border, leaf in (("aus1-br1", "aus1-bl1"), ("aus1-br2", "aus1-bl2")):
        assert _map(models[border], "RM-HANDOFF-STORAGE-OUT-V4") == [
            (10, "permit", "PL-HANDOFF-STORAGE-SITES-V4"),
            (20, *last),
        ]
        assert _map(models[leaf], "RM-HANDOFF-STORAGE-IN-V4") == [
            (10, "permit", "PL-HANDOFF-STORAGE-SITES-V4"),
            (20, *last),
        ]
        # mel1's export_north and its subnets to /24, as the far border admits them
        for model in (models[border], models[leaf]):
            assert _list(model, "PL-HANDOFF-STORAGE-SITES-V4") == [("10.160.0.0/16", 24)]
    # and the other way round: mel1's border leaves take aus1's storage space
    assert _list(models["mel1-bl1"], "PL-HANDOFF-STORAGE-SITES-V4") == [("10.60.0.0/16", 24)]


def test_the_leaf_s_prefix_limit_counts_the_other_sites_prefixes(example: Path) -> None:
    """1 default + 10.160.0.0/16 le 24 (1 + 2 + ... + 256 = 511 prefixes) = 512."""
    private_vrfs_online(example)
    models = _storage_rides_srv6(example)
    limits = {
        n.max_prefix
        for n in models["aus1-bl1"].bgp.neighbors
        if n.kind == "handoff" and n.vrf == "storage" and n.afi == "ipv4"
    }
    assert limits == {512}


def test_a_vrf_that_rides_no_srv6_hands_only_the_default_south(example: Path) -> None:
    private_vrfs_online(example)
    models = models_of(example)[1]
    assert _map(models["aus1-br1"], "RM-HANDOFF-STORAGE-OUT-V4") == [
        (10, "permit", "PL-HANDOFF-DEFAULT-V4")
    ]
    assert not [p for p in models["aus1-br1"].prefix_lists if "SITES" in p.name]


def test_a_family_only_the_other_site_routes_refers_to_no_missing_list(example: Path) -> None:
    """mel1's storage made IPv6-only: aus1 (IPv4 only) now hands mel1's IPv6 prefixes south,
    sends nothing north in IPv6 (a deny, not an empty prefix list the config lacks), and every
    list a policy matches exists."""
    private_vrfs_online(example)
    tenants = example / "intent/mel1/tenants.yaml"
    replace_in(tenants, "gateway_v4: 10.160.1.1/24", 'gateway_v6: "2001:db8:160:1::1/64"')
    replace_in(tenants, "export_north: [10.160.0.0/16]", 'export_north: ["2001:db8:160::/48"]')
    models = _storage_rides_srv6(example)
    leaf = models["aus1-bl1"]
    assert _map(leaf, "RM-HANDOFF-STORAGE-OUT-V6") == [(10, "deny", None)]
    assert _map(leaf, "RM-HANDOFF-STORAGE-IN-V6") == [
        (10, "permit", "PL-HANDOFF-STORAGE-SITES-V6"),
        (20, "permit", "PL-HANDOFF-DEFAULT-V6"),
    ]
    assert _list(leaf, "PL-HANDOFF-STORAGE-SITES-V6") == [("2001:db8:160::/48", 64)]
    for model in (leaf, models["aus1-br1"]):
        defined = {pl.name for pl in model.prefix_lists}
        used = {e.match_prefix_list for rm in model.route_maps for e in rm.entries}
        assert used - {None} <= defined, model.hostname


def test_the_order_of_a_vrfs_sites_changes_no_config(example: Path) -> None:
    """`sites:` is a set: per1 (a third site) and mel1 written in either order give aus1's
    borders one list of the other sites' prefixes, by site name (it followed the list)."""
    add_third_site(example)
    replace_in(
        example / "intent/per1/tenants.yaml",
        "export_north: [10.160.0.0/16]",
        "export_north: [10.161.0.0/16]",
    )
    srv6 = example / SRV6
    replace_in(srv6, "mel1: {id: 2, devices: []}", "mel1: {id: 2}")
    with srv6.open("a") as handle:
        handle.write("  vrfs:\n    storage: {id: 10, sites: [aus1, per1, mel1]}\n")
    expected = [("10.160.0.0/16", 24), ("10.161.0.0/16", 24)]  # mel1's, then per1's
    assert _list(models_of(example)[1]["aus1-br1"], "PL-HANDOFF-STORAGE-SITES-V4") == expected
    replace_in(srv6, "sites: [aus1, per1, mel1]", "sites: [mel1, per1, aus1]")
    assert _list(models_of(example)[1]["aus1-br1"], "PL-HANDOFF-STORAGE-SITES-V4") == expected

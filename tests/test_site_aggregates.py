"""Per-site aggregates (`sites.S.aggregates`): a site's public ones are originated and announced
by its own borders only, beside the organisation's; ADDR-012 keeps each inside the organisation's
space and ADDR-013 keeps sites apart, each just inside and just outside its limit."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import findings_of, line_of, lint_repo, replace_in
from srv6_example import models_of

AUS1 = "intent/aus1/site.yaml"
MEL1 = "intent/mel1/site.yaml"
ORG = "intent/organisation.yaml"


def _aggregates(repo: Path, site: str, public: list[str], private: tuple[str, ...] = ()) -> None:
    path = repo / f"intent/{site}/site.yaml"
    replace_in(
        path,
        f"  {site}:\n",
        f"  {site}:\n    aggregates: {{public: [{', '.join(public)}], "
        f"private: [{', '.join(private)}]}}\n",
    )


def test_a_sites_public_aggregate_is_announced_by_its_borders_only(example: Path) -> None:
    # the halves of the organisation's space that hold aus1's handoff public prefixes
    _aggregates(example, "aus1", ["198.51.100.128/25", "2001:db8:4000::/40"])
    result = lint_repo(example)
    assert [f.rule for f in result.findings if f.severity == "error"] == []
    _loaded, models = models_of(example)
    br1, mel = models["aus1-br1"], models["mel1-br1"]
    assert "2001:db8:4000::/40" in br1.bgp.networks_v6
    assert "198.51.100.128/25" in br1.bgp.networks_v4
    anchors = {r.prefix for r in br1.static_routes if r.discard and r.vrf is None}
    assert anchors == {"198.51.100.0/24", "198.51.100.128/25", "2001:db8:4000::/36",
                       "2001:db8:4000::/40"}  # fmt: skip
    # what the Internet parties are sent (PL-OWN-*): the organisation's, then the site's
    export = {pl.name: [e.prefix for e in pl.entries] for pl in br1.prefix_lists}
    assert export["PL-OWN-V4"] == ["198.51.100.0/24", "198.51.100.128/25"]
    assert export["PL-OWN-V6"] == ["2001:db8:4000::/36", "2001:db8:4000::/40"]
    # mel1 declares none: its borders announce the organisation's aggregates only
    assert "2001:db8:4000::/40" not in mel.bgp.networks_v6
    assert {e.prefix for pl in mel.prefix_lists if pl.name == "PL-OWN-V6" for e in pl.entries} == {
        "2001:db8:4000::/36"
    }


def test_without_site_aggregates_the_borders_announce_the_organisations_only(
    example: Path,
) -> None:
    _loaded, models = models_of(example)
    br1 = models["aus1-br1"]
    anchors = {r.prefix for r in br1.static_routes if r.discard and r.vrf is None}
    assert anchors == {"198.51.100.0/24", "2001:db8:4000::/36"}
    assert [e.prefix for pl in br1.prefix_lists if pl.name == "PL-OWN-V6" for e in pl.entries] == [
        "2001:db8:4000::/36"
    ]


@pytest.mark.parametrize(
    ("prefix", "found"),
    [("2001:db8:4000::/36", False), ("2001:db8:4f00::/40", False), ("2001:db8:5000::/40", True)],
)
def test_addr_012_a_public_aggregate_inside_the_organisations(
    example: Path, prefix: str, found: bool
) -> None:
    _aggregates(example, "aus1", [prefix])
    line = line_of(example / AUS1, "aggregates: {public")
    expected = [
        f"{AUS1}:{line}: site aus1's public aggregate {prefix} lies in none of the "
        "organisation's aggregates (198.51.100.0/24, 2001:db8:4000::/36): take it from "
        "organisation.aggregates or widen them"
    ]
    assert findings_of(lint_repo(example), "ADDR-012") == (expected if found else [])


@pytest.mark.parametrize(("prefix", "found"), [("10.2.0.0/16", False), ("100.64.0.0/16", True)])
def test_addr_012_a_private_aggregate_in_private_use_space(
    example: Path, prefix: str, found: bool
) -> None:
    _aggregates(example, "aus1", [], (prefix,))
    got = findings_of(lint_repo(example), "ADDR-012")
    assert got == (
        [
            f"{AUS1}:{line_of(example / AUS1, 'aggregates: {public')}: site aus1's private "
            f"aggregate {prefix} lies in none of private-use space (10.0.0.0/8, 172.16.0.0/12, "
            "192.168.0.0/16, fc00::/7): take it from RFC 1918 / RFC 4193 or widen them"
        ]
        if found
        else []
    )


@pytest.mark.parametrize(("prefix", "found"), [("10.15.0.0/16", False), ("10.16.0.0/16", True)])
def test_addr_012_a_private_aggregate_inside_the_organisations_private_space(
    example: Path, prefix: str, found: bool
) -> None:
    replace_in(
        example / ORG, "  aggregates:\n", "  private_aggregates: [10.0.0.0/12]\n  aggregates:\n"
    )
    _aggregates(example, "aus1", [], (prefix,))
    got = findings_of(lint_repo(example), "ADDR-012")
    assert len(got) == int(found)
    if found:
        assert "private aggregate 10.16.0.0/16 lies in none of the organisation's " in got[0]
        assert got[0].endswith(
            "(10.0.0.0/12): take it from organisation.private_aggregates or widen them"
        )


@pytest.mark.parametrize(
    ("mel1", "found"), [("2001:db8:4100::/40", False), ("2001:db8:40ff::/48", True)]
)
def test_addr_013_two_sites_aggregates_do_not_overlap(
    example: Path, mel1: str, found: bool
) -> None:
    _aggregates(example, "aus1", ["2001:db8:4000::/40"])
    _aggregates(example, "mel1", [mel1])
    line = line_of(example / MEL1, "aggregates: {public")
    expected = [
        f"{MEL1}:{line}: site mel1's public aggregate {mel1} overlaps site aus1's public "
        "aggregate 2001:db8:4000::/40: give each site its own part of the organisation's space"
    ]
    assert findings_of(lint_repo(example), "ADDR-013") == (expected if found else [])

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


def _mel1_public_elsewhere(repo: Path) -> None:
    """mel1's public prefixes moved out of the halves aus1 takes below: a site aggregate over
    another site's public prefix would draw its traffic to the wrong site (HANDOFF-017)."""
    tenants = repo / "intent/mel1/tenants.yaml"
    for old, new in (
        ("198.51.100.193/27", "198.51.100.65/27"),
        ("198.51.100.192/27", "198.51.100.64/27"),
        ('"2001:db8:4000:60::1/64"', '"2001:db8:4100:60::1/64"'),
        ('"2001:db8:4000:60::/64"', '"2001:db8:4100:60::/64"'),
    ):
        replace_in(tenants, old, new)


def test_a_sites_public_aggregate_is_announced_by_its_borders_only(example: Path) -> None:
    # the halves of the organisation's space that hold aus1's handoff public prefixes
    _mel1_public_elsewhere(example)
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


HANDOFF = "intent/aus1/attachments.yaml"


@pytest.mark.parametrize(
    ("aggregate", "public", "over"),
    [
        ("198.51.100.128/25", None, None),  # one bit shorter than gpu-a's /26: the leak wins
        ("198.51.100.128/26", "198.51.100.128/26", "198.51.100.128/26"),  # as long: Null0 wins
        ("198.51.100.160/27", "198.51.100.128/26", "198.51.100.160/27"),  # longer, inside it
        ('"2001:db8:4000:50::/64"', '"2001:db8:4000:50::/64"', "2001:db8:4000:50::/64"),
    ],
)
def test_handoff_014_a_public_prefix_is_longer_than_every_aggregate_over_it(
    example: Path, aggregate: str, public: str | None, over: str | None
) -> None:
    """The borders anchor each aggregate with a discard route, which beats the public prefix
    leaked from the tenant VRF where it is as long or longer: the Internet's traffic for the
    tenant's front ends would be dropped at both borders."""
    _aggregates(example, "aus1", [aggregate])
    result = lint_repo(example)
    if public is None:
        assert findings_of(result, "HANDOFF-014") == []
        return
    line = line_of(example / HANDOFF, "gpu-a:   {vlan: 3101")
    assert findings_of(result, "HANDOFF-014") == [
        f"{HANDOFF}:{line}: public {public.strip(chr(34))} of handoff VRF gpu-a is no more "
        f"specific than aggregate {over}, which site aus1's borders anchor with a discard "
        "route: that route beats the one leaked from the VRF, and the Internet's traffic for "
        "it would be dropped at the border; keep public prefixes longer than every aggregate "
        "over them"
    ]


@pytest.mark.parametrize(
    ("aggregate", "longest"),
    [
        ("198.51.100.0/24", None),  # as long as the Internet carries
        ("198.51.100.128/25", 24),
        ('"2001:db8:4000::/48"', None),
        ('"2001:db8:4000::/49"', 48),
    ],
)
def test_addr_016_a_site_aggregate_longer_than_the_internet_carries(
    example: Path, aggregate: str, longest: int | None
) -> None:
    """Transits and peers drop IPv4 longer than /24 and IPv6 longer than /48, as our own
    import does: such a site aggregate would draw no traffic to the site (a warning)."""
    _aggregates(example, "aus1", [aggregate])
    result = lint_repo(example)
    if longest is None:
        assert findings_of(result, "ADDR-016") == []
        return
    line = line_of(example / AUS1, "aggregates:")
    written = aggregate.strip('"')
    assert findings_of(result, "ADDR-016") == [
        f"{AUS1}:{line}: site aus1's public aggregate {written} is longer than /{longest}, "
        "which transits and peers drop: it would draw no traffic to the site; announce a "
        f"/{longest} or shorter, or leave the site to the organisation's aggregates"
    ]
    assert {f.severity for f in result.findings if f.rule == "ADDR-016"} == {"warning"}
    # one finding for one problem: no other rule repeats the length at the aggregate's line
    # (HANDOFF-017 may name mel1's public prefix inside the /25: another problem)
    assert [
        f.rule
        for f in result.findings
        if (f.location.file, f.location.line) == (AUS1, line) and "longer than /" in f.message
    ] == ["ADDR-016"]

"""Per-site aggregates (`sites.S.aggregates`): a site's public ones are originated and announced
by its own borders only, beside the organisation's; ADDR-012 keeps each inside the organisation's
space and ADDR-013 keeps sites apart, each just inside and just outside its limit."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import findings_of, line_of, lint_repo, replace_in
from meetme.generators.model import DeviceModel
from srv6_example import models_of

AUS1 = "intent/aus1/site.yaml"
MEL1 = "intent/mel1/site.yaml"
ORG = "intent/organisation.yaml"


def _aggregates(repo: Path, site: str, public: list[str], private: tuple[str, ...] = ()) -> None:
    """The site's aggregates, in place of those the example gives it."""
    path = _without_aggregates(repo, site)
    replace_in(
        path,
        f"  {site}:\n",
        f"  {site}:\n    aggregates: {{public: [{', '.join(public)}], "
        f"private: [{', '.join(private)}]}}\n",
    )


def _without_aggregates(repo: Path, site: str) -> Path:
    path = repo / f"intent/{site}/site.yaml"
    kept = [x for x in path.read_text().splitlines(True) if not x.startswith("    aggregates:")]
    path.write_text("".join(kept))
    return path


def _announced(model: DeviceModel) -> dict[str, list[str]]:
    """What a border sends its Internet parties (PL-OWN-*), by list name."""
    return {
        pl.name: [e.prefix for e in pl.entries]
        for pl in model.prefix_lists
        if pl.name.startswith("PL-OWN-V")
    }


def test_a_sites_public_aggregate_is_announced_by_its_borders_only(example: Path) -> None:
    """The example: aus1 takes 2001:db8:4000::/40 and mel1 2001:db8:4100::/40 of the
    organisation's /36, which both still announce; each /40 only from its own site."""
    _loaded, models = models_of(example)
    aus, mel = models["aus1-br1"], models["mel1-br1"]
    assert "2001:db8:4000::/40" in aus.bgp.networks_v6
    assert "2001:db8:4100::/40" not in aus.bgp.networks_v6
    assert "2001:db8:4100::/40" in mel.bgp.networks_v6
    assert "2001:db8:4000::/40" not in mel.bgp.networks_v6
    # the organisation's, then the site's
    assert _announced(aus)["PL-OWN-V6"] == ["2001:db8:4000::/36", "2001:db8:4000::/40"]
    assert _announced(mel)["PL-OWN-V6"] == ["2001:db8:4000::/36", "2001:db8:4100::/40"]


def test_an_organisation_aggregate_a_site_claims_is_announced_from_that_site_alone(
    example: Path,
) -> None:
    """aus1 writes the organisation's one IPv4 /24 among its own: aus1's borders announce it
    (once) and anchor it; mel1's neither announce nor anchor it, and no longer drop it as
    their own space when the Internet sends it (so mel1 reaches aus1's public hosts)."""
    _loaded, models = models_of(example)
    aus, mel = models["aus1-br1"], models["mel1-br1"]
    assert _announced(aus)["PL-OWN-V4"] == ["198.51.100.0/24"]
    assert "PL-OWN-V4" not in _announced(mel)
    assert "198.51.100.0/24" in aus.bgp.networks_v4
    assert "198.51.100.0/24" not in mel.bgp.networks_v4
    mel_anchors = {r.prefix for r in mel.static_routes if r.discard and r.vrf is None}
    assert mel_anchors == {"2001:db8:4000::/36", "2001:db8:4100::/40"}
    assert not [pl for pl in mel.prefix_lists if pl.name == "PL-OWN-ORLONGER-V4"]


def test_without_site_aggregates_the_borders_announce_the_organisations_only(
    example: Path,
) -> None:
    for site in ("aus1", "mel1"):
        _without_aggregates(example, site)
    _loaded, models = models_of(example)
    for border in ("aus1-br1", "mel1-br1"):
        model = models[border]
        anchors = {r.prefix for r in model.static_routes if r.discard and r.vrf is None}
        assert anchors == {"198.51.100.0/24", "2001:db8:4000::/36"}
        assert _announced(model) == {
            "PL-OWN-V4": ["198.51.100.0/24"],
            "PL-OWN-V6": ["2001:db8:4000::/36"],
        }


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

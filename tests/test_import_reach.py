"""FLOW-009: every prefix an Internet party's `import_prefixes` promises passes the session's
whole import policy on the built models, at some length its allow-list entry admits
(docs/standards.md#flow-009). Found by a user's new site: a PNI agreed `192.0.2.128/25`, the
import map dropped everything longer than /24 before the allow-list, and lint was clean."""

from __future__ import annotations

from pathlib import Path

from conftest import line_of, lint_repo, replace_in
from meetme.generators.model import PrefixList, PrefixListEntry
from meetme.validators.rules.flow import flow_findings

from meetme.pipeline import LintResult, device_models

PEERING = "intent/aus1/peering.yaml"
EXAMPLE_LIST = 'import_prefixes: [192.0.2.0/24, "2001:db8:c000::/36"]'
# the PNI's sessions: (border, peer address, circuit) per family
PNI_V4 = (("aus1-br1", "192.0.2.16", "XC-PNI-1"), ("aus1-br2", "192.0.2.18", "XC-PNI-2"))
PNI_V6 = (("aus1-br1", "2001:db8:c::", "XC-PNI-1"), ("aus1-br2", "2001:db8:c::2", "XC-PNI-2"))
V4_HINT = "IPv4 /8 to /24"
V6_HINT = "IPv6 /16 to /48"
Placed = tuple[str, int, int, str]


def agree(repo: Path, *prefixes: str) -> Path:
    """The example's PNI agrees `prefixes` (its import_prefixes) instead of its own two."""
    peering = repo / PEERING
    replace_in(peering, EXAMPLE_LIST, f"import_prefixes: [{', '.join(prefixes)}]")
    return peering


def flow009(result: LintResult) -> list[Placed]:
    """(file, line, column, message) of every FLOW-009 finding, in report order."""
    return [
        (f.location.file, f.location.line, f.location.column, f.message)
        for f in result.findings
        if f.rule == "FLOW-009"
    ]


def at_item(peering: Path, item: str) -> tuple[str, int, int]:
    """Where an item of the PNI's import_prefixes list is written."""
    line = line_of(peering, "import_prefixes: [")
    text = peering.read_text().splitlines()[line - 1]
    return PEERING, line, text.index(item) + 1


def message(
    border: str,
    peer: str,
    circuit: str,
    prefix: str,
    allowed: str,
    stops: str,
    hint: str = V4_HINT,
) -> str:
    family = "V6" if ":" in prefix else "V4"
    return (
        f"VRF default, {border}: the session to {peer} (pni pni-cdn {circuit}) is to accept "
        f"{prefix} (its allow-list PL-PNI-CDN-IN-{family} permits {allowed}), but its import "
        f"policy RM-PNI-PNI-CDN-IN-{family} drops every route of it, at {stops}; the route "
        f"stops at {border}: agree with pni-cdn prefixes the import policy takes ({hint}, "
        "outside the bogon ranges, our own address space and the IX peering LANs), or remove "
        "it from import_prefixes"
    )


def expected(
    peering: Path, item: str, prefix: str, stops: str, sessions: tuple[tuple[str, str, str], ...]
) -> list[Placed]:
    hint = V6_HINT if ":" in prefix else V4_HINT
    length = 128 if ":" in prefix else 32
    return [
        (
            *at_item(peering, item),
            message(border, peer, circuit, prefix, f"{prefix} le {length}", stops, hint),
        )
        for border, peer, circuit in sessions
    ]


TOO_LONG = "clause 20 (too long for the global table)"


def test_the_example_passes_and_a_v4_slash_25_is_dropped_by_the_too_long_clause(
    example: Path,
) -> None:
    """The user's site: a /25 beside the example's /24. The /24 (le 32) has routes that pass
    (itself), so only the /25's item is reported, once per border's session."""
    assert flow009(lint_repo(example)) == []
    peering = agree(example, "192.0.2.0/24", "192.0.2.128/25", '"2001:db8:c000::/36"')
    result = lint_repo(example)
    assert flow009(result) == expected(
        peering, "192.0.2.128/25", "192.0.2.128/25", TOO_LONG, PNI_V4
    )
    assert result.errors


def test_v6_slash_48_passes_and_slash_49_is_dropped(example: Path) -> None:
    peering = agree(example, "192.0.2.0/24", '"2001:db8:c000::/48"', '"2001:db8:c000:8000::/49"')
    assert flow009(lint_repo(example)) == expected(
        peering, '"2001:db8:c000:8000::/49"', "2001:db8:c000:8000::/49", TOO_LONG, PNI_V6
    )


def test_a_host_route_has_no_shorter_length_to_pass_at(example: Path) -> None:
    """A /32 is an exact entry (no `le`): nothing of it is accepted."""
    peering = agree(example, "192.0.2.0/24", "192.0.2.1/32", '"2001:db8:c000::/36"')
    assert flow009(lint_repo(example)) == [
        (
            *at_item(peering, "192.0.2.1/32"),
            message(border, peer, circuit, "192.0.2.1/32", "192.0.2.1/32", TOO_LONG),
        )
        for border, peer, circuit in PNI_V4
    ]


def test_a_bogon_is_reported_and_its_public_neighbour_is_not(example: Path) -> None:
    """10.255.0.0/16 lies in the bogon 10.0.0.0/8; 11.0.0.0/16, next to it, is public. A
    bogon is one in a lab too (only the documentation ranges pass there)."""
    peering = agree(example, "10.255.0.0/16", "11.0.0.0/16", '"2001:db8:c000::/36"')
    assert flow009(lint_repo(example)) == expected(
        peering, "10.255.0.0/16", "10.255.0.0/16", "clause 10 (bogon prefixes)", PNI_V4
    )


def test_an_le_range_that_partly_passes_is_fine(example: Path) -> None:
    """Our own aggregate 198.51.100.0/24: dropped at its own length by the own-space clause
    and longer by the too-long one, both named. The /23 holding it passes at /23 and in its
    other half (198.51.101.0/24); 10.0.0.0/7 passes as 11.0.0.0/8 though 10/8 is a bogon;
    0.0.0.0/0 (every route) passes from /8 on though the default and /1../7 are dropped."""
    peering = agree(
        example,
        "198.51.100.0/23",
        "198.51.100.0/24",
        "10.0.0.0/7",
        "0.0.0.0/0",
        '"2001:db8:c000::/36"',
    )
    assert flow009(lint_repo(example)) == expected(
        peering,
        "198.51.100.0/24",
        "198.51.100.0/24",
        f"clause 30 (our own address space) and {TOO_LONG}",
        PNI_V4,
    )


def test_the_ix_peering_lan_is_never_accepted_from_a_pni(example: Path) -> None:
    """The LAN at its own length at the IX LAN clause, its more specifics at the too-long one
    before it."""
    peering = agree(example, "192.0.2.0/24", "203.0.113.0/24", '"2001:db8:c000::/36"')
    assert flow009(lint_repo(example)) == expected(
        peering,
        "203.0.113.0/24",
        "203.0.113.0/24",
        f"clause 60 (the IX peering LAN of ix-syd) and {TOO_LONG}",
        PNI_V4,
    )


def test_documentation_prefixes_in_production_are_addr009s(example: Path) -> None:
    """In production the edge policy drops the documentation ranges as bogons, and ADDR-009
    already refuses each at its item: FLOW-009 says nothing more there, but still reports a
    real bogon beside them."""
    replace_in(example / "intent/aus1/site.yaml", "environment: lab", "environment: production")
    peering = agree(example, "192.0.2.0/24", "10.0.0.0/8", '"2001:db8:c000::/36"')
    result = lint_repo(example)
    assert flow009(result) == expected(
        peering, "10.0.0.0/8", "10.0.0.0/8", "clause 10 (bogon prefixes)", PNI_V4
    )
    documentation = [
        (f.location.line, f.location.column)
        for f in result.findings
        if f.rule == "ADDR-009" and ".import_prefixes." in f.path
    ]
    assert documentation == [
        at_item(peering, "192.0.2.0/24")[1:],
        at_item(peering, '"2001:db8:c000::/36"')[1:],
    ]


def test_a_party_whose_asn_the_policy_drops_is_not_the_entrys_fault(example: Path) -> None:
    """The PNI on a private ASN: every route of it is dropped at the private-ASN clause, which
    is EDGE-010's finding (its asn: line), not each agreed prefix's. The /25 is still reported:
    the too-long clause drops it before any AS-path clause is read."""
    peering = agree(example, "192.0.2.0/24", "192.0.2.128/25", '"2001:db8:c000::/36"')
    replace_in(peering, "asn: 64503", "asn: 64512")
    result = lint_repo(example)
    assert flow009(result) == expected(
        peering, "192.0.2.128/25", "192.0.2.128/25", TOO_LONG, PNI_V4
    )
    assert [f.location.line for f in result.findings if f.rule == "EDGE-010"] == [
        line_of(peering, "asn: 64512")
    ]


def test_an_allow_list_entry_is_read_with_its_own_ge_and_le(example: Path) -> None:
    """On the model: each entry's lengths as the router reads them. `192.0.2.0/24 ge 25`
    admits only what the too-long clause drops; `ge 24 le 25` admits the /24; an exact
    0.0.0.0/1 is a default route in disguise. Entries the intent does not write are reported
    at the party."""
    result = lint_repo(example)
    model = device_models(result)["aus1-br1"]
    name = "PL-PNI-CDN-IN-V4"
    entries = [
        PrefixListEntry(seq=10, action="permit", prefix="192.0.2.0/24", ge=25, le=32),
        PrefixListEntry(seq=20, action="permit", prefix="192.0.2.0/23", ge=24, le=25),
        PrefixListEntry(seq=30, action="permit", prefix="0.0.0.0/1"),
    ]
    lists = [
        PrefixList(name=name, afi="ipv4", entries=entries) if pl.name == name else pl
        for pl in model.prefix_lists
    ]
    edited = model.model_copy(update={"prefix_lists": tuple(lists)})
    found = [
        f for f in flow_findings(result.loaded, result.fabrics, [edited]) if f.rule == "FLOW-009"
    ]
    peering = example / PEERING
    at = {
        "192.0.2.0/24": (line_of(peering, EXAMPLE_LIST), 29),
        "0.0.0.0/1": (line_of(peering, "pni-cdn:"), 9),
    }
    assert [(f.location.line, f.location.column, f.message) for f in found] == [
        (
            *at["192.0.2.0/24"],
            message(*PNI_V4[0], "192.0.2.0/24", "192.0.2.0/24 ge 25 le 32", TOO_LONG),
        ),
        (
            *at["0.0.0.0/1"],
            message(
                *PNI_V4[0],
                "0.0.0.0/1",
                "0.0.0.0/1",
                "clause 50 (too short: a default route in disguise)",
            ),
        ),
    ]

"""Cross-connects as references: a used cross-connect's party names a party of its site (the
reference check, exit 2), every cross-connect is used by a party (PHY-019) and a circuit id is
declared in one site only (PHY-020). Each passes on the example, fails on one realistic edit at
the exact line, and says nothing of the case just inside."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import findings_of, line_of, lint_repo, replace_in
from meetme.validators.engine import RULES

from meetme.core.problems import IntentError

CIRCUITS = "intent/aus1/circuits.yaml"
PEERING = "intent/aus1/peering.yaml"
MEL1_CIRCUITS = "intent/mel1/circuits.yaml"
MEL1_PEERING = "intent/mel1/peering.yaml"

# A third circuit to transit-a on a free port of aus1-br1 (the example uses 0/0/0/20..27).
XC_TR3 = (
    "      XC-TR3-A: {party: %s, room: aus1-mmr1, entrance: north, device: aus1-br1, "
    "interface: HundredGigE0/0/0/28, speed: 100G}\n"
)
# transit-a's list naming it, on the next free /31 of the transit block
TR3_SESSION = "            - {circuit: XC-TR3-A, ipv4: 192.0.2.5/31, peer_ipv4: 192.0.2.4}\n"


def add_circuit(repo: Path, party: str) -> Path:
    circuits = repo / CIRCUITS
    circuits.write_text(circuits.read_text() + XC_TR3 % party)
    return circuits


def problems(repo: Path) -> list[str]:
    with pytest.raises(IntentError) as caught:
        lint_repo(repo)
    return [f"{p.location}: {p.kind}: {p.message}" for p in caught.value.problems]


def test_example_has_none_of_these_findings(example: Path) -> None:
    assert RULES["PHY-019"].severity == RULES["PHY-020"].severity == "warning"
    result = lint_repo(example)  # loads: every used cross-connect's party exists
    assert findings_of(result, "PHY-019") == []
    assert findings_of(result, "PHY-020") == []


# --- the reference check: a used cross-connect's party names a party of its site -------------


def test_a_used_cross_connect_naming_no_party_is_refused_at_its_party(example: Path) -> None:
    replace_in(example / CIRCUITS, "XC-TA-1:  {party: transit-a,", "XC-TA-1:  {party: transit-3,")
    line = line_of(example / CIRCUITS, "transit-3")
    used = line_of(example / PEERING, "{circuit: XC-TA-1,")
    assert problems(example) == [
        f"{CIRCUITS}:{line}:25: dangling-name: unknown party 'transit-3'; did you mean "
        f"'transit-a', the transit that uses this cross-connect (at {PEERING}:{used}:25)? "
        "(known: aws-syd, er-syd, gcp-ic, ix-syd, pni-cdn, transit-a, transit-b)"
    ]


def test_a_cloud_circuit_naming_no_party_names_the_cloud(example: Path) -> None:
    replace_in(example / CIRCUITS, "XC-AZ-1:  {party: er-syd,", "XC-AZ-1:  {party: azure,")
    line = line_of(example / CIRCUITS, "party: azure")
    used = line_of(example / "intent/aus1/clouds.yaml", "primary: {circuit: XC-AZ-1,")
    assert problems(example) == [
        f"{CIRCUITS}:{line}:25: dangling-name: unknown party 'azure'; did you mean 'er-syd', "
        f"the Azure ExpressRoute that uses this cross-connect (at intent/aus1/clouds.yaml:"
        f"{used}:34)? (known: aws-syd, er-syd, gcp-ic, ix-syd, pni-cdn, transit-a, transit-b)"
    ]


def test_a_used_cross_connect_of_another_party_stays_the_mismatch(example: Path) -> None:
    """Just inside: transit-b exists, so the circuit id or the party may be the wrong one;
    transit-bb does not, and is the party's own problem alone."""
    replace_in(example / CIRCUITS, "XC-TA-1:  {party: transit-a,", "XC-TA-1:  {party: transit-bb,")
    assert [p.split(": ")[1] for p in problems(example)] == ["dangling-name"]
    replace_in(example / CIRCUITS, "{party: transit-bb,", "{party: transit-b,")
    used = line_of(example / PEERING, "{circuit: XC-TA-1,")
    assert problems(example) == [
        f"{PEERING}:{used}:25: bad-value: cross-connect 'XC-TA-1' belongs to party "
        "'transit-b', not 'transit-a'; fix the circuit id or the cross-connect's party"
    ]


def test_an_unused_cross_connect_may_name_a_carrier(example: Path) -> None:
    """Just inside: nothing binds an unused cross-connect's party to a party (a carrier, a
    party not yet under peering): the intent loads, and PHY-019 speaks of it."""
    add_circuit(example, "carrier-x")
    assert len(findings_of(lint_repo(example), "PHY-019")) == 1


# --- PHY-019: every cross-connect is used ---------------------------------------------------


def test_phy019_a_circuit_no_party_names(example: Path) -> None:
    circuits = add_circuit(example, "transit-a")
    result = lint_repo(example)
    assert findings_of(result, "PHY-019") == [
        f"{CIRCUITS}:{line_of(circuits, 'XC-TR3-A:')}: cross-connect XC-TR3-A of site aus1 "
        "(transit-a, aus1-br1 HundredGigE0/0/0/28) is used by nothing: no IX port, transit "
        "or PNI circuit or cloud attachment names it, so its port is left unconfigured and a "
        "paid circuit stays dark; add circuit: XC-TR3-A to the circuits of transit transit-a "
        "under peering, or remove the cross-connect"
    ]
    assert not result.errors  # a warning


def test_phy019_a_circuit_of_a_party_that_does_not_exist(example: Path) -> None:
    """transit-three is no party, and too far from transit-a or transit-b to be a typo of
    either: no did-you-mean; transit-aa, one letter more than transit-a, gets one."""
    circuits = add_circuit(example, "transit-three")
    assert findings_of(lint_repo(example), "PHY-019") == [
        f"{CIRCUITS}:{line_of(circuits, 'XC-TR3-A:')}: cross-connect XC-TR3-A of site aus1 "
        "(transit-three, aus1-br1 HundredGigE0/0/0/28) is used by nothing: no IX port, "
        "transit or PNI circuit or cloud attachment names it, so its port is left "
        "unconfigured and a paid circuit stays dark; its party transit-three is no IX, "
        "transit, PNI or cloud under peering: correct the party or add it under peering "
        "with circuit: XC-TR3-A, or remove the cross-connect"
    ]
    replace_in(circuits, "party: transit-three", "party: transit-aa")
    (found,) = findings_of(lint_repo(example), "PHY-019")
    assert "its party transit-aa is no IX, transit, PNI or cloud under peering (did you " in found
    assert "mean 'transit-a'?)" in found


def test_phy019_a_cloud_circuit_the_peering_lost(example: Path) -> None:
    """The ExpressRoute peering moves its secondary to a new circuit: the old one is dark."""
    clouds = example / "intent/aus1/clouds.yaml"
    with (example / CIRCUITS).open("a") as handle:
        handle.write(
            "      XC-AZ-3:  {party: er-syd, room: aus1-mmr2, entrance: south, "
            "device: aus1-bl4, interface: Ethernet1/10, speed: 100G}\n"
        )
    replace_in(clouds, "secondary: {circuit: XC-AZ-2,", "secondary: {circuit: XC-AZ-3,")
    assert findings_of(lint_repo(example), "PHY-019") == [
        f"{CIRCUITS}:{line_of(example / CIRCUITS, 'XC-AZ-2:')}: cross-connect XC-AZ-2 of site "
        "aus1 (er-syd, aus1-bl4 Ethernet1/9) is used by nothing: no IX port, transit or PNI "
        "circuit or cloud attachment names it, so its port is left unconfigured and a paid "
        "circuit stays dark; add circuit: XC-AZ-2 to a peering's primary or secondary of "
        "Azure ExpressRoute er-syd under peering, or remove the cross-connect"
    ]


def test_phy019_a_circuit_its_party_names(example: Path) -> None:
    """Just inside: transit-a's list names the new circuit."""
    add_circuit(example, "transit-a")
    assert len(findings_of(lint_repo(example), "PHY-019")) == 1
    peering = example / PEERING
    at = line_of(peering, "{circuit: XC-TA-2,")
    lines = peering.read_text().splitlines(keepends=True)
    peering.write_text("".join([*lines[:at], TR3_SESSION, *lines[at:]]))
    assert findings_of(lint_repo(example), "PHY-019") == []


def test_phy019_a_circuit_on_a_dci_port_is_phy013s(example: Path) -> None:
    """Just inside: a cross-connect on a DCI circuit's port is not dark; the port is used twice,
    which is PHY-013's error alone."""
    with (example / CIRCUITS).open("a") as handle:
        handle.write(
            "      XC-WAVE-1: {party: wavecarrier, room: aus1-mmr2, entrance: south, "
            "device: aus1-br2, interface: FourHundredGigE0/0/0/29, speed: 400G}\n"
        )
    assert len(findings_of(lint_repo(example), "PHY-019")) == 1  # on a port of its own
    replace_in(example / CIRCUITS, "FourHundredGigE0/0/0/29", "FourHundredGigE0/0/0/27")
    result = lint_repo(example)
    assert findings_of(result, "PHY-019") == []
    assert len(findings_of(result, "PHY-013")) == 1


# --- PHY-020: a circuit id is declared in one site only -------------------------------------


def mel1_ix_circuit_named(repo: Path, name: str) -> Path:
    """mel1's second IX circuit renamed to `name`, where it is declared and where it is used."""
    circuits = repo / MEL1_CIRCUITS
    replace_in(circuits, "XC-MEL-IX-2:", f"{name}:")
    replace_in(repo / MEL1_PEERING, "{circuit: XC-MEL-IX-2,", f"{{circuit: {name},")
    return circuits


def test_phy020_one_circuit_id_in_two_sites(example: Path) -> None:
    circuits = mel1_ix_circuit_named(example, "XC-IX-1")
    first = line_of(example / CIRCUITS, "XC-IX-1:")
    result = lint_repo(example)
    assert findings_of(result, "PHY-020") == [
        f"{MEL1_CIRCUITS}:{line_of(circuits, 'XC-IX-1:')}: cross-connect XC-IX-1 of site mel1 "
        "repeats the circuit id of cross-connect XC-IX-1 of site aus1 (at "
        f"{CIRCUITS}:{first}:7); a carrier's circuit id names one circuit: give each "
        "cross-connect the id on its own carrier order, or remove the copy"
    ]
    assert not result.errors  # a warning


def test_phy020_ids_differing_in_letter_case_only(example: Path) -> None:
    circuits = mel1_ix_circuit_named(example, "xc-ix-1")
    first = line_of(example / CIRCUITS, "XC-IX-1:")
    assert findings_of(lint_repo(example), "PHY-020") == [
        f"{MEL1_CIRCUITS}:{line_of(circuits, 'xc-ix-1:')}: cross-connect xc-ix-1 of site mel1 "
        "repeats the circuit id of cross-connect XC-IX-1 of site aus1 (at "
        f"{CIRCUITS}:{first}:7); a carrier's circuit id names one circuit: give each "
        "cross-connect the id on its own carrier order, or remove the copy"
    ]


def test_phy020_a_circuit_id_of_its_own(example: Path) -> None:
    """Just inside: one character more is another circuit."""
    circuits = mel1_ix_circuit_named(example, "XC-IX-1")
    assert len(findings_of(lint_repo(example), "PHY-020")) == 1
    replace_in(circuits, "XC-IX-1:", "XC-IX-10:")
    replace_in(example / MEL1_PEERING, "{circuit: XC-IX-1,", "{circuit: XC-IX-10,")
    assert findings_of(lint_repo(example), "PHY-020") == []

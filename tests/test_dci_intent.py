"""DCI intent: a second site and two circuits between the sites load clean; every name a
circuit writes is checked where it is written (file:line:column), all in one run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import REPO, line_of, lint_repo, replace_in
from dci_example import with_dci

from meetme.core.problems import IntentError


@pytest.fixture
def dci(example: Path) -> Path:
    """The example's aus1, the tests' mel1 and tests/data/dci/dci.yaml; returns dci.yaml."""
    return with_dci(example)


def problems(repo: Path) -> list[str]:
    with pytest.raises(IntentError) as caught:
        lint_repo(repo)
    return [f"{p.location}: {p.kind}: {p.message}" for p in caught.value.problems]


# The tests' mel1 has EOS borders, outside the SRv6 domain: its circuits carry no routing, and
# that warning (DCI-009) is all the lint says of two sites otherwise correct.
DARK = [("DCI-009", "dci.circuits.syd-mel-1"), ("DCI-009", "dci.circuits.syd-mel-2")]


def test_two_sites_and_their_circuits_lint_clean(dci: Path) -> None:
    result = lint_repo(dci.parents[1])
    assert [(f.rule, f.path) for f in result.findings] == DARK
    circuits = result.loaded.intent.dci
    assert circuits is not None and sorted(circuits.circuits) == ["syd-mel-1", "syd-mel-2"]


def test_every_wrong_name_of_a_circuit_is_reported_at_its_value_in_one_run(dci: Path) -> None:
    replace_in(dci, "device: mel1-br1", "device: mel1-br9")
    replace_in(dci, "device: aus1-br2", "device: aus1-sp1")
    replace_in(dci, "room: aus1-mmr2", "room: aus1-mdf-b")
    replace_in(dci, "room: mel1-mmr1", "room: mel1-mmr7")
    replace_in(dci, "syd-mel: [syd-mel-1, syd-mel-2]", "syd-mel: [syd-mel-1, syd-mel-3]")
    replace_in(dci, "{site: mel1, device: mel1-br2", "{site: mel9, device: mel1-br2")
    b1, a2 = line_of(dci, "mel1-br9"), line_of(dci, "aus1-sp1")
    group, b2 = line_of(dci, "syd-mel-3"), line_of(dci, "mel9")
    assert problems(dci.parents[1]) == [
        f"intent/dci.yaml:{b1}:31: dangling-name: unknown device of site mel1 'mel1-br9'; "
        "did you mean 'mel1-br2'? (known: mel1-br1, mel1-br2)",
        f"intent/dci.yaml:{b1}:72: dangling-name: unknown room of site mel1 'mel1-mmr7'; "
        "did you mean 'mel1-mmr2'? (known: mel1-mdf-a, mel1-mdf-b, mel1-mmr1, mel1-mmr2)",
        f"intent/dci.yaml:{a2}:83: bad-value: a DCI circuit lands in a meet-me room, and "
        "'aus1-mdf-b' is kind mdf; write one of the MMRs: aus1-mmr1, aus1-mmr2",
        f"intent/dci.yaml:{b2}:17: dangling-name: unknown site 'mel9'; did you mean 'mel1'? "
        "(known: aus1, mel1)",
        f"intent/dci.yaml:{group}:26: dangling-name: unknown DCI circuit 'syd-mel-3'; did you "
        "mean 'syd-mel-2'? (known: syd-mel-1, syd-mel-2)",
    ]


def test_a_port_name_the_platform_does_not_have_is_refused(dci: Path) -> None:
    replace_in(dci, "interface: FourHundredGigE0/0/0/28", "interface: FourHundredGigabitE0/0/0/28")
    (found,) = problems(dci.parents[1])
    assert found.startswith(f"intent/dci.yaml:{line_of(dci, 'GigabitE')}:52: bad-interface: ")
    assert found.endswith("(device aus1-br1)")


def test_a_circuit_inside_one_site_and_a_need_twice_are_refused(dci: Path) -> None:
    replace_in(
        dci,
        "b: {site: mel1, device: mel1-br1, interface: Ethernet33/1, room: mel1-mmr1",
        "b: {site: aus1, device: aus1-br2, interface: FourHundredGigE0/0/0/29, room: aus1-mmr2",
    )
    dci.write_text(
        dci.read_text() + "    - {sites: [mel1, aus1], capacity_gbps: 100}\n"
        "    - {sites: [mel1, mel1], capacity_gbps: 100}\n"
    )
    same = line_of(dci, "FourHundredGigE0/0/0/29")
    first, twice, itself = (line_of(dci, "{sites: [") + k for k in range(3))
    assert problems(dci.parents[1]) == [
        f"intent/dci.yaml:{same}:17: bad-value: DCI circuit 'syd-mel-1' has both ends in site "
        "'aus1'; a DCI circuit joins two sites (a circuit inside one site is a link or a "
        "cross-connect)",
        f"intent/dci.yaml:{twice}:15: duplicate-name: sites aus1 and mel1 already have a need "
        f"(at intent/dci.yaml:{first}:7); one need per site pair: merge them",
        f"intent/dci.yaml:{itself}:22: bad-value: a DCI need is between two sites, not 'mel1' "
        "and itself",
    ]


def test_a_need_between_three_sites_says_so_in_plain_words(dci: Path) -> None:
    dci.write_text(dci.read_text() + "    - {sites: [aus1, mel1, aus1], capacity_gbps: 100}\n")
    assert problems(dci.parents[1]) == [
        f"intent/dci.yaml:{line_of(dci, 'mel1, aus1]')}:15: out-of-range: dci.needs.1.sites: "
        "takes at most 2 entries, got 3"
    ]


@pytest.mark.parametrize("economics", ["both", "neither"])
def test_a_circuit_is_built_or_leased_exactly(dci: Path, economics: str) -> None:
    built = (
        "      built: {route_km: 1100, lead_time_weeks: 40, capex: 1200000, opex_monthly: 10000}\n"
    )
    if economics == "both":
        replace_in(
            dci,
            built,
            built + "      leased: {provider: x, capacity_gbps: 400, monthly: 1, term_months: 1}\n",
        )
    else:
        replace_in(dci, built, "")
    (found,) = problems(dci.parents[1])
    # at the circuit's body, the line below its name
    assert found.startswith(f"intent/dci.yaml:{line_of(dci, 'syd-mel-1:') + 1}:7: bad-value: ")
    assert "give exactly one of built: and leased:" in found


def test_the_example_in_docs_dci_is_valid_intent(dci: Path) -> None:
    page = (REPO / "docs/dci.md").read_text()
    (block,) = re.findall(r"```yaml\n(.*?)```", page, re.S)
    dci.write_text(block)
    result = lint_repo(dci.parents[1])
    assert [(f.rule, f.path) for f in result.findings] == DARK
    written = result.loaded.intent.dci
    assert written is not None and sorted(written.circuits) == ["syd-mel-1", "syd-mel-2"]

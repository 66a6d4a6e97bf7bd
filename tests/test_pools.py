"""ADDR-015: an address a pool cannot hold is a lint finding beside every other problem of the
intent (it was exit 2 at resolve, and the rest came one run later), each pool just inside and
just outside its end; commands that need the models still refuse the intent, without a crash."""

from pathlib import Path

import pytest
from conftest import findings_of, line_of, lint_repo, replace_in
from typer.testing import CliRunner

from meetme.cli import app

runner = CliRunner()
SITE = "intent/aus1/site.yaml"
DEVICES = "intent/aus1/devices.yaml"
# aus1-lf6's id in the example; the leaf is an NVUE VTEP
LF6 = "      aus1-lf6:\n        id: 106\n"


def lf6_with_id(repo: Path, device_id: int) -> int:
    """Give aus1-lf6 `device_id` and narrow the IPv4 loopback pool to a /25 (ids 0-127)."""
    replace_in(repo / SITE, "loopback_v4: 10.0.0.0/24", "loopback_v4: 10.0.0.0/25")
    replace_in(repo / DEVICES, LF6, LF6.replace("106", str(device_id)))
    return line_of(repo / DEVICES, f"id: {device_id}")


@pytest.mark.parametrize(("device_id", "outside"), [(127, False), (128, True)])
def test_addr015_device_id_at_the_end_of_the_loopback_pool(
    example: Path, device_id: int, outside: bool
) -> None:
    line = lf6_with_id(example, device_id)
    result = lint_repo(example)
    expected = [
        f"{DEVICES}:{line}: aus1-lf6 (id 128) has no loopback_v4 address: offset 128 is "
        "outside pool 10.0.0.0/25 (128 addresses); widen pools.loopback_v4, give the device "
        "a lower id or its own loopback_v4"
    ]
    assert findings_of(result, "ADDR-015") == (expected if outside else [])
    assert bool(result.errors) is outside


def test_addr015_a_loopback_of_its_own_needs_no_pool(example: Path) -> None:
    lf6_with_id(example, 128)
    replace_in(
        example / DEVICES,
        "      aus1-lf6:\n        id: 128\n",
        "      aus1-lf6:\n        id: 128\n        loopback_v4: 10.0.2.128/32\n",
    )
    assert findings_of(lint_repo(example), "ADDR-015") == []


LINK = """\
      - a: {device: aus1-lf1, interface: swp40}
        b: {device: aus1-lf2, interface: swp40}
        index: %d
        speed: 400G
"""


@pytest.mark.parametrize(("index", "outside"), [(127, False), (128, True)])
def test_addr015_explicit_link_index_at_links_per_device(
    example: Path, index: int, outside: bool
) -> None:
    """links_per_device is 128 in aus1: indexes 0-127 have a /31 and a /127."""
    links = example / "intent/aus1/links.yaml"
    links.write_text(links.read_text() + LINK % index)
    line = line_of(links, f"        index: {index}")
    expected = [
        f"intent/aus1/links.yaml:{line}: link #{_last_link(example)} (aus1-lf1 swp40 - aus1-lf2 "
        "swp40) has no p2p subnet: link index 128 is beyond links_per_device (128); lower its "
        "index, raise links_per_device to at least 129 or give the link ipv4 (and ipv6) of its "
        "own"
    ]
    assert findings_of(lint_repo(example), "ADDR-015") == (expected if outside else [])


def test_addr015_explicit_link_with_its_own_subnets_draws_nothing(example: Path) -> None:
    links = example / "intent/aus1/links.yaml"
    own = "        ipv4: 10.9.0.0/31\n        ipv6: 2001:db8:0:2000::/127\n"
    links.write_text(links.read_text() + LINK % 128 + own)
    assert findings_of(lint_repo(example), "ADDR-015") == []


def _last_link(repo: Path) -> int:
    """The index of the last link in aus1's links list (the one a test appended)."""
    from meetme.intent.loader import load_intent

    return len(load_intent(repo / "intent").intent.sites["aus1"].links) - 1


def test_pool_finding_comes_with_every_other_problem_in_one_run(example: Path) -> None:
    """A second, unrelated design error (a VTEP copied from another leaf, ADDR-001) is named in
    the same run, with the documented exit code of findings, and nothing is written."""
    lf6_with_id(example, 128)
    replace_in(
        example / DEVICES,
        "management: 192.168.10.102/24\n",
        "management: 192.168.10.102/24\n        vtep_v4: 10.0.1.101/32\n",
    )
    before = sorted(p.name for p in (example / "rendered").rglob("*"))
    result = runner.invoke(app, ["render"])
    assert result.exit_code == 1
    assert "ADDR-015" in result.output and "ADDR-001" in result.output
    assert "Traceback" not in result.output
    assert sorted(p.name for p in (example / "rendered").rglob("*")) == before


@pytest.mark.parametrize("command", [["show", "aus1-sp1"], ["show", "aus1-lf6"]])
def test_commands_that_need_models_refuse_a_pool_miss(example: Path, command: list[str]) -> None:
    """A spine's model is built from its leaves' loopbacks: `show` of either end says why it
    cannot build one (exit 2), where it crashed once the lint stopped refusing the intent."""
    line = lf6_with_id(example, 128)
    result = runner.invoke(app, command)
    assert result.exit_code == 2
    assert f"{DEVICES}:{line}:9: error[pool-exhausted]: aus1-lf6 (id 128) has no loopback_v4" in (
        result.output
    )
    assert "internal error" not in result.output


def test_a_p2p_pool_too_small_for_the_link_rules_is_said_once_per_device(example: Path) -> None:
    """/20 for /16 (a typo): every rule-made link of the leaves and border leaves falls
    outside. PHY-016 names each such device once; the rules that judge which links a device
    has (TOPO-001, PHY-006, HANDOFF-001) and the built models' findings (FLOW-003, SRV6-006)
    do not tell the engineer to cable what is cabled."""
    replace_in(example / "intent/aus1/site.yaml", "p2p_v4: 10.1.0.0/16 ", "p2p_v4: 10.1.0.0/20 ")
    errors = [f for f in lint_repo(example).errors]
    devices = sorted(m.split("the links of ")[1].split(" ")[0] for m in (f.message for f in errors))
    assert {f.rule for f in errors} == {"PHY-016"}
    assert devices == [f"aus1-bl{n}" for n in range(1, 7)] + [f"aus1-lf{n}" for n in range(1, 7)]


def test_links_missing_for_another_reason_are_still_told_in_the_same_run(example: Path) -> None:
    """aus1's pool is PHY-016's; mel1's pod-2 leaves, whose rule is gone, are TOPO-001's."""
    replace_in(example / "intent/aus1/site.yaml", "p2p_v4: 10.1.0.0/16 ", "p2p_v4: 10.1.0.0/20 ")
    links = example / "intent/mel1/links.yaml"
    text = links.read_text()
    start = text.index("      - name: leaf-to-spine-pod2")
    links.write_text(text[:start] + text[text.index("      # Border leaves", start) :])
    found = [(f.rule, f.path) for f in lint_repo(example).errors if f.rule != "PHY-016"]
    assert ("TOPO-001", "sites.mel1.devices.mel1-lf201") in found
    assert ("TOPO-001", "sites.mel1.devices.mel1-lf202") in found
    assert not [path for _, path in found if path.startswith("sites.aus1.devices")]


def test_phy016_advice_fits_the_shortage(example: Path) -> None:
    """A rule's links past a device's block want a longer block (the index is named); links
    whose block falls outside the pool want a wider pool or shorter blocks, never the reverse."""
    site = example / "intent/aus1/site.yaml"
    replace_in(site, "p2p_v4: 10.1.0.0/16", "p2p_v4: 10.1.0.0/21")  # 1,024 /31s: ids 0-7
    pool = [f for f in findings_of(lint_repo(example), "PHY-016") if "outside pool" in f]
    assert pool and all(f.endswith("; widen the pools or lower links_per_device") for f in pool)
    assert not [f for f in pool if "raise links_per_device" in f]

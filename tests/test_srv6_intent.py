"""SRv6 intent: the domain's block, format and locators derive from site and device ids; a
third site moves nothing of the first two; every name the domain writes is checked."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import line_of, lint_repo, replace_in
from meetme.generators.model import PrefixList
from meetme.generators.resolve.srv6 import locators
from srv6_example import add_third_site, models_of

from meetme.core.problems import IntentError


def test_the_example_derives_one_locator_per_member_from_site_and_device_ids(
    example: Path,
) -> None:
    loaded, _ = models_of(example)
    found = {name: (loc.prefix, loc.usid_hex) for name, loc in locators(loaded.intent).items()}
    # 5f00::/32 + site 1's byte + the device id (br1 1, br2 2, lf1 101 = 0x65, lf2 102 = 0x66)
    assert found == {
        "aus1-br1": ("5f00:0:101::/48", "0x0101"),
        "aus1-br2": ("5f00:0:102::/48", "0x0102"),
        "aus1-lf1": ("5f00:0:165::/48", "0x0165"),
        "aus1-lf2": ("5f00:0:166::/48", "0x0166"),
    }


def test_a_declared_block_and_the_default_members_are_the_sites_borders(example: Path) -> None:
    srv6 = example / "intent" / "srv6.yaml"
    replace_in(srv6, "format: F3216", "format: F3216\n  block: fcbb:bb00::/32")
    replace_in(
        srv6, "aus1: {id: 1, devices: [aus1-br1, aus1-br2, aus1-lf1, aus1-lf2]}", "aus1: {id: 7}"
    )
    loaded, _ = models_of(example)
    assert {n: loc.prefix for n, loc in locators(loaded.intent).items()} == {
        "aus1-br1": "fcbb:bb00:701::/48",
        "aus1-br2": "fcbb:bb00:702::/48",
    }


def _named(lists: tuple[PrefixList, ...], name: str) -> PrefixList | None:
    return next((p for p in lists if p.name == name), None)


def _carved(own: str) -> list[tuple[str, int | None]]:
    """A border's own-space list once per1 announces 2001:db8:4200::/40 beside mel1's /40:
    the organisation's /36 and every prefix down to the other sites' /40s exactly, and the
    border's own /40 and the rest of the /36 or longer."""
    return [
        ("2001:db8:4000::/36", None),
        ("2001:db8:4000::/37", None),
        ("2001:db8:4000::/38", None),
        ("2001:db8:4000::/39", None),
        (own, 128),
        ("2001:db8:4200::/39", None),
        ("2001:db8:4300::/40", 128),
        ("2001:db8:4400::/38", 128),
        ("2001:db8:4800::/37", 128),
    ]


PER1_CARVED = {"aus1": _carved("2001:db8:4000::/40"), "mel1": _carved("2001:db8:4100::/40")}


def test_a_third_site_changes_no_locator_sid_or_address_of_the_first_two(example: Path) -> None:
    before_loaded, before = models_of(example)
    before_locators = locators(before_loaded.intent)
    add_third_site(example)
    after_loaded, after = models_of(example)
    after_locators = locators(after_loaded.intent)
    assert {n: after_locators[n] for n in before_locators} == before_locators
    # per1's borders took site 3's locators, beside and not over the others
    assert after_locators["per1-br1"].prefix == "5f00:0:301::/48"
    # per1's own /40 lies in a part of the /36 it takes or longer anyway: listed once
    (per1,) = [p for p in after["per1-br1"].prefix_lists if p.name == "PL-OWN-ORLONGER-V6"]
    assert [(e.prefix, e.le) for e in per1.entries] == [
        ("2001:db8:4000::/36", None),
        ("2001:db8:4000::/37", None),
        ("2001:db8:4000::/38", None),
        ("2001:db8:4000::/39", None),
        ("2001:db8:4200::/39", 128),
        ("2001:db8:4400::/38", 128),
        ("2001:db8:4800::/37", 128),
    ]
    for name, model in before.items():
        # per1 announces its own /40 inside the organisation's /36: the borders' own-space
        # lists leave it out, as the Internet is their only way there (edge-other-sites)
        own = {
            p.name: [(e.prefix, e.le) for e in p.entries]
            for p in after[name].prefix_lists
            if "OWN-ORLONGER" in p.name and p != _named(model.prefix_lists, p.name)
        }
        assert own == ({"PL-OWN-ORLONGER-V6": PER1_CARVED[name[:4]]} if "-br" in name else {})
        unchanged = after[name].model_copy(update={"prefix_lists": model.prefix_lists})
        assert unchanged == model, f"{name} changed when a third site was added"


def test_a_domain_site_written_wrong_is_one_problem_at_its_key(example: Path) -> None:
    """`asu1:` for aus1: one message, at the key; the VRF naming aus1 rightly is not told to
    name the typo instead."""
    srv6 = example / "intent" / "srv6.yaml"
    replace_in(srv6, "    aus1: {id: 1,", "    asu1: {id: 1,")
    with srv6.open("a") as handle:
        handle.write("  vrfs:\n    storage: {id: 10, sites: [aus1, mel1]}\n")
    with pytest.raises(IntentError) as caught:
        lint_repo(example)
    got = [(p.location.line, p.location.column, p.message) for p in caught.value.problems]
    assert got == [
        (
            line_of(srv6, "asu1:"),
            5,
            "unknown site 'asu1'; did you mean 'aus1'? (known: aus1, mel1)",
        )
    ]


def test_every_wrong_name_of_the_domain_is_reported_where_it_is_written(example: Path) -> None:
    srv6 = example / "intent" / "srv6.yaml"
    replace_in(srv6, "devices: [aus1-br1,", "devices: [aus1-br9,")
    vrfs = (
        "  vrfs:\n    storage: {id: 10, sites: [aus1, syd9]}\n"
        "    gpu-a: {id: 1, sites: [aus1, mel1]}\n"
    )
    with srv6.open("a") as handle:
        handle.write(vrfs)
    with pytest.raises(IntentError) as caught:
        lint_repo(example)
    got = {f"{p.location.line}: {p.message}" for p in caught.value.problems}
    assert got == {
        f"{line_of(srv6, 'aus1-br9')}: unknown device of site aus1 'aus1-br9'; did you mean "
        "'aus1-br2'? (known: aus1-bl1, aus1-bl2, aus1-bl3, aus1-bl4, aus1-bl5, aus1-bl6, "
        "aus1-br1, aus1-br2 and 10 more)",
        f"{line_of(srv6, 'gpu-a:')}: VRF 'gpu-a' rides SRv6 to site mel1, but no tenant of mel1 "
        "has it (known: gpu-b, storage)",
        f"{line_of(srv6, 'syd9')}: unknown site of the SRv6 domain 'syd9' (known: aus1, mel1)",
    }

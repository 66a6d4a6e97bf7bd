"""Lists that are sets (a domain's SRv6 devices, a handoff's border leaves, a device's power
feeds, a route server's addresses, the NTP servers, a prefix or community list, ...): an entry
listed twice is one bad-value problem at the repeat's line and column.

Before, `devices: [aus1-br1, aus1-br2, aus1-lf1, aus1-lf2, aus1-lf1]` or `power_feeds: [A, B, A]`
linted clean; the repeat was silently dropped or counted twice.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import line_of, replace_in
from typer.testing import CliRunner

from meetme.cli import app
from meetme.intent.schema import Intent
from meetme.intent.types import NAME_PATTERN


def _lint() -> tuple[int, list[str], str]:
    result = CliRunner().invoke(app, ["lint"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    errors = [x for x in result.output.splitlines() if ": error[" in x]
    return result.exit_code, errors, result.output


# (file, text as shipped, the same list with one name repeated, the repeat's text, its field)
CASES = [
    (
        "intent/srv6.yaml",
        "devices: [aus1-br1, aus1-br2, aus1-lf1, aus1-lf2]",
        "devices: [aus1-br1, aus1-br2, aus1-lf1, aus1-lf2, aus1-lf1]",
        "srv6.sites.aus1.devices.4: entry 5, 'aus1-lf1', is already listed as entry 3 of this list",
    ),
    (
        "intent/aus1/attachments.yaml",
        "border_leaves: [aus1-bl1, aus1-bl2]",
        "border_leaves: [aus1-bl1, aus1-bl2, aus1-bl1]",
        "sites.aus1.handoff.border_leaves.2: entry 3, 'aus1-bl1', is already listed as "
        "entry 1 of this list",
    ),
    (
        "intent/aus1/devices.yaml",
        "power_feeds: [A, B]",
        "power_feeds: [A, B, A]",
        "sites.aus1.devices.aus1-br1.power_feeds.2: entry 3, 'A', is already listed as "
        "entry 1 of this list",
    ),
    (
        "intent/dci.yaml",
        "syd-mel: [syd-mel-coastal, syd-mel-hume]",
        "syd-mel: [syd-mel-coastal, syd-mel-hume, syd-mel-coastal]",
        "dci.diverse_groups.syd-mel.2: entry 3, 'syd-mel-coastal', is already listed as "
        "entry 1 of this list",
    ),
    (  # a route server's address twice: two identical neighbour stanzas were rendered
        "intent/aus1/peering.yaml",
        "rs1: {asn: 64504, ipv4: [203.0.113.1]",
        "rs1: {asn: 64504, ipv4: [203.0.113.1, 203.0.113.1]",
        "sites.aus1.peering.ixes.ix-syd.route_servers.rs1.ipv4.1: entry 2, '203.0.113.1', is "
        "already listed as entry 1 of this list",
    ),
    (
        "intent/aus1/site.yaml",
        "ntp_servers: [192.168.10.5, 192.168.10.6]",
        "ntp_servers: [192.168.10.5, 192.168.10.6, 192.168.10.5]",
        "sites.aus1.management.ntp_servers.2: entry 3, '192.168.10.5', is already listed as "
        "entry 1 of this list",
    ),
    (
        "intent/aus1/attachments.yaml",
        "networks: [gpu-a-compute-3, gpu-a-compute-4, storage-back-1]",
        "networks: [gpu-a-compute-3, gpu-a-compute-4, gpu-a-compute-4]",
        "sites.aus1.attachments.dh1-r11-gpu-hosts.networks.2: entry 3, 'gpu-a-compute-4', is "
        "already listed as entry 2 of this list",
    ),
    # Prefixes and communities: a repeat rendered the same prefix-list entry twice under two
    # sequence numbers (EOS) or one prefix-set element twice (IOS-XR). Two spellings of one
    # prefix are one prefix.
    (
        "intent/aus1/attachments.yaml",
        'public: [198.51.100.128/26, "2001:db8:4000:50::/64"]',
        'public: [198.51.100.128/26, "2001:db8:4000:50::/64", 2001:DB8:4000:50:0::/64]',
        "sites.aus1.handoff.vrfs.gpu-a.public.2: entry 3, '2001:db8:4000:50::/64', is already "
        "listed as entry 2 of this list",
    ),
    (
        "intent/aus1/peering.yaml",
        'communities: ["64501:666"]',
        'communities: ["64501:666", 64501:666]',
        "sites.aus1.peering.transits.transit-a.communities.1: entry 2, '64501:666', is already "
        "listed as entry 1 of this list",
    ),
    (
        "intent/aus1/clouds.yaml",
        "metro: syd, edge_availability_domain: availability-domain-1, advertise: [10.50.0.0/16]}",
        "metro: syd, edge_availability_domain: availability-domain-1, advertise: [10.50.0.0/16, "
        "10.50.0.0/16]}",
        "sites.aus1.peering.gcp.gcp-ic.attachments.syd-ead1.advertise.1: entry 2, "
        "'10.50.0.0/16', is already listed as entry 1 of this list",
    ),
]


@pytest.mark.parametrize(("file", "shipped", "repeated", "message"), CASES)
def test_a_name_listed_twice_is_one_error_at_the_repeat(
    example: Path, file: str, shipped: str, repeated: str, message: str
) -> None:
    replace_in(example / file, shipped, repeated)
    line = line_of(example / file, repeated)
    text = (example / file).read_text().splitlines()[line - 1]
    # the repeat is the last entry: its column is where the last name starts
    column = text.index(repeated) + repeated.rindex(" ") + 2
    code, errors, output = _lint()
    assert code == 2, output
    assert errors == [f"{file}:{line}:{column}: error[bad-value]: {message}: each is counted once "
                      "here, so the repeat adds nothing; remove it"], output  # fmt: skip


@pytest.mark.parametrize(("file", "shipped", "repeated", "message"), CASES[:3])
def test_the_same_list_without_the_repeat_is_accepted(
    example: Path, file: str, shipped: str, repeated: str, message: str
) -> None:
    # just inside: the last entry is new (the example's own list, one new name appended)
    names = repeated[repeated.index("[") + 1 : -1].split(", ")
    replace_in(example / file, shipped, repeated)
    replace_in(example / file, repeated, repeated.replace(f", {names[-1]}]", "]"))
    code, errors, output = _lint()
    assert code == 0 and errors == [] and "already listed" not in output, output


def _name_lists(node: dict[str, Any], where: str) -> dict[str, bool]:
    """Every list of names (or of a choice such as a power feed) in the JSON schema -> whether
    it is unique, by model.field."""
    found: dict[str, bool] = {}
    for field, spec in node.get("properties", {}).items():
        for option in [spec, *spec.get("anyOf", []), spec.get("additionalProperties") or {}]:
            if not isinstance(option, dict) or option.get("type") != "array":
                continue
            items = option.get("items", {})
            if items.get("pattern") == NAME_PATTERN or "enum" in items:
                found[f"{where}.{field}"] = bool(option.get("uniqueItems"))
    return found


# Lists of names whose repeat a rule already reports at the repeat, in its own words
REPORTED_ELSEWHERE = {
    "Srv6Vrf.sites",  # SRV6-008
    "Attachment.leaves",  # EVPN-008: a dual-homed host needs two different leaves
    "DciNeed.sites",  # the reader: 'a DCI need is between two sites, not X and itself'
}


def test_every_list_of_names_is_a_set() -> None:
    schema = Intent.model_json_schema()
    lists: dict[str, bool] = {}
    for model, node in schema["$defs"].items():
        lists.update(_name_lists(node, model))
    assert "Device.power_feeds" in lists and "Handoff.border_leaves" in lists
    assert "Srv6Site.devices" in lists and "Diversity.conduits" in lists
    not_sets = sorted(k for k, unique in lists.items() if not unique)
    assert not_sets == sorted(REPORTED_ELSEWHERE), not_sets

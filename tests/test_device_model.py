"""The device model is the only truth: deeply immutable, placement resolved once, no 0 sentinel
for "no prefix limit", one prefix-limit warning threshold for every session."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLE_INTENT, lint_repo, replace_in
from meetme.generators.build.devices import build_models
from meetme.generators.model import (
    DeviceModel,
    RouteMap,
    RouteMapEntry,
    Srv6Peer,
    fit_session_description,
)
from meetme.generators.render import render_device
from meetme.generators.resolve import fabric as fabric_module
from meetme.generators.resolve import placement as placement_module
from meetme.generators.resolve.fabric import resolve_fabric
from pydantic import BaseModel, ValidationError

from meetme.intent.loader import load_intent
from meetme.pipeline import lint

PEERING = "intent/aus1/peering.yaml"
MEL1_PEERING = "intent/mel1/peering.yaml"
EYEBALL_B_V4 = "max_prefix_v4: 9000, "
PLATFORMS = ("arista_eos", "cisco_iosxr", "cisco_nxos", "nvidia_nvue")


def _models(intent: Path = EXAMPLE_INTENT) -> dict[str, DeviceModel]:
    loaded = load_intent(intent)
    return build_models(loaded, resolve_fabric(loaded))


def _fields(node: Any, path: str = "device") -> Iterator[tuple[str, Any]]:
    """(path, value) of every field value in the model tree."""
    if isinstance(node, BaseModel):
        for name in type(node).model_fields:
            value = getattr(node, name)
            yield f"{path}.{name}", value
            yield from _fields(value, f"{path}.{name}")
    elif isinstance(node, tuple | frozenset):
        for index, item in enumerate(node):
            yield from _fields(item, f"{path}[{index}]")


# --- deeply immutable --------------------------------------------------------------------------


def test_no_field_of_any_built_model_is_a_mutable_collection() -> None:
    mutable = [
        (name, path, type(value).__name__)
        for name, model in _models().items()
        for path, value in _fields(model)
        if isinstance(value, list | dict | set | bytearray)
    ]
    assert mutable == []


def test_appending_to_any_collection_of_a_built_model_raises() -> None:
    model = _models()["aus1-lf1"]  # a VTEP with EVPN, bonds and sessions: most fields filled
    collections = [(p, v) for p, v in _fields(model) if isinstance(v, tuple) and v]
    assert len(collections) > 20
    for _path, value in collections:
        with pytest.raises(AttributeError):
            value.append(value[0])  # a tuple has no append: the model cannot grow
    with pytest.raises(TypeError):
        model.bgp.neighbors[0] = model.bgp.neighbors[1]  # type: ignore[index]
    with pytest.raises(ValidationError):
        model.bgp.neighbors[0].max_prefix = 1  # frozen: no field can be reassigned


def test_a_model_given_lists_stores_tuples() -> None:
    route_map = RouteMap(
        name="RM-T",
        afi="ipv4",
        entries=[{"seq": 10, "action": "permit", "set_large_communities": ["64500:1:1"]}],
    )
    assert isinstance(route_map.entries, tuple)
    assert route_map.entries[0].set_large_communities == ("64500:1:1",)


# --- route maps: the if/elseif/else chain is decided once, in the model ----------------------


def _entry(seq: int, match: str | None) -> dict[str, Any]:
    return {"seq": seq, "action": "permit", "match_prefix_list": match}


@pytest.mark.parametrize(
    ("matches", "branches", "fallthrough"),
    [
        ([], [], "all"),  # no clause: every route is denied
        ([None], ["always"], "none"),  # one match-everything clause is the whole policy
        (["PL-A"], ["if"], "chain"),  # what PL-A does not match falls out of the chain: denied
        (["PL-A", "PL-B"], ["if", "elseif"], "chain"),
        (["PL-A", "PL-B", None], ["if", "elseif", "else"], "none"),  # the catch-all closes it
    ],
)
def test_route_map_branches_and_fallthrough(
    matches: list[str | None], branches: list[str], fallthrough: str
) -> None:
    route_map = RouteMap(
        name="RM-T", afi="ipv4", entries=[_entry(10 * (i + 1), m) for i, m in enumerate(matches)]
    )
    assert [branch for branch, _ in route_map.clauses] == branches
    assert route_map.fallthrough == fallthrough


def test_a_copied_route_map_recomputes_its_chain() -> None:
    """Derived on read: a model changed with model_copy (as tests and tools do) cannot carry a
    stale chain."""
    chained = RouteMap(name="RM-T", afi="ipv4", entries=[_entry(10, "PL-A")])
    alone = chained.model_copy(update={"entries": (RouteMapEntry(seq=10, action="permit"),)})
    assert [branch for branch, _ in alone.clauses] == ["always"]
    assert alone.fallthrough == "none"


# --- placement: computed once, and what each VTEP renders -------------------------------------


def test_placement_is_resolved_once_per_site_for_lint_build_and_render(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    calls: list[str] = []
    real = placement_module.resolve_placement

    def counting(site: Any) -> placement_module.Placement:
        calls.append(min(site.devices).split("-")[0])  # the site, by its hostnames' prefix
        return real(site)

    monkeypatch.setattr(fabric_module, "resolve_placement", counting)
    monkeypatch.chdir(tmp_path)
    result = lint(EXAMPLE_INTENT)  # rules, build and the in-memory render of the config lint
    assert result.models is not None
    assert sorted(calls) == ["aus1", "mel1"]  # two sites, one placement each


@pytest.mark.parametrize("site_name", ["aus1", "mel1"])
def test_every_vtep_renders_exactly_the_networks_placed_on_it(site_name: str) -> None:
    loaded = load_intent(EXAMPLE_INTENT)
    fabrics = resolve_fabric(loaded)
    models = {name: m for name, m in build_models(loaded, fabrics).items() if m.site == site_name}
    placement = fabrics[site_name].placement
    site = loaded.intent.sites[site_name]
    vnis = {
        (t, n): net.l2vni
        for t, tenant in site.tenants.items()
        for n, net in tenant.networks.items()
    }
    vteps = [name for name, m in models.items() if m.evpn is not None and m.evpn.vtep]
    assert len(vteps) >= 4
    carried_somewhere = False
    for name in vteps:
        mine = {p.key for p in placement.networks_of(name)}
        assert mine == {k for k, vteps_of in placement.vteps.items() if name in vteps_of}
        evpn = models[name].evpn
        assert evpn is not None
        assert {v.vni for v in evpn.vlans} == {vnis[k] for k in mine}
        text = render_device(models[name])
        for key, vni in vnis.items():
            printed = re.search(rf"(?<![\d.:]){vni}(?![\d.:])", text) is not None
            assert printed == (key in mine), (name, key, vni)
        carried_somewhere |= bool(mine)
    assert carried_somewhere
    for name in models:  # spines and borders carry no network
        if name not in vteps:
            assert placement.networks_of(name) == ()


# --- max_prefix None: no sentinel ---------------------------------------------------------------


def _limit_lines(platform: str, text: str) -> list[str]:
    patterns = {
        "arista_eos": r"maximum-routes \d+ warning-limit",
        "cisco_iosxr": r"^\s+maximum-prefix \d+ \d+$",
        "cisco_nxos": r"^\s+maximum-prefix \d+ \d+$",
        "nvidia_nvue": r"^\s+maximum: \d+$",
    }
    return re.findall(patterns[platform], text, flags=re.M)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_session_without_a_limit_renders_no_limit_line(platform: str) -> None:
    """Every platform: the unlimited session loses its line, every other session keeps one
    (no `maximum-routes 0`, which EOS would read as unlimited and config lint as no limit)."""
    models = _models()
    model = next(
        m
        for m in models.values()
        if m.platform == platform and any(n.external for n in m.bgp.neighbors)
    )
    target = next(n for n in model.bgp.neighbors if n.external)
    neighbors = [
        n.model_copy(update={"max_prefix": None}) if n is target else n for n in model.bgp.neighbors
    ]
    changed = model.model_copy(
        update={"bgp": model.bgp.model_copy(update={"neighbors": neighbors})}
    )
    before = _limit_lines(platform, render_device(model))
    after = _limit_lines(platform, render_device(changed))
    assert len(after) == len(before) - 1
    assert not re.search(r"maximum-(routes|prefix) 0\b|maximum: 0$", render_device(changed), re.M)


def test_an_unlimited_session_is_none_in_the_model_not_zero(example: Path) -> None:
    replace_in(example / PEERING, EYEBALL_B_V4, "")
    models = _models(example / "intent")
    eyeball = [
        n
        for m in models.values()
        for n in m.bgp.neighbors
        if n.party is not None and "eyeball-b" in n.party and n.afi == "ipv4"
    ]
    assert eyeball and all(n.max_prefix is None for n in eyeball)
    others = [n for m in models.values() for n in m.bgp.neighbors if n not in eyeball]
    assert all(n.max_prefix is not None and n.max_prefix > 0 for n in others)


def _waive_edge001(repo: Path) -> None:
    replace_in(repo / PEERING, EYEBALL_B_V4, "")
    found = [f for f in lint_repo(repo).findings if f.rule == "EDGE-001"]
    assert len(found) == 1  # the one session family without a limit
    (repo / "intent/waivers.yaml").write_text(
        "waivers:\n"
        f"  - rule: EDGE-001\n    object: {found[0].path}\n"
        "    reason: peer sends a full table, CHG-1\n    owner: netops\n    expires: 2099-01-01\n"
    )


def test_an_edge001_waived_session_without_a_limit_lints_clean(example: Path) -> None:
    _waive_edge001(example)
    result = lint_repo(example)
    assert [f.rule for f in result.findings if f.severity == "error"] == []
    assert [f for f in result.findings if f.rule.startswith("CFG-")] == []


def test_an_edge001_waived_session_renders_no_limit_on_its_border(example: Path) -> None:
    _waive_edge001(example)
    models = _models(example / "intent")
    for model in models.values():
        eyeball = [n for n in model.bgp.neighbors if n.party and "eyeball-b" in n.party]
        if not eyeball:
            continue
        text = render_device(model)
        v4 = next(n for n in eyeball if n.afi == "ipv4")
        v6 = next(n for n in eyeball if n.afi == "ipv6")
        block_v4 = text.split(f"neighbor {v4.address}\n", 1)[1].split("\n !", 1)[0]
        block_v6 = text.split(f"neighbor {v6.address}\n", 1)[1].split("\n !", 1)[0]
        assert "maximum-prefix" not in block_v4
        assert f"maximum-prefix {v6.max_prefix} " in block_v6


# --- one warning threshold ---------------------------------------------------------------------


def _warning_values(platform: str, text: str) -> list[str]:
    patterns = {
        "arista_eos": r"warning-limit (\d+) percent",
        "cisco_iosxr": r"^\s+maximum-prefix \d+ (\d+)$",
        "cisco_nxos": r"^\s+maximum-prefix \d+ (\d+)$",
        "nvidia_nvue": r"^\s+warning-threshold: (\d+)$",
    }
    return re.findall(patterns[platform], text, flags=re.M)


def _by_platform(models: Mapping[str, DeviceModel]) -> dict[tuple[str, str], list[str]]:
    """The rendered warning thresholds by (site, platform)."""
    found: dict[tuple[str, str], list[str]] = {}
    for model in models.values():
        values = _warning_values(model.platform, render_device(model))
        found.setdefault((model.site, model.platform), []).extend(values)
    return found


# aus1's threshold is set to the first value, mel1's to the second: each site's sessions take
# their own site's peering.edge.max_prefix_warning_pct, never the other site's.
@pytest.mark.parametrize(("pct", "mel1_pct"), [(50, 99), (85, 50), (99, 85)])  # the bounds too
def test_the_intents_warning_threshold_reaches_every_session_on_every_platform(
    example: Path, pct: int, mel1_pct: int
) -> None:
    before = _by_platform(_models(example / "intent"))
    # every platform renders sessions somewhere; aus1 has all four, mel1 EOS and NX-OS
    assert set(before) == {("aus1", p) for p in PLATFORMS} | {
        ("mel1", "arista_eos"),
        ("mel1", "cisco_nxos"),
    }
    assert all(values and set(values) == {"80"} for values in before.values()), before
    replace_in(example / PEERING, "max_prefix_warning_pct: 80", f"max_prefix_warning_pct: {pct}")
    replace_in(
        example / MEL1_PEERING,
        "max_prefix_warning_pct: 80",
        f"max_prefix_warning_pct: {mel1_pct}",
    )
    models = _models(example / "intent")
    after = _by_platform(models)
    assert {k: len(v) for k, v in after.items()} == {k: len(v) for k, v in before.items()}
    wanted = {"aus1": pct, "mel1": mel1_pct}
    assert all(set(values) == {str(wanted[site])} for (site, _), values in after.items()), after
    for model in models.values():  # underlay, handoff, edge and overlay sessions alike
        own = wanted[model.site]
        assert {n.max_prefix_warning_pct for n in model.bgp.neighbors} <= {own}
        peers = model.evpn.peers if model.evpn else ()
        assert {p.max_routes_warning_pct for p in peers} <= {own}


def test_without_edge_settings_the_threshold_is_the_schemas_default() -> None:
    from meetme.intent.schema_edge import EdgeSettings

    default = EdgeSettings.model_fields["max_prefix_warning_pct"].default
    assert fabric_module.default_warning_pct() == default == 80
    site = load_intent(EXAMPLE_INTENT).intent.sites["aus1"]
    bare = site.model_copy(update={"peering": site.peering.model_copy(update={"edge": None})})
    assert fabric_module.warning_pct(bare) == default


# --- MTU inheritance: where each end's MTU is written is resolved with the link ----------------


def test_every_link_end_knows_where_its_mtu_is_written() -> None:
    loaded = load_intent(EXAMPLE_INTENT)
    fabric = resolve_fabric(loaded)["aus1"]
    site = loaded.intent.sites["aus1"]
    for link in fabric.links:
        for side, end in (("a", link.a), ("b", link.b)):
            source = end.ip_mtu_source
            assert source[:2] == ("sites", "aus1")
            if source[2:] == ("underlay", "mtu"):
                assert end.ip_mtu == site.underlay.mtu
            else:
                assert source[:-1] in (link.source, (*link.source, side)), source
                assert source[-1] == "mtu"


def test_a_session_description_of_80_characters_is_kept_and_81_elided() -> None:
    """80 characters (NX-OS's and NVUE's most) are printed whole; 81 keep the first 39 and
    the last 38 around "..."; the model applies it wherever a session is built."""
    at_most = "transit " + "a" * 60 + " XC-MEL-TA-2"
    assert len(at_most) == 80
    assert fit_session_description(at_most) == at_most
    over = "transit " + "a" * 61 + " XC-MEL-TA-2"
    assert (
        fit_session_description(over) == "transit " + "a" * 31 + "..." + "a" * 26 + " XC-MEL-TA-2"
    )
    peer = Srv6Peer(
        address="fd00::1", remote_as=64500, description=over, peer_device="b", update_source="lo"
    )
    assert len(peer.description) == 80

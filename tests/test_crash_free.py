"""Property: whatever one careless edit does to the example, meetme answers with findings or
with the problems that make the intent unusable, never with an internal error; and a config it
renders always says what its device model says (no CFG-* finding: those are meetme's own
faults, a template's or a design rule's that let the intent through), and no model holds twice
what its config keys once (`keyed_twice`).

An edit is one of: a value replaced (by nothing, an empty text, 0, -1, 2**32, a word, an empty
list or mapping, `true`, or another value the intent gives the same key elsewhere); a key
removed; a list item written twice; a device moved to another platform and role; a named
record (a device, room, tenant, VIF ...) removed, renamed or cloned under a new name (and a
new id). Every edit of the example is listed, and a fixed sample of each kind runs here, so a
run is repeatable and a failure names its edit.
"""

from __future__ import annotations

import copy
import dataclasses
import ipaddress
import json
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import pytest
import yaml
from conftest import EXAMPLE_INTENT
from meetme.generators.model import DeviceModel
from meetme.generators.platforms import PLATFORMS
from meetme.validators.engine import RULES

from meetme.core.problems import IntentError
from meetme.intent.schema import Device
from meetme.pipeline import device_models, lint

FILES: dict[str, Any] = {
    str(p.relative_to(EXAMPLE_INTENT)): yaml.safe_load(p.read_text())
    for p in sorted(EXAMPLE_INTENT.rglob("*.yaml"))
}
Path_ = tuple[str | int, ...]
Edit = tuple[str, Path_, str, Any]  # file, where, what, with what
SAMPLE = 40  # edits a run takes from each of the three lists (about 0.2 s each)


def _nodes(node: Any, path: Path_ = ()) -> Iterator[tuple[Path_, Any]]:
    yield path, node
    items = (
        node.items()
        if isinstance(node, dict)
        else enumerate(node)
        if isinstance(node, list)
        else ()
    )
    for key, value in items:
        yield from _nodes(value, (*path, key))


def _values_by_key() -> dict[str, list[Any]]:
    seen: dict[str, set[str]] = {}
    for data in FILES.values():
        for path, node in _nodes(data):
            if path and isinstance(path[-1], str) and not isinstance(node, dict | list):
                seen.setdefault(path[-1], set()).add(json.dumps(node, default=str))
    return {key: [json.loads(v) for v in sorted(values)] for key, values in seen.items()}


def value_edits() -> list[Edit]:
    others = _values_by_key()
    edits: list[Edit] = []
    for file, data in FILES.items():
        for path, node in _nodes(data):
            if not path:
                continue
            if isinstance(path[-1], int):
                edits.append((file, path, "twice", None))
            else:
                edits.append((file, path, "remove", None))
            if isinstance(node, dict | list):
                continue
            same_key = others.get(path[-1], []) if isinstance(path[-1], str) else []
            for value in [None, "", 0, -1, 2**32, "x", [], {}, True, *same_key]:
                edits.append((file, path, "set", value))
    return edits


def device_moves() -> list[Edit]:
    roles = get_args(Device.model_fields["role"].annotation)
    return [
        (file, ("sites", site, "devices", name), "move", (platform, role))
        for file, data in FILES.items()
        for site, body in (data.get("sites") or {}).items()
        for name in (body.get("devices") or {})
        for platform in sorted(PLATFORMS)
        for role in roles
    ]


def record_moves() -> list[Edit]:
    return [
        (file, path, move, None)
        for file, data in FILES.items()
        for path, node in _nodes(data)
        if len(path) >= 3 and isinstance(path[-1], str) and isinstance(node, dict)
        for move in ("remove", "rename", "clone")
    ]


def edited(edit: Edit) -> dict[str, Any]:
    """Every file's data, with `edit` made."""
    file, path, what, value = edit
    files = dict(FILES)
    data = files[file] = copy.deepcopy(FILES[file])
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    last = path[-1]
    if what == "set":
        parent[last] = value
    elif what == "twice":
        parent.append(copy.deepcopy(parent[last]))
    elif what == "move":
        parent[last]["platform"], parent[last]["role"] = value
    elif what == "rename":
        parent[f"{last}-r"] = parent.pop(last)
    elif what == "clone":
        clone = copy.deepcopy(parent[last])
        if isinstance(clone.get("id"), int):
            clone["id"] += 200
        parent[f"{last}-x"] = clone
    else:
        del parent[last]
    return files


def written(edit: Edit, folder: Path) -> Path:
    """`folder`, holding the example's files with `edit` made."""
    for file, data in edited(edit).items():
        out = folder / file
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(yaml.safe_dump(data, sort_keys=False))
    return folder


def outcome(intent: Path) -> str:
    """'findings' or 'unusable' (what a user can cause), or what went wrong inside."""
    try:
        result = lint(intent, jobs=1)
    except IntentError:
        return "unusable"
    except Exception as exc:  # the property under test: anything else is a bug
        return f"internal: {type(exc).__name__}: {exc}"
    if result.render_errors:
        return f"internal: a template failed: {result.render_errors[0]}"
    disagree = [f for f in result.findings if f.rule.startswith("CFG-")]
    if disagree:
        first = disagree[0]
        return f"internal: a rendered config disagrees with its model: {first.rule} {first.message}"
    if not result.errors:
        for name, model in device_models(result).items():
            twice = keyed_twice(model)
            if twice:
                return f"internal: {name}'s model holds twice what its config keys once: {twice}"
    return "findings"


def keyed_twice(model: DeviceModel) -> list[str]:
    """What the device's config names once that its model holds twice: a BGP neighbour (by VRF
    and address), an EVPN peer, a VLAN (and, where the platform prints it, a VRF's L3VNI
    VLAN), a VNI, a VRF (by name, in any case), an interface, a sub-interface's tag on its
    port, a bond, a policy or list (by name), an entry of one (by sequence). The config would
    merge the two, or the device refuse the second, and nothing would say so."""
    keys: list[tuple[str, object]] = [
        *(("BGP neighbour", (n.vrf, ipaddress.ip_address(n.address))) for n in model.bgp.neighbors),
        *(("interface", i.name) for i in model.interfaces),
        *(("sub-interface", (i.parent, i.vlan)) for i in model.interfaces if i.parent),
        *(("bond", lag.name) for lag in model.lags),
        *(("VRF", vrf.name.casefold()) for vrf in model.vrfs),
    ]
    # NVUE's loopbacks are addresses of its one `lo` (templates/nvidia_nvue/interfaces.j2)
    loopbacks = [i.name for i in model.loopbacks]
    if model.platform == "nvidia_nvue":
        loopbacks = sorted(set(loopbacks))
    keys += [("interface", name) for name in loopbacks]
    policies = [*model.route_maps, *model.prefix_lists, *model.as_path_lists, *model.acls]
    keys += [("policy", (type(p).__name__, p.name)) for p in policies]
    keys += [("community list", c.name) for c in model.community_lists]
    for lists in (model.route_maps, model.prefix_lists, model.as_path_lists):
        keys += [("sequence", (type(x).__name__, x.name, e.seq)) for x in lists for e in x.entries]
    evpn = model.evpn
    if evpn is not None:
        keys += [("EVPN peer", ipaddress.ip_address(p.address)) for p in evpn.peers]
        keys += [("VLAN", v.id) for v in evpn.vlans]
        # NVUE takes an L3VNI's VLAN from its reserved range (templates/nvidia_nvue/overlay_vrfs.j2)
        if model.platform != "nvidia_nvue":
            keys += [("VLAN", v.vlan) for v in evpn.vrfs if v.vlan is not None]
        keys += [("VNI", v.vni) for v in (*evpn.vlans, *evpn.vrfs)]
        keys += [("VRF", v.name.casefold()) for v in evpn.vrfs]
    counts = Counter(keys)
    return [f"{kind} {key}" for (kind, key), n in counts.items() if n > 1]


def _sample(edits: list[Edit], seed: int) -> list[Edit]:
    return random.Random(seed).sample(edits, SAMPLE)


def _id(edit: Edit) -> str:
    file, path, what, value = edit
    return f"{file}:{'.'.join(map(str, path))}:{what}" + (
        "" if value is None else f"={json.dumps(value, default=str)[:30]}"
    )


EDITS = _sample(value_edits(), 1) + _sample(device_moves(), 2) + _sample(record_moves(), 3)


@pytest.mark.parametrize("edit", EDITS, ids=_id)
def test_one_careless_edit_is_never_an_internal_error(edit: Edit, tmp_path: Path) -> None:
    assert outcome(written(edit, tmp_path / "intent")) in ("findings", "unusable")


def test_the_sample_holds_every_kind_of_edit() -> None:
    kinds = {what for _, _, what, _ in EDITS}
    assert kinds == {"set", "remove", "twice", "move", "rename", "clone"}, kinds


def test_an_internal_error_is_told_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above can fail: a rule that raises is an internal error, not a finding."""

    def broken(*args: object, **kwargs: object) -> list[object]:
        raise KeyError("aus1-lf1")

    monkeypatch.setattr("meetme.pipeline.run_rules", broken)
    assert outcome(EXAMPLE_INTENT) == "internal: KeyError: 'aus1-lf1'"


def test_a_config_that_disagrees_with_its_model_is_told_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check above can fail on a rendered config too: with EDGE-016 silenced, a route
    server copied under a new name renders one neighbour with the copy's policies, which the
    config lint (CFG-002) finds against the model; that is meetme's fault, not a finding."""
    silent = dataclasses.replace(RULES["EDGE-016"], check=lambda ctx: iter(()))
    monkeypatch.setitem(RULES, "EDGE-016", silent)
    path = ("sites", "aus1", "peering", "ixes", "ix-syd", "route_servers", "rs1")
    intent = written(("aus1/peering.yaml", path, "clone", None), tmp_path / "intent")
    assert outcome(intent).startswith(
        "internal: a rendered config disagrees with its model: CFG-002 neighbor 203.0.113.1 "
        "(ix_rs ix-syd/rs1 XC-IX-1) applies route-policy RM-IX-RS-IX-SYD-RS1-X-IN-V4"
    )
    monkeypatch.undo()  # the rule restored, the same edit is a finding
    assert outcome(intent) == "findings"


def test_a_model_holding_twice_what_a_config_keys_once_is_told_apart() -> None:
    """The check above can fail on a model too: a border whose model held one IX route
    server's session twice, or a leaf a VLAN twice, is meetme's fault."""
    models = device_models(lint(EXAMPLE_INTENT, jobs=1))
    border, leaf = models["aus1-br1"], models["aus1-lf3"]
    assert keyed_twice(border) == keyed_twice(leaf) == []
    [session] = [n for n in border.bgp.neighbors if n.address == "203.0.113.1"]
    copied = border.bgp.model_copy(update={"neighbors": (*border.bgp.neighbors, session)})
    assert keyed_twice(border.model_copy(update={"bgp": copied})) == [
        "BGP neighbour (None, IPv4Address('203.0.113.1'))"
    ]
    assert leaf.evpn is not None
    vlans = (*leaf.evpn.vlans, leaf.evpn.vlans[0])
    evpn = leaf.evpn.model_copy(update={"vlans": vlans})
    vlan, vni = leaf.evpn.vlans[0].id, leaf.evpn.vlans[0].vni
    assert keyed_twice(leaf.model_copy(update={"evpn": evpn})) == [f"VLAN {vlan}", f"VNI {vni}"]

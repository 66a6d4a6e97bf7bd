"""Rendered Cumulus Linux 5.16 startup.yaml files against NVIDIA's NVUE 5.16 object model.

The nvueschema package carries pydantic models generated from the NVUE OpenAPI spec, but they
ignore unknown keys, so a misspelled key (the 5.14 `enable: on` instead of 5.15+ `state: enabled`)
would pass silently. The fixture below loads a private copy of the 5.16 module and sets
`extra='forbid'` on every class, so an unknown key anywhere in the tree fails validation.
"""

from __future__ import annotations

import copy
import importlib.util
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
import yaml
from conftest import EXAMPLE_INTENT
from meetme.generators.model import DeviceModel
from meetme.generators.render import output_name
from pydantic import BaseModel, ValidationError

from meetme.pipeline import device_models, lint, render_all

SCHEMA_MODULE = "nvueschema.models.v5_16"
PRIVATE_NAME = "_meetme_nvue_v5_16_forbid"  # never the real module name: others stay untouched
PLATFORM = "nvidia_nvue"

Tree = dict[str, Any]


class StrictLoader(yaml.SafeLoader):
    """safe_load that fails on a repeated key instead of silently keeping the last one."""


def _mapping_without_duplicates(loader: StrictLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        seen.add(key)
    return loader.construct_mapping(node)


StrictLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_without_duplicates
)


@pytest.fixture(scope="session")
def forbid_schema() -> Iterator[type[BaseModel]]:
    """NvueConfig of a private copy of the 5.16 models with unknown keys forbidden."""
    shared = importlib.util.find_spec(SCHEMA_MODULE)
    assert shared is not None and shared.origin is not None, f"{SCHEMA_MODULE} is not installed"
    # A second copy of the same source under its own name: pydantic resolves the string
    # annotations against this copy's classes, never against the shared module.
    spec = importlib.util.spec_from_file_location(PRIVATE_NAME, shared.origin)
    assert spec is not None and spec.loader is not None
    module: ModuleType = importlib.util.module_from_spec(spec)
    sys.modules[PRIVATE_NAME] = module
    try:
        spec.loader.exec_module(module)
        classes = [
            obj
            for obj in vars(module).values()
            if isinstance(obj, type)
            and issubclass(obj, BaseModel)
            and obj.__module__ == PRIVATE_NAME
        ]
        root: type[BaseModel] = module.NvueConfig
        # The generated module defines leaves before parents: rebuild in that order, root last,
        # so every parent embeds the forbid-configured schema of its children.
        for cls in classes:
            cls.model_config["extra"] = "forbid"
        for cls in classes:
            if cls is not root:
                cls.model_rebuild(force=True)
        root.model_rebuild(force=True)
        yield root
    finally:
        sys.modules.pop(PRIVATE_NAME, None)


@pytest.fixture(scope="session")
def nvue_devices() -> list[tuple[DeviceModel, str]]:
    """(device model, rendered startup.yaml text) of every NVUE device of the example."""
    result = lint(EXAMPLE_INTENT)
    assert result.errors == []
    models = device_models(result)
    files = render_all(models)
    devices = [(m, files[output_name(m)]) for m in models.values() if m.platform == PLATFORM]
    assert devices, "the example has no NVIDIA NVUE device"
    return devices


def set_tree(text: str) -> Tree:
    """The NVUE tree under the single `- set:` of a startup.yaml file."""
    document = yaml.load(text, Loader=StrictLoader)
    assert isinstance(document, list) and len(document) == 1, "expected one list item"
    assert list(document[0]) == ["set"], "expected the item to be `set:`"
    tree = document[0]["set"]
    assert isinstance(tree, dict)
    return tree


def test_rendered_files_are_valid_nvue_516(
    forbid_schema: type[BaseModel], nvue_devices: list[tuple[DeviceModel, str]]
) -> None:
    for model, text in nvue_devices:
        try:
            forbid_schema.model_validate(set_tree(text))
        except ValidationError as error:  # name the device: the pydantic message does not
            pytest.fail(f"{model.hostname}: not valid NVUE 5.16:\n{error}")


@pytest.mark.parametrize(
    ("path", "bad_key"),
    [
        # 5.14 spelling of the BGP switch; 5.15+ uses `state: enabled`
        (("router", "bgp"), "enable"),
        # deep in a neighbor: a typo of `warning-threshold`
        (
            (
                "vrf",
                "default",
                "router",
                "bgp",
                "neighbor",
                "*",
                "address-family",
                "*",
                "prefix-limits",
                "inbound",
            ),
            "warning-treshold",
        ),
        # 5.14 per-neighbor BFD timer, replaced by profiles in 5.15
        (("vrf", "default", "router", "bgp", "neighbor", "*", "bfd"), "detect-multiplier"),
        # 5.14 interface address container, `ipv4` since 5.15
        (("interface", "swp61"), "ip"),
    ],
)
def test_misspelled_key_is_rejected(
    forbid_schema: type[BaseModel],
    nvue_devices: list[tuple[DeviceModel, str]],
    path: tuple[str, ...],
    bad_key: str,
) -> None:
    tree = copy.deepcopy(set_tree(nvue_devices[0][1]))
    node: Any = tree
    for step in path:  # "*": the first entry of a collection keyed by id
        node = next(iter(node.values())) if step == "*" else node[step]
    node[bad_key] = "on"
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        forbid_schema.model_validate(tree)


def test_every_neighbor_is_protected(nvue_devices: list[tuple[DeviceModel, str]]) -> None:
    """remote-as, BFD with an existing profile, both route-maps (which exist) and a prefix limit
    in the address family the session carries."""
    for model, text in nvue_devices:
        tree = set_tree(text)
        route_maps = tree["router"]["policy"]["route-map"]
        bfd_profiles = tree["router"]["bfd"]["profile"]
        neighbors = tree["vrf"]["default"]["router"]["bgp"]["neighbor"]
        assert set(neighbors) == {n.address for n in model.bgp.neighbors}, model.hostname
        for expected in model.bgp.neighbors:
            where = f"{model.hostname} neighbor {expected.address}"
            neighbor = neighbors[expected.address]
            assert neighbor["remote-as"] == expected.remote_as, where
            assert neighbor["bfd"]["profile"] in bfd_profiles, where
            family = neighbor["address-family"][f"{expected.afi}-unicast"]
            assert family["state"] == "enabled", where
            for direction in ("inbound", "outbound"):
                assert family["policy"][direction]["route-map"] in route_maps, where
            limits = family["prefix-limits"]["inbound"]
            assert limits["maximum"] == expected.max_prefix, where
            assert limits["warning-threshold"] == expected.max_prefix_warning_pct, where
            if expected.afi == "ipv6":  # an IPv6 session must not also carry IPv4
                assert neighbor["address-family"]["ipv4-unicast"]["state"] == "disabled", where
        profile = next(iter(bfd_profiles.values()))
        assert profile["min-tx-interval"] == model.bgp.bfd.interval, model.hostname
        assert profile["min-rx-interval"] == model.bgp.bfd.min_rx, model.hostname
        assert profile["detect-multiplier"] == model.bgp.bfd.multiplier, model.hostname
        assert tree["router"]["bfd"]["state"] == "enabled", model.hostname


def test_route_maps_match_lists_of_their_family(
    nvue_devices: list[tuple[DeviceModel, str]],
) -> None:
    """An IPv6 route-map matching an IPv4 list (or a missing list) would drop every route."""
    for model, text in nvue_devices:
        policy = set_tree(text)["router"]["policy"]
        for name, route_map in policy["route-map"].items():
            for seq, rule in route_map["rule"].items():
                where = f"{model.hostname} route-map {name} rule {seq}"
                listed = rule["match"]["ip-prefix-list"]
                assert listed in policy["prefix-list"], where
                prefix_list_type = policy["prefix-list"][listed]["type"]
                assert rule["match"]["type"] == prefix_list_type, where


def test_every_fabric_port_has_mtu_and_names_its_peer(
    nvue_devices: list[tuple[DeviceModel, str]],
) -> None:
    for model, text in nvue_devices:
        interfaces = set_tree(text)["interface"]
        swps = {name for name, body in interfaces.items() if body["type"] == "swp"}
        assert swps == {i.name for i in model.interfaces}, model.hostname
        for expected in model.interfaces:
            where = f"{model.hostname} {expected.name}"
            port = interfaces[expected.name]
            assert port["link"]["mtu"] == expected.mtu, where
            assert expected.peer is not None, where
            assert expected.peer.device in port["description"], where
            assert expected.peer.interface in port["description"], where


def test_management_and_loopbacks(nvue_devices: list[tuple[DeviceModel, str]]) -> None:
    """eth0 in VRF mgmt with its default gateway; every loopback address on `lo`."""
    for model, text in nvue_devices:
        tree = set_tree(text)
        eth0 = tree["interface"]["eth0"]
        management = model.management
        assert eth0["vrf"] == "mgmt", model.hostname
        assert management.interface.ipv4 is not None
        assert list(eth0["ipv4"]["address"]) == [management.interface.ipv4.cidr]
        assert list(eth0["ipv4"]["gateway"]) == [management.gateway], model.hostname
        lo = tree["interface"]["lo"]
        assert lo["type"] == "loopback", model.hostname
        for loopback in model.loopbacks:
            for address, family in ((loopback.ipv4, "ipv4"), (loopback.ipv6, "ipv6")):
                if address is not None:
                    assert address.cidr in lo[family]["address"], model.hostname
        assert tree["router"]["bgp"]["router-id"] == model.bgp.router_id, model.hostname


def test_unpatched_models_would_not_catch_typos(
    nvue_devices: list[tuple[DeviceModel, str]],
) -> None:
    """Why the forbid fixture exists; also shows the shared module was left unpatched."""
    shared = importlib.import_module(SCHEMA_MODULE)
    tree = copy.deepcopy(set_tree(nvue_devices[0][1]))
    tree["router"]["bgp"]["enable"] = "on"
    shared.NvueConfig.model_validate(tree)  # accepted: extra keys are ignored by default

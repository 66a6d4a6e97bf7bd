"""CFG-006..009: a VTEP's EVPN services and a device's EVPN peers, read back.

The device model says which VLANs carry which L2VNI and which VRFs have an L3VNI; a template
that drops or mistypes one of those lines renders a config the device accepts and that
silently does not carry the network. Compared here with the read-back (`readback.py`), the
same way for every platform; findings name what is missing in the platform's words
(`Words`). What the platforms do differently is data, not code:
- NX-OS lists the VTEP's VNIs apart (`member vni V [associate-vrf]` on nve1) and maps each
  L3VNI to a carrier VLAN too (`carrier_vlan`); `advertise l2vpn evpn` is not looked at: what
  the other VTEPs import by is the EVPN route target, so that is what the lint requires.
- NX-OS sets the export route targets per address family (`exports_per_family`); EOS and NVUE
  once per VRF.
- NVUE switches a VRF's EVPN and each family's export on with `state: enabled`, off by default
  (`evpn_state`, `export_state`), and keeps the exports inside the VRF's own block.

A VRF's exports are checked for each address family it routes on the device: those of its
SVIs and of its handoff sessions (IPv4 when it has neither).

CFG-009 reads each EVPN peer of the model (VRF default) and the prefix limit its session has
in the EVPN address family, after inheritance (peer group, template), as CFG-001 does for
unicast sessions.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from meetme.validators.config_lint.readback import (
    DEFAULT_VRF,
    TOP,
    Mapping,
    Position,
    ReadBack,
    Value,
    normalise,
)

if TYPE_CHECKING:
    from meetme.generators.model import DeviceModel, Evpn, EvpnPeer

Hit = tuple[str, str, int, int]  # rule, message, line, column

VLAN_MAPPED = "CFG-006"
VRF_MAPPED = "CFG-007"
VRF_EXPORTED = "CFG-008"
EVPN_PEER_LIMIT = "CFG-009"


def check(model: DeviceModel, readback: ReadBack) -> list[Hit]:
    """Every CFG-006..009 finding on one device's read-back."""
    evpn = model.evpn
    if evpn is None or not readback.words.evpn_limit:
        return []  # meetme renders no EVPN on the other platforms
    if readback.unreadable is not None:
        services = evpn.vtep and bool(evpn.vlans or evpn.vrfs)
        rule_id = VLAN_MAPPED if evpn.vlans else VRF_MAPPED if services else EVPN_PEER_LIMIT
        what = (
            f"{len(evpn.vlans)} VLAN(s) and {len(evpn.vrfs)} VRF(s)"
            if services
            else f"{len(evpn.peers)} EVPN peer(s)"
        )
        where = readback.unreadable
        return [
            (
                rule_id,
                f"the rendered config cannot be read ({where.text}); none of its {what} "
                "could be checked",
                where.line,
                where.column,
            )
        ]
    hits = list(_services(model, evpn, readback)) if evpn.vtep else []
    return hits + list(_peers(evpn.peers, readback))


def _services(model: DeviceModel, evpn: Evpn, readback: ReadBack) -> Iterator[Hit]:
    words = readback.words
    where = (
        f"under interface {words.vtep}"
        if readback.vtep_at is not None
        else f"(the config has no interface {words.vtep})"
    )
    for vlan in evpn.vlans:
        what = f"VLAN {vlan.id} ({vlan.name})"
        yield from _vlan(VLAN_MAPPED, what, vlan.id, vlan.vni, readback, where)
        yield from _member(VLAN_MAPPED, what, vlan.vni, False, readback, where)
    for vrf in evpn.vrfs:
        what = f"VRF {vrf.name}"
        fields = {"what": what, "name": vrf.name, "vni": vrf.vni, "where": where}
        mapping = readback.vrfs.get(vrf.name)
        if mapping is None:
            yield VRF_MAPPED, words.vrf_missing.format(**fields), *readback.vrfs_at
            if words.vrf_missing_export:
                yield VRF_EXPORTED, words.vrf_missing_export.format(**fields), *readback.vrfs_at
                continue
        else:
            yield from _vni(VRF_MAPPED, "L3VNI", vrf.vni, mapping, words.vrf_no_vni, fields)
            if words.evpn_state:
                yield from _enabled(VRF_MAPPED, words.evpn_state.format(**fields), mapping)
        if words.carrier_vlan and vrf.vlan is not None:
            carrier = f"{what}'s L3VNI carrier VLAN {vrf.vlan}"
            yield from _vlan(VRF_MAPPED, carrier, vrf.vlan, vrf.vni, readback, where)
        yield from _member(VRF_MAPPED, what, vrf.vni, True, readback, where)
        families: list[str] = list(vrf.address_families)
        yield from _exports(vrf.name, vrf.route_target, families, readback, fields)


def _vlan(
    rule_id: str, what: str, vlan: int, vni: int, readback: ReadBack, where: str
) -> Iterator[Hit]:
    """A VLAN mapped to its VNI (an L2VNI, or an L3VNI's carrier VLAN)."""
    words = readback.words
    fields = {"what": what, "id": vlan, "vni": vni, "where": where}
    mapping = readback.vlans.get(str(vlan))
    if mapping is None:
        fields["domain"] = readback.bridge_domain
        yield rule_id, words.vlan_missing.format(**fields), *readback.vlans_at
    else:
        yield from _vni(rule_id, "VNI", vni, mapping, words.vlan_no_vni, fields)


def _vni(
    rule_id: str, kind: str, vni: int, mapping: Mapping, no_vni: str, fields: dict[str, object]
) -> Iterator[Hit]:
    if not mapping.vnis:
        yield rule_id, no_vni.format(**fields), *mapping.at
    elif not any(value.text == str(vni) for value in mapping.vnis):
        first = mapping.vnis[0]
        message = f"{fields['what']} is mapped to {kind} {first.text}; the device model's is {vni}"
        yield rule_id, message, *first.at


def _member(
    rule_id: str, what: str, vni: int, l3: bool, readback: ReadBack, where: str
) -> Iterator[Hit]:
    """The VNI listed on the VTEP, as an L2VNI or an L3VNI, where the platform lists them."""
    if readback.members is None:
        return
    words = readback.words
    line = readback.members.get(str(vni))
    command = words.member.format(vni=vni) + (f" {words.member_l3}" if l3 else "")
    if line is None:
        at = readback.vtep_at or TOP
        yield rule_id, f"{what}: VNI {vni} is not on the VTEP, no `{command}` {where}", *at
    elif line.l3 != l3:
        role = f"an L3VNI ({words.member_l3})" if l3 else f"an L2VNI (without {words.member_l3})"
        yield rule_id, f"{what}: VNI {vni} must be {role}: `{command}`", *line.at


def _exports(
    name: str, route_target: str, afis: list[str], readback: ReadBack, fields: dict[str, object]
) -> Iterator[Hit]:
    """CFG-008 for one VRF: each family's export switched on, with the model's route target."""
    words = readback.words
    if words.export_state:
        for afi in afis:
            export = readback.exports.get((name, afi))
            yield from _enabled(
                VRF_EXPORTED,
                words.export_state.format(**fields, afi=afi),
                Mapping(
                    export.at if export else readback.exports_at,
                    [],
                    export.state if export else None,
                ),
            )
    for afi in afis if words.exports_per_family else [""]:
        export = readback.exports.get((name, afi))
        if export is None and words.export_block_missing:
            message = words.export_block_missing.format(name=name, rt=route_target)
            yield VRF_EXPORTED, message, *readback.exports_at
            continue
        yield from _route_targets(
            name,
            route_target,
            export.targets if export else [],
            words.export_missing.format(name=name, rt=route_target, afi=afi),
            export.at if export else readback.exports_at,
            f" {afi}" if afi else "",
        )


def _route_targets(
    vrf: str,
    route_target: str,
    exports: list[Value],
    wanted: str,
    missing_at: Position,
    family: str,
) -> Iterator[Hit]:
    """An export with the model's route target, or where it is missing or wrong."""
    if any(value.text == route_target for value in exports):
        return
    if not exports:
        yield VRF_EXPORTED, f"VRF {vrf} does not export{family} to EVPN: no {wanted}", *missing_at
        return
    first = exports[0]
    yield (
        VRF_EXPORTED,
        f"VRF {vrf} exports{family} to EVPN with route target {first.text}; the device model's "
        f"is {route_target}, which the other VTEPs import",
        *first.at,
    )


def _enabled(rule_id: str, what: str, mapping: Mapping) -> Iterator[Hit]:
    """NVUE's `state: enabled`; the features checked here are disabled by default (schema)."""
    state = mapping.state
    if state is None:
        yield rule_id, f"{what} is not set: disabled by default, it must be enabled", *mapping.at
    elif state.text != "enabled":
        yield rule_id, f"{what} is {state.text}; it must be enabled", *state.at


def _peers(peers: Sequence[EvpnPeer], readback: ReadBack) -> Iterator[Hit]:
    """CFG-009: each EVPN peer configured, with the model's limit in the EVPN family."""
    words = readback.words
    for peer in peers:
        who = f"EVPN peer {peer.address} ({peer.peer_device})"
        neighbor = readback.neighbors.get((DEFAULT_VRF, normalise(peer.address)))
        if neighbor is None:
            message = f"{who} of the device model is not configured in {words.bgp_scope}"
            yield EVPN_PEER_LIMIT, message, *readback.neighbors_at
            continue
        limit = neighbor.family("evpn").prefix_limit
        if limit is None:
            message = f"{who} has no prefix limit: no `{words.evpn_limit}` {words.evpn_limit_where}"
            yield EVPN_PEER_LIMIT, message, *neighbor.at
            continue
        if not limit.text.isdigit() or int(limit.text) == 0:
            wrong = f"{who} has {words.evpn_limit} {limit.text}, which is no limit"
        elif int(limit.text) != peer.max_routes:
            wrong = f"{who} has {words.evpn_limit} {limit.text}"
        else:
            continue
        yield EVPN_PEER_LIMIT, f"{wrong}; the device model's is {peer.max_routes}", *limit.at

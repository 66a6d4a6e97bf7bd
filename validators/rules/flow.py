"""FLOW-*: where routes actually go, computed on the built device models.

The design-standard rules judge the intent; these follow routes through what each device will
run: its originated routes (aggregates with their discard anchors, SVI subnets), its sessions'
VRFs and the export policy of every session (validators/policy_eval.py evaluates it as the
router would). The pipeline runs them on every built model, like the PLAT-* gaps, and each
finding points at the intent line to change (docs/standards.md#flow-001).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from meetme.generators.model import BgpNeighbor, DeviceModel
from meetme.generators.resolve.edge_sessions import ExternalSession
from meetme.generators.resolve.fabric import SiteFabric
from meetme.validators.engine import RULES, Finding, Hit, SiteContext, rule
from meetme.validators.policy_eval import Route, evaluate

from meetme.intent.loader import LoadedIntent

EXPORT_ORIGINATED = "FLOW-001"
SESSION_VRF_EXISTS = "FLOW-002"
CLOUD_KINDS = ("aws", "azure", "gcp")
DEFAULT_VRF = "default"

Path_ = tuple[str | int, ...]


def _from_models(_ctx: SiteContext) -> Iterator[Hit]:
    """Reported from the device models by `flow_findings`, not from the intent."""
    return iter(())


rule(
    EXPORT_ORIGINATED,
    "error",
    "Every prefix exported to a cloud or the Internet is originated in the VRF it leaves from",
    "A session exports only what its device's BGP table holds in the session's VRF: a prefix "
    "agreed with a cloud (`advertise:`) or one of our aggregates sent to the Internet that "
    "nothing originates in that VRF on that device (no aggregate with its discard anchor, no "
    "SVI subnet of exactly that prefix), or that the session's own export policy denies, never "
    "leaves, and the lint of the intent alone cannot see it. A private cloud attachment without "
    "`vrf:` sits in the default VRF, the underlay, where no tenant prefix lives.",
    "docs/standards.md#flow-001",
)(_from_models)
rule(
    SESSION_VRF_EXISTS,
    "error",
    "Every BGP session's VRF exists on its device",
    "A session printed in a VRF the device does not carry has no routing table to live in: "
    "the platform rejects it or it never comes up. A tenant VRF that cannot be placed on the "
    "device (no L3VNI: it routes only where its networks are) leaves the session stranded.",
    "docs/standards.md#flow-002",
)(_from_models)


@dataclass(frozen=True)
class _Flow:
    """A session's intent: where it is declared and what it exports."""

    source: Path_  # the declaration (a cloud attachment, an Internet party)
    vrf_path: Path_  # where its `vrf:` is written or would be
    export_paths: dict[str, Path_]  # exported prefix -> the intent line that asks for it
    vrf: str | None


def flow_findings(
    loaded: LoadedIntent, fabrics: Mapping[str, SiteFabric], models: Iterable[DeviceModel]
) -> list[Finding]:
    found: list[Finding] = []
    for model in models:
        fabric = fabrics.get(model.site)
        if fabric is None:
            continue
        flows = _flows(loaded, model, fabric.edge.sessions)
        for rule_id, message, path in [
            *_session_vrfs(model, flows),
            *_exports(model, flows),
        ]:
            current = RULES[rule_id]
            found.append(
                Finding(
                    rule=current.id,
                    severity=current.severity,
                    message=message,
                    location=loaded.where(path),
                    path=".".join(str(p) for p in path),
                )
            )
    return found


def _flows(
    loaded: LoadedIntent, model: DeviceModel, sessions: list[ExternalSession]
) -> dict[tuple[str, str | None], _Flow]:
    """(peer address, VRF) -> the intent behind each external session of the device."""
    flows: dict[tuple[str, str | None], _Flow] = {}
    aggregates = loaded.intent.organisation.aggregates
    for s in sessions:
        if s.device != model.hostname:
            continue
        # an Azure session's source is its link (primary/secondary); vrf and advertise are
        # written on the peering above it
        declared = s.source[:-1] if s.kind == "azure" else s.source
        if s.kind in CLOUD_KINDS:
            exports = {p: (*declared, "advertise", i) for i, p in enumerate(s.export_prefixes)}
        else:
            exports = {p: ("organisation", "aggregates", i) for i, p in enumerate(aggregates)}
            exports = {p: exports.get(p, declared) for p in s.export_prefixes}
        flows[(s.peer_address, s.vrf)] = _Flow(
            source=declared, vrf_path=(*declared, "vrf"), export_paths=exports, vrf=s.vrf
        )
    return flows


def _device_vrfs(model: DeviceModel) -> set[str]:
    names = {v.name for v in model.vrfs}
    if model.evpn is not None:
        names |= {v.name for v in model.evpn.vrfs}
    return names


def _session_vrfs(
    model: DeviceModel, flows: dict[tuple[str, str | None], _Flow]
) -> Iterator[tuple[str, str, Path_]]:
    known = _device_vrfs(model)
    device_path: Path_ = ("sites", model.site, "devices", model.hostname)
    for n in model.bgp.neighbors:
        if n.vrf is None or n.vrf in known:
            continue
        flow = flows.get((n.address, n.vrf))
        if flow is not None:
            path = flow.vrf_path
        elif n.kind == "handoff":
            path = ("sites", model.site, "handoff", "vrfs", n.vrf)
        else:
            path = device_path
        yield (
            SESSION_VRF_EXISTS,
            f"VRF {n.vrf}, {model.hostname}: the session to {n.address} ({n.description}) sits "
            f"in VRF {n.vrf}, which {model.hostname} does not carry (a tenant VRF without an "
            f"L3VNI is placed only where its networks are); the route stops at "
            f"{model.hostname}: give the VRF an l3vni or serve another VRF",
            path,
        )


def _originated(model: DeviceModel, vrf: str | None) -> set[str]:
    """The prefixes the device itself puts into BGP in a VRF: `network` aggregates (each with
    its discard anchor or loopback) and, in a tenant VRF, its SVI subnets."""
    if vrf is None:
        return {_net(p) for p in (*model.bgp.networks_v4, *model.bgp.networks_v6)}
    origins: set[str] = set()
    if model.evpn is not None:
        for evrf in model.evpn.vrfs:
            if evrf.name == vrf:
                origins |= {_net(p) for p in (*evrf.networks_v4, *evrf.networks_v6)}
        for vlan in model.evpn.vlans:
            if vlan.svi is None or vlan.vrf != vrf:
                continue
            for address in (vlan.gateway_v4, vlan.gateway_v6, vlan.svi.ipv4, vlan.svi.ipv6):
                if address is not None:
                    origins.add(_net(address.cidr))
    return origins


def _exports(
    model: DeviceModel, flows: dict[tuple[str, str | None], _Flow]
) -> Iterator[tuple[str, str, Path_]]:
    for n in model.bgp.neighbors:
        if n.kind not in (*CLOUD_KINDS, "transit", "ix_rs", "ix_peer", "pni"):
            continue
        flow = flows.get((n.address, n.vrf))
        if flow is None:
            continue
        vrf_name = n.vrf or DEFAULT_VRF
        origins = _originated(model, n.vrf)
        for prefix, path in flow.export_paths.items():
            if _afi(prefix) != n.afi:
                continue
            where = f"VRF {vrf_name}, {model.hostname}"
            if _net(prefix) not in origins:
                hint = (
                    "name the tenant VRF it serves (vrf: NAME), whose subnets the prefix covers"
                    if n.kind in CLOUD_KINDS and n.vrf is None
                    else f"advertise only prefixes that hold subnets of VRF {vrf_name}"
                    if n.kind in CLOUD_KINDS
                    else "originate it (an aggregate with a discard anchor)"
                )
                yield (
                    EXPORT_ORIGINATED,
                    f"{where}: {_party(n)} exports {prefix}, which nothing originates in VRF "
                    f"{vrf_name} on {model.hostname} (no aggregate with a discard anchor, no "
                    f"SVI subnet); the route stops at {model.hostname}: {hint}",
                    flow.source if n.kind in CLOUD_KINDS and n.vrf is None else path,
                )
                continue
            verdict = evaluate(model, n.route_map_out, Route(prefix=prefix))
            if not verdict.accepted:
                clause = (
                    f"clause {verdict.clause} ({verdict.description})"
                    if verdict.clause is not None
                    else "no clause matches it"
                )
                yield (
                    EXPORT_ORIGINATED,
                    f"{where}: {_party(n)} should export {prefix}, originated in VRF "
                    f"{vrf_name}, but its export policy {n.route_map_out} denies it at "
                    f"{clause}; the route stops at {model.hostname}",
                    path,
                )


def _party(n: BgpNeighbor) -> str:
    return f"the session to {n.address} ({n.description})"


def _net(prefix: str) -> str:
    return str(ipaddress.ip_interface(prefix).network)


def _afi(prefix: str) -> str:
    return "ipv6" if ":" in prefix else "ipv4"

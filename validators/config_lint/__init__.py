"""CFG-*: the config lint. Edge hygiene and the EVPN services checked again, on the rendered text.

The intent rules (EDGE-*, AWS-*, AZ-*, GCP-*) prove the device model asks for a prefix limit
and both policies on every session; these rules prove the rendered config actually says so,
directly or through a peer group / neighbor-group / af-group / template. A template bug that
drops a line for one neighbour fails here even when every intent rule passed.

The rules are registered with the engine so `meetme rules` and `meetme explain` list them, but
their engine check yields nothing: they read rendered text, not intent, and the pipeline runs
them through `lint_configs` once the intent rules have passed and the devices have rendered.
Severity overrides of the standards profile apply; waivers do not (a template bug is fixed in
meetme, never accepted as an exception).

Neighbours are keyed by (VRF, address): a border-leaf handoff session reuses, inside its
tenant VRF, the address of a default-VRF underlay neighbour, and each must carry its own limit
and policies.

The BGP checks (CFG-001..005) parse only devices with an external or handoff neighbour
(importing ciscoconfparse2 is a large part of `meetme lint`'s time, so it happens only then).
On those devices every BGP neighbour of the model is checked, underlay included: border
devices exercise each platform's underlay template too, at no extra parse. The EVPN checks
(CFG-006..009, module `evpn`) read every VTEP with a VLAN or VRF to map and every device with
an EVPN peer (spines included), with a line scan.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from meetme.validators.engine import RULES, Finding, Hit, Severity, SiteContext, rule

from meetme.core.problems import Location

if TYPE_CHECKING:
    from meetme.generators.model import BgpNeighbor, DeviceModel

SOURCE = (
    "docs/standards.md#edge-rfc8212 (RFC 8212 https://www.rfc-editor.org/rfc/rfc8212) and BGP-007 "
    "(RFC 7454 section 8 https://www.rfc-editor.org/rfc/rfc7454); meetme issue 3, config lint"
)


# --- what a platform parser reports ----------------------------------------------------------


@dataclass(frozen=True)
class Value:
    """A setting read from the config, with the config line (1-based) that sets it."""

    text: str
    line: int
    column: int


@dataclass
class Session:
    """What the config gives one neighbour in the model's address family, after inheritance."""

    line: int  # the neighbour's own line: findings about what is missing point here
    column: int
    prefix_limit: Value | None = None
    policy_in: Value | None = None
    policy_out: Value | None = None


@dataclass(frozen=True)
class Reference:
    """A name the config uses and must define: a route-map, prefix-list, AS-path list ..."""

    kind: str  # a key of ParsedConfig.defined, in the platform's own words (e.g. prefix-set)
    name: str
    line: int
    column: int
    where: str  # what refers to it, e.g. "route-map RM-X permit 10" or "neighbor 192.0.2.1"


DEFAULT_VRF = "default"  # NVUE's name for it; a `router bgp` block's top level elsewhere

SessionKey = tuple[str, str]  # (VRF, normalised address)


@dataclass
class ParsedConfig:
    sessions: dict[SessionKey, Session] = field(default_factory=dict)
    defined: dict[str, set[str]] = field(default_factory=dict)  # kind -> names
    references: list[Reference] = field(default_factory=list)
    unreadable: Value | None = None  # why the text could not be read at all, and where
    limit_keyword: str = "prefix limit"  # how the platform spells it, for messages
    policy_keyword: str = "route-map"


@dataclass(frozen=True)
class RenderedConfig:
    """One device's rendered text, under the name findings show for it."""

    model: DeviceModel
    file: str  # e.g. rendered/aus1/aus1-br1.cfg, as the CLI prints it
    text: str


def normalise(address: str) -> str:
    """One spelling per address, so 2001:DB8::1 in a config finds 2001:db8::1 in the model."""
    try:
        return str(ipaddress.ip_address(address))
    except ValueError:
        return address


# --- the rules -------------------------------------------------------------------------------


def _reads_rendered_text(ctx: SiteContext) -> Iterator[Hit]:
    """Run by the pipeline over rendered configs (`lint_configs`), not per site by the engine."""
    return iter(())


PREFIX_LIMIT = "CFG-001"
IMPORT_POLICY = "CFG-002"
EXPORT_POLICY = "CFG-003"
DEFINED = "CFG-004"
CONFIGURED = "CFG-005"
VLAN_MAPPED = "CFG-006"
VRF_MAPPED = "CFG-007"
VRF_EXPORTED = "CFG-008"
EVPN_PEER_LIMIT = "CFG-009"

rule(
    PREFIX_LIMIT,
    "error",
    "Every BGP neighbour in a rendered config has its prefix limit",
    "A session without a maximum-prefix accepts a full-table leak from a peer and takes the "
    "border's RIB and FIB with it. The intent rules prove the model asks for the limit; this "
    "proves the rendered config says it, on the neighbour or through its peer group, "
    "neighbor-group, af-group or template, with the model's value.",
    SOURCE,
)(_reads_rendered_text)
rule(
    IMPORT_POLICY,
    "error",
    "Every BGP neighbour in a rendered config has its import policy",
    "Without an inbound route-map (route-policy on IOS-XR) a session accepts everything the "
    "peer sends on platforms that are not RFC 8212 compliant by default (EOS, NX-OS), and "
    "accepts nothing on those that are. Checked on the rendered text, inheritance included, "
    "against the policy name in the device model.",
    SOURCE,
)(_reads_rendered_text)
rule(
    EXPORT_POLICY,
    "error",
    "Every BGP neighbour in a rendered config has its export policy",
    "Without an outbound policy a non-RFC 8212 platform advertises its whole table: the leak "
    "RFC 8212 was written for. Checked on the rendered text, inheritance included, against "
    "the policy name in the device model.",
    SOURCE,
)(_reads_rendered_text)
rule(
    DEFINED,
    "error",
    "Every route-map, route-policy, prefix-list and AS-path or community list a rendered "
    "config uses is defined in it",
    "A policy that names an undefined list or route-map is rejected by some platforms and "
    "silently matches nothing (or everything) on others: the filter the intent asked for is "
    "not there.",
    SOURCE,
)(_reads_rendered_text)
rule(
    CONFIGURED,
    "error",
    "Every BGP neighbour of the device model is in its rendered config",
    "A neighbour the model has and the config lacks is a session the engineer was promised "
    "and will not get; one the lint cannot find cannot be proven to carry its limit and "
    "policies either.",
    SOURCE,
)(_reads_rendered_text)


EVPN_SOURCE = (
    "docs/standards.md#evpn-vni-mapping (RFC 8365 https://www.rfc-editor.org/rfc/rfc8365), EVPN-004 and "
    "EVPN-005 (RFC 9135 https://www.rfc-editor.org/rfc/rfc9135); docs/syntax.md#eos-evpn, docs/syntax.md#nxos-evpn, docs/syntax.md#nvue-evpn; "
    "meetme issue 4, config lint"
)
rule(
    VLAN_MAPPED,
    "error",
    "Every VLAN of a VTEP is mapped to its VNI in the rendered config",
    "A VLAN the model gives an L2VNI but the VTEP does not map (EOS `vxlan vlan N vni V`, "
    "NX-OS `vn-segment` plus `member vni` on nve1, NVUE `bridge domain br_default vlan N vni "
    "V`) stays local to the leaf: its hosts cannot reach the same network on any other leaf, "
    "and nothing warns. Checked on the rendered text against the device model's VNI.",
    EVPN_SOURCE,
)(_reads_rendered_text)
rule(
    VRF_MAPPED,
    "error",
    "Every VRF with an L3VNI is mapped to it in the rendered config",
    "Symmetric IRB routes between leaves over the VRF's L3VNI (EOS `vxlan vrf X vni V`, "
    "NX-OS `vrf context X` / `vni V` with its carrier VLAN and `member vni V associate-vrf`, "
    "NVUE `vrf X evpn vni V`); a VRF without it black-holes every inter-leaf route of the "
    "tenant. Checked on the rendered text against the device model's L3VNI.",
    EVPN_SOURCE,
)(_reads_rendered_text)
rule(
    VRF_EXPORTED,
    "error",
    "Every VRF with an L3VNI exports its routes to EVPN with its route target",
    "A VRF that does not export to EVPN (EOS `route-target export evpn` under `router bgp` / "
    "`vrf X`, NX-OS `route-target export RT evpn` in the VRF context, NVUE `route-export "
    "to-evpn` enabled with the route target) keeps its subnets and handed-off routes to "
    "itself; one that exports another route target is silently not imported by the other "
    "VTEPs (EVPN-004). Checked for each address family the VRF routes on the device.",
    EVPN_SOURCE,
)(_reads_rendered_text)
rule(
    EVPN_PEER_LIMIT,
    "error",
    "Every EVPN peer of the device model is in its rendered config with its prefix limit",
    "An overlay session without its limit accepts every EVPN route a misbehaving VTEP or "
    "spine floods (host routes, one per MAC/IP), and EOS's implicit 12000 resets a healthy "
    "session once the fabric outgrows it. Checked on the rendered text against the device "
    "model's max_routes: EOS `neighbor A maximum-routes N` (on the neighbour or its peer "
    "group), NX-OS `maximum-prefix N` under the neighbour's `address-family l2vpn evpn`, NVUE "
    "`address-family l2vpn-evpn prefix-limits inbound maximum N`.",
    "docs/standards.md#evpn-overlay-sessions and docs/standards.md#edge-001 (RFC 7454 section 8 "
    "https://www.rfc-editor.org/rfc/rfc7454); docs/syntax.md#eos-evpn, docs/syntax.md#nxos-evpn, docs/syntax.md#nvue-evpn; config lint",
)(_reads_rendered_text)


# --- running them ----------------------------------------------------------------------------


def needs_lint(model: DeviceModel) -> bool:
    """Whether the config lint reads this device's rendered text (see the module docstring)."""
    return _checks_bgp(model) or _checks_evpn(model)


def _checks_bgp(model: DeviceModel) -> bool:
    return any(n.kind != "underlay" for n in model.bgp.neighbors)


def _checks_evpn(model: DeviceModel) -> bool:
    evpn = model.evpn
    return evpn is not None and bool(evpn.peers or (evpn.vtep and (evpn.vlans or evpn.vrfs)))


def lint_configs(
    configs: Iterable[RenderedConfig], severity: Mapping[str, Severity] | None = None
) -> list[Finding]:
    """Every CFG-* finding on the given rendered configs. `severity` is the standards profile's
    per-rule override (intent `standards: {severity: ...}`)."""
    overrides = dict(severity or {})
    findings: list[Finding] = []
    for config in configs:
        hits: list[tuple[str, str, int, int]] = []
        readable = True
        if _checks_bgp(config.model):
            parsed = _parse(config)
            readable = parsed.unreadable is None  # already reported, once, by CFG-005
            hits += _check(config.model, parsed)
        if readable and _checks_evpn(config.model):
            from meetme.validators.config_lint import evpn

            hits += evpn.check(config.model, config.text)
        for rule_id, message, line, column in hits:
            findings.append(
                Finding(
                    rule=rule_id,
                    severity=overrides.get(rule_id, RULES[rule_id].severity),
                    message=message,
                    location=Location(config.file, line, column),
                    path=f"sites.{config.model.site}.devices.{config.model.hostname}.config",
                )
            )
    return findings


def _key(neighbor: BgpNeighbor) -> SessionKey:
    return (neighbor.vrf or DEFAULT_VRF, normalise(neighbor.address))


def _parse(config: RenderedConfig) -> ParsedConfig:
    wanted = tuple(sorted((_key(n), n.afi) for n in config.model.bgp.neighbors))
    return _parse_text(config.model.platform, config.text, wanted)


# One process often lints the same border text again (tests, `meetme diff`); callers only read
# the cached ParsedConfig, never change it.
@lru_cache(maxsize=64)
def _parse_text(
    platform: str, text: str, wanted: tuple[tuple[SessionKey, str], ...]
) -> ParsedConfig:
    if platform == "nvidia_nvue":
        from meetme.validators.config_lint import nvue

        return nvue.parse(text, dict(wanted))
    from meetme.validators.config_lint import (
        cisco,  # imports ciscoconfparse2: only now that a Cisco-style file needs it
    )

    return cisco.parse(text, cisco.SYNTAX[platform], dict(wanted))


def _check(model: DeviceModel, parsed: ParsedConfig) -> Iterator[tuple[str, str, int, int]]:
    if parsed.unreadable is not None:
        where = parsed.unreadable
        yield (
            CONFIGURED,
            f"the rendered config cannot be read ({where.text}); none of its "
            f"{len(model.bgp.neighbors)} BGP neighbour(s) could be checked",
            where.line,
            where.column,
        )
        return
    for neighbor in model.bgp.neighbors:
        session = parsed.sessions.get(_key(neighbor))
        who = _who(neighbor)
        if session is None:
            scope = "that VRF of router bgp" if neighbor.vrf else "router bgp"
            yield (
                CONFIGURED,
                f"{who} of the device model is not configured in {scope}",
                1,
                1,
            )
            continue
        yield from _prefix_limit(neighbor, session, who, parsed.limit_keyword)
        for rule_id, direction, value, expected in (
            (IMPORT_POLICY, "import (in)", session.policy_in, neighbor.route_map_in),
            (EXPORT_POLICY, "export (out)", session.policy_out, neighbor.route_map_out),
        ):
            if value is None:
                yield (
                    rule_id,
                    f"{who} has no {direction} {parsed.policy_keyword} for {neighbor.afi} "
                    "unicast, neither on the neighbour nor through a group or template",
                    session.line,
                    session.column,
                )
            elif value.text != expected:
                yield (
                    rule_id,
                    f"{who} applies {parsed.policy_keyword} {value.text} as its {direction} "
                    f"policy; the device model's is {expected}",
                    value.line,
                    value.column,
                )
    for ref in parsed.references:
        if ref.name not in parsed.defined.get(ref.kind, set()):
            yield (
                DEFINED,
                f"{ref.where} uses {ref.kind} {ref.name}, which this config does not define",
                ref.line,
                ref.column,
            )


def _prefix_limit(
    neighbor: BgpNeighbor, session: Session, who: str, keyword: str
) -> Iterator[tuple[str, str, int, int]]:
    value = session.prefix_limit
    if value is None:
        yield (
            PREFIX_LIMIT,
            f"{who} has no prefix limit ({keyword}) for {neighbor.afi} unicast, neither on "
            "the neighbour nor through a group or template",
            session.line,
            session.column,
        )
        return
    if not value.text.isdigit() or int(value.text) == 0:
        yield (
            PREFIX_LIMIT,
            f"{who} has {keyword} {value.text}, which is no limit; the device model's is "
            f"{neighbor.max_prefix}",
            value.line,
            value.column,
        )
    elif int(value.text) != neighbor.max_prefix:
        yield (
            PREFIX_LIMIT,
            f"{who} has {keyword} {value.text}; the device model's is {neighbor.max_prefix}",
            value.line,
            value.column,
        )


def _who(neighbor: BgpNeighbor) -> str:
    """Names the VRF too: a handoff neighbour shares its address with an underlay one."""
    vrf = f" in vrf {neighbor.vrf}" if neighbor.vrf else ""
    if neighbor.external:
        return f"neighbor {neighbor.address}{vrf} ({neighbor.description})"
    kind = "handoff" if neighbor.kind == "handoff" else "underlay"
    return f"{kind} neighbor {neighbor.address}{vrf} ({neighbor.peer_device})"

"""The platform x role support matrix, read from the plug-ins: for every role the features it asks
of its device's platform, and for every platform whether its templates print each one or which
rule refuses it at lint (before any template runs). docs/platforms.md is this module's markdown
(`meetme platforms --format markdown`); a test fails when the committed page falls behind.

A cell is derived, never written by hand: a feature names the capability it needs (and the rule
that refuses a platform without it) and the gap checks that refuse it (a platform refuses it
when its plug-in lists the check). Gap checks that refuse only some values (an IOS-XR prefix
set's deny entry, an NX-OS VRF without a carrier VLAN) are listed per platform below the
matrix, not as cells.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, get_args

from meetme.generators.platforms import PLATFORMS, gaps
from meetme.generators.platforms.base import GapCheck, Platform

from meetme.intent.types import Role

ROLES: tuple[Role, ...] = get_args(Role)  # every role the schema accepts, in its order

# The rule id each gap check reports (a check yields Gaps of one rule).
GAP_RULES: dict[GapCheck, str] = {
    gaps.rpki: gaps.RPKI,
    gaps.static_next_hop: gaps.STATIC_NEXT_HOP,
    gaps.vrf_sessions_in_plain_vrfs: gaps.VRF_SESSION,
    gaps.vrf_sessions_in_evpn_vrfs: gaps.VRF_SESSION,
    gaps.vrf_sessions_in_any_vrfs: gaps.VRF_SESSION,
    gaps.prefix_list_denies: gaps.PREFIX_DENY,
    gaps.as_path_denies: gaps.AS_PATH_DENY,
    gaps.clauses_after_match_all: gaps.UNREACHABLE_CLAUSE,
    gaps.next_hop_unchanged: gaps.NEXT_HOP_UNCHANGED,
    gaps.next_hop_map_named: gaps.NEXT_HOP_UNCHANGED,
    gaps.l3vni_carrier_vlan: gaps.L3VNI_VLAN,
    gaps.no_host_bonds: gaps.BOND_MODE,
    gaps.segments_on_vteps: gaps.SEGMENT_OFF_VTEP,
    gaps.trunks_with_vlans: gaps.TRUNK_WITHOUT_VLANS,
    gaps.segments_off_mlag: gaps.SEGMENT_ON_MLAG,
    gaps.segments_with_suppression: gaps.SEGMENT_WITHOUT_SUPPRESSION,
    gaps.mlag_peer_link: gaps.MLAG_WITHOUT_PEER_LINK,
    gaps.nxos_multihop_bfd: gaps.MULTIHOP_BFD_RANGE,
    gaps.nxos_bfd: gaps.BFD_RANGE,
    gaps.ecmp_range: gaps.ECMP_RANGE,
    gaps.vpc_domain_range: gaps.VPC_DOMAIN_RANGE,
    gaps.srv6_locator: gaps.SRV6_LOCATOR,
    gaps.srv6_l3vpn: gaps.SRV6_L3VPN,
    gaps.vrf_names: gaps.VRF_NAME,
    gaps.bond_number_ranges: gaps.BOND_NUMBER_RANGE,
    gaps.prefix_limit_range: gaps.PREFIX_LIMIT_RANGE,
    gaps.user_names: gaps.USER_NAME,
    gaps.vlan_names: gaps.VLAN_NAME,
    gaps.list_names: gaps.LIST_NAME,
    gaps.hostname: gaps.HOSTNAME,
    gaps.as_path_length_form: gaps.AS_PATH_LENGTH_FORM,
    gaps.vrf_sessions_behind_shared_vtep: gaps.SHARED_VTEP_ROUTES,
}


@dataclass(frozen=True)
class Feature:
    name: str
    roles: tuple[Role, ...]  # the roles whose devices print it
    capability: str | None = None  # a Capabilities field the platform must have
    missing: str = ""  # the rule refusing a platform without it; "" when it is left out instead
    left_out: str = ""  # why a platform without the capability prints nothing (documented)
    refused_by: tuple[GapCheck, ...] = ()  # gap checks that refuse it whenever the role asks
    core: bool = False  # the role is nothing without it: refused, no device of the role renders


@dataclass(frozen=True)
class Cell:
    status: Literal["rendered", "refused", "left out", "n/a"]
    rule: str = ""  # the refusing rule
    note: str = ""

    def markdown(self) -> str:
        if self.status == "refused":
            return f"refused [{self.rule}](standards.md#{self.rule.lower()})"
        if self.status == "left out":
            return f"left out ({self.note})"
        return "rendered" if self.status == "rendered" else "—"


FEATURES: tuple[Feature, ...] = (
    Feature("eBGP underlay with BFD, loopbacks, p2p links", ROLES),
    Feature("management plane (VRF, users, NTP, syslog, API)", ROLES),
    Feature(
        "Internet edge: transit, IX and PNI sessions with routing policy, aggregates",
        ("border",),
    ),
    Feature("RPKI origin validation", ("border",), "rpki", gaps.RPKI, refused_by=(gaps.rpki,)),
    # NX-OS by `maxas-limit` per VRF, NVUE by an AS-path regex (Platform.drop_as_path_length)
    Feature("long AS paths dropped on external sessions (EDGE-013)", ("border", "border_leaf")),
    Feature(
        "VRF-lite handoff, border side (sessions in plain VRFs)",
        ("border",),
        refused_by=(gaps.vrf_sessions_in_evpn_vrfs,),
    ),
    Feature(
        "unicast RPF (loose) on external ports",
        ("border", "border_leaf"),
        "urpf",
        left_out="no verified form: the port has none, docs/standards.md#edge-urpf",
    ),
    Feature(
        "EVPN route server: VTEP next hop unchanged",
        ("super_spine", "spine"),
        "evpn_vxlan",
        "EVPN-009",
        refused_by=(gaps.next_hop_unchanged,),
        core=True,
    ),
    Feature(
        "EVPN-VXLAN VTEP: L2/L3 VNIs, symmetric IRB",
        ("leaf", "border_leaf"),
        "evpn_vxlan",
        "EVPN-009",
        core=True,
    ),
    Feature(
        "VRF-lite handoff, border-leaf side (sessions in EVPN VRFs)",
        ("border_leaf",),
        "evpn_vxlan",
        "EVPN-009",
        refused_by=(gaps.vrf_sessions_in_plain_vrfs,),
    ),
    Feature(
        "cloud attachments (eBGP in a tenant VRF)",
        ("border_leaf",),
        "evpn_vxlan",
        "EVPN-009",
        refused_by=(gaps.vrf_sessions_in_plain_vrfs,),
    ),
    Feature(
        "single-homed hosts: access and trunk ports, one-leaf LACP port-channels",
        ("leaf", "border_leaf"),
        refused_by=(gaps.no_host_bonds,),
    ),
    Feature(
        "MLAG host pairs (vPC on NX-OS): peer link, keepalive, routed peer adjacency, anycast VTEP",
        ("leaf", "border_leaf"),
        "mlag",
        "EVPN-011",
    ),
    Feature(
        "ESI multihoming (EVPN Ethernet segments)",
        ("leaf", "border_leaf"),
        "esi_multihoming",
        "EVPN-011",
    ),
)


# What a role's section says beyond its cells.
ROLE_NOTES: dict[Role, str] = {
    "super_spine": "A super-spine joins the pods: it runs the eBGP underlay toward the borders "
    "and spines its link rules give it, and is the EVPN route server between the pods' spines "
    "(and for VTEPs whose pod has no spine): a super-spine platform must keep the VTEP's next "
    "hop on the EVPN routes it passes on, as a spine's must. Each pod's spines have an ASN of "
    "their own (the pod's asn, else asn.shared.spine + pod id), the super-spines "
    "asn.shared.super_spine, so routes pass between pods without an AS-path loop.",
    "spine": "Spines are the leaves' EVPN route servers: a spine platform must keep the VTEP's "
    "next hop on the EVPN routes it passes on.",
    "border": "The full Internet edge renders on every platform; what differs is RPKI and the "
    "VRF-lite handoff from the border leaves (plain VRFs, their sessions and the route leaking "
    "with the Internet table), printed on the platforms the table marks rendered. A full "
    "Internet table also needs prefix limits above what some platforms take (below, "
    "PLAT-022): such a border takes a partial table or a default route.",
}


def cell(platform: Platform, feature: Feature, role: Role) -> Cell:
    """What `platform` does with `feature` on a device of `role`."""
    if role not in feature.roles:
        return Cell("n/a")
    if feature.capability is not None and not getattr(platform.capabilities, feature.capability):
        if feature.missing:
            return Cell("refused", feature.missing)
        return Cell("left out", note=feature.left_out)
    for check in feature.refused_by:
        if check in platform.gap_checks:
            return Cell("refused", GAP_RULES[check])
    return Cell("rendered")


def platforms() -> list[Platform]:
    return [PLATFORMS[name] for name in sorted(PLATFORMS)]


def refused(platform: Platform, role: Role) -> list[tuple[Feature, str]]:
    """(feature, refusing rule) of `role` on `platform`; none: the role renders whole."""
    cells = [(f, cell(platform, f, role)) for f in FEATURES if role in f.roles]
    return [(f, c.rule) for f, c in cells if c.status == "refused"]


def conditional_limits(platform: Platform) -> list[tuple[str, str]]:
    """(rule, what it refuses) of the plug-in's gap checks no matrix cell stands for: limits
    met only by some values."""
    whole = {check for f in FEATURES for check in f.refused_by}
    return [
        (GAP_RULES[check], _first_line(check.__doc__))
        for check in platform.gap_checks
        if check not in whole
    ]


# what a full Internet table's prefix limit needs, IPv4's table with headroom (RFC 7454 8.1:
# the limit sits above the table; the example's transits take 1,500,000)
FULL_TABLE = 1_200_000


def renders(platform: Platform, role: Role) -> bool:
    """Whether a device of `role` renders on `platform` at all (its core feature is not
    refused; the rest may be)."""
    return not any(f.core for f, _ in refused(platform, role))


def _glance(refusals: list[tuple[Feature, str]]) -> str:
    said = "; ".join(
        f"{f.name.split(':')[0]} ([{r}](standards.md#{r.lower()}))" for f, r in refusals
    )
    if not refusals:
        return "renders every feature"
    if any(f.core for f, _ in refusals):
        return f"refused: {said}"
    return f"renders, except {said}"


def _first_line(text: str | None) -> str:
    return " ".join((text or "").split("\n\n")[0].split())


def markdown(chosen: Iterable[Platform] | None = None) -> str:
    """docs/platforms.md."""
    shown = list(chosen) if chosen is not None else platforms()
    head = "| feature | " + " | ".join(p.title for p in shown) + " |"
    rule = "| --- |" + " --- |" * len(shown)
    lines = [
        "# Platform support matrix",
        "",
        "Generated by `meetme platforms --format markdown` from the platform plug-ins "
        "(`generators/platforms/`: capabilities and gap checks); do not edit by hand "
        "(regenerate: `meetme platforms --format markdown > docs/platforms.md`).",
        "",
        "A device of each role on each platform either renders each feature its role asks for "
        "or is refused at lint by the rule named, with a finding that names device, platform "
        "and feature at the intent line, before any template runs (exit 1, never a crash). "
        "A device moved to another platform also meets [PLAT-016](standards.md#plat-016) for "
        "each port still named as the old platform names it and [HW-003](standards.md#hw-003) "
        "for a hardware model of another platform.",
        "",
        "## Roles at a glance",
        "",
        "| role | " + " | ".join(p.title for p in shown) + " |",
        rule,
    ]
    for role in ROLES:
        cells = [_glance(refused(p, role)) for p in shown]
        lines.append(f"| {role} | " + " | ".join(cells) + " |")
    short = [
        f" {p.title} takes prefix limits up to {p.max_prefix_limit:,}, less than a full IPv4 "
        "Internet table needs, so its borders take a partial table or a default route "
        "([PLAT-022](standards.md#plat-022))."
        for p in shown
        if p.max_prefix_limit < FULL_TABLE
    ]
    lines += [
        "",
        "A role that renders may still refuse some values: prefix limits, BFD timers, ECMP "
        "widths (see [Limits met only by some values](#limits-met-only-by-some-values))."
        + "".join(short),
    ]
    for role in ROLES:
        lines += ["", f"## {role}", ""]
        if role in ROLE_NOTES:
            lines += [ROLE_NOTES[role], ""]
        lines += [head, rule]
        for feature in FEATURES:
            if role in feature.roles:
                cells = [cell(p, feature, role).markdown() for p in shown]
                lines.append(f"| {feature.name} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "## Limits met only by some values",
        "",
        "Each platform also refuses these values wherever they appear (gap checks the matrix "
        "above does not stand for):",
        "",
        "| platform | rule | refuses |",
        "| --- | --- | --- |",
    ]
    for platform in shown:
        for rule_id, what in conditional_limits(platform):
            lines.append(
                f"| {platform.title} | [{rule_id}](standards.md#{rule_id.lower()}) | {what} |"
            )
    return "\n".join(lines) + "\n"

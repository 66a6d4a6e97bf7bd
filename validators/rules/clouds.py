"""AWS-*, AZ-*, GCP-*, CLOUD-*: the hyperscaler on-ramps (docs/standards.md#clouds).

Every provider number (prefix limits, MTUs, subnet lengths, reserved ASNs, SLA topologies,
per-attachment throughput) is read from validators/data/providers.yaml with its source; the
rules only compare. Findings point at the VIF, peering, link or attachment to edit.
"""

from __future__ import annotations

import ipaddress
from collections import defaultdict
from collections.abc import Iterator
from typing import Any, get_args

from meetme.generators.build.edge_device import vrf_subnets
from meetme.generators.resolve.allocate import VTEP_ROLES, device_asn
from meetme.generators.resolve.edge_sessions import CLOUD_KINDS, ExternalSession
from meetme.validators.engine import Hit, Path_, SiteContext, rule
from meetme.validators.rules.edge import edge_of

from meetme.core.addresses import FAMILY
from meetme.core.numbering import is_private_asn
from meetme.core.problems import listed
from meetme.core.providers import providers
from meetme.intent.schema_clouds import BurstProfile, GcpAttachment
from meetme.intent.types import SPEED_GBPS

AWS_LIMITS = "https://docs.aws.amazon.com/directconnect/latest/UserGuide/limits.html"
AWS_BGP = "https://docs.aws.amazon.com/directconnect/latest/UserGuide/bgp-specific-settings.html"
AWS_PEER = "https://docs.aws.amazon.com/directconnect/latest/UserGuide/add-peer-to-vif.html"
AWS_MTU = (
    "https://docs.amazonaws.cn/en_us/directconnect/latest/UserGuide/set-jumbo-frames-vif.html; "
    "https://docs.aws.amazon.com/directconnect/latest/APIReference/"
    "API_CreatePrivateVirtualInterface.html"
)
AWS_RESILIENCY = (
    "https://docs.aws.amazon.com/directconnect/latest/UserGuide/maximum_resiliency.html"
)
AWS_BGP_PEER = (
    "https://docs.aws.amazon.com/directconnect/latest/APIReference/API_CreateBGPPeer.html"
)
AZ_ROUTING = "https://learn.microsoft.com/azure/expressroute/expressroute-routing"
AZ_FAQ = "https://learn.microsoft.com/azure/expressroute/expressroute-faqs"
GCP_VLAN = (
    "https://cloud.google.com/network-connectivity/docs/interconnect/how-to/dedicated/"
    "creating-vlan-attachments"
)
GCP_PARTNER = (
    "https://cloud.google.com/network-connectivity/docs/interconnect/how-to/partner/"
    "creating-vlan-attachments"
)
GCP_9999 = (
    "https://cloud.google.com/network-connectivity/docs/interconnect/tutorials/"
    "dedicated-creating-9999-availability"
)
MBPS_PER_GBPS = 1000
# Rule titles and rationales quote the data file, so `meetme rules` and docs/rules.md follow it
_AWS: dict[str, Any] = providers()["aws"]
_AZ: dict[str, Any] = providers()["azure"]
_GCP: dict[str, Any] = providers()["gcp"]
_AWS_PREFIXES = _AWS["advertised_prefixes_per_af"]
_AZ_PREFIXES = _AZ["advertised_prefixes"]
_AZ_RESERVED = f"{_AZ['reserved_asns']['first']}-{_AZ['reserved_asns']['last']}"
_AZ_LENGTH = _AZ["link_prefix_length"]
_GCP_LINK_LOCAL = _GCP["link_local"]
_GCP_ASN = _GCP["partner_cloud_router_asn"]
_GCP_SLA = _GCP["sla"]
EDGE_AVAILABILITY_DOMAINS = frozenset(
    get_args(GcpAttachment.model_fields["edge_availability_domain"].annotation)
)


def _facts(provider: str) -> dict[str, Any]:
    facts: dict[str, Any] = providers()[provider]
    return facts


def _count_by_afi(prefixes: list[str]) -> dict[str, int]:
    counts = {"ipv4": 0, "ipv6": 0}
    for prefix in prefixes:
        counts["ipv4" if ipaddress.ip_network(prefix).version == 4 else "ipv6"] += 1
    return counts


def _either(values: list[int], unit: str = "") -> str:
    """'1500, 9001 or 8500'; with unit '/': '/30 or /31'."""
    text = [f"{unit}{v}" for v in values]
    return text[0] if len(text) == 1 else f"{', '.join(text[:-1])} or {text[-1]}"


def _mbps(value: int) -> str:
    return f"{value:,} Mb/s"


# --- AWS Direct Connect -------------------------------------------------------------------


@rule(
    "AWS-001",
    "error",
    "Each AWS VIF advertises no more prefixes per address family than its type allows",
    "AWS idles a BGP session on which we advertise more than the limit (private VIF "
    f"{_AWS_PREFIXES['private']:,}, transit VIF {_AWS_PREFIXES['transit']:,}, public VIF "
    f"{_AWS_PREFIXES['public']:,} per address family) into idle: the VIF goes down, not just "
    "the excess.",
    f"docs/standards.md#aws-001; {AWS_LIMITS}",
)
def aws_advertised_prefixes(ctx: SiteContext) -> Iterator[Hit]:
    limits = _facts("aws")["advertised_prefixes_per_af"]
    for name, aws in sorted(ctx.site.peering.aws.items()):
        for vif_name, vif in sorted(aws.vifs.items()):
            limit = limits[vif.type]
            for afi, count in _count_by_afi([str(p) for p in vif.advertise]).items():
                if count > limit:
                    yield Hit(
                        f"AWS VIF {name}/{vif_name} advertises {count} {FAMILY[afi]} "
                        f"prefixes; a {vif.type} VIF accepts at most {limit} per address "
                        "family and AWS idles the session beyond that: aggregate them",
                        (*vif.path, "advertise"),
                    )


@rule(
    "AWS-002",
    "error",
    "AWS sessions carry an MD5 key and no GTSM",
    "AWS always runs TCP-MD5 (it generates a key when none is given), so a session without "
    "the key never establishes; AWS sends BGP with TTL 1 and supports neither multihop nor "
    "GTSM, so TTL security drops every AWS packet.",
    "docs/standards.md#aws-002, docs/standards.md#edge-gtsm and docs/standards.md#edge-003; "
    f"{AWS_PEER}; {AWS_BGP}",
)
def aws_md5_no_gtsm(ctx: SiteContext) -> Iterator[Hit]:
    facts = _facts("aws")
    sessions = [s for s in edge_of(ctx).sessions if s.kind == "aws"]
    for name, aws in sorted(ctx.site.peering.aws.items()):
        for vif_name, vif in sorted(aws.vifs.items()):
            own = [s for s in sessions if s.source == vif.path]
            if facts["md5_required"] and any(s.secret_name is None for s in own):
                yield Hit(
                    f"AWS VIF {name}/{vif_name} has no key; AWS always runs TCP-MD5 on the "
                    "BGP session, which stays down until both sides have the same key: set "
                    "key: secret:NAME to the VIF's BGP authentication key",
                    vif.path,
                )
            if not facts["gtsm_allowed"] and (vif.gtsm or any(s.gtsm for s in own)):
                yield Hit(
                    f"AWS VIF {name}/{vif_name} asks for GTSM, but AWS sends BGP with TTL 1 "
                    "and supports no TTL security: the session would never come up; remove "
                    "gtsm",
                    (*vif.path, "gtsm"),
                )


@rule(
    "AWS-003",
    "error",
    "AWS VIF MTUs are ones AWS accepts, and equal across VIFs advertising the same prefix",
    f"A private VIF runs {_either(_AWS['mtu']['private'])}, a transit VIF "
    f"{_either(_AWS['mtu']['transit'])}, a public VIF {_either(_AWS['mtu']['public'])} "
    f"(AWS documents both {_AWS['mtu']['private_conflict'][0]} and "
    f"{_AWS['mtu']['private_conflict'][1]} as the private jumbo MTU: both are accepted until "
    "AWS settles it); an MTU the VIF does not run black-holes "
    "large packets. AWS requires VIFs advertising the same prefix to use the same MTU.",
    f"docs/standards.md#aws-003; {AWS_MTU}",
)
def aws_vif_mtu(ctx: SiteContext) -> Iterator[Hit]:
    allowed_by_type = _facts("aws")["mtu"]
    for name, aws in sorted(ctx.site.peering.aws.items()):
        for vif_name, vif in sorted(aws.vifs.items()):
            allowed = allowed_by_type[vif.type]
            if vif.mtu not in allowed:
                choices = _either(allowed)
                note = ""
                if vif.type == "private":
                    a, b = allowed_by_type["private_conflict"]
                    note = f" (AWS documents both {a} and {b} for jumbo: use the console's)"
                yield Hit(
                    f"AWS VIF {name}/{vif_name} has mtu {vif.mtu}; a {vif.type} VIF runs "
                    f"{choices}{note}; set mtu to the VIF's MTU",
                    (*vif.path, "mtu"),
                )
        first_mtu: dict[str, tuple[str, int]] = {}
        for vif_name, vif in sorted(aws.vifs.items()):
            if vif.mtu not in allowed_by_type[vif.type]:
                continue  # reported above, at its own mtu: not the other VIF's fault
            for prefix in map(str, vif.advertise):
                other = first_mtu.setdefault(prefix, (vif_name, vif.mtu))
                if other[1] != vif.mtu:
                    yield Hit(
                        f"AWS VIF {name}/{vif_name} advertises {prefix} with mtu {vif.mtu}, "
                        f"but {other[0]} advertises it with mtu {other[1]}; VIFs advertising "
                        "the same prefix must use the same MTU",
                        (*vif.path, "mtu"),
                    )
                    break


@rule(
    "AWS-004",
    "warning",
    "The VIFs of each type ride connections on at least two of our devices",
    "When every VIF of a type (private, transit, public) lands on one device, that device's "
    "failure or maintenance cuts the site off from what those VIFs reach.",
    f"docs/standards.md#aws-004; {AWS_RESILIENCY}",
)
def aws_connections_on_two_devices(ctx: SiteContext) -> Iterator[Hit]:
    for name, aws in sorted(ctx.site.peering.aws.items()):
        by_type: dict[str, list[str]] = defaultdict(list)
        for vif_name, vif in sorted(aws.vifs.items()):
            by_type[vif.type].append(vif_name)
        for vif_type, vif_names in sorted(by_type.items()):
            circuits = sorted({aws.vifs[v].circuit for v in vif_names})
            devices = sorted(
                {
                    ctx.site.cross_connects[c].device
                    for c in circuits
                    if c in ctx.site.cross_connects
                }
            )
            if len(devices) == 1:
                yield Hit(
                    f"AWS {name} {vif_type} VIFs ({listed(vif_names)}) ride {listed(circuits)} "
                    f"on {devices[0]} only; add a {vif_type} VIF on a connection that lands on "
                    "another border device",
                    (*aws.path, "vifs"),
                )


@rule(
    "AWS-005",
    "error",
    "AWS peering subnets have the lengths AWS peers on",
    "AWS sets up the IPv4 BGP peer on a "
    f"{_either(_AWS['peer_prefix_lengths']['ipv4'], '/')} and allocates a "
    f"{_either(_AWS['peer_prefix_lengths']['ipv6'], '/')} for IPv6; any other length does not "
    "match the VIF's peer addresses.",
    f"docs/standards.md#aws-005; {AWS_BGP_PEER}; {AWS_PEER}",
)
def aws_peer_subnets(ctx: SiteContext) -> Iterator[Hit]:
    lengths = _facts("aws")["peer_prefix_lengths"]
    for name, aws in sorted(ctx.site.peering.aws.items()):
        for vif_name, vif in sorted(aws.vifs.items()):
            for afi, address in (("ipv4", vif.ipv4), ("ipv6", vif.ipv6)):
                if address is None:
                    continue
                length = ipaddress.ip_interface(address).network.prefixlen
                if length not in lengths[afi]:
                    allowed = _either(lengths[afi], "/")
                    yield Hit(
                        f"AWS VIF {name}/{vif_name} {afi} {address} is a /{length}; AWS "
                        f"peers on a {allowed}: use the VIF's peering subnet",
                        (*vif.path, afi),
                    )


# --- Azure ExpressRoute -------------------------------------------------------------------


@rule(
    "AZ-001",
    "error",
    "Each ExpressRoute peering has primary and secondary links on different border devices",
    "The ExpressRoute SLA needs both BGP sessions of the pair up; with both links on one "
    "device its failure or maintenance takes the whole circuit down.",
    f"docs/standards.md#az-001 and docs/standards.md#phy-001; {AZ_ROUTING}",
)
def azure_primary_and_secondary(ctx: SiteContext) -> Iterator[Hit]:
    circuits = ctx.site.cross_connects
    for name, azure in sorted(ctx.site.peering.azure.items()):
        for peering_name, peering in sorted(azure.peerings.items()):
            where = f"Azure {name} peering {peering_name}"
            if peering.secondary is None:
                yield Hit(
                    f"{where} has no secondary link; ExpressRoute needs both BGP sessions for "
                    "its SLA: add secondary on a circuit to another border device",
                    peering.path,
                )
                continue
            primary = circuits.get(peering.primary.circuit)
            secondary = circuits.get(peering.secondary.circuit)
            if primary is not None and secondary is not None and primary.device == secondary.device:
                yield Hit(
                    f"{where}: primary ({peering.primary.circuit}) and secondary "
                    f"({peering.secondary.circuit}) both land on {primary.device}; put the "
                    "secondary on a circuit to another border device",
                    (*peering.secondary.path, "circuit"),
                )


@rule(
    "AZ-002",
    "error",
    f"ExpressRoute links use one /{_AZ_LENGTH['ipv4']} (IPv4) and one /{_AZ_LENGTH['ipv6']} "
    "(IPv6) each",
    f"Microsoft takes the second address of each link's /{_AZ_LENGTH['ipv4']} "
    f"(/{_AZ_LENGTH['ipv6']}) and we the first; a subnet "
    "of another length does not match the peering configured on the Microsoft side.",
    f"docs/standards.md#az-002; {AZ_ROUTING}",
)
def azure_link_subnets(ctx: SiteContext) -> Iterator[Hit]:
    lengths = _facts("azure")["link_prefix_length"]
    for name, azure in sorted(ctx.site.peering.azure.items()):
        for peering_name, peering in sorted(azure.peerings.items()):
            for role, link in (("primary", peering.primary), ("secondary", peering.secondary)):
                if link is None:
                    continue
                for afi, prefix in (("ipv4", link.ipv4), ("ipv6", link.ipv6)):
                    if prefix is None:
                        continue
                    length = ipaddress.ip_network(prefix).prefixlen
                    if length != lengths[afi]:
                        yield Hit(
                            f"Azure {name} peering {peering_name} {role} {afi} {prefix} is a "
                            f"/{length}; ExpressRoute takes one /{lengths[afi]} per link (we "
                            "use its first address, Microsoft the second)",
                            (*link.path, afi),
                        )


def _asn_path(ctx: SiteContext, device_name: str) -> Path_:
    """Where the ASN a device peers from is written: its own asn, or the scheme it comes from."""
    device = ctx.site.devices[device_name]
    if device.asn is not None:
        return (*device.path, "asn")
    if device.role == "border":
        return ("organisation", "asn")
    if device.role in ctx.site.asn.shared:
        return (*ctx.base, "asn", "shared", device.role)
    return (*ctx.base, "asn", "base")


@rule(
    "AZ-003",
    "error",
    "The ASN we peer with Azure from is neither reserved by Azure nor Microsoft's",
    f"Azure reserves ASNs {_AZ_RESERVED} for internal use and peers from "
    f"{_AZ['microsoft_asn']}; a session from "
    "one of them is refused or loops routes.",
    f"docs/standards.md#az-003; {AZ_ROUTING}",
)
def azure_customer_asn(ctx: SiteContext) -> Iterator[Hit]:
    facts = _facts("azure")
    first, last = facts["reserved_asns"]["first"], facts["reserved_asns"]["last"]
    devices = sorted({s.device for s in edge_of(ctx).sessions if s.kind == "azure"})
    for device_name in devices:
        device = ctx.site.devices[device_name]
        asn = device_asn(ctx.loaded.intent, ctx.site, device)
        if first <= asn <= last:
            why = f"which Azure reserves ({first}-{last}) for its own use"
        elif asn == facts["microsoft_asn"]:
            why = "which is Microsoft's own ASN"
        else:
            continue
        yield Hit(
            f"{device_name} peers with Azure from AS{asn}, {why}; give {device_name} another ASN",
            _asn_path(ctx, device_name),
        )


@rule(
    "AZ-004",
    "error",
    "Each ExpressRoute peering advertises no more prefixes than Microsoft accepts",
    "Microsoft drops the BGP session when we advertise more than the limit (private peering "
    f"{_AZ_PREFIXES['private']['ipv4']:,} IPv4 and {_AZ_PREFIXES['private']['ipv6']:,} IPv6, "
    f"{_AZ_PREFIXES['private_premium']['ipv4']:,} IPv4 with Premium; Microsoft peering "
    f"{_AZ_PREFIXES['microsoft']['ipv4']:,} IPv4 and {_AZ_PREFIXES['microsoft']['ipv6']:,} "
    "IPv6).",
    f"docs/standards.md#az-004; {AZ_ROUTING}; https://learn.microsoft.com/azure/"
    "azure-resource-manager/management/azure-subscription-service-limits#expressroute-limits",
)
def azure_advertised_prefixes(ctx: SiteContext) -> Iterator[Hit]:
    limits = _facts("azure")["advertised_prefixes"]
    for name, azure in sorted(ctx.site.peering.azure.items()):
        for peering_name, peering in sorted(azure.peerings.items()):
            kind = (
                "private_premium" if peering.type == "private" and peering.premium else peering.type
            )
            for afi, count in _count_by_afi([str(p) for p in peering.advertise]).items():
                limit = limits[kind][afi]
                if count > limit:
                    tier = " (Premium)" if kind == "private_premium" else ""
                    yield Hit(
                        f"Azure {name} peering {peering_name} advertises {count} "
                        f"{FAMILY[afi]} prefixes; {peering.type} peering{tier} accepts at "
                        f"most {limit} and Microsoft drops the session beyond that: aggregate "
                        "them",
                        (*peering.path, "advertise"),
                    )


@rule(
    "AZ-006",
    "warning",
    "The committed rate to Azure fits the circuit bandwidth",
    "Each ExpressRoute link is rate-limited at the circuit bandwidth; the burst to "
    f"{_AZ['burst_factor']['value']}x over both links is redundancy headroom, so traffic above "
    "the bandwidth is dropped when a link fails or is in "
    "maintenance.",
    f"docs/standards.md#az-006; {AZ_FAQ}",
)
def azure_committed_within_bandwidth(ctx: SiteContext) -> Iterator[Hit]:
    for name, azure in sorted(ctx.site.peering.azure.items()):
        if azure.burst.committed_mbps > azure.bandwidth_mbps:
            yield Hit(
                f"Azure {name} commits {_mbps(azure.burst.committed_mbps)} on a "
                f"{_mbps(azure.bandwidth_mbps)} circuit; one link carries at most the circuit "
                "bandwidth: lower committed_mbps or order a larger circuit",
                (*azure.burst.path, "committed_mbps"),
            )


@rule(
    "AZ-008",
    "error",
    f"ExpressRoute peerings run the MTU Microsoft supports ({_either(_AZ['mtu']['values'])})",
    f"ExpressRoute carries the standard {_either(_AZ['mtu']['values'])}-byte MTU. A larger MTU "
    "on our sub-interface sends larger packets unfragmented and without a 'fragmentation "
    "needed' to the host, and Microsoft's edge drops them: BGP and pings come up while every "
    "bulk flow stalls after its handshake.",
    f"docs/standards.md#az-008; {_AZ['mtu']['source']}",
)
def azure_peering_mtu(ctx: SiteContext) -> Iterator[Hit]:
    allowed = _facts("azure")["mtu"]["values"]
    for name, azure in sorted(ctx.site.peering.azure.items()):
        for peering_name, peering in sorted(azure.peerings.items()):
            if peering.mtu not in allowed:
                yield Hit(
                    f"Azure {name} peering {peering_name} has mtu {peering.mtu}; ExpressRoute "
                    f"carries {_either(allowed)}: set the peering's mtu to {_either(allowed)}",
                    (*peering.path, "mtu"),
                )


@rule(
    "AZ-009",
    "error",
    "The two links of an ExpressRoute peering share one VLAN and have subnets of their own",
    "Microsoft configures a peering with one VLAN ID for both links and a primary and a "
    "secondary subnet (two /30s, two /126s): a secondary link on another VLAN, or on the "
    "primary's subnet, reaches no Microsoft router, so its BGP session never comes up and the "
    "peering runs on one link, unnoticed until that link fails.",
    f"docs/standards.md#az-009; {AZ_ROUTING}",
)
def azure_links_one_vlan_two_subnets(ctx: SiteContext) -> Iterator[Hit]:
    for name, azure in sorted(ctx.site.peering.azure.items()):
        for peering_name, peering in sorted(azure.peerings.items()):
            primary, secondary = peering.primary, peering.secondary
            if secondary is None:
                continue  # AZ-001
            label = f"Azure {name} peering {peering_name}"
            if secondary.vlan != primary.vlan:
                yield Hit(
                    f"{label}: the secondary link is on VLAN {secondary.vlan}, the primary on "
                    f"{primary.vlan}; Microsoft tags both links with the peering's one VLAN: "
                    f"give the secondary VLAN {primary.vlan}",
                    (*secondary.path, "vlan"),
                )
            for afi in ("ipv4", "ipv6"):
                mine, theirs = getattr(secondary, afi), getattr(primary, afi)
                if mine is not None and theirs is not None and _overlap(mine, theirs):
                    yield Hit(
                        f"{label}: the secondary link's {afi} {mine} overlaps the primary's "
                        f"{theirs}; Microsoft gives each link a subnet of its own: use the "
                        "secondary subnet agreed for the peering",
                        (*secondary.path, afi),
                    )


# --- Google Cloud Interconnect ------------------------------------------------------------


@rule(
    "GCP-001",
    "error",
    f"Cloud Router ASN: {_GCP_ASN} for Partner Interconnect, {_GCP_ASN} or private for Dedicated",
    f"Partner Interconnect requires every Cloud Router to use local ASN {_GCP_ASN} (a common "
    f"cause of BGP not establishing); Dedicated accepts {_GCP_ASN} or a private ASN.",
    f"docs/standards.md#gcp-001; {GCP_PARTNER}; {GCP_VLAN}",
)
def gcp_cloud_router_asn(ctx: SiteContext) -> Iterator[Hit]:
    google_asn = _facts("gcp")["partner_cloud_router_asn"]
    for name, gcp in sorted(ctx.site.peering.gcp.items()):
        asn = gcp.cloud_router_asn
        if gcp.type == "partner" and asn != google_asn:
            wanted = f"Partner Interconnect needs {google_asn}"
        elif gcp.type == "dedicated" and asn != google_asn and not is_private_asn(asn):
            wanted = f"Dedicated Interconnect takes {google_asn} or a private ASN"
        else:
            continue
        yield Hit(
            f"Google {name} Cloud Router ASN {asn}: {wanted}; set cloud_router_asn to the "
            "Cloud Router's ASN",
            (*gcp.path, "cloud_router_asn"),
        )


@rule(
    "GCP-002",
    "error",
    "Google attachment MTUs are ones Google accepts",
    f"A VLAN attachment runs {_either(_GCP['attachment_mtus'])}; our sub-interface must match "
    "it (and "
    "the VPC), or large packets are black-holed.",
    f"docs/standards.md#gcp-002; {GCP_VLAN}",
)
def gcp_attachment_mtu(ctx: SiteContext) -> Iterator[Hit]:
    allowed = _facts("gcp")["attachment_mtus"]
    for name, gcp in sorted(ctx.site.peering.gcp.items()):
        for attachment_name, attachment in sorted(gcp.attachments.items()):
            if attachment.mtu not in allowed:
                yield Hit(
                    f"Google attachment {name}/{attachment_name} has mtu {attachment.mtu}; an "
                    f"attachment runs {_either(allowed)}: set the "
                    "attachment's MTU",
                    (*attachment.path, "mtu"),
                )


@rule(
    "GCP-003",
    "error",
    f"Google attachments peer on distinct /{_GCP_LINK_LOCAL['prefix_length']}s inside "
    f"{_GCP_LINK_LOCAL['range']}, and on distinct IPv6 subnets",
    f"Google allocates each attachment a /{_GCP_LINK_LOCAL['prefix_length']} from "
    f"{_GCP_LINK_LOCAL['range']}, unique across the VPC's "
    "Cloud Routers; another length or range does not match the Cloud Router's address. A "
    "dual-stack attachment's IPv6 peering subnet (ipv6) is unique across them too; Google's "
    "IPv6 allocation length and range are not verified from a source, so for IPv6 only "
    "uniqueness is checked (the peer address on our subnet is EDGE-008's).",
    f"docs/standards.md#gcp-003; {GCP_VLAN}",
)
def gcp_link_local_subnets(ctx: SiteContext) -> Iterator[Hit]:
    facts = _facts("gcp")["link_local"]
    link_local = ipaddress.ip_network(facts["range"])
    length = facts["prefix_length"]
    for name, gcp in sorted(ctx.site.peering.gcp.items()):
        taken: dict[ipaddress.IPv4Network | ipaddress.IPv6Network, str] = {}
        taken_v6: list[tuple[ipaddress.IPv6Network, str]] = []
        for attachment_name, attachment in sorted(gcp.attachments.items()):
            net = ipaddress.ip_interface(attachment.ipv4).network
            where = f"Google attachment {name}/{attachment_name} ipv4 {attachment.ipv4}"
            path = (*attachment.path, "ipv4")
            if net.prefixlen != length or not net.subnet_of(link_local):  # type: ignore[arg-type]
                yield Hit(
                    f"{where} is not a /{length} inside {link_local}; use the /{length} "
                    "Google allocated to the attachment",
                    path,
                )
            elif net in taken:
                yield Hit(
                    f"{where} reuses {net} of {taken[net]}; each attachment has its own /{length}",
                    path,
                )
            else:
                taken[net] = attachment_name
            if attachment.ipv6 is None:
                continue
            # no sourced IPv6 length: subnets of any length must not overlap, not only be equal
            net6 = ipaddress.IPv6Interface(attachment.ipv6).network
            clash = next((t for t in taken_v6 if t[0].overlaps(net6)), None)
            if clash is not None:
                yield Hit(
                    f"Google attachment {name}/{attachment_name} ipv6 {attachment.ipv6} "
                    f"overlaps {clash[0]} of {clash[1]}; each attachment has its own IPv6 "
                    "subnet: use the one Google allocated to the attachment",
                    (*attachment.path, "ipv6"),
                )
            else:
                taken_v6.append((net6, attachment_name))


@rule(
    "GCP-004",
    "error",
    "Google attachments form the topology of the declared SLA",
    "Google's SLA holds only for its topology: "
    + "; ".join(
        f"{sla} % needs {need['circuits']} connections, both edge availability domains in "
        f"{need['metros']} metro(s), {need['cloud_routers']} Cloud Router(s) in "
        f"{need['regions']} region(s)"
        for sla, need in _GCP_SLA.items()
        if isinstance(need, dict)
    )
    + ". With less, the SLA does not apply.",
    f"docs/standards.md#gcp-004; {GCP_9999}; https://cloud.google.com/network-connectivity/docs/"
    "interconnect/tutorials/dedicated-creating-999-availability",
)
def gcp_sla_topology(ctx: SiteContext) -> Iterator[Hit]:
    facts = _facts("gcp")["sla"]
    for name, gcp in sorted(ctx.site.peering.gcp.items()):
        need = facts[gcp.sla]
        attachments = gcp.attachments.values()
        circuits = {a.circuit for a in attachments}
        domains: dict[str, set[str]] = defaultdict(set)
        for a in attachments:
            domains[a.metro].add(a.edge_availability_domain)
        all_domains = EDGE_AVAILABILITY_DOMAINS
        complete = sorted(m for m, d in domains.items() if d == all_domains)
        routers = {(a.region, a.cloud_router) for a in attachments}
        regions = {a.region for a in attachments}
        missing: list[str] = []
        if len(circuits) < need["circuits"]:
            missing.append(f"{need['circuits']} connections (has {len(circuits)})")
        if len(complete) < need["metros"]:
            partial = [
                f"{m} has only {listed(sorted(d))}"
                for m, d in sorted(domains.items())
                if d != all_domains
            ]
            detail = f"; {listed(partial)}" if partial else ""
            missing.append(
                f"both edge availability domains in {need['metros']} metro(s) (has "
                f"{len(complete)}{detail})"
            )
        if len(routers) < need["cloud_routers"]:
            missing.append(f"{need['cloud_routers']} Cloud Routers (has {len(routers)})")
        if len(regions) < need["regions"]:
            missing.append(f"Cloud Routers in {need['regions']} regions (has {len(regions)})")
        if missing:
            yield Hit(
                f"Google {name} declares a {gcp.sla} % SLA, which needs {'; '.join(missing)}; "
                "add attachments to complete the topology or declare the SLA it meets",
                (*gcp.path, "sla"),
            )


@rule(
    "GCP-006",
    "warning",
    f"Google BFD runs at {_GCP['bfd_min_interval']} ms or slower",
    f"Cloud Router BFD accepts {_GCP['bfd_min_interval']} ms or slower; a faster interval "
    "cannot be set on the Cloud "
    "Router, and the session runs at the slower side's rate anyway.",
    f"docs/standards.md#gcp-006 and docs/standards.md#edge-006; {GCP_VLAN}",
)
def gcp_bfd_interval(ctx: SiteContext) -> Iterator[Hit]:
    minimum = _facts("gcp")["bfd_min_interval"]
    for name, gcp in sorted(ctx.site.peering.gcp.items()):
        if gcp.bfd_interval < minimum:
            yield Hit(
                f"Google {name} bfd_interval {gcp.bfd_interval} ms is below the Cloud "
                f"Router's minimum of {minimum} ms; set it to {minimum} or more",
                (*gcp.path, "bfd_interval"),
            )


# --- Generic on-ramp rules ----------------------------------------------------------------


def _circuit_capacity(ctx: SiteContext, circuits: list[str]) -> dict[str, int]:
    """Speed in Mb/s of each circuit the cross-connects know (references report the rest)."""
    capacity = {}
    for circuit in sorted(set(circuits)):
        xc = ctx.site.cross_connects.get(circuit)
        if xc is not None:
            capacity[circuit] = SPEED_GBPS[xc.speed] * MBPS_PER_GBPS
    return capacity


def _burst_hits(
    where: str, burst: BurstProfile, capacity: dict[str, int], note: str
) -> Iterator[Hit]:
    if burst.committed_mbps > burst.burst_mbps:
        yield Hit(
            f"{where} commits {_mbps(burst.committed_mbps)}, more than its burst rate "
            f"{_mbps(burst.burst_mbps)}; the burst rate includes the committed one: correct "
            "the profile agreed with the provider",
            (*burst.path, "committed_mbps"),
        )
    if not capacity:
        return
    largest = max(capacity, key=lambda c: (capacity[c], c))
    after = sum(capacity.values()) - capacity[largest]
    if burst.burst_mbps > after:
        yield Hit(
            f"{where} bursts to {_mbps(burst.burst_mbps)}, but after losing its largest circuit "
            f"({largest}) the others carry {_mbps(after)}{note}; add a circuit or agree a "
            "lower burst_mbps",
            (*burst.path, "burst_mbps"),
        )


@rule(
    "CLOUD-003",
    "warning",
    "The agreed burst profile fits after losing one circuit, and the provider's limits",
    "A burst the remaining circuits cannot carry after one failure (N-1), or that the provider "
    f"does not deliver (Azure: {_AZ['burst_factor']['value']}x the circuit bandwidth over both "
    f"links; Google: {_GCP['attachment_max_mbps']['value']:,} Mb/s per "
    "VLAN attachment), is dropped exactly when it is needed.",
    "docs/standards.md#cloud-003 and docs/standards.md#az-006; "
    f"{AZ_FAQ}; {GCP_PARTNER}; {AWS_LIMITS}",
)
def burst_within_capacity(ctx: SiteContext) -> Iterator[Hit]:
    peering = ctx.site.peering
    for name, aws in sorted(peering.aws.items()):
        circuits = [v.circuit for v in aws.vifs.values()]
        yield from _burst_hits(f"AWS {name}", aws.burst, _circuit_capacity(ctx, circuits), "")
    factor = _facts("azure")["burst_factor"]["value"]
    for name, azure in sorted(peering.azure.items()):
        circuits = [
            link.circuit
            for p in azure.peerings.values()
            for link in (p.primary, p.secondary)
            if link is not None
        ]
        yield from _burst_hits(f"Azure {name}", azure.burst, _circuit_capacity(ctx, circuits), "")
        ceiling = factor * azure.bandwidth_mbps
        if azure.burst.burst_mbps > ceiling:
            yield Hit(
                f"Azure {name} bursts to {_mbps(azure.burst.burst_mbps)}, but Microsoft "
                f"delivers at most {factor} x {_mbps(azure.bandwidth_mbps)} = {_mbps(ceiling)} "
                "over both links; lower burst_mbps or order a larger circuit",
                (*azure.burst.path, "burst_mbps"),
            )
    per_attachment = _facts("gcp")["attachment_max_mbps"]["value"]
    for name, gcp in sorted(peering.gcp.items()):
        attachments: dict[str, int] = defaultdict(int)
        for attachment in gcp.attachments.values():
            attachments[attachment.circuit] += 1
        capacity = {
            circuit: min(speed, per_attachment * attachments[circuit])
            for circuit, speed in _circuit_capacity(ctx, list(attachments)).items()
        }
        note = f" (at most {_mbps(per_attachment)} per attachment)"
        yield from _burst_hits(f"Google {name}", gcp.burst, capacity, note)


@rule(
    "CLOUD-004",
    "error",
    "The clouds of one VRF send it address space apart",
    "Each cloud attachment's agreed `receive:` ranges are imported into its VRF and promised to "
    "every leaf of it (FLOW-006). Two clouds (two providers, or two accounts of one) agreeing "
    "overlapping ranges into one VRF give its leaves two routes for the same addresses, equal "
    "over the overlay, so they load-share, or pick one, and traffic meant for one cloud "
    "reaches the other: the copy-paste of a default VPC or VNet range.",
    "docs/standards.md#cloud-004; docs/standards.md#flow-006; RFC 4364 section 4 (addresses "
    "unique within a VPN) https://www.rfc-editor.org/rfc/rfc4364",
)
def cloud_ranges_apart(ctx: SiteContext) -> Iterator[Hit]:
    """Each overlapping range once, at the later party (by name) of the two."""
    agreed = _agreed_ranges(ctx)
    keys = sorted(agreed)
    for index, (vrf, party) in enumerate(keys):
        for other in [p for v, p in keys[:index] if v == vrf]:
            for prefix, (names, path) in sorted(agreed[(vrf, party)].items()):
                clash = next(
                    (
                        (theirs, their_names)
                        for theirs, (their_names, _) in sorted(agreed[(vrf, other)].items())
                        if _overlap(prefix, theirs)
                    ),
                    None,
                )
                if clash is None:
                    continue
                yield Hit(
                    f"{_cloud_label(party)} agrees to send {prefix} into VRF {vrf} "
                    f"({listed(sorted(names))}), which overlaps {clash[0]} of "
                    f"{_cloud_label(other)} ({listed(sorted(clash[1]))}): the VRF's leaves "
                    "would reach one cloud for the other's addresses; agree ranges apart, or "
                    "serve the clouds in different VRFs",
                    path,
                )


@rule(
    "CLOUD-005",
    "error",
    "A cloud attachment advertises and receives only in the families it has a session in",
    "An attachment's `advertise:` prefixes reach the provider only over a BGP session of their "
    "family, and its `receive:` ranges, which FLOW-006 promises to every leaf of the VRF, "
    "arrive only over one. An IPv6 entry on an attachment with an IPv4 session alone is "
    "anchored and originated for nobody, and promised to leaves that never get it, while the "
    "design reads dual-stack.",
    "docs/standards.md#cloud-005; docs/standards.md#flow-006",
)
def cloud_families_have_sessions(ctx: SiteContext) -> Iterator[Hit]:
    families: dict[Path_, set[str]] = {}
    lists: dict[Path_, tuple[str, tuple[str, ...], tuple[str, ...]]] = {}
    for session in edge_of(ctx).sessions:
        if session.kind not in CLOUD_KINDS:
            continue
        base = _attachment_path(session.source)
        families.setdefault(base, set()).add(session.afi)
        party = f"{session.kind}:{session.party}"
        lists.setdefault(base, (party, session.export_prefixes, session.import_prefixes))
    for base, afis in sorted(families.items()):
        party, exports, imports = lists[base]
        for key, prefixes in (("advertise", exports), ("receive", imports)):
            for index, prefix in enumerate(prefixes):
                family = "ipv6" if ":" in prefix else "ipv4"
                if family in afis:
                    continue
                yield Hit(
                    f"{_cloud_label(party)}'s {key} entry {prefix} is {FAMILY[family]}, but "
                    f"the attachment has no {FAMILY[family]} BGP session to "
                    f"{'send it over' if key == 'advertise' else 'bring it'}: give the "
                    f"attachment its {FAMILY[family]} addresses (both ends), or drop the entry",
                    (*base, key, index),
                )


def _private_attachments(ctx: SiteContext) -> Iterator[tuple[ExternalSession, Path_, str]]:
    """One session of each private cloud attachment, the attachment's intent path and its
    tenant VRF: the attachment's sessions share one advertise and receive list."""
    seen: set[Path_] = set()
    for session in edge_of(ctx).sessions:
        if session.kind not in CLOUD_KINDS or session.vrf is None:
            continue
        base = _attachment_path(session.source)
        if base not in seen:
            seen.add(base)
            yield session, base, session.vrf


@rule(
    "CLOUD-006",
    "error",
    "A cloud attachment's advertised prefix is shorter than the VRF's subnets it holds",
    "The border leaf anchors each `advertise:` prefix that holds a subnet of the VRF with a "
    "discard route, so that `network` originates it. A prefix equal to a subnet gets a discard "
    "route of the subnet's own length, which beats the subnet's EVPN route on the border leaf: "
    "traffic from the cloud to a host the border leaf holds no host route for is dropped, and "
    "the border leaf's copy of the subnet draws part of the other leaves' traffic into the "
    "same discard.",
    "docs/standards.md#cloud-006; docs/standards.md#flow-001",
)
def cloud_advertise_shorter_than_subnets(ctx: SiteContext) -> Iterator[Hit]:
    subnets = vrf_subnets(ctx.site)
    for session, base, vrf in _private_attachments(ctx):
        for index, prefix in enumerate(session.export_prefixes):
            net = ipaddress.ip_network(prefix)
            if net in subnets.get(vrf, []):
                yield Hit(
                    f"{_cloud_label(f'{session.kind}:{session.party}')} advertises {prefix}, "
                    f"a subnet of VRF {vrf} itself: its discard anchor on the border "
                    "leaf would beat the subnet's own route there; advertise a prefix shorter "
                    "than the subnet (the VRF's aggregate)",
                    (*base, "advertise", index),
                )


@rule(
    "CLOUD-007",
    "error",
    "A cloud attachment advertises no default route",
    "The border leaf originates each `advertise:` prefix of a private attachment in the tenant "
    "VRF, anchored by a discard route (CLOUD-006), and the overlay carries it to every leaf of "
    "the VRF. A default route there is a discard default: on the border leaf it beats the "
    "borders' default (a static route against BGP), at every other leaf it competes with it on "
    "a shorter AS path, so the tenant's Internet traffic is dropped at the border leaf; and the "
    "own-space filters (the import policy, the ingress ACL) then hold everything, so every "
    "route and packet from the cloud is dropped too. meetme can only originate what it "
    "advertises, never pass on the default the VRF learns from the borders.",
    "docs/standards.md#cloud-007; docs/standards.md#flow-003; RFC 4271 section 9.1.2.2 (the "
    "shorter AS path preferred) https://www.rfc-editor.org/rfc/rfc4271",
)
def cloud_advertise_no_default(ctx: SiteContext) -> Iterator[Hit]:
    for session, base, vrf in _private_attachments(ctx):
        for index, prefix in enumerate(session.export_prefixes):
            if ipaddress.ip_network(prefix).prefixlen != 0:
                continue
            yield Hit(
                f"{_cloud_label(f'{session.kind}:{session.party}')} advertises the default "
                f"route {prefix}: the border leaf would anchor it with a discard route in VRF "
                f"{vrf} and send it to every leaf of the VRF, where it draws the "
                "tenant's Internet traffic into the discard, and its own-space filters would "
                "drop everything the cloud sends; advertise the VRF's aggregates only",
                (*base, "advertise", index),
            )


@rule(
    "CLOUD-008",
    "error",
    "A cloud session's prefix limit holds the ranges agreed with the provider",
    "`receive:` lists the ranges the provider agreed to send, each promised to every leaf of "
    "the VRF (FLOW-006); the session's prefix limit (`max_prefix`, `max_prefix_v6`) counts "
    "what it accepts. A limit below the number of agreed ranges of its family is exceeded the "
    "moment the provider sends what was agreed, and the session is torn down: every route of "
    "the cloud and the tenant's way to it go with it, on every link of the attachment at once.",
    "docs/standards.md#cloud-008; docs/standards.md#edge-001; RFC 4486 section 4 (the session "
    "closed at the maximum number of prefixes) https://www.rfc-editor.org/rfc/rfc4486",
)
def cloud_limits_hold_agreed_ranges(ctx: SiteContext) -> Iterator[Hit]:
    seen: set[tuple[Path_, str]] = set()
    for session in edge_of(ctx).sessions:
        if session.kind not in CLOUD_KINDS or session.max_prefix is None:
            continue
        base = _attachment_path(session.source)
        if (base, session.afi) in seen:
            continue  # one attachment's sessions of a family share its list and limit
        seen.add((base, session.afi))
        agreed = {p for p in session.import_prefixes if (":" in p) == (session.afi == "ipv6")}
        if len(agreed) <= session.max_prefix:
            continue
        v6 = session.afi == "ipv6" and (*base, "max_prefix_v6") in ctx.loaded.positions
        field = "max_prefix_v6" if v6 else "max_prefix"
        yield Hit(
            f"{_cloud_label(f'{session.kind}:{session.party}')} agrees to send "
            f"{len(agreed)} {FAMILY[session.afi]} ranges (receive:), but its sessions accept "
            f"at most {session.max_prefix} routes ({field}): the provider sending what was "
            f"agreed tears them down; set {field} to {len(agreed)} or more, with headroom, or "
            "agree fewer, shorter ranges",
            (*base, field),
        )


@rule(
    "CLOUD-009",
    "error",
    "A private cloud attachment's circuit lands on a VTEP",
    "A private attachment's session lives in its tenant VRF, whose routes reach the VRF's "
    "leaves as EVPN type-5 routes from the VTEP that holds the session. A spine or super-spine "
    "has no VXLAN tunnel endpoint: it renders the VRF and the session, and exports the "
    "cloud's routes with a next hop no VTEP can tunnel to; a border router's VRF is a plain "
    "VRF-lite one, which the handoff imports nothing but the default route from. Either way "
    "the cloud is reachable from nowhere in the tenant, and nothing fails loudly.",
    "docs/standards.md#cloud-009; docs/architecture.md#north-south; RFC 9136 section 3 (the "
    "IP prefix route, its next hop the NVE that originates it) "
    "https://www.rfc-editor.org/rfc/rfc9136",
)
def cloud_circuits_on_vteps(ctx: SiteContext) -> Iterator[Hit]:
    seen: set[str] = set()
    for session in edge_of(ctx).sessions:
        # public ones (AWS public VIF, Azure Microsoft peering) stay in the default VRF
        if session.kind not in CLOUD_KINDS or session.vrf is None or session.circuit in seen:
            continue
        seen.add(session.circuit)
        device = ctx.site.devices.get(session.device)
        if device is None or device.role in VTEP_ROLES:
            continue
        yield Hit(
            f"{_cloud_label(f'{session.kind}:{session.party}')} is on circuit "
            f"{session.circuit}, which lands on {session.device}, a {device.role}: only a VTEP "
            "carries a cloud's routes into its tenant VRF over EVPN; land the circuit on a "
            "border leaf",
            (*ctx.site.cross_connects[session.circuit].path, "device"),
        )


@rule(
    "CLOUD-010",
    "error",
    "A cloud's agreed ranges overlap no subnet of the VRF it serves",
    "A private attachment's `receive:` ranges (the VPC or VNet ranges agreed with the "
    "provider) are imported into its tenant VRF beside the VRF's own gateway subnets. Where "
    "they overlap, the VRF routes each address by the longer prefix (the connected subnet at "
    "equal length): a range holding a subnet leaves that part of the cloud unreachable from "
    "the tenant while the import allow-list still admits it; a range inside a subnet sends the "
    "leaves' traffic for those hosts of the network to the cloud. Two clouds of one VRF are "
    "CLOUD-004's.",
    "docs/standards.md#cloud-010; docs/standards.md#flow-006; RFC 4364 section 4 (addresses "
    "unique within a VPN) https://www.rfc-editor.org/rfc/rfc4364",
)
def cloud_ranges_clear_of_subnets(ctx: SiteContext) -> Iterator[Hit]:
    subnets = [
        (network.vrf, f"{tenant_name}/{name}", ipaddress.ip_interface(gateway).network)
        for tenant_name, tenant in ctx.site.tenants.items()
        for name, network in tenant.networks.items()
        for gateway in (network.gateway_v4, network.gateway_v6)
        if gateway
    ]
    for session, base, vrf in _private_attachments(ctx):
        for index, prefix in enumerate(session.import_prefixes):
            agreed = ipaddress.ip_network(prefix)
            for _, network, subnet in (s for s in subnets if s[0] == vrf):
                if subnet.version != agreed.version or not subnet.overlaps(agreed):
                    continue
                if agreed.prefixlen <= subnet.prefixlen:
                    lost = (
                        f"the network's connected subnet wins there, so {subnet} of the cloud "
                        "is unreachable from the tenant while the import allow-list still "
                        "admits it"
                    )
                else:
                    lost = (
                        f"the cloud's longer route wins there, so the VRF's leaves send "
                        f"traffic for {agreed} of the network to the cloud"
                    )
                yield Hit(
                    f"{_cloud_label(f'{session.kind}:{session.party}')} agrees to send "
                    f"{prefix} into VRF {vrf}, which overlaps subnet {subnet} of network "
                    f"{network}: {lost}; agree ranges apart from the VRF's subnets, or "
                    "renumber the network",
                    (*base, "receive", index),
                )


Agreed = dict[tuple[str, str], dict[str, tuple[list[str], Path_]]]


def _agreed_ranges(ctx: SiteContext) -> Agreed:
    """(VRF, provider party) -> agreed range -> (the attachments agreeing it, where the first
    writes it): a provider's attachments of one party are one network (redundant links)."""
    agreed: Agreed = {}
    for session in edge_of(ctx).sessions:
        if session.kind not in CLOUD_KINDS or session.vrf is None:
            continue
        party = f"{session.kind}:{session.party.split('/')[0]}"
        found = agreed.setdefault((session.vrf, party), {})
        for prefix in session.import_prefixes:
            found.setdefault(prefix, ([], _receive_path(session.source)))[0].append(session.party)
    return agreed


def _overlap(one: str, other: str) -> bool:
    net, their = ipaddress.ip_network(one), ipaddress.ip_network(other)
    return net.version == their.version and net.overlaps(their)


_PROVIDER = {"aws": "AWS", "azure": "Azure", "gcp": "Google Cloud"}


def _cloud_label(party: str) -> str:
    kind, name = party.split(":", 1)
    return f"{_PROVIDER[kind]} {name}"


def _attachment_path(source: Path_) -> Path_:
    """Where a cloud session's attachment is written: its declaration (an ExpressRoute
    peering's, above its primary and secondary links), which holds `advertise:` and
    `receive:`."""
    return source[:-1] if source[-1] in ("primary", "secondary") else source


def _receive_path(source: Path_) -> Path_:
    return (*_attachment_path(source), "receive")

"""PLAT-*: what the device's platform cannot print. One rule id per limit.

Each platform plug-in (generators/platforms/) lists its limits as gap checks over the device
model; `platform_findings` runs them on every built model before anything renders (the
pipeline calls it), so a limit is a finding at the intent line that asks for it and never a
template failure. The device model does not carry intent paths: a finding points at the
device's `platform:` line unless the gap names a line of its own. RPKI is also checked on the
intent (PLAT-001's engine check), because the builder leaves the caches out of a model whose
platform cannot validate origins.

Gap findings take no waiver and no severity override (their rules are registered
`waivable=False`; the engine reports a waiver or override of one as WAIVER-004): the renderer
refuses a model with a gap whatever the finding is called, so lowering it would only turn exit 1
into exit 3.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from meetme.generators.model import DeviceModel
from meetme.generators.platforms import PLATFORMS, Gap, Platform
from meetme.generators.platforms import gaps as limits
from meetme.validators.engine import RULES, Hit, SiteContext, rule
from meetme.validators.rules.edge import internet_circuits_off_borders
from meetme.validators.rules.overlay import evpn_refused
from meetme.validators.rules.ports import written_names

from meetme.core.findings import Finding
from meetme.core.problems import listed
from meetme.intent.interfaces import GRAMMARS, foreign_name, platforms_naming
from meetme.intent.loader import LoadedIntent

GATE = "docs/standards.md#platform-gate"


def _no_intent_check(_ctx: SiteContext) -> Iterator[Hit]:
    """Reported from the device model by `platform_findings`, not from the intent."""
    return iter(())


def _limit(rule_id: str, title: str, rationale: str, source: str) -> None:
    rule(rule_id, "error", title, rationale, f"{GATE}; {source}", waivable=False)(_no_intent_check)


@rule(
    limits.RPKI,
    "error",
    "RPKI origin validation only on platforms that can configure it",
    "An edge router asked to drop RPKI-invalid routes on a platform without a verified RTR "
    "cache and origin-validation form would either print an invented command or leave the "
    "routes unvalidated while the intent says they are; meetme refuses it instead of "
    "rendering a router that accepts hijacked prefixes silently.",
    f"{GATE}; docs/syntax.md#capabilities (NX-OS: no verified RTR or `match rpki` form; NVUE "
    "5.16: no RPKI key in the object model, nvueschema v5_16)",
    waivable=False,
)
def rpki_on_capable_platforms(ctx: SiteContext) -> Iterator[Hit]:
    edge = ctx.site.peering.edge
    if edge is None or not edge.rpki_caches:
        return
    for name, device in sorted(ctx.site.devices.items()):
        platform = PLATFORMS.get(device.platform)
        internet = [s for s in ctx.fabric.edge.of_device(name)[1] if s.internet]
        if platform is None or platform.capabilities.rpki or not internet:
            continue  # only Internet sessions drop RPKI-invalid routes (edge_policy.py)
        if device.role != "border":
            continue  # an Internet circuit off the borders: EDGE-014 says where it belongs
        parties = ", ".join(sorted({s.party for s in internet}))
        yield Hit(
            _message(
                name,
                platform,
                f"RPKI origin validation toward {parties}",
                "no verified RTR cache or origin-validation form",
            ),
            (*ctx.base, "peering", "edge", "rpki_caches"),
        )


_limit(
    limits.STATIC_NEXT_HOP,
    "Static routes are discard routes",
    "The model gives a static route no next hop; a template would have to guess one. Only "
    "discard routes (Null0 / blackhole) anchoring originated aggregates are rendered."
    " No intent reaches it today (the builders make discard routes only): it guards the "
    "device model against a plug-in or a later builder that does, before a template prints it.",
    "docs/syntax.md#iosxr-base, docs/syntax.md#nxos-base, docs/syntax.md#nvue-bgp",
)
_limit(
    limits.VRF_SESSION,
    "BGP sessions sit in a VRF block the platform's templates print",
    "A session is printed inside its VRF's block; NVUE prints only EVPN VRFs (no VRF-lite "
    "block yet), IOS-XR only plain VRFs, EOS and NX-OS both, so a session elsewhere would be "
    "lost silently.",
    "docs/syntax.md#eos-bgp, docs/syntax.md#eos-vrf-leaking, docs/syntax.md#iosxr-bgp, "
    "docs/syntax.md#nxos-vrf-leaking",
)
_limit(
    limits.PREFIX_DENY,
    "IOS-XR prefix sets hold permit entries only",
    "An RPL prefix-set lists what matches and has no deny; translating a deny entry needs a "
    "second set and a drop branch, which meetme does not build. Printing it as a permit would "
    "accept what the intent denies. No intent reaches it today (the builders make permit "
    "entries only): it guards the device model against a builder that does.",
    "docs/syntax.md#iosxr-route-policy (Cisco IOS XR Routing Configuration Guide, "
    '"Implementing Routing Policy")',
)
_limit(
    limits.AS_PATH_DENY,
    "IOS-XR AS-path sets hold permit entries only",
    "An RPL as-path-set lists what matches and has no deny entry; printing one as a match "
    "would accept paths the intent denies. No intent reaches it today (the builders make "
    "permit entries only): it guards the device model against a builder that does.",
    "docs/syntax.md#iosxr-route-policy (Cisco IOS XR Routing Configuration Guide, "
    '"Implementing Routing Policy")',
)
_limit(
    limits.UNREACHABLE_CLAUSE,
    "No route-map clause follows a match-everything clause on IOS-XR",
    "A route map becomes one RPL if/elseif chain; a clause without a match ends it, so a "
    "clause after it could never match and would be dropped from the policy silently.",
    "docs/syntax.md#iosxr-route-policy (Cisco IOS XR Routing Configuration Guide, RPL "
    "`if/elseif/else`)",
)
_limit(
    limits.NEXT_HOP_UNCHANGED,
    "An EVPN spine keeps VTEP next hops only where the platform has a verified form",
    "A spine between eBGP VTEPs must pass the originating VTEP's next hop through; without the "
    "form it rewrites next hops to itself and VXLAN tunnels end on the spine. EOS says so per "
    "session (`next-hop-unchanged`), NX-OS by an outbound route map that sets `ip next-hop "
    "unchanged`, which the model names (a model naming none is refused too); the NVUE form is "
    "unverified.",
    "docs/syntax.md#nxos-evpn, docs/syntax.md#nvue-evpn",
)
_limit(
    limits.L3VNI_VLAN,
    "An NX-OS VTEP's EVPN VRF has an L3VNI carrier VLAN",
    "NX-OS maps the L3VNI through a VLAN and its SVI; a VRF without one would leave the L3VNI "
    "unmapped and symmetric IRB broken.",
    "docs/syntax.md#nxos-evpn, docs/syntax.md#nxos-vrfs",
)
_limit(
    limits.BOND_MODE,
    "Host bonds use a multihoming mode the platform's templates print",
    "IOS-XR templates print no host port, host bond or MLAG pair. A bond the templates skip "
    "would leave the host single-homed or unconnected without a word. On a leaf EVPN-009 "
    "refuses (its platform renders no VTEP, so no host bond either) it is not said again.",
    "docs/syntax.md#capabilities, docs/syntax.md#eos-lags, docs/syntax.md#iosxr-lags, "
    "docs/syntax.md#nxos-lags",
)
_limit(
    limits.SEGMENT_OFF_VTEP,
    "Ethernet segments only on VTEPs",
    "An EVPN Ethernet segment is signalled by the BGP EVPN control plane of a VTEP; on another "
    "device it has nothing to advertise it and the host's bond would not form across leaves.",
    'docs/syntax.md#nxos-lags, docs/syntax.md#nvue-lags (CLDOCS "EVPN Multihoming")',
)
_limit(
    limits.TRUNK_WITHOUT_VLANS,
    "An NX-OS host trunk carries VLANs",
    "`switchport trunk allowed vlan` without a list is an incomplete command on NX-OS. No "
    "intent reaches it today (an attachment trunks at least one network, each with a VLAN): "
    "it guards the device model against a builder that leaves the list empty.",
    "docs/syntax.md#nxos-lags",
)
_limit(
    limits.SEGMENT_ON_MLAG,
    "No Ethernet segment on an NVUE MLAG leaf",
    'Cumulus Linux runs EVPN multihoming or MLAG on a switch, never both ("To use EVPN-MH, '
    'you must remove any MLAG configuration on the switch").',
    'docs/syntax.md#nvue-lags (CLDOCS 5.16 "EVPN Multihoming")',
)
_limit(
    limits.SEGMENT_WITHOUT_SUPPRESSION,
    "NVUE Ethernet segments need ARP/ND suppression",
    "ARP/ND suppression is a required feature of EVPN multihoming on Cumulus Linux. No intent "
    "reaches it today (meetme always suppresses): it guards the device model against a "
    "builder that turns suppression off.",
    'docs/syntax.md#nvue-lags (CLDOCS 5.16 "EVPN Multihoming", Required Features)',
)
_limit(
    limits.MLAG_WITHOUT_PEER_LINK,
    "An NVUE MLAG pair has peer-link ports",
    "clagd needs the peer link; an MLAG pair without member ports never forms.",
    'docs/syntax.md#nvue-lags (CLDOCS 5.16 "Multi-Chassis Link Aggregation - MLAG")',
)
_limit(
    limits.MULTIHOP_BFD_RANGE,
    "NX-OS multihop BFD timers are within 250-999 ms",
    "The EVPN sessions run multihop BFD with the site's underlay BFD interval; NX-OS accepts "
    "multihop intervals of 250 to 999 ms only, so any other value would leave the overlay "
    "without failure detection.",
    "docs/syntax.md#nxos-evpn (Cisco Nexus 9000 NX-OS Interfaces Configuration Guide, "
    '"BFD Multihop")',
)

_limit(
    limits.ECMP_RANGE,
    "ECMP paths within what the platform's multipath command takes",
    "Every VRF installs up to the site's `underlay.ecmp` paths; a value above what the "
    "platform's BGP multipath command takes makes the device refuse the whole config at "
    "commit while the lint passes. Checked where the vendor states a range.",
    "docs/standards.md#plat-029 (NVUE 5.16 object model: `multipaths ebgp` 1-256)",
)
_limit(
    limits.BFD_RANGE,
    "NX-OS single-hop BFD timers are within 50-999 ms",
    "NX-OS takes single-hop BFD intervals of 50 to 999 ms, globally (the underlay's timers, "
    "on every NX-OS device) and on an interface (a session's own, such as a cloud's): a "
    "longer one is refused at commit. Google Cloud Router takes 1000 ms and up, so its "
    "sessions cannot run BFD on NX-OS at all.",
    "docs/standards.md#plat-030 (Cisco cisco.nxos Ansible collection, nxos_bfd_global: "
    "bfd_interval and bfd_min_rx 50-999; secondary)",
)


INTERFACE_NAME = "PLAT-016"


@rule(
    INTERFACE_NAME,
    "error",
    "Interface names are written as the device's platform names its ports",
    "A device moved to another platform (or a port copied from a device of another vendor) "
    "keeps names the new OS does not have, e.g. `swp1` on an EOS switch: the rendered "
    "config would configure an interface that does not exist and leave the real port bare. "
    "A name no platform has is unusable input (exit 2); a name of another platform is this "
    "finding, one per value, so one run lists every port to rename.",
    f"{GATE}; meetme/intent/interfaces.py (each platform's interface grammar and its sources)",
)
def interface_names_of_the_platform(ctx: SiteContext) -> Iterator[Hit]:
    site = ctx.site
    # an Internet circuit on a device that is not a border is EDGE-014's: it names the border
    # the circuit belongs on, whose port names the one written may well be
    misplaced = {
        (*site.cross_connects[c].path, "interface") for c in internet_circuits_off_borders(ctx)
    }
    # a leaf on a platform with no EVPN-VXLAN: EVPN-009 names its platform line, whose fix
    # decides the names its ports need
    refused = evpn_refused(ctx)
    for devices, name, path in written_names(site):
        platform = PLATFORMS.get(site.devices[devices[0]].platform)
        if platform is None or not foreign_name(platform.name, name) or path in misplaced:
            continue
        if devices[0] in refused:
            continue
        other = " or ".join(PLATFORMS[p].title for p in platforms_naming(name) if p in PLATFORMS)
        has = "has" if len(devices) == 1 else "have"
        yield Hit(
            f"{listed(devices)} ({platform.title}) {has} no interface {name}, a name of "
            f"{other}; {platform.name} writes {GRAMMARS[platform.name].shapes}",
            path,
        )


def platform_findings(loaded: LoadedIntent, models: Iterable[DeviceModel]) -> list[Finding]:
    """A finding for every gap of every device model (a device on an unknown platform is
    the schema's business and is skipped here)."""
    found: list[Finding] = []
    for model in models:
        platform = PLATFORMS.get(model.platform)
        if platform is None:
            continue
        for gap in platform.gaps(model):
            found.append(_finding(loaded, model, platform, gap))
    return found


def has_gaps(model: DeviceModel) -> bool:
    platform = PLATFORMS.get(model.platform)
    return platform is not None and bool(platform.gaps(model))


def _finding(loaded: LoadedIntent, model: DeviceModel, platform: Platform, gap: Gap) -> Finding:
    path = gap.path or ("sites", model.site, "devices", model.hostname, "platform")
    current = RULES[gap.rule]
    return Finding(
        rule=current.id,
        severity=current.severity,
        message=_message(model.hostname, platform, gap.feature, gap.detail),
        location=loaded.where(path),
        path=".".join(str(p) for p in path),
    )


def _message(device: str, platform: Platform, feature: str, detail: str) -> str:
    return f"{device} ({platform.title}) cannot render {feature}: {detail}"


_limit(
    limits.VPC_DOMAIN_RANGE,
    "An NX-OS vPC domain is 1-1000",
    "NX-OS takes vPC domain ids 1 to 1000; an MLAG attachment without `domain_id` takes the "
    "lower device id of its pair, which may be larger. A domain the switch refuses leaves the "
    "pair without vPC.",
    "docs/syntax.md#nxos-vpc (Cisco Nexus NX-OS Interfaces Configuration Guide, vPC domain: "
    '"a vPC domain ID ... using a number from 1 to 1000")',
)
_limit(
    limits.SRV6_L3VPN,
    "Tenant VRFs ride SRv6 only on a platform that carries BGP L3VPN over SRv6",
    "A VRF named under `srv6.vrfs` needs, on every border of each of its sites, BGP VPNv4/VPNv6 "
    "sessions and one SRv6 SID per VRF (RFC 9252, RFC 8986 End.DT4/DT6). A platform without "
    "a verified form for them would leave the VRF unreachable from the other site: the lint "
    "names the device, its platform and the feature instead of rendering half a VPN.",
    "docs/srv6.md#platforms (Cisco 8000 SRv6 Configuration Guide; Arista TOIs 'SRv6 uN "
    "Support'; Cumulus Linux 5.14 'Segment Routing')",
)
_limit(
    limits.SRV6_LOCATOR,
    "An SRv6 locator only where the platform, its ASIC and the uSID format have a form",
    "A device that takes a locator (`srv6.sites.<site>.devices`, default the borders) must "
    "forward uSIDs in hardware and take the domain's format: Cumulus Linux forwards SRv6 on "
    "Spectrum-4 only; IOS-XR's uSID locator is F3216; EOS and NX-OS have no form meetme "
    "renders. A locator the switch cannot program black-holes every SID under it.",
    "docs/srv6.md#platforms (Cisco 8000 SRv6 Configuration Guide, uSID Locator (F3216); "
    "Cumulus Linux 5.14 'Segment Routing': Spectrum-4 only)",
)
_limit(
    limits.VRF_NAME,
    "Every VRF a device carries has a name its platform takes",
    "Intent names run to 63 characters, but a platform may take fewer: a Cumulus Linux VRF is "
    "a Linux interface, so NVUE takes at most 15 characters starting with a letter; NX-OS's "
    "`vrf context` takes at most 32. A name the platform refuses fails the whole file at "
    "commit (NVUE) or the VRF's commands and everything inside them (NX-OS), so the VRF is "
    "refused at lint on every device of that platform that would carry it.",
    "nvueschema v5_16 VrfName (^[a-zA-Z][a-zA-Z0-9_-]{0,14}$); Cisco's cisco.nxos collection, "
    "nxos_vrf ('VRF name exceeded max length of 32')",
)
_limit(
    limits.VLAN_NAME,
    "Every VLAN name fits the platform's `name` command",
    "A fabric VLAN is named after its tenant and network (`tenant_network`), up to 127 "
    "characters; NX-OS's `name` takes 32 unless `system vlan long-name` is configured, which "
    "meetme does not print. A longer name fails the command and the VLAN stays unnamed on "
    "that switch, or the whole change with it; refused at lint on every NX-OS device that "
    "carries the VLAN.",
    "docs/standards.md#plat-024 (CiscoDevNet/ansible-dcnm plugins/modules/dcnm_network.py: "
    "'if > 32 chars enable, system vlan long-name on switch')",
)
_limit(
    limits.LIST_NAME,
    "Every prefix list and AS-path list has a name its platform takes",
    "Edge and handoff prefix lists are named after the party, the circuit or the VRF they "
    "serve (PL-<PARTY>-IN-V4, PL-HANDOFF-<VRF>-NORTH-V4), which may make names well over 100 "
    "characters; NX-OS's `ip prefix-list` and `ip as-path access-list` take 63. A longer name "
    "fails the command, and every route map matching the list then matches nothing it "
    "should: refused at lint on every NX-OS device holding the list.",
    "docs/standards.md#plat-025 (Cisco Nexus 5000 NX-OS Unicast Routing Command Reference, "
    "'ip prefix-list': 'any alphanumeric string up to 63 characters')",
)
_limit(
    limits.HOSTNAME,
    "Every device name is a hostname its platform takes",
    "A device's name is its hostname. Intent names take '.', '_' and a trailing '-', which a "
    "DNS host label does not (RFC 1123 2.1), and NVUE's `system hostname` takes one label "
    "only: a refused hostname fails the whole startup file at `nv config apply`.",
    "nvueschema v5_16 Hostname (^[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?...$) and system "
    "hostname (^[^.]*$)",
)
_limit(
    limits.AS_PATH_LENGTH_FORM,
    "Long AS paths are dropped in the form the platform prints",
    "EDGE-013 drops routes with long AS paths on every external session: with a clause of "
    "the import route map where the platform matches the path length (IOS-XR, EOS; NVUE by "
    "an AS-path regex), with BGP's own per-VRF limit on NX-OS, which has no such match. A "
    "device model holding the other form would render without it and accept every long "
    "path; no intent reaches it (the builders choose the form): it guards the model.",
    "docs/standards.md#edge-013 (Cisco's cisco.nxos nxos_bgp_global: maxas_limit; NLNOG "
    "BGP filter guide, long paths)",
)
_limit(
    limits.PREFIX_LIMIT_RANGE,
    "Prefix and EVPN route limits fit the range the platform takes",
    "The intent takes prefix limits up to 10,000,000; NX-OS's `maximum-prefix` takes 1 to "
    "300,000. A larger value fails the command, and the session runs with no limit at all, "
    "or not at all. A full Internet table (about a million IPv4 routes) therefore cannot be "
    "held under a limit on NX-OS: a border taking one belongs on another platform.",
    "docs/standards.md#plat-022 (Cisco Nexus 3548 NX-OS Unicast Routing Command Reference, "
    "'maximum-prefix (BGP)': 'The range is from 1 to 300000')",
)
_limit(
    limits.USER_NAME,
    "Every local user has a name its platform takes",
    "Intent user names are 1 to 28 lower-case letters, digits, '_' and '-'. NX-OS keeps "
    "`root`, `operator`, `bin`, `sys` and other system accounts' names for itself and takes "
    "only names that start with a letter or a digit: a refused `username` line fails at "
    "commit, and the account (possibly the push's own login) does not exist on the device.",
    "docs/standards.md#plat-023 (Cisco Nexus 9000 NX-OS Security Configuration Guide 10.4(x), "
    "'Configuring User Accounts and RBAC')",
)
_limit(
    limits.BOND_NUMBER_RANGE,
    "Bond numbers and MLAG ids fit the ranges the platform takes",
    "Host i of an attachment gets bond lag_base + i and MLAG id segment_base + i; the intent "
    "takes lag_base up to 4000 and segment_base up to 16000, more than NX-OS does: it numbers "
    "port-channels and vPCs 1-4096. A number outside fails the command, and the host loses "
    "its bond or its dual-homing.",
    "docs/standards.md#plat-021 (Cisco Nexus 9000 NX-OS Interfaces Configuration Guide "
    "10.6(x), 'Configuring Port Channels': port-channel 1-4096; cisco.nxos.nxos_vpc_interface: "
    "vpc 1-4096)",
)

_limit(
    limits.SHARED_VTEP_ROUTES,
    "A cloud session on an MLAG leaf needs its routes past the pair's shared VTEP",
    "An MLAG pair sources VXLAN from one shared VTEP address, and every EVPN type-5 route "
    "either leaf originates carries it as next hop. A route one leaf alone learns (its cloud "
    "session in a tenant VRF) is then tunnelled by remote VTEPs to whichever leaf the "
    "underlay hashes to, and the leaf without it drops the traffic: about half of it whenever "
    "the other leaf's own session is down or carries other routes. NX-OS vPC and NVUE MLAG "
    "leaves advertise from their own address (advertise-pip). An EOS pair gets a BGP "
    "session between its leaves in each VRF with such a session, over a VLAN of the VRF's "
    "own on the peer link (Arista AVD mlag_ibgp_peering_vrfs): the VRF's `vlan:`, its L3VNI "
    "and, for IPv6 sessions, the peer VLAN's /127. Refused is a session whose VRF lacks one "
    "of those, as the leaf has no other way to share its routes (a per-leaf VTEP, multi-VTEP "
    "MLAG, is not modelled).",
    "docs/standards.md#plat-028 (Cisco Nexus 9000 NX-OS VXLAN Configuration Guide 10.6(x), "
    "'Configuring vPC Multi-Homing', Advertising Primary IP Address; Arista AVD eos_designs "
    "mlag_ibgp_peering_vrfs; Arista EOS TOI 'EVPN - MLAG single homed hosts')",
)

# Gap rules whose problem a design rule reports on every platform, from the intent, before
# any model is built: where that rule fired, the gap would say the same thing again.
REPORTED_BY_DESIGN = {
    limits.SEGMENT_ON_MLAG: "MH-008",  # ESI and MLAG on one leaf
    limits.MLAG_WITHOUT_PEER_LINK: "MH-002",  # an MLAG attachment without its peer link
    # an NX-OS VRF without a carrier VLAN, once per VRF naming every switch that carries it
    limits.L3VNI_VLAN: "EVPN-021",
}


# Gap rules whose problem a design rule reports of the same device, at the same line (its
# `platform:`): where that rule fired there, the gap follows from it.
REPORTED_AT_THE_DEVICE = {
    # a leaf on a platform with no EVPN-VXLAN (EVPN-009) renders no host bond either (IOS-XR)
    limits.BOND_MODE: "EVPN-009",
}


def not_reported_twice(model_found: list[Finding], design_found: list[Finding]) -> list[Finding]:
    """The model findings of an intent the design rules refused, less those a design
    finding of the run already says (one message per problem)."""
    fired = {f.rule for f in design_found}
    at = {(f.rule, f.path) for f in design_found}
    return [
        f
        for f in model_found
        if REPORTED_BY_DESIGN.get(f.rule) not in fired
        and (REPORTED_AT_THE_DEVICE.get(f.rule), f.path) not in at
    ]

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

Each rendered file the lint reads is read back once (`readback.py`: an indentation tree of
blocks for EOS, IOS-XR and NX-OS in `cisco.py`, the YAML node tree for NVUE in `nvue.py`), and
every check compares that read-back with the device model: `sessions.py` (CFG-001..005) on
devices with an external or handoff neighbour, where every BGP neighbour of the model is
checked, underlay included (border devices exercise each platform's underlay template too);
`overlay.py` (CFG-006..009) on every VTEP with a VLAN or VRF to map and every device with an
EVPN peer (spines included); `hardening.py` (CFG-010..011) on every device, from the same
blocks or tree.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from meetme.validators.config_lint import cisco, hardening, nvue, overlay, sessions
from meetme.validators.config_lint.hardening import EXTERNAL_URPF, MANAGEMENT_VRF
from meetme.validators.config_lint.overlay import (
    EVPN_PEER_LIMIT,
    VLAN_MAPPED,
    VRF_EXPORTED,
    VRF_MAPPED,
)
from meetme.validators.config_lint.readback import ReadBack
from meetme.validators.config_lint.sessions import (
    CONFIGURED,
    DEFINED,
    EXPORT_POLICY,
    IMPORT_POLICY,
    PREFIX_LIMIT,
)
from meetme.validators.engine import RULES, reported_elsewhere, rule

from meetme.core.findings import Finding, Severity
from meetme.core.problems import Location

if TYPE_CHECKING:
    from meetme.generators.model import DeviceModel

SOURCE = (
    "docs/standards.md#edge-rfc8212 (RFC 8212 https://www.rfc-editor.org/rfc/rfc8212) and BGP-007 "
    "(RFC 7454 section 8 https://www.rfc-editor.org/rfc/rfc7454); meetme issue 3, config lint"
)


@dataclass(frozen=True)
class RenderedConfig:
    """One device's rendered text, under the name findings show for it."""

    model: DeviceModel
    file: str  # e.g. rendered/aus1/aus1-br1.cfg, as the CLI prints it
    text: str


# --- the rules -------------------------------------------------------------------------------


rule(
    PREFIX_LIMIT,
    "error",
    "Every BGP neighbour in a rendered config has its prefix limit",
    "A session without a maximum-prefix accepts a full-table leak from a peer and takes the "
    "border's RIB and FIB with it. The intent rules prove the model asks for the limit; this "
    "proves the rendered config says it, on the neighbour or through its peer group, "
    "neighbor-group, af-group or template, with the model's value.",
    SOURCE,
)(reported_elsewhere)
rule(
    IMPORT_POLICY,
    "error",
    "Every BGP neighbour in a rendered config has its import policy",
    "Without an inbound route-map (route-policy on IOS-XR) a session accepts everything the "
    "peer sends on platforms that are not RFC 8212 compliant by default (EOS, NX-OS), and "
    "accepts nothing on those that are. Checked on the rendered text, inheritance included, "
    "against the policy name in the device model.",
    SOURCE,
)(reported_elsewhere)
rule(
    EXPORT_POLICY,
    "error",
    "Every BGP neighbour in a rendered config has its export policy",
    "Without an outbound policy a non-RFC 8212 platform advertises its whole table: the leak "
    "RFC 8212 was written for. Checked on the rendered text, inheritance included, against "
    "the policy name in the device model.",
    SOURCE,
)(reported_elsewhere)
rule(
    DEFINED,
    "error",
    "Every route-map, route-policy, prefix-list and AS-path or community list a rendered "
    "config uses is defined in it",
    "A policy that names an undefined list or route-map is rejected by some platforms and "
    "silently matches nothing (or everything) on others: the filter the intent asked for is "
    "not there.",
    SOURCE,
)(reported_elsewhere)
rule(
    CONFIGURED,
    "error",
    "Every BGP neighbour of the device model is in its rendered config",
    "A neighbour the model has and the config lacks is a session the engineer was promised "
    "and will not get; one the lint cannot find cannot be proven to carry its limit and "
    "policies either.",
    SOURCE,
)(reported_elsewhere)


EVPN_SOURCE = (
    "docs/standards.md#evpn-vni-mapping (RFC 8365 https://www.rfc-editor.org/rfc/rfc8365), "
    "EVPN-004 and EVPN-005 (RFC 9135 https://www.rfc-editor.org/rfc/rfc9135); "
    "docs/syntax.md#eos-evpn, docs/syntax.md#nxos-evpn, docs/syntax.md#nvue-evpn; "
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
)(reported_elsewhere)
rule(
    VRF_MAPPED,
    "error",
    "Every VRF with an L3VNI is mapped to it in the rendered config",
    "Symmetric IRB routes between leaves over the VRF's L3VNI (EOS `vxlan vrf X vni V`, "
    "NX-OS `vrf context X` / `vni V` with its carrier VLAN and `member vni V associate-vrf`, "
    "NVUE `vrf X evpn vni V`); a VRF without it black-holes every inter-leaf route of the "
    "tenant. Checked on the rendered text against the device model's L3VNI.",
    EVPN_SOURCE,
)(reported_elsewhere)
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
)(reported_elsewhere)
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
    "https://www.rfc-editor.org/rfc/rfc7454); docs/syntax.md#eos-evpn, docs/syntax.md#nxos-evpn, "
    "docs/syntax.md#nvue-evpn; config lint",
)(reported_elsewhere)


HARDENING_SOURCE = (
    "docs/standards.md#mgmt-plane and docs/standards.md#edge-urpf (BCP 38 "
    "https://www.rfc-editor.org/rfc/rfc2827, BCP 84 https://www.rfc-editor.org/rfc/rfc3704); "
    "docs/syntax.md#eos-management, "
    "docs/syntax.md#nvue-management, docs/syntax.md#eos-urpf; meetme issue 11, config lint"
)
rule(
    MANAGEMENT_VRF,
    "error",
    "Every management service in a rendered config answers in the management VRF only",
    "SSH and the management APIs (EOS eAPI, IOS-XR NETCONF, NX-API, the NVUE REST API) that "
    "listen on every address answer on the border's transit, IX and cloud sub-interfaces: "
    "anyone on the Internet can reach the login prompt. Checked on the rendered text: EOS "
    "`management ssh` / `management api http-commands` with `vrf default` shut and the "
    "management VRF up, IOS-XR `ssh server vrf` and `ssh server netconf vrf`, NX-OS `nxapi "
    "use-vrf`, NVUE `system ssh-server vrf` and `system api listening-address`.",
    HARDENING_SOURCE,
)(reported_elsewhere)
rule(
    EXTERNAL_URPF,
    "error",
    "Every external port in a rendered config checks unicast RPF",
    "A port facing a transit, IX, PNI or cloud that forwards packets whatever their source "
    "lets spoofed traffic in (BCP 38/84): reflection attacks sourced from our own aggregates "
    "or from unrouted space. Loose uRPF drops every packet whose source has no route; checked "
    "on the rendered interface for each address family it carries (EOS and NX-OS `ip[v6] "
    "verify unicast source reachable-via any`, IOS-XR `ipv4|ipv6 verify ...`).",
    HARDENING_SOURCE,
)(reported_elsewhere)


# --- running them ----------------------------------------------------------------------------


def needs_lint(model: DeviceModel) -> bool:
    """Whether the config lint reads this device's rendered text (see the module docstring)."""
    return _checks_bgp(model) or _checks_evpn(model) or _checks_hardening(model)


def _checks_hardening(model: DeviceModel) -> bool:
    """Every device runs management services; external ports are checked where they are."""
    return True


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
        model = config.model
        readback = read(model.platform, config.text)
        hits: list[tuple[str, str, int, int]] = []
        if _checks_bgp(model):
            hits += sessions.check(model, readback)
        # YAML that does not parse is reported once: by CFG-005 when it ran
        if _checks_evpn(model) and not (_checks_bgp(model) and readback.unreadable is not None):
            hits += overlay.check(model, readback)
        if _checks_hardening(model):
            hits += hardening.check(model, config.text, readback)
        for rule_id, message, line, column in hits:
            findings.append(
                Finding(
                    rule=rule_id,
                    severity=overrides.get(rule_id, RULES[rule_id].severity),
                    message=message,
                    location=Location(config.file, line, column),
                    path=f"sites.{model.site}.devices.{model.hostname}.config",
                )
            )
    return findings


# Not cached: a cache of the last read-backs kept tens of thousands of nodes alive from one
# garbage collection to the next, which then scanned them over and over (a quarter of the
# config lint's time on a 1,040-device site); each text is read once per lint anyway.
def read(platform: str, text: str) -> ReadBack:
    """The read-back of one rendered config, by the reader of its platform's family."""
    if platform == "nvidia_nvue":
        return nvue.read(text)
    return cisco.read(text, platform)

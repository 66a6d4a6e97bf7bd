"""PHY-013..015: cabling the intent can describe but no floor can build.

One physical port takes one cable, whatever the names it is written under; a link joins two
devices; a link rule's name says which rule made a link.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from meetme.validators.engine import Hit, Path_, SiteContext, rule
from meetme.validators.rules.ports import PortId, port_id, written_names

from meetme.core.problems import Location, listed

if TYPE_CHECKING:
    from meetme.generators.resolve.fabric import FabricLink, SiteFabric


@dataclass(frozen=True)
class PortUse:
    """One thing cabled to a port: a link end, a cross-connect, a host or peer-link port."""

    device: str
    platform: str
    name: str  # as written (or as a link rule made it)
    port: PortId
    kind: str  # "link", "cross-connect", "host", "peer-link"
    label: str  # what uses it, for messages
    far: str  # what the cable reaches: the other device of a link, else the label
    path: Path_


def _fabric(ctx: SiteContext) -> SiteFabric:
    return ctx.fabric


def _use(
    ctx: SiteContext, device: str, name: str, kind: str, label: str, far: str, path: Path_
) -> PortUse | None:
    known = ctx.site.devices.get(device)
    if known is None:
        return None
    port = port_id(known.platform, name)
    if port is None:  # not a front-panel port meetme can read: HW-001 reports it
        return None
    return PortUse(device, known.platform, name, port, kind, label, far, path)


def _link_uses(ctx: SiteContext) -> Iterator[PortUse | None]:
    for link in _fabric(ctx).links:
        explicit = len(link.source) >= 2 and link.source[-2] == "links"
        for side, end, other in (("a", link.a, link.b), ("b", link.b, link.a)):
            if explicit:
                label = f"link #{link.source[-1]} to {other.device}"
            else:
                name = ctx.site.link_rules[cast(int, link.source[-1])].name
                label = f"link rule {name} to {other.device}"
            path = (*link.source, side, "interface")
            yield _use(ctx, end.device, end.interface, "link", label, other.device, path)


def _cross_connect_uses(ctx: SiteContext) -> Iterator[PortUse | None]:
    # IX ports, transit and PNI circuits and the cloud sub-interfaces all ride a cross-connect:
    # its port is the one physical use, however many VLANs the sessions put on it
    for name, xc in sorted(ctx.site.cross_connects.items()):
        label = f"cross-connect {name} of {xc.party}"
        path = (*xc.path, "interface")
        yield _use(ctx, xc.device, xc.interface, "cross-connect", label, label, path)


def _attachment_uses(ctx: SiteContext) -> Iterator[PortUse | None]:
    for name, attachment in sorted(ctx.site.attachments.items()):
        for field, kind in (("ports", "host"), ("peer_link", "peer-link")):
            for index, iface in enumerate(getattr(attachment, field)):
                label = f"attachment {name} {kind} port"
                path = (*attachment.path, field, index)
                far = f"attachment {name} host {index}" if kind == "host" else "the MLAG peer"
                for leaf in attachment.leaves:
                    yield _use(ctx, leaf, iface, kind, label, far, path)


def _services_uses(ctx: SiteContext) -> Iterator[PortUse | None]:
    edge = ctx.site.peering.edge
    for device, port in sorted(edge.services.items()) if edge else ():
        label = f"the services LAN port of {device}"
        path = (*port.path, "interface")
        yield _use(ctx, device, port.interface, "services", label, "the services LAN", path)


def _dci_uses(ctx: SiteContext) -> Iterator[PortUse | None]:
    # a DCI circuit's end at this site: its own port on a border (intent `dci:`)
    dci = ctx.loaded.intent.dci
    for name, circuit in sorted(dci.circuits.items()) if dci else ():
        for side, end, far in (("a", circuit.a, circuit.b), ("b", circuit.b, circuit.a)):
            if end.site == ctx.name:
                label = f"DCI circuit {name} to {far.site}"
                path = (*circuit.path, side, "interface")
                yield _use(ctx, end.device, end.interface, "dci", label, label, path)


def _shares_cable(first: PortUse, second: PortUse) -> bool:
    """Whether two uses of one (sub-)port can be one cable: sub-interfaces with their own
    VLANs, a routed port with tagged sub-interfaces to the same device (a VRF-lite link), two
    attachments naming their pair's one peer link."""
    if first.kind == second.kind == "peer-link":
        return True
    if first.port.unit is not None and second.port.unit is not None:
        return first.port.unit != second.port.unit
    if first.port.unit is None and second.port.unit is None:
        return False
    return first.kind == second.kind == "link" and first.far == second.far


def _relation(first: PortUse, second: PortUse, written: Location) -> str | None:
    """How `second` collides with the port `first` (written at `written`) already uses, or
    None when it does not."""
    where = f"{first.label} (at {written})"
    if first.port.cage == second.port.cage:
        if first.name == second.name and {first.kind, second.kind} & {"host", "peer-link"}:
            return None  # one name twice with an attachment's port: MH-005 reports it
        if _shares_cable(first, second):
            return None
        if first.name.split(".")[0] == second.name.split(".")[0]:
            return f"{where} already uses {first.name}"
        hint = ""
        if first.platform == "cisco_iosxr" and _type(first.name) != _type(second.name):
            hint = " (an IOS-XR name carries the optic's speed, not another port)"
        port = first.port.text(first.platform)
        return f"that is port {port}, which {where} already uses as {first.name}{hint}"
    if first.port.sub is None and second.port.sub is not None:
        return f"that is a breakout sub-port of {first.name}, which {where} uses whole"
    if first.port.sub is not None and second.port.sub is None:
        return f"{where} uses its breakout sub-port {first.name}: a port is split or used whole"
    return None


def _type(name: str) -> str:
    """The letters an interface name starts with: IOS-XR's speed word."""
    return name.rstrip("0123456789/.").lower()


@rule(
    "PHY-013",
    "error",
    "One physical port carries one cable, whatever names it is written under",
    "IOS-XR names a port by the speed of its optic (FourHundredGigE0/0/0/16 and "
    "HundredGigE0/0/0/16 are one cage), EOS and NX-OS read Ethernet09/1 as Ethernet9/1, and a "
    "broken-out port's sub-ports (swp1s0, Ethernet1/1/1, HundredGigE0/0/0/16/0) exclude using "
    "the port whole. Two uses of one port render as two configs of one interface: the last one "
    "wins on the device and the other circuit or link is silently down. Checked across fabric "
    "links (explicit and rule-made), cross-connects (which the IX, transit, PNI and cloud "
    "sub-interfaces ride), host ports, MLAG peer links and DCI circuit ends. Sub-interfaces "
    "with their own VLANs share their parent, as does a routed link with tagged sub-interfaces "
    "to the same device.",
    "Cisco 8000 Configuring Ethernet Interfaces (rack/slot/module/port; a 2x100G module in a "
    "400G port gives HundredGigE interfaces) https://www.cisco.com/c/en/us/td/docs/iosxr/"
    "cisco8000/Interfaces/77x/b-interfaces-config-guide-cisco8k-r77x/"
    "m-configuring-ethernet-interfaces-8k.html; Arista EOS octal ports (Ethernetx/1..x/8 are "
    "lanes of port x) https://www.arista.com/en/um-eos/eos-octal-port-renumber-to-four-"
    "interfaces; NVIDIA Cumulus Linux Switch Port Attributes (breakout swpNsM) "
    "https://docs.nvidia.com/networking-ethernet-software/cumulus-linux/Layer-1-and-Switch-"
    "Ports/Interface-Configuration-and-Management/Switch-Port-Attributes/",
)
def one_port_one_use(ctx: SiteContext) -> Iterator[Hit]:
    uses = [
        use
        for source in (
            _link_uses(ctx),
            _cross_connect_uses(ctx),
            _attachment_uses(ctx),
            _services_uses(ctx),
            _dci_uses(ctx),
        )
        for use in source
        if use is not None
    ]
    by_port: dict[tuple[str, tuple[int, ...]], list[PortUse]] = defaultdict(list)
    for use in uses:
        by_port[(use.device, use.port.port)].append(use)
    for (device, _), found in sorted(by_port.items()):
        if len(found) < 2:
            continue  # most ports: no location to look up
        # the one written later is the second use; rule-made ends keep their order (stable)
        found.sort(key=lambda u: ctx.loaded.where(u.path))
        for index, use in enumerate(found):
            for earlier in found[:index]:
                relation = _relation(earlier, use, ctx.loaded.where(earlier.path))
                if relation is not None:
                    yield Hit(
                        f"{device}: {use.label} uses {use.name}, but {relation}; one port "
                        "carries one cable: move one of them to a free port",
                        use.path,
                    )
                    break


@rule(
    "PHY-014",
    "error",
    "A link joins two different devices",
    "A cable from a device to itself is a loop: no neighbour is learnt over it, BGP cannot "
    "peer with itself, and the uplink it was meant to be is missing. A link rule whose two "
    "sides select the same devices cables each of them to itself too.",
    "RFC 7938 section 3 https://www.rfc-editor.org/rfc/rfc7938 (a Clos fabric links devices "
    "of adjacent tiers, never a device to itself)",
)
def no_self_links(ctx: SiteContext) -> Iterator[Hit]:
    selfish: dict[Path_, list[FabricLink]] = defaultdict(list)
    for link in _fabric(ctx).links:
        if link.a.device == link.b.device:
            selfish[link.source].append(link)
    for source, links in selfish.items():
        if len(source) >= 2 and source[-2] == "links":
            link = links[0]
            yield Hit(
                f"link #{source[-1]} joins {link.a.device} {link.a.interface} to "
                f"{link.b.interface} on the same device; a link needs another device at its "
                "b end",
                (*source, "b", "device"),
            )
            continue
        rule_ = ctx.site.link_rules[cast(int, source[-1])]
        devices = sorted({link.a.device for link in links})
        shown = listed(devices, 4)
        yield Hit(
            f"link rule {rule_.name} selects {shown} on both sides, so it cables each of them "
            "to itself; narrow one side (role or platform) so the two sides are different devices",
            (*source, "b"),
        )


@rule(
    "PHY-015",
    "error",
    "Link rule names are unique",
    "Findings (HW-001, PHY-013) and the fabric's duplicate-port errors name a link by the rule "
    "that made it; with two rules of one name each such message points at either, and the fix "
    "may land on the wrong rule.",
    "meetme intent consistency (a link rule's name is how every message refers to it)",
)
def link_rule_names_unique(ctx: SiteContext) -> Iterator[Hit]:
    seen: dict[str, int] = {}
    for index, link_rule in enumerate(ctx.site.link_rules):
        if link_rule.name in seen:
            first = seen[link_rule.name]
            yield Hit(
                f"link rule #{index} is named {link_rule.name}, like link rule #{first} at "
                f"{ctx.loaded.where((*ctx.base, 'link_rules', first, 'name'))}; give it a name of "
                "its own",
                (*link_rule.path, "name"),
            )
        else:
            seen[link_rule.name] = index


@rule(
    "PHY-016",
    "error",
    "A link rule numbers the ports and addresses of every device it selects",
    "A link rule derives each port from the peer's id (port = first + (peer id - peer_id_base) "
    "x count + k) and each /31 from the a-side port. A device whose id lies below the other "
    "side's peer_id_base would get a port below `first`, and one whose id puts its links past "
    "links_per_device has no p2p subnet: typically a device given a role or platform the "
    "rule's numbering was not laid out for. The rule makes no link for it, so the lint stops "
    "here instead of rendering a fabric with that device missing.",
    "docs/standards.md#phy-016; RFC 7938 section 5 (stable, id-derived fabric numbering)",
)
def link_rule_numbering_fits(ctx: SiteContext) -> Iterator[Hit]:
    for conflict in ctx.fabric.conflicts:
        if conflict.kind == "numbering":
            yield Hit(conflict.message, conflict.path)


@rule(
    "PHY-017",
    "error",
    "An interface name carries one link or one circuit",
    "Two link rules, an explicit link and a rule, or a circuit and a fabric link that give one "
    "device the same interface would render two configs of one interface, and the last wins "
    "on the device. PHY-013 reports this for every front-panel port it can read; this rule "
    "covers the other names (port-channels and names of another platform), so each clash is "
    "one finding.",
    "docs/standards.md#phy-017",
)
def interface_names_used_once(ctx: SiteContext) -> Iterator[Hit]:
    for conflict in ctx.fabric.conflicts:
        if conflict.kind != "duplicate-port" or conflict.interface is None:
            continue
        device = ctx.site.devices.get(conflict.device)
        if device is not None and port_id(device.platform, conflict.interface) is not None:
            continue  # a front-panel port of its platform: PHY-013 reports the clash
        yield Hit(conflict.message, conflict.path)


@rule(
    "PHY-018",
    "error",
    "A cable ends on a whole port; meetme makes the sub-interfaces",
    "meetme makes an 802.1Q sub-interface where the intent gives its VLAN: the VRF-lite "
    "handoff's (one per tenant VRF, the VRF's `vlan:`) and a cloud attachment's (a VIF's, an "
    "ExpressRoute peering's or an interconnect attachment's `vlan:` on its circuit's port). A "
    "sub-interface written as the end of a link, cross-connect or DCI circuit, or as a "
    "services, host or peer-link port (`HundredGigE0/0/0/25.7`), would render an interface "
    "with no 802.1Q encapsulation, leave the port itself unconfigured and the far end "
    "untagged: a link every other rule passes that carries nothing.",
    "docs/standards.md#phy-018",
)
def cables_end_on_whole_ports(ctx: SiteContext) -> Iterator[Hit]:
    ends = list(written_names(ctx.site))
    dci = ctx.loaded.intent.dci
    for _name, circuit in sorted(dci.circuits.items()) if dci is not None else ():
        for side, end in (("a", circuit.a), ("b", circuit.b)):
            if end.site == ctx.name:  # each end in its own site's lint
                ends.append(((end.device,), end.interface, (*circuit.path, side, "interface")))
    for devices, name, path in ends:
        port, dot, vlan = name.partition(".")
        if dot:
            yield Hit(
                f"{listed(devices)} {name} is sub-interface {vlan} of {port}: meetme tags only "
                "the sub-interfaces whose VLAN the intent gives (a handoff VRF's, a cloud "
                f"attachment's `vlan:`) and would render this one untagged, with {port} "
                f"itself unconfigured; write the port, {port}",
                path,
            )

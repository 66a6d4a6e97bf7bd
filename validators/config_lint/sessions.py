"""CFG-001..005: each BGP neighbour of the model, read back with its limit and policies.

Compares the device model with the read-back (`readback.py`) only: which neighbours exist,
the prefix limit and both policies each has in the model's address family after the
platform's inheritance, and every policy object a reference names.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from meetme.validators.config_lint.readback import DEFAULT_VRF, ReadBack, Session, normalise

if TYPE_CHECKING:
    from meetme.generators.model import BgpNeighbor, DeviceModel

Hit = tuple[str, str, int, int]  # rule, message, line, column

PREFIX_LIMIT = "CFG-001"
IMPORT_POLICY = "CFG-002"
EXPORT_POLICY = "CFG-003"
DEFINED = "CFG-004"
CONFIGURED = "CFG-005"


def check(model: DeviceModel, readback: ReadBack) -> Iterator[Hit]:
    """Every CFG-001..005 finding on one device's read-back."""
    words = readback.words
    if readback.unreadable is not None:
        where = readback.unreadable
        yield (
            CONFIGURED,
            f"the rendered config cannot be read ({where.text}); none of its "
            f"{len(model.bgp.neighbors)} BGP neighbour(s) could be checked",
            where.line,
            where.column,
        )
        return
    for neighbor in model.bgp.neighbors:
        found = readback.neighbors.get((neighbor.vrf or DEFAULT_VRF, normalise(neighbor.address)))
        who = _who(neighbor)
        if found is None:
            scope = "that VRF of router bgp" if neighbor.vrf else "router bgp"
            yield CONFIGURED, f"{who} of the device model is not configured in {scope}", 1, 1
            continue
        session = found.family(neighbor.afi)
        yield from _prefix_limit(neighbor, session, who, words.limit)
        for rule_id, direction, value, expected in (
            (IMPORT_POLICY, "import (in)", session.policy_in, neighbor.route_map_in),
            (EXPORT_POLICY, "export (out)", session.policy_out, neighbor.route_map_out),
        ):
            if value is None:
                yield (
                    rule_id,
                    f"{who} has no {direction} {words.policy} for {neighbor.afi} "
                    "unicast, neither on the neighbour nor through a group or template",
                    session.line,
                    session.column,
                )
            elif value.text != expected:
                yield (
                    rule_id,
                    f"{who} applies {words.policy} {value.text} as its {direction} "
                    f"policy; the device model's is {expected}",
                    value.line,
                    value.column,
                )
    for ref in readback.references:
        if ref.name not in readback.defined.get(ref.kind, set()):
            yield (
                DEFINED,
                f"{ref.where} uses {ref.kind} {ref.name}, which this config does not define",
                ref.line,
                ref.column,
            )


def _prefix_limit(neighbor: BgpNeighbor, session: Session, who: str, keyword: str) -> Iterator[Hit]:
    value = session.prefix_limit
    if neighbor.max_prefix is None:  # no limit in the model: a waived EDGE-001, say
        if value is not None:
            yield (
                PREFIX_LIMIT,
                f"{who} has {keyword} {value.text}; the device model has no limit",
                value.line,
                value.column,
            )
        return
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

"""The handoff feature in intent, written under the site's `handoff:` key: VRF-lite from the
border leaves to the border routers, one 802.1Q sub-interface and eBGP session per VRF.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from meetme.intent.schema_base import Node
from meetme.intent.schema_overlay import VlanId
from meetme.intent.types import Distinct, Name, Prefix


class HandoffVrf(Node):
    vlan: VlanId = Field(description="Sub-interface VLAN of this VRF on every handoff link.")
    export_north: Distinct[Prefix] = Field(
        default_factory=list, description="What this VRF may advertise to the border."
    )
    internet: Literal["default", "none"] = Field(
        default="none",
        description="How the VRF reaches the Internet: `default` - the borders send it a "
        "default route, leaked from their Internet table while a transit gives them one "
        "(`accept_default` on a transit); `none` - no way out.",
    )
    public: Distinct[Prefix] = Field(
        default_factory=list,
        description="The VRF's public prefixes, inside the organisation's aggregates: accepted "
        "from the border leaves and leaked into the borders' Internet table, so the Internet "
        "reaches them behind our aggregates. The VRF must originate each (a network's subnet).",
    )
    max_prefix: int = Field(
        default=100,
        ge=1,
        le=1_000_000,
        description="Routes accepted on each handoff session of this VRF before it is reset "
        "(and retried after 5 minutes); raised to what the session's import policy admits "
        "where that is more (the border accepts export_north and its subnets to /24). IPv6 "
        "sessions too, unless max_prefix_v6 says otherwise.",
    )
    max_prefix_v6: int | None = Field(
        default=None,
        ge=1,
        le=1_000_000,
        description="max_prefix for the VRF's IPv6 handoff sessions (raised the same way); "
        "default: max_prefix.",
    )


class Handoff(Node):
    """VRF-lite from the border leaves to the border routers: per VRF, an 802.1Q
    sub-interface and an eBGP session on every border-leaf-to-border link. Each VRF's
    sub-interface reuses the link's own /31: the VRFs are separate routing contexts."""

    border_leaves: Distinct[Name] = Field(min_length=1)
    vrfs: dict[Name, HandoffVrf] = Field(min_length=1)

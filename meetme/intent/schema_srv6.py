"""The SRv6 feature in intent: one SRv6 domain across the sites (`srv6:` at the top, beside
`organisation`, `sites` and `dci`), its SID block and uSID format, a stable id per site, the
devices of each site that take a locator, and the tenant VRFs that ride SRv6 between sites.

Every locator is derived, never written: block + a 16-bit node uSID made of the site's id (high
byte) and the device's id (low byte), so adding a site or a device moves no other locator
(generators/resolve/srv6.py). Limits (ids that do not fit, reserved uSID ranges) are rules
(SRV6-001), not unusable input.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from meetme.intent.schema_base import Node
from meetme.intent.types import Distinct, Name, PrefixV6

# The uSID formats meetme renders: F3216 (32-bit block, 16-bit uSIDs: Cisco 8000 "uSID Locator
# (F3216)", Arista `srv6-usid-f3216`, Cumulus "uN 32/16/0") and F1616 (16-bit block: Cumulus
# "uN only 16/16/0", which IOS-XR and EOS do not take).
Srv6Format = Literal["F3216", "F1616"]


class Srv6Site(Node):
    id: int = Field(
        description="The site's byte of every node uSID (1..223): node uSID = id x 256 + "
        "device id. Never reuse or renumber it: every locator of the site derives from it."
    )
    devices: Distinct[Name] | None = Field(
        default=None,
        description="The devices of the site that take a locator; default: its borders. An "
        "empty list reserves the site's id and gives no device a locator.",
    )


class Srv6Vrf(Node):
    id: int = Field(
        ge=1,
        le=65535,
        description="The VRF's route target is organisation ASN:id on every site's borders.",
    )
    sites: Annotated[list[Name], Field(min_length=2)] = Field(
        description="The sites whose borders carry this tenant VRF over SRv6 (BGP VPNv4/VPNv6, "
        "one uDT SID per VRF) and join it to their VRF-lite handoff."
    )


class Srv6(Node):
    block: PrefixV6 | None = Field(
        default=None,
        description="The domain's SID block; default the first block of the format's length in "
        "5f00::/16, the space IANA set aside for SRv6 SIDs (RFC 9602): 5f00::/32 for F3216.",
    )
    format: Srv6Format = Field(default="F3216", description="The uSID format: F3216 or F1616.")
    isis_area: Annotated[str, Field(pattern=r"^[0-9a-fA-F]{2}(\.[0-9a-fA-F]{4}){1,6}$")] = Field(
        default="49.0001",
        description="The IS-IS area of the SRv6 underlay between the borders (DCI and pair "
        "links); the system id derives from the router id.",
    )
    sites: dict[Name, Srv6Site] = Field(default_factory=dict)
    vrfs: dict[Name, Srv6Vrf] = Field(
        default_factory=dict, description="Tenant VRFs carried between sites over SRv6."
    )

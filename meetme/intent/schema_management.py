"""The management feature in intent: the site's out-of-band management (`management:`), its
gateway, VRF, servers and the local logins every device of the site gets.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from meetme.intent.schema_base import Node, SecretRef
from meetme.intent.types import Distinct, IPAddress, Name, Prefix

# Local user names: a Linux login on Cumulus (lower case) and at most 28 characters on NX-OS.
UserName = Annotated[str, Field(pattern=r"^[a-z_][a-z0-9_-]{0,27}$")]


class LocalUser(Node):
    """A local login in the rendered config: a replace push removes every user it does not name."""

    role: Literal["admin", "operator"] = Field(
        description="admin: full rights; operator: read-only. Mapped to each OS's own roles."
    )
    password_hash: SecretRef = Field(
        description="secret:NAME holding the SHA-512-crypt hash ($6$...): EOS, IOS-XR, Cumulus."
    )
    password_hash_sha256: SecretRef | None = Field(
        default=None,
        description="secret:NAME holding the SHA-256-crypt hash ($5$...) of the same password: "
        "NX-OS `password 5` takes only this format; required when the site has NX-OS devices.",
    )


class Management(Node):
    gateway: IPAddress
    vrf: Name = "MGMT"
    users: dict[UserName, LocalUser] = Field(
        default_factory=dict, description="Local logins on every device of the site."
    )
    api: bool = Field(
        default=True,
        description="Render the management API a push drives (EOS eAPI, NX-OS NX-API, IOS-XR "
        "NETCONF over SSH, NVUE REST API), reachable in the management VRF.",
    )
    ntp_servers: Distinct[IPAddress] = Field(
        default_factory=list, description="NTP servers, reached through the management VRF."
    )
    syslog_servers: Distinct[IPAddress] = Field(
        default_factory=list, description="Syslog servers, reached through the management VRF."
    )
    clients: Distinct[Prefix] = Field(
        default_factory=list,
        description="Where management sessions come from (jump hosts, automation): on platforms "
        "whose SSH cannot be bound to the management VRF (NX-OS), the VTY lines accept only "
        "these sources. Empty: each device's own management subnet.",
    )

"""Constrained scalar types of the intent: names, prefixes, addresses, ASNs, speeds.

Prefixes stay strings in the model (normalised, so two spellings of one prefix compare equal)
and carry their own checks, so the JSON Schema stays plain and messages say what is wrong.
"""

from __future__ import annotations

import ipaddress
from typing import Annotated, Literal

from pydantic import AfterValidator, Field

NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$"
Name = Annotated[str, Field(pattern=NAME_PATTERN)]

Role = Literal["border", "super_spine", "spine", "leaf", "border_leaf"]
Platform = Literal["arista_eos", "cisco_iosxr", "cisco_nxos", "nvidia_nvue"]
RoomKind = Literal["mmr", "mdf", "data_hall"]
Environment = Literal["production", "lab"]
Feed = Literal["A", "B"]

SPEED_GBPS: dict[str, int] = {
    "1G": 1, "10G": 10, "25G": 25, "40G": 40, "50G": 50,
    "100G": 100, "200G": 200, "400G": 400, "800G": 800,
}  # fmt: skip
Speed = Literal["1G", "10G", "25G", "40G", "50G", "100G", "200G", "400G", "800G"]

# 0 is the 'reserved' ASN and stays representable so that ADDR-007 can name it; anything
# above 32 bits is not an ASN at all and fails here.
Asn = Annotated[int, Field(ge=0, le=4294967295)]
Mtu = Annotated[int, Field(ge=1280, le=9216)]


def _network(value: str, version: int | None) -> str:
    if "/" not in value:
        raise ValueError(f"'{value}' has no prefix length; write it as address/length")
    try:
        net = ipaddress.ip_network(value, strict=False)
    except ValueError as exc:
        raise ValueError(f"'{value}' is not an IP prefix: {exc}") from None
    if version is not None and net.version != version:
        raise ValueError(f"'{value}' is IPv{net.version}; an IPv{version} prefix is required")
    if ipaddress.ip_interface(value).ip != net.network_address:
        raise ValueError(f"'{value}' has host bits set; the prefix is {net}")
    return str(net)


def _interface(value: str, version: int | None) -> str:
    if "/" not in value:
        raise ValueError(f"'{value}' has no prefix length; write it as address/length")
    try:
        iface = ipaddress.ip_interface(value)
    except ValueError as exc:
        raise ValueError(f"'{value}' is not an IP address with prefix length: {exc}") from None
    if version is not None and iface.version != version:
        raise ValueError(f"'{value}' is IPv{iface.version}; an IPv{version} address is required")
    return str(iface)


def _address(value: str) -> str:
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        raise ValueError(f"'{value}' is not an IP address") from None


Prefix = Annotated[str, AfterValidator(lambda v: _network(v, None))]
PrefixV4 = Annotated[str, AfterValidator(lambda v: _network(v, 4))]
PrefixV6 = Annotated[str, AfterValidator(lambda v: _network(v, 6))]
InterfaceAddress = Annotated[str, AfterValidator(lambda v: _interface(v, None))]
InterfaceV4 = Annotated[str, AfterValidator(lambda v: _interface(v, 4))]
InterfaceV6 = Annotated[str, AfterValidator(lambda v: _interface(v, 6))]
IPAddress = Annotated[str, AfterValidator(_address)]

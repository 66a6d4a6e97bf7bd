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


def _no_length(value: str, what: str) -> str:
    example = "/64" if ":" in value else "/24"
    return (
        f"'{value}' has no prefix length; write the {what} as address/length, e.g. {value}{example}"
    )


def _why_not(value: str) -> str:
    """ipaddress's specific reason (octet 300, /33) rather than 'not IPv4 or IPv6'."""
    address, _, length = value.partition("/")
    family = ipaddress.IPv6Interface if ":" in address else ipaddress.IPv4Interface
    try:
        family(value)
    except ipaddress.NetmaskValueError:
        return f"the length /{length} is not 0 to {128 if ':' in address else 32}"
    except ValueError as exc:
        reason = str(exc)
        return reason[:1].lower() + reason[1:]
    return "not a valid address"


def _network(value: str, version: int | None) -> str:
    if "/" not in value:
        raise ValueError(_no_length(value, "prefix"))
    try:
        net = ipaddress.ip_network(value, strict=False)
    except ValueError:
        raise ValueError(f"'{value}' is not an IP prefix: {_why_not(value)}") from None
    if version is not None and net.version != version:
        raise ValueError(f"'{value}' is IPv{net.version}; an IPv{version} prefix is required")
    if ipaddress.ip_interface(value).ip != net.network_address:
        raise ValueError(f"'{value}' has host bits set; write the prefix as {net}")
    return str(net)


def _interface(value: str, version: int | None) -> str:
    if "/" not in value:
        raise ValueError(_no_length(value, "address"))
    try:
        iface = ipaddress.ip_interface(value)
    except ValueError:
        raise ValueError(
            f"'{value}' is not an IP address with prefix length: {_why_not(value)}"
        ) from None
    if version is not None and iface.version != version:
        raise ValueError(f"'{value}' is IPv{iface.version}; an IPv{version} address is required")
    return str(iface)


def _address(value: str) -> str:
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        if "/" in value:
            raise ValueError(
                f"'{value}' has a prefix length; write the address alone, "
                f"e.g. {value.partition('/')[0]}"
            ) from None
        raise ValueError(f"'{value}' is not an IP address: {_why_not(value)}") from None


Prefix = Annotated[str, AfterValidator(lambda v: _network(v, None))]
PrefixV4 = Annotated[str, AfterValidator(lambda v: _network(v, 4))]
PrefixV6 = Annotated[str, AfterValidator(lambda v: _network(v, 6))]
InterfaceAddress = Annotated[str, AfterValidator(lambda v: _interface(v, None))]
InterfaceV4 = Annotated[str, AfterValidator(lambda v: _interface(v, 4))]
InterfaceV6 = Annotated[str, AfterValidator(lambda v: _interface(v, 6))]
IPAddress = Annotated[str, AfterValidator(_address)]

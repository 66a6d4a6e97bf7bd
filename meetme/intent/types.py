"""Constrained scalar types of the intent: names, prefixes, addresses, ASNs, speeds.

Prefixes stay strings in the model (normalised, so two spellings of one prefix compare equal)
and carry their own checks, so the JSON Schema stays plain and messages say what is wrong.

Every string of the intent has a grammar here, because every string may reach a config line:
none may hold a control character, a line separator or a secret placeholder (`<<secret:N>>`,
which only a push resolves), so no value can end a config line and start another. Messages
quote at most a short, escaped prefix of a wrong value.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated, Literal, TypeVar

from pydantic import AfterValidator, Field, ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

from meetme.core.problems import shown

# The pydantic error type of a value wrong by itself (an address, a prefix, a name's grammar),
# whatever else the intent holds: the loader still reports it when another file cannot be read.
# A plain ValueError would be `value_error`, the type of the cross-field checks too, which that
# file may settle.
VALUE_ALONE = "bad_value"


def bad_value(message: str) -> PydanticCustomError:
    """The error to raise for a value wrong by itself; `message` is shown as written."""
    # no context: the message is never formatted, so braces in it ({n}) stay as they are
    return PydanticCustomError(VALUE_ALONE, message)


T = TypeVar("T")

NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$"
Name = Annotated[str, Field(pattern=NAME_PATTERN)]


def _no_repeats(items: list[T]) -> list[T]:
    """A list that is a set (devices of a domain, a handoff's border leaves, power feeds):
    each repeat is refused at its own entry, naming where the first one is."""
    first: dict[T, int] = {}
    repeats: list[InitErrorDetails] = []
    for index, item in enumerate(items):
        if item not in first:
            first[item] = index
            continue
        message = (
            f"entry {index + 1}, {shown(item)}, is already listed as entry {first[item] + 1} "
            "of this list: each is counted once here, so the repeat adds nothing; remove it"
        )
        repeats.append(
            InitErrorDetails(
                type=PydanticCustomError(VALUE_ALONE, message), loc=(index,), input=item
            )
        )
    if repeats:
        # the entries' own positions: a repeat is reported at its line and column
        raise ValidationError.from_exception_data("unique list", repeats)
    return items


# A list that is a set, e.g. Distinct[Name]: a repeated entry is an error at the repeat
Distinct = Annotated[
    list[T], AfterValidator(_no_repeats), Field(json_schema_extra={"uniqueItems": True})
]

PLACEHOLDER_MESSAGE = (
    "a secret placeholder (<<secret:...>>) is never written in intent: only a push fills it in, "
    "so here it would send the secret itself; a key field takes a reference, secret:NAME"
)


def has_placeholder(value: str) -> bool:
    """The marker a push replaces with a secret's value, in any letter case."""
    # "<<" first, without a folded copy: case folding never makes a "<" (nor drops a character)
    return "<<" in value and "<<secret:" in value.casefold()


def line_problem(value: str) -> str | None:
    """Why a value could break out of its config line, or None. `str.isprintable` refuses
    every control character (newline, CR, tab, NUL, DEL, NEL U+0085), the Unicode line and
    paragraph separators, format characters (bidi overrides, zero-width) and unassigned ones."""
    if has_placeholder(value):
        return PLACEHOLDER_MESSAGE
    if not value.isprintable():
        bad = next(ch for ch in value if not ch.isprintable())
        return (
            f"{shown(value)} holds the unprintable character U+{ord(bad):04X}; a value is one "
            "line of printable characters"
        )
    return None


def _grammar(pattern: str, what: str, limit: int) -> AfterValidator:
    """A validator for `pattern`, with the message `what` says the value should be."""
    compiled = re.compile(pattern)

    def check(value: str) -> str:
        problem = line_problem(value)
        if problem is None and len(value) > limit:
            problem = f"{shown(value)} is {len(value)} characters long; at most {limit}"
        if problem is None and compiled.fullmatch(value) is None:
            problem = f"{shown(value)} is not {what}"
        if problem is not None:
            raise bad_value(problem)
        return value

    return AfterValidator(check)


def _schema_pattern(pattern: str) -> dict[str, str]:
    """The same grammar for editors (JSON Schema patterns are anchored by hand)."""
    return {"pattern": f"^{pattern}$"}


# Interface names, the grammar of all four platforms together: a name of letters, digits,
# '/' and '-' (Bundle-Ether, port-channel), and at most one 802.1Q sub-interface suffix.
# validators/interfaces.py checks each device's names against its own platform's grammar;
# PHY-018 refuses a sub-interface written where meetme would not tag it (every port intent
# writes: meetme makes the handoff's and the clouds' sub-interfaces from their `vlan:`).
INTERFACE_BODY = r"[A-Za-z][A-Za-z0-9/-]{0,39}"
SUBINTERFACE = r"\.[1-9][0-9]{0,3}"
INTERFACE_PATTERN = rf"{INTERFACE_BODY}(?:{SUBINTERFACE})?"
VLAN_MAX = 4094  # IEEE 802.1Q: 0 and 4095 are reserved


def _interface_name(value: str) -> str:
    problem = line_problem(value)
    if problem is None:
        problem = interface_problem(value)
    if problem is not None:
        raise bad_value(problem)
    return value


def interface_problem(value: str) -> str | None:
    """Why `value` is no interface name on any platform, or None."""
    if re.fullmatch(INTERFACE_PATTERN, value) is None:
        return (
            f"{shown(value)} is not an interface name: letters, digits, '/' and '-' "
            "(e.g. Ethernet1/1, HundredGigE0/0/0/1, swp1s0), at most 40 characters, and "
            "optionally one sub-interface suffix .1 to .4094; no spaces"
        )
    _, dot, sub = value.partition(".")
    if dot and int(sub) > VLAN_MAX:
        return (
            f"{shown(value)}: sub-interface {sub} is out of range; meetme numbers a "
            f"sub-interface by its 802.1Q VLAN, 1 to {VLAN_MAX}"
        )
    return None


InterfaceName = Annotated[
    str,
    AfterValidator(_interface_name),
    Field(json_schema_extra=_schema_pattern(INTERFACE_PATTERN)),
]

# A link rule's pattern: an interface name with exactly one {n} where the port number goes.
# It is expanded by plain replacement (generators/fabric.py), never str.format.
PORT_PLACEHOLDER = "{n}"
INTERFACE_PATTERN_PATTERN = r"[A-Za-z0-9/.-]{0,40}\{n\}[A-Za-z0-9/.-]{0,40}"


def _interface_template(value: str) -> str:
    problem = line_problem(value)
    if problem is None and (value.count(PORT_PLACEHOLDER) != 1 or value.count("{") != 1):
        problem = (
            f"{shown(value)} needs exactly one {{n}} where the port number goes and no other "
            "braces, e.g. Ethernet{n}/1"
        )
    if problem is None:
        problem = interface_problem(value.replace(PORT_PLACEHOLDER, "1"))
    if problem is not None:
        raise bad_value(problem)
    return value


InterfaceTemplate = Annotated[
    str,
    AfterValidator(_interface_template),
    Field(json_schema_extra=_schema_pattern(INTERFACE_PATTERN_PATTERN)),
]

# A hardware model as its vendor writes it: 8201-32FH, 7060X6-64PE, N9K-C9364D-GX2A.
MODEL_PATTERN = r"[A-Za-z0-9][A-Za-z0-9._+-]{0,62}"
HardwareModel = Annotated[
    str,
    _grammar(MODEL_PATTERN, "a hardware model: letters, digits, '.', '_', '+' and '-'", 63),
    Field(json_schema_extra=_schema_pattern(MODEL_PATTERN)),
]

# A breakout mode: the number of interfaces a cage splits into, optionally their speed.
BREAKOUT_PATTERN = r"[1-8]x(?:[1-9][0-9]{0,2}G)?"
Breakout = Annotated[
    str,
    _grammar(BREAKOUT_PATTERN, "a breakout mode such as 4x or 4x100G", 8),
    Field(json_schema_extra=_schema_pattern(BREAKOUT_PATTERN)),
]


def _colon_numbers(value: str, counts: tuple[int, ...]) -> list[int] | None:
    """The numbers of `A:B` (or `A:B:C`) text of one of `counts` parts, each 1-10 digits;
    None when the text has another shape."""
    parts = value.split(":")
    if len(parts) not in counts or not all(re.fullmatch(r"[0-9]{1,10}", p) for p in parts):
        return None
    return [int(part) for part in parts]


def _community(value: str) -> str:
    """Standard (RFC 1997, 16:16 bits) or large (RFC 8092, 32:32:32 bits) BGP community."""
    problem = line_problem(value)
    parts = _colon_numbers(value, (2, 3))
    if problem is None and parts is None:
        problem = f"{shown(value)} is not a BGP community: write ASN:VALUE or ASN:DATA1:DATA2"
    elif problem is None and parts is not None:
        limit = 65535 if len(parts) == 2 else 4294967295
        if any(part > limit for part in parts):
            problem = f"{shown(value)}: each part of this community is 0 to {limit}"
    if problem is not None:
        raise bad_value(problem)
    return value


Community = Annotated[
    str,
    AfterValidator(_community),
    Field(json_schema_extra=_schema_pattern(r"[0-9]{1,10}:[0-9]{1,10}(?::[0-9]{1,10})?")),
]


def _route_target(value: str) -> str:
    """A route target's administrator and number in the six bytes an extended community has
    (RFC 4360 section 4, RFC 5668): a 2-byte ASN with a 4-byte number, or a 4-byte ASN with a
    2-byte number. No type holds 4 + 4 bytes, so a device refuses `4200100000:151001`."""
    problem = line_problem(value)
    parts = _colon_numbers(value, (2,))
    if problem is None and parts is None:
        problem = f"{shown(value)} is not a route target: write ASN:NUMBER"
    elif problem is None and parts is not None:
        asn, number = parts
        if asn > 4294967295:
            problem = f"{shown(value)}: the ASN of a route target is 0 to 4294967295"
        elif asn > 65535 and number > 65535:
            problem = (
                f"{shown(value)}: a route target with a 4-byte ASN takes a number of 0 to 65535 "
                "(RFC 5668); use a 2-byte ASN for a larger number"
            )
        elif number > 4294967295:
            problem = f"{shown(value)}: the number of a route target is 0 to 4294967295"
    if problem is not None:
        raise bad_value(problem)
    return value


RouteTarget = Annotated[
    str,
    AfterValidator(_route_target),
    Field(json_schema_extra=_schema_pattern(r"[0-9]{1,10}:[0-9]{1,10}")),
]

# Text that is only ever read by people (a waiver's reason and owner): one printable line,
# bounded, and none of the characters the four config languages or YAML read as structure
# should it ever be printed in a description: '!' and '#' (comments), '{' '}' '[' ']' (NVUE
# YAML flow collections, Jinja), '<' '>' (placeholders), '"' '`' and '\\' (quoting, escapes),
# '|' (CLI pipes), '$' and '%' (variables), '?' (CLI help); it starts with a letter or digit
# (never '-', '*', '&': YAML) and does not end in a space.
FREE_TEXT_LIMIT = 200
FREE_TEXT_PATTERN = r"[^\W_](?:[^!#{}\[\]<>\"`\\|$%?]{0,198}[^!#{}\[\]<>\"`\\|$%?\s])?"
FreeText = Annotated[
    str,
    _grammar(
        FREE_TEXT_PATTERN,
        'one line of text that starts with a letter or digit, without ! # { } [ ] < > " '
        "` \\ | $ % ? and without a trailing space",
        FREE_TEXT_LIMIT,
    ),
    Field(json_schema_extra={"maxLength": FREE_TEXT_LIMIT}),
]

# A waiver's object: the dotted path of a finding (sites.aus1.devices.aus1-br2), or a prefix.
OBJECT_PATH_PATTERN = r"[A-Za-z0-9_][A-Za-z0-9_./:-]{0,254}"
ObjectPath = Annotated[
    str,
    _grammar(OBJECT_PATH_PATTERN, "a dotted path such as sites.aus1.devices.aus1-br2", 255),
    Field(json_schema_extra=_schema_pattern(OBJECT_PATH_PATTERN)),
]

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


_IP_CHARACTERS = re.compile(r"[0-9A-Fa-f.:/]+")


def _ip_text(value: str, what: str) -> None:
    """Only the characters of an address: ipaddress alone accepts an IPv6 scope id
    (`fe80::1%anything`), which would carry any text, newlines included, into a config."""
    problem = line_problem(value)
    if problem is None and _IP_CHARACTERS.fullmatch(value) is None:
        problem = f"{shown(value)} is not {what}: only digits, a-f, '.', ':' and '/' belong in one"
    if problem is not None:
        raise bad_value(problem)


def _no_length(value: str, what: str) -> str:
    example = "/64" if ":" in value else "/24"
    if what == "prefix" and _host_bits(value + example):
        # a host (a jump host's address among management clients): a /24 or /64 written
        # after it would have host bits set, so the host's own prefix is the example
        example = "/128" if ":" in value else "/32"
    return (
        f"{shown(value, 50)} has no prefix length; write the {what} as address/length, "
        f"e.g. {value[:50]}{example}"
    )


def _host_bits(text: str) -> bool:
    """Whether a well-formed prefix has host bits set (False for anything else)."""
    try:
        ipaddress.ip_network(text)
    except ValueError:
        try:
            ipaddress.ip_network(text, strict=False)
        except ValueError:
            return False
        return True
    return False


def _why_not(value: str) -> str:
    """ipaddress's specific reason (octet 300, /33) rather than 'not IPv4 or IPv6'."""
    if len(value) > 50:  # no address is that long; ipaddress would quote it all
        return f"{len(value)} characters is too long for an address"
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
    _ip_text(value, "an IP prefix")
    if "/" not in value:
        raise bad_value(_no_length(value, "prefix"))
    try:
        net = ipaddress.ip_network(value, strict=False)
    except ValueError:
        raise bad_value(f"{shown(value, 50)} is not an IP prefix: {_why_not(value)}") from None
    if version is not None and net.version != version:
        raise bad_value(
            f"{shown(value, 50)} is IPv{net.version}; an IPv{version} prefix is required"
        )
    if ipaddress.ip_interface(value).ip != net.network_address:
        raise bad_value(f"{shown(value, 50)} has host bits set; write the prefix as {net}")
    return str(net)


def _interface(value: str, version: int | None) -> str:
    _ip_text(value, "an IP address with prefix length")
    if "/" not in value:
        raise bad_value(_no_length(value, "address"))
    try:
        iface = ipaddress.ip_interface(value)
    except ValueError:
        raise bad_value(
            f"{shown(value, 50)} is not an IP address with prefix length: {_why_not(value)}"
        ) from None
    if version is not None and iface.version != version:
        raise bad_value(
            f"{shown(value, 50)} is IPv{iface.version}; an IPv{version} address is required"
        )
    return str(iface)


def _address(value: str, version: int | None = None) -> str:
    _ip_text(value, "an IP address")
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        if "/" in value:
            raise bad_value(
                f"{shown(value, 50)} has a prefix length; write the address alone, "
                f"e.g. {value.partition('/')[0]}"
            ) from None
        raise bad_value(f"{shown(value, 50)} is not an IP address: {_why_not(value)}") from None
    if version is not None and address.version != version:
        raise bad_value(
            f"{shown(value, 50)} is IPv{address.version}; an IPv{version} address is required"
        )
    return str(address)


# The shortest management subnet: an IPv4 /8 (the largest network IPv4 ever numbered as one,
# a class A; RFC 1122 3.2.1.3 numbers hosts within a network) and an IPv6 /48 (a whole site,
# RFC 6177). A shorter length puts most of the address space on the management port's link:
# /0 renders `ipv4 address 192.168.10.11 0.0.0.0` on IOS-XR, and the device then looks for
# every destination (the jump host, NTP, syslog) on the management link instead of sending it
# to the management gateway. /31 and /32 are MGMT-003's: whether they hold the gateway.
MANAGEMENT_SHORTEST = {4: 8, 6: 48}


def _management(value: str) -> str:
    text = _interface(value, None)
    iface = ipaddress.ip_interface(text)
    shortest = MANAGEMENT_SHORTEST[iface.version]
    if iface.network.prefixlen < shortest:
        example = "/24" if iface.version == 4 else "/64"
        raise bad_value(
            f"{shown(value, 50)}: a /{iface.network.prefixlen} management subnet spans "
            f"{iface.network}, so every destination would be on the management link and none "
            f"sent to the gateway; write the management subnet's own length, at least "
            f"/{shortest}, e.g. {iface.ip}{example}"
        )
    return text


# Where a gateway address cannot be, as a message says it: RFC 1122 3.2.1.3 (0/8, 127/8,
# multicast, broadcast), RFC 1112 4 (class E), RFC 3927 (169.254/16), RFC 4291 2.4 to 2.7 (the
# IPv6 unspecified, loopback, link-local and multicast scopes, and its unassigned space).
def _gateway_space(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    v4 = ip.version == 4
    if v4 and ip in ipaddress.IPv4Network("0.0.0.0/8"):
        return "in 0.0.0.0/8, 'this network' (RFC 1122 3.2.1.3), never a destination"
    if ip.is_unspecified:
        return "the unspecified address (RFC 4291 2.5.2)"
    if ip.is_loopback:
        source = "RFC 1122 3.2.1.3" if v4 else "RFC 4291 2.5.3"
        return f"a loopback address ({source}), never on a wire"
    if ip.is_multicast:
        return (
            f"a multicast (group) address ({'RFC 1112' if v4 else 'RFC 4291 2.7'}), never a host's"
        )
    if ip.is_link_local:
        return (
            f"a link-local address ({'RFC 3927' if v4 else 'RFC 4291 2.5.6'}), and the "
            "network is routed beyond its link"
        )
    if v4 and ip == ipaddress.IPv4Address("255.255.255.255"):
        return "the limited broadcast address (RFC 1122 3.2.1.3)"
    if v4 and ip.is_reserved:
        return "in the reserved 240.0.0.0/4 (RFC 1112 4), which hosts do not use"
    if ip.is_reserved:
        return "in space IPv6 reserves (RFC 4291 2.4), neither global unicast nor unique local"
    return None


def _gateway(value: str, version: int) -> str:
    """A tenant network's anycast gateway: an address of unicast host space."""
    text = _interface(value, version)
    iface = ipaddress.ip_interface(text)
    space = _gateway_space(iface.ip)
    example = "10.50.1.1/24" if version == 4 else "2001:db8:50:1::1/64"
    if space is not None:
        raise bad_value(
            f"{shown(value, 50)}: {iface.ip} is {space}; a gateway is a unicast host address "
            f"of its network's own subnet, e.g. {example}"
        )
    if iface.network.num_addresses == 1:
        # the SVI would hold the only address of its subnet: every host is off-link
        raise bad_value(
            f"{shown(value, 50)}: a /{iface.network.prefixlen} holds the gateway alone, so no "
            f"host of the network can sit in its subnet; write the subnet's length, e.g. {example}"
        )
    return text


Prefix = Annotated[str, AfterValidator(lambda v: _network(v, None))]
PrefixV4 = Annotated[str, AfterValidator(lambda v: _network(v, 4))]
PrefixV6 = Annotated[str, AfterValidator(lambda v: _network(v, 6))]
InterfaceAddress = Annotated[str, AfterValidator(lambda v: _interface(v, None))]
InterfaceV4 = Annotated[str, AfterValidator(lambda v: _interface(v, 4))]
InterfaceV6 = Annotated[str, AfterValidator(lambda v: _interface(v, 6))]
ManagementAddress = Annotated[str, AfterValidator(_management)]
GatewayV4 = Annotated[str, AfterValidator(lambda v: _gateway(v, 4))]
GatewayV6 = Annotated[str, AfterValidator(lambda v: _gateway(v, 6))]
IPAddress = Annotated[str, AfterValidator(_address)]
IPv4Address = Annotated[str, AfterValidator(lambda v: _address(v, 4))]
IPv6Address = Annotated[str, AfterValidator(lambda v: _address(v, 6))]

"""The lab inventory: how `meetme plan` and `meetme push` reach each device.

`inventory.yaml` sits beside `intent/` (not inside it: the intent loader reads every YAML file
under intent/ as intent). It is read with positions, so every problem is reported as
file:line:column like the intent's, and validated with pydantic, unknown keys forbidden.
Credentials are references (`secret:NAME`), never values: the inventory lives in git.
"""

from __future__ import annotations

import contextlib
import difflib
import ipaddress
import re
import socket
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from meetme.core.problems import IntentError, Location, Problem, shown
from meetme.core.secret_refs import REFERENCE_RE, reference_name
from meetme.intent.yaml_source import Path_, SourceFile, read_file

Driver = Literal["eos", "iosxr", "iosxr_netconf", "nxos", "nxos_ssh", "nvue"]
Stage = Literal["lab", "canary", "production"]

# Drivers that commit with a timer the device itself reverts unless confirmed: EOS config
# sessions (NAPALM), IOS-XR NETCONF confirmed commit (meetme's adapter, deploy/iosxr_netconf.py).
COMMIT_CONFIRM_DRIVERS = frozenset({"eos", "iosxr_netconf", "nvue"})
# Drivers whose way back is a named checkpoint meetme takes and restores itself, with no timer
# on the device: NX-OS over NX-API (meetme's adapter, deploy/nxos_checkpoint.py).
CHECKPOINT_DRIVERS = frozenset({"nxos"})
# The intent platform each driver can push to.
DRIVER_PLATFORMS: dict[str, str] = {
    "eos": "arista_eos",
    "iosxr": "cisco_iosxr",
    "iosxr_netconf": "cisco_iosxr",
    "nxos": "cisco_nxos",
    "nxos_ssh": "cisco_nxos",
    "nvue": "nvidia_nvue",
}
# Drivers meetme can drive (nvue: meetme's REST + SSH adapter, deploy/nvue_rest.py).
IMPLEMENTED_DRIVERS = frozenset({"eos", "iosxr", "iosxr_netconf", "nxos", "nxos_ssh", "nvue"})


class _Model(BaseModel):
    # strict: `wave: true` or `port: "443"` is a slip to report, not a value to convert;
    # no inf or nan: YAML reads `1e999` as infinity, which no timer can wait out
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)


class Credentials(_Model):
    username: str = Field(
        min_length=1, description="a login name: one of the rendered configs' local users"
    )
    password: str = Field(description="secret:NAME; the value comes from the environment")

    @field_validator("password")
    @classmethod
    def _password_is_reference(cls, value: str) -> str:
        reference_name(value)  # ValueError with the fix when it is a literal password
        return value

    @field_validator("username")
    @classmethod
    def _username_is_written_out(cls, value: str) -> str:
        # The login must be a rendered user (targets.lockout_risk), and every rendered config
        # prints its users' names: as a secret it could be neither checked nor masked (the
        # masking would refuse a value that is a word of the configs).
        if value.startswith("secret:"):
            raise ValueError(
                "the login must be one of the rendered configs' local users, whose names the "
                "configs print: write the name itself (username: netops), not a secret"
            )
        return value

    def references(self) -> set[str]:
        match = REFERENCE_RE.match(self.password)
        return {match.group(1)} if match else set()


class Settings(_Model):
    concurrency: int = Field(4, ge=1, le=64, description="devices worked on at once in a wave")
    confirm_timer: int = Field(
        300, ge=1, le=3600, description="seconds before an unconfirmed commit reverts"
    )
    check_timeout: float = Field(
        120, ge=0, le=3600, description="seconds for expected BGP neighbours to reach Established"
    )
    check_interval: float = Field(5, gt=0, le=600, description="seconds between two BGP polls")
    check_neighbors: Literal["all", "underlay"] = Field(
        "all",
        description="which of the model's BGP neighbours must come up (a lab has no carriers)",
    )
    verify_grace: float = Field(
        10, ge=0, le=600, description="seconds after the confirm timer before checking the revert"
    )
    connect_timeout: int = Field(30, ge=1, le=600, description="seconds per device request")

    @model_validator(mode="after")
    def _check_before_revert(self) -> Settings:
        if self.check_timeout >= self.confirm_timer:
            raise ValueError(
                f"check_timeout ({self.check_timeout:g} s) must be shorter than confirm_timer "
                f"({self.confirm_timer} s): the device would revert while meetme still checks"
            )
        return self


# An RFC 1123 host name: dot-separated labels of letters, digits and inner hyphens, each at
# most 63 characters, 253 in all (RFC 1123 section 2.1; RFC 1035 section 2.3.4), the last
# label not all digits (RFC 1123 section 2.1: a name is never dotted-decimal; _host).
_LABEL = r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)"
_HOST_NAME = re.compile(rf"(?=.{{1,253}}$){_LABEL}(?:\.{_LABEL})*\.?")
_ZONE = re.compile(r"[A-Za-z0-9_.-]{1,64}")  # an IPv6 zone: an interface name


def _host(value: str) -> str:
    """An IP address or a host name, nothing else: the drivers put the host into a URL or a
    socket address, where `@`, `/`, `#`, `?`, `:` or a blank would send the login and
    password to another host or port than the one the inventory seems to name."""
    address, _, zone = value.partition("%")  # an IPv6 zone (fe80::1%eth0): an interface name
    with contextlib.suppress(ValueError):
        if ipaddress.ip_address(address) and (not zone or _ZONE.fullmatch(zone)):
            return value
    if _HOST_NAME.fullmatch(value):
        top = value.rstrip(".").rsplit(".", 1)[-1]
        if top.isdigit():  # `10.0.0.999`, `1.2.3`, `sw1.123`: resolvers read these as numbers
            raise ValueError(
                f"host {shown(value)} is neither an IP address nor a host name: its last label "
                f"{shown(top)} is all digits, which a host name's never is (RFC 1123 section "
                "2.1), and it is no IPv4 address (four numbers 0-255)"
            )
        read = _read_as_ipv4(value)
        if read is not None:  # `0x7f000001`, `0x7f.1`: an address written so no check sees it
            raise ValueError(
                f"host {shown(value)} is read by the system's resolver as the IPv4 address "
                f"{read} (hexadecimal numbers); write the address as {read}"
            )
        return value
    raise ValueError(
        f"host {shown(value)} is neither an IP address nor a host name (letters, digits, '-' "
        "and '.'); a port goes in port:, never in host:"
    )


def _read_as_ipv4(value: str) -> str | None:
    """The IPv4 address the C library's inet_aton (which getaddrinfo uses before any DNS
    lookup) reads in `value`, if any: it takes hexadecimal, octal and fewer than four parts,
    so `0x7f000001` connects to 127.0.0.1 while the duplicate-host check compares names."""
    try:
        return str(ipaddress.IPv4Address(socket.inet_aton(value.rstrip("."))))
    except OSError:
        return None


class DeviceEntry(_Model):
    host: str = Field(min_length=1, description="management address or name")
    port: int | None = Field(None, ge=1, le=65535)
    driver: Driver
    transport: Literal["https", "http"] | None = Field(
        None, description="eAPI / NX-API / NVUE REST transport (eos, nxos, nvue)"
    )
    stage: Stage
    wave: int = Field(ge=1, le=1000, description="waves run in ascending order")
    credentials: Credentials | None = None
    ssh_port: int | None = Field(
        None, ge=1, le=65535, description="SSH port: nxos SCP copy, nvue confirm step (22)"
    )
    answers_as: str | None = Field(
        None,
        description="the hostname a freshly provisioned device answers with until meetme's "
        "first push renames it (e.g. localhost): identity accepts it besides the device's "
        "own name; remove it once that push is confirmed",
    )

    @field_validator("host")
    @classmethod
    def _host_is_an_address_or_a_name(cls, value: str) -> str:
        return _host(value)

    @field_validator("answers_as")
    @classmethod
    def _answers_as_is_a_host_name(cls, value: str | None) -> str | None:
        if value is not None and not _HOST_NAME.fullmatch(value):
            raise ValueError(
                f"answers_as {shown(value)} is not a host name (letters, digits, '-' and '.')"
            )
        return value

    @model_validator(mode="after")
    def _transport_fits_driver(self) -> DeviceEntry:
        if self.transport is not None and self.driver not in ("eos", "nxos", "nvue"):
            raise ValueError(
                f"transport applies to the eos, nxos and nvue drivers only, not {self.driver}"
            )
        if self.ssh_port is not None and self.driver not in ("nxos", "nvue"):
            raise ValueError(
                f"ssh_port applies to the nxos and nvue drivers only, not {self.driver}"
            )
        return self


class Inventory(_Model):
    settings: Settings = Field(default_factory=Settings)
    credentials: Credentials | None = None
    devices: dict[str, DeviceEntry]

    def credentials_of(self, name: str) -> Credentials | None:
        return self.devices[name].credentials or self.credentials


class LoadedInventory:
    """The inventory and where each of its values is written."""

    def __init__(self, inventory: Inventory, source: SourceFile) -> None:
        self.inventory = inventory
        self.source = source

    def where(self, *path: str | int) -> Location:
        for end in range(len(path), -1, -1):
            found = self.source.positions.get(tuple(path[:end]))
            if found is not None:
                return found
        return Location(self.source.name, 1, 1)

    def value_at(self, *path: str | int) -> Location:
        return self.source.value_positions.get(tuple(path)) or self.where(*path)


def load_inventory(path: Path, display_name: str | None = None) -> LoadedInventory:
    """Read and validate; raise IntentError (exit 2) with every problem found."""
    name = display_name or str(path)
    if not path.is_file() and not path.is_fifo():  # a pipe: `--inventory <(...)`
        what = "is a folder, not a file" if path.is_dir() else "file not found"
        raise IntentError(
            [
                Problem(
                    Location(name, 1, 1),
                    f"inventory {what}; write one beside intent/ (see docs/push.md) "
                    "or pass --inventory FILE",
                    "missing",
                )
            ]
        )
    source, problems = read_file(path, name, single=True)
    if source is None or problems:
        raise IntentError(problems)
    if not isinstance(source.data, dict):
        raise IntentError(
            [
                Problem(
                    Location(name, 1, 1),
                    "the inventory is a mapping with settings, credentials and devices",
                    "wrong-type",
                )
            ]
        )
    try:
        inventory = Inventory.model_validate(source.data)
    except ValidationError as exc:
        raise IntentError(_problems(exc, source)) from None
    loaded = LoadedInventory(inventory, source)
    missing_credentials = [
        Problem(loaded.where("devices", device), f"{device} has no credentials", "missing-key")
        for device in inventory.devices
        if inventory.credentials_of(device) is None
    ]
    if missing_credentials:
        raise IntentError(
            [
                Problem(
                    p.location,
                    p.message + "; add credentials: {username: ..., password: secret:NAME} "
                    "at the top level or under the device",
                    p.kind,
                )
                for p in missing_credentials
            ]
        )
    shared = _shared_hosts(loaded) + _answers_as_another(loaded)
    if shared:
        raise IntentError(shared)
    return loaded


# The port each driver connects to when the inventory gives none: NAPALM 5.2's EOSDriver
# (through pyeapi: DEFAULT_HTTPS_PORT 443, DEFAULT_HTTP_PORT 80) and NXOSDriver (443 for
# https, 80 for http), IOSXRNETCONFDriver (830), IOSXRDriver and NXOSSSHDriver (SSH, 22);
# meetme's NVUE adapter (deploy/nvue_rest.py: 8765).
_DEFAULT_PORTS: dict[tuple[str, str], int] = {
    ("eos", "https"): 443,
    ("eos", "http"): 80,
    ("nxos", "https"): 443,
    ("nxos", "http"): 80,
}
_SSH_OR_OWN_PORT = {"iosxr": 22, "nxos_ssh": 22, "iosxr_netconf": 830, "nvue": 8765}
# `localhost` and names under it are the loopback addresses (RFC 6761 section 6.3): decided
# here without asking any resolver
_LOOPBACK = frozenset({"127.0.0.1", "::1"})


def default_port(entry: DeviceEntry) -> int | None:
    """The port the driver connects to: the inventory's, else the driver's default."""
    if entry.port is not None:
        return entry.port
    transport = entry.transport or "https"
    return _DEFAULT_PORTS.get((entry.driver, transport), _SSH_OR_OWN_PORT.get(entry.driver))


def _host_identities(host: str) -> frozenset[str]:
    """What a host value can reach, decided without the network: an IP literal as one
    canonical address (an IPv4-mapped IPv6 address as its IPv4 address; a zone kept),
    `localhost` (and names under .localhost) as the loopback addresses, any other name as
    itself (case and a trailing dot aside). No DNS lookup is made."""
    name = host.rstrip(".").casefold()
    address, _, zone = name.partition("%")
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        if name == "localhost" or name.endswith(".localhost"):
            return _LOOPBACK
        return frozenset({name})
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return frozenset({str(ip) + (f"%{zone}" if zone else "")})


def _shared_hosts(loaded: LoadedInventory) -> list[Problem]:
    """Two devices at one host and port: a typo that would push one device's whole config
    (hostname, loopbacks, router ID, every link address) onto the other. The driver's
    default port is filled in, and aliases of one address count as one host: `localhost` and
    127.0.0.1 or ::1, 127.0.0.1 and ::ffff:127.0.0.1 (no DNS lookup: two names that a
    resolver maps to one address are caught at push time, by the identity step)."""
    seen: list[tuple[frozenset[str], int | None, str]] = []
    problems = []
    for device, entry in loaded.inventory.devices.items():
        hosts, port = _host_identities(entry.host), default_port(entry)
        first = next((d for h, p, d in seen if p == port and h & hosts), None)
        if first is not None:
            at = f"{entry.host}" + (f" port {port}" if port else "")
            other = loaded.inventory.devices[first]
            alias = "" if other.host == entry.host else f" ({other.host})"
            problems.append(
                Problem(
                    loaded.value_at("devices", device, "host"),
                    f"{device} is at {at}, as {first} is{alias}: a push would replace one "
                    "device's config with the other's; give each device its own host or port",
                    "bad-value",
                )
            )
        seen.append((hosts, port, device))
    return problems


def _answers_as_another(loaded: LoadedInventory) -> list[Problem]:
    """An `answers_as` naming another device of the inventory: the identity step would take
    that device, answering at this one's address (swapped addresses), for a new box."""
    names = {name.casefold(): name for name in loaded.inventory.devices}
    problems = []
    for device, entry in loaded.inventory.devices.items():
        first = (entry.answers_as or "").rstrip(".")
        other = names.get(first.casefold()) or names.get(first.split(".")[0].casefold())
        if first and other is not None and other != device:
            problems.append(
                Problem(
                    loaded.value_at("devices", device, "answers_as"),
                    f"{device} answers_as {other}, another device of this inventory: a "
                    f"device answering as {other} at {device}'s address is {other} (swapped "
                    "addresses), never a new box; give the name the new box answers with",
                    "bad-value",
                )
            )
    return problems


def _problems(exc: ValidationError, source: SourceFile) -> list[Problem]:
    problems = []
    for error in exc.errors(include_url=False):
        path = _data_path(error["loc"], source.data)
        kind = error["type"]
        key_position = _nearest(path, source)
        if kind == "extra_forbidden":
            allowed = _fields_at(path[:-1], source.data)
            hint = difflib.get_close_matches(str(path[-1]), allowed, n=1)
            message = f"unknown key '{path[-1]}' in {_dotted(path[:-1])}; " + (
                f"did you mean '{hint[0]}'?" if hint else f"allowed here: {', '.join(allowed)}"
            )
            problems.append(Problem(key_position, message, "unknown-key"))
        elif kind == "missing":
            problems.append(
                Problem(
                    key_position,
                    f"{_dotted(path[:-1])} has no '{path[-1]}'; add {path[-1]}:",
                    "missing-key",
                )
            )
        else:
            where = source.value_positions.get(path, key_position)
            message = str(error["msg"]).removeprefix("Value error, ")
            problems.append(Problem(where, f"{_dotted(path)}: {message}", "bad-value"))
    return problems


def _data_path(loc: tuple[int | str, ...], data: Any) -> Path_:
    """Keep the parts of a pydantic error location that name data (drop validator tags)."""
    path: list[str | int] = []
    node = data
    for part in loc:
        if isinstance(node, dict) and part in node:
            path.append(part)
            node = node[part]
        elif isinstance(node, dict) and isinstance(part, str) and "[" not in part:
            path.append(part)
            node = None
    return tuple(path)


def _nearest(path: Path_, source: SourceFile) -> Location:
    for end in range(len(path), -1, -1):
        found = source.positions.get(tuple(path[:end]))
        if found is not None:
            return found
    return Location(source.name, 1, 1)


def _fields_at(path: Path_, data: Any) -> list[str]:
    model: type[BaseModel] = Inventory
    for part in path:
        if model is Inventory and part == "devices":
            model = DeviceEntry
            continue
        if isinstance(part, str) and model is DeviceEntry and part not in DeviceEntry.model_fields:
            continue  # a device name
        field = model.model_fields.get(str(part))
        if field is None:
            return []
        nested: dict[str, type[BaseModel]] = {"settings": Settings, "credentials": Credentials}
        inner = nested.get(str(part))
        if inner is None:
            return []
        model = inner
    return sorted(model.model_fields)


def _dotted(path: Path_) -> str:
    return ".".join(str(p) for p in path) if path else "the inventory"

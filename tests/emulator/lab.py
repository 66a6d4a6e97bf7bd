"""A throw-away lab for the deploy tests: the example intent, three EOS spines rendered into
rendered/ (one carrying a secret placeholder), an inventory pointing at three emulators; or
(build_xr_lab) the two IOS-XR borders behind NETCONF emulators."""

from __future__ import annotations

import functools
import ipaddress
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from meetme.generators.model import DeviceModel
from meetme.generators.render import output_name, render_device

from meetme.pipeline import LintResult, device_models, lint, rendered_files

from . import netconf
from .eos import EosEmulator, Faults, normalise
from .netconf import NetconfEmulator, XrFaults
from .nvue import NvFaults, NvueEmulator
from .nxapi import NxapiEmulator, NxFaults

REPO = Path(__file__).resolve().parents[2]
SPINES = ("aus1-sp1", "aus1-sp2", "aus1-sp3")
WAVES = {"aus1-sp1": 1, "aus1-sp2": 1, "aus1-sp3": 2}
USERNAME = "netops"  # a local user of the rendered configs: a replace keeps it
ADMIN_PASSWORD = "Adm1n-pw-Q7v!lab"  # secret:lab-admin, the eAPI login
BGP_KEY = "bgp-Key-zX93#p"  # secret:bgp-aus1-br1, a BGP session password in sp1's config
# The example's local users (secret:aus1-netops-hash, secret:aus1-monitor-hash): SHA-512-crypt
# hashes (`openssl passwd -6 -salt Lab0salt lab-netops-pw`, Lab1salt lab-monitor-pw; a push
# refuses anything else there); the EOS configs carry their placeholders, and a push must
# resolve them like any other secret.
USER_HASHES = {
    "aus1-netops-hash": "$6$Lab0salt$sWCxoi4s4cT7C00wXNnl/zkujOxOi9V7mAun7WtxqdRSQq4I0Ohu"
    "IvYrFgHZPjy/9D9rSrMGP.rK27iL0JPyj/",
    "aus1-monitor-hash": "$6$Lab1salt$0Ui7DGzwVeRDb9B8fJWdNu1.VMzZZaQvyB8KPo0LhBqd6Yy1ATPa"
    "SyL7rDkR/qbG.6z3nr1d/q9L2Ss1Bn/Ox.",
}


def secret_env(secrets: dict[str, str]) -> dict[str, str]:
    """The environment handing meetme the lab's login and these secrets: secret:NAME is
    MEETME_SECRET_<NAME in capitals, - as _>."""
    every = {"lab-admin": ADMIN_PASSWORD, **secrets}
    return {f"MEETME_SECRET_{n.upper().replace('-', '_')}": v for n, v in every.items()}


SECRET_ENV = secret_env({"bgp-aus1-br1": BGP_KEY, **USER_HASHES})
FAST_SETTINGS = {
    "concurrency": 4,
    "confirm_timer": 30,
    "check_timeout": 1,
    "check_interval": 0.2,
    "verify_grace": 1,
    "connect_timeout": 15,  # generous: the test machine is shared and sometimes very busy
}


@functools.cache
def example_lint() -> LintResult:
    """The example intent, linted once: every lab copies it unchanged, and linting it again
    in each `meetme plan`/`push` of the tests would only cost time (tests patch it in)."""
    return lint(REPO / "intent")


def example_models() -> dict[str, DeviceModel]:
    return device_models(example_lint())


def initial_config(model: DeviceModel) -> str:
    """What a freshly provisioned lab box runs: a name, its management address, eAPI."""
    address = model.management.interface.ipv4
    assert address is not None
    return (
        f"hostname {model.hostname}\n!\ninterface Management1\n   ip address {address.cidr}\n"
        "!\nmanagement api http-commands\n   no shutdown\n!\nend\n"
    )


@dataclass
class Lab:
    repo: Path
    models: dict[str, DeviceModel]
    emulators: dict[str, Any] = field(default_factory=dict)  # EosEmulator, NetconfEmulator
    initial: dict[str, str] = field(default_factory=dict)
    built_text: dict[str, str] = field(default_factory=dict)  # rendered/ as the lab wrote it
    driver: str = "eos"
    drivers: dict[str, str] = field(default_factory=dict)  # per device, where they differ
    waves: dict[str, int] = field(default_factory=lambda: dict(WAVES))
    secrets: dict[str, str] = field(
        default_factory=lambda: {"bgp-aus1-br1": BGP_KEY, **USER_HASHES}
    )

    def rendered(self, name: str) -> Path:
        return self.repo / "rendered" / output_name(self.models[name])

    def expected(self, name: str) -> str:
        """The running config once the rendered file, secrets resolved, is in place."""
        text = self.rendered(name).read_text()
        for secret, value in self.secrets.items():
            text = text.replace(f"<<secret:{secret}>>", value)
        return self.normalise(text, name)

    def driver_of(self, name: str | None) -> str:
        return self.drivers.get(name, self.driver) if name else self.driver

    def normalise(self, text: str, name: str | None = None) -> str:
        """A config text as the device `name` (default: the lab's platform) shows it."""
        driver = self.driver_of(name)
        if driver == "nvue":
            return json.dumps(nvue_tree(text), sort_keys=True)
        return normalise(text) if driver == "eos" else netconf.normalise(text)

    def write_inventory(
        self,
        stages: dict[str, str] | None = None,
        waves: dict[str, int] | None = None,
        settings: dict[str, Any] | None = None,
    ) -> Path:
        stages = stages or {}
        waves = {**self.waves, **(waves or {})}
        lines = [
            f"settings: {json.dumps({**FAST_SETTINGS, **(settings or {})})}",
            f"credentials: {{username: {USERNAME}, password: 'secret:lab-admin'}}",
            "devices:",
        ]
        for name, emulator in self.emulators.items():
            driver = self.driver_of(name)
            transport = "transport: http, " if driver in ("eos", "nxos", "nvue") else ""
            if driver in ("nxos", "nvue"):
                transport += f"ssh_port: {emulator.ssh_port}, "
            lines.append(
                f"  {name}: {{host: 127.0.0.1, port: {emulator.port}, {transport}"
                f"driver: {driver}, stage: {stages.get(name, 'lab')}, wave: {waves[name]}}}"
            )
        path = self.repo / "inventory.yaml"
        path.write_text("\n".join(lines) + "\n")
        return path

    def untouched(self, name: str) -> bool:
        """No request ever reached this device."""
        return self.emulators[name].commands == []

    def unchanged(self, name: str) -> bool:
        emulator = self.emulators[name]
        return (
            emulator.running_config() == self.normalise(self.initial[name], name)
            and emulator.startup_config() == self.normalise(self.initial[name], name)
            and emulator.pending_timers() == []
        )

    def stop(self) -> None:
        for emulator in self.emulators.values():
            emulator.stop()


def new_lab(root: Path, **settings: Any) -> Lab:
    """A lab on a copy of the example intent, no device in it yet."""
    repo = root / "lab"
    shutil.copytree(REPO / "intent", repo / "intent")
    return Lab(repo, example_models(), **settings)


def add_device(lab: Lab, name: str, driver: str, text: str | None = None) -> None:
    """`name` behind a started emulator of `driver`, freshly provisioned, cabled as the plan
    says (LLDP hears the far ends); rendered/ holds `text` (default: what the intent renders)."""
    model = lab.models[name]
    text = render_device(model) if text is None else text
    path = lab.rendered(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    lab.built_text[name] = text
    initial = {
        "eos": initial_config,
        "nvue": nv_initial_config,
        "nxos": nx_initial_config,
        "iosxr_netconf": xr_initial_config,
    }[driver](model)
    lab.initial[name] = initial
    emulator: Any
    if driver == "eos":
        emulator = EosEmulator(name, USERNAME, ADMIN_PASSWORD, initial, Faults())
    elif driver == "nvue":
        emulator = NvueEmulator(name, USERNAME, ADMIN_PASSWORD, nvue_tree(initial), NvFaults())
    elif driver == "nxos":
        emulator = NxapiEmulator(name, USERNAME, ADMIN_PASSWORD, initial, NxFaults())
    else:
        emulator = NetconfEmulator(name, USERNAME, ADMIN_PASSWORD, initial, XrFaults())
    emulator.cabling = {
        i.name: (i.peer.device, i.peer.interface) for i in model.interfaces if i.peer
    }
    emulator.speeds = {i.name: i.speed_gbps * 1000 for i in model.interfaces if i.speed_gbps}
    emulator.vteps = fabric_vteps(lab.models, name)
    lab.emulators[name] = emulator.start()


def _vtep_of(model: DeviceModel) -> str | None:
    if model.evpn is None or not model.evpn.vtep:
        return None
    if model.mlag is not None and model.mlag.anycast_vtep:
        return model.mlag.anycast_vtep
    return model.evpn.source_address


def fabric_vteps(models: dict[str, DeviceModel], name: str) -> set[str]:
    """What the lab's fabric announces to `name` once it runs VXLAN: the VTEP address of every
    other leaf of its site with an L2VNI in common (type-3 routes), not its own pair's."""
    model = models[name]
    own = _vtep_of(model)
    if own is None or model.evpn is None:
        return set()
    mine = {v.vni for v in model.evpn.vlans}
    heard = set()
    for other in models.values():
        address = _vtep_of(other)
        if other.site != model.site or address in (None, own) or other.evpn is None:
            continue
        if mine & {v.vni for v in other.evpn.vlans}:
            heard.add(str(address))
    return heard


def build_lab(root: Path) -> Lab:
    lab = new_lab(root)
    for name in SPINES:
        model = lab.models[name]
        text = render_device(model)  # users and eAPI included: the replace keeps both
        if name == "aus1-sp1":  # a BGP session password by reference, as edge sessions have
            peer = model.bgp.neighbors[0]
            anchor = f"   neighbor {peer.address} remote-as {peer.remote_as}\n"
            assert anchor in text
            text = text.replace(
                anchor, anchor + f"   neighbor {peer.address} password 0 <<secret:bgp-aus1-br1>>\n"
            )
        add_device(lab, name, "eos", text)
    lab.write_inventory()
    return lab


BORDERS = ("aus1-br1", "aus1-br2")
# The borders' secrets: eBGP session passwords of the example's IX, PNI and transit peers.
XR_SECRETS = {
    name: f"{name}-Pw-7q!x"
    for name in ("ix-syd-content-a", "ix-syd-eyeball-b", "ix-syd-rs", "pni-cdn")
} | {"transit-a": "trA-key-91#zz", "transit-b": "trB-key-42#yy"}
XR_SECRET_ENV = secret_env({**XR_SECRETS, **USER_HASHES})


def xr_initial_config(model: DeviceModel) -> str:
    """A freshly provisioned IOS-XR border: a name, its management address, NETCONF."""
    address = model.management.interface.ipv4
    assert address is not None
    return (
        f"hostname {model.hostname}\n!\ninterface MgmtEth0/RP0/CPU0/0\n"
        f" ipv4 address {address.ip} {ipaddress.ip_interface(address.cidr).netmask}\n!\n"
        "ssh server v2\n"
        "ssh server netconf vrf default\nnetconf-yang agent\n ssh\n!\nend\n"
    )


def build_xr_lab(root: Path) -> Lab:
    """The example's two IOS-XR borders, br1 in wave 1 and br2 in wave 2, each behind a
    NETCONF emulator; rendered/ holds exactly what the intent renders."""
    lab = new_lab(
        root,
        driver="iosxr_netconf",
        waves={"aus1-br1": 1, "aus1-br2": 2},
        secrets={**XR_SECRETS, **USER_HASHES},
    )
    for name in BORDERS:
        add_device(lab, name, "iosxr_netconf")
    lab.write_inventory()
    return lab


LEAVES = ("aus1-lf3", "aus1-lf4")
# SHA-256-crypt hashes (NX-OS `password 5` takes only these): aus1-*-hash-sha256
# (`openssl passwd -5 -salt Lab0salt lab-netops-pw`, Lab1salt lab-monitor-pw)
NX_USER_HASHES = {
    "aus1-netops-hash-sha256": "$5$Lab0salt$OABYBFmG1QSa6AlQKIlptTXMEsGLa1tnpbjob5Qmn87",
    "aus1-monitor-hash-sha256": "$5$Lab1salt$qs71uXqWlY7IsbezXGFwuyuW3xpH9Sjda8GRZANuBJ1",
}
NX_SECRET_ENV = secret_env(NX_USER_HASHES)


def nx_initial_config(model: DeviceModel) -> str:
    """A freshly provisioned NX-OS leaf: a name, its management address, NX-API, SCP."""
    address = model.management.interface.ipv4
    assert address is not None
    return (
        f"hostname {model.hostname}\ninterface mgmt0\n  vrf member management\n"
        f"  ip address {address.cidr}\nfeature nxapi\nnxapi use-vrf management\n"
        "feature scp-server\n"
    )


def build_nx_lab(root: Path, release: str = "9.2(4)") -> Lab:
    """The example's NX-OS leaves aus1-lf3 (wave 1) and aus1-lf4 (wave 2), each behind an
    NX-API and SCP emulator running `release` (default: one without configure replace's
    commit-timeout, so the checkpoint way); rendered/ holds exactly what the intent renders."""
    lab = new_lab(
        root, driver="nxos", waves={"aus1-lf3": 1, "aus1-lf4": 2}, secrets=dict(NX_USER_HASHES)
    )
    for name in LEAVES:
        add_device(lab, name, "nxos")
        lab.emulators[name].version = release
    lab.write_inventory()
    return lab


def nvue_tree(text: str) -> dict[str, Any]:
    """The config a startup.yaml sets: the `set:` trees of its entries."""
    tree: dict[str, Any] = {}
    for entry in yaml.safe_load(text) or []:
        tree.update(entry.get("set") or {})
    return tree


NV_LEAVES = ("aus1-lf1", "aus1-lf2")


def nv_initial_config(model: DeviceModel) -> str:
    """A freshly provisioned Cumulus leaf: a name, its management address, the NVUE API."""
    address = model.management.interface.ipv4
    assert address is not None
    return (
        f"- set:\n    system:\n      hostname: {model.hostname}\n      api:\n"
        "        state: enabled\n    interface:\n      eth0:\n        type: eth\n"
        f"        ipv4:\n          address:\n            '{address.cidr}': {{}}\n"
    )


def build_nv_lab(root: Path) -> Lab:
    """The example's NVUE leaves aus1-lf1 (wave 1) and aus1-lf2 (wave 2), each behind an
    NVUE REST + SSH emulator; rendered/ holds exactly what the intent renders."""
    lab = new_lab(root, driver="nvue", waves={"aus1-lf1": 1, "aus1-lf2": 2}, secrets=USER_HASHES)
    for name in NV_LEAVES:
        add_device(lab, name, "nvue")
    lab.write_inventory()
    return lab


def build_mixed_lab(root: Path) -> Lab:
    """One device of every platform of the example, each behind its own emulator, in the
    order the shipped inventory pushes them: an EOS spine (wave 1), an NVUE leaf and an
    NX-OS leaf (wave 2), an IOS-XR border (wave 3)."""
    plan = {
        "aus1-sp2": ("eos", 1),
        "aus1-lf1": ("nvue", 2),
        "aus1-lf3": ("nxos", 2),
        "aus1-br1": ("iosxr_netconf", 3),
    }
    lab = new_lab(
        root,
        waves={name: wave for name, (_, wave) in plan.items()},
        drivers={name: driver for name, (driver, _) in plan.items()},
        secrets={**XR_SECRETS, **USER_HASHES, **NX_USER_HASHES},
    )
    for name, (driver, _) in plan.items():
        add_device(lab, name, driver)
    lab.write_inventory()
    return lab


def lab_rendered_files(lab: Lab) -> Callable[[LintResult], dict[str, str]]:
    """What `meetme render` writes for the lab: the example's files, with sp1's BGP session
    password by reference (build_lab adds it, as an intent with an edge session would render
    it). The push's drift check compares rendered/ against this."""

    def files(result: LintResult) -> dict[str, str]:
        expected = dict(rendered_files(result))
        for name, text in lab.built_text.items():
            expected[output_name(lab.models[name])] = text
        return expected

    return files


def journal(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def steps(records: list[dict[str, Any]], device: str) -> list[tuple[str, str]]:
    return [(r["step"], r["status"]) for r in records if r["device"] == device]

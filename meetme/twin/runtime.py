"""Bring a twin up and down: namespaces, veth pairs, bridges and FRR daemons.

Every namespace and process is written to the state file (`STATE_ROOT/<site>/state.json`)
the moment it exists, so `down` removes exactly what `up` made, by name and by process id,
even after an `up` that failed half-way. Nothing is connected to the host's own namespace:
a twin cannot reach, or be reached from, any address outside it.
"""

from __future__ import annotations

import contextlib
import fcntl
import ipaddress
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from meetme.twin import names
from meetme.twin.topology import DciLink, Node, Twin, vrf_namespace

# the twins of the default namespace prefix; another prefix keeps its own (names._prefix)
STATE_ROOT = Path(
    "/run/meetme-twin" if names.PREFIX == "mm-" else f"/run/meetme-twin-{names.PREFIX[:-1]}"
)
FRR_DIR = Path("/usr/lib/frr")
FRR_RUN = Path("/var/run/frr")  # `-N NAME` puts a daemon's sockets in FRR_RUN/NAME (vtysh -N)
DAEMONS = ("zebra", "staticd", "bfdd", "isisd", "bgpd")  # started in this order


class TwinRefused(Exception):
    """The twin cannot run here, or a step failed; one line for the user (exit 2)."""


@dataclass
class Process:
    pid: int
    namespace: str
    daemon: str


@dataclass(frozen=True)
class Source:
    """What `up` built a twin from (meetme/twin/source.py): the intent folder, absolute, and
    the digests of its files and of meetme, "" where one could not be taken."""

    intent: str
    files: str
    meetme: str


@dataclass
class State:
    site: str
    digest: str
    namespaces: list[str] = field(default_factory=list)
    processes: list[Process] = field(default_factory=list)
    source: Source | None = None  # None: brought up by a meetme that did not record it

    @classmethod
    def load(cls, path: Path) -> State | None:
        if not path.is_file():
            return None
        raw = json.loads(path.read_text())
        source = raw.get("source")
        return cls(
            raw["site"],
            raw["digest"],
            list(raw["namespaces"]),
            [Process(**p) for p in raw["processes"]],
            Source(**source) if isinstance(source, dict) else None,
        )

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(self), indent=1))
        tmp.replace(path)


def state_dir(site: str) -> Path:
    return STATE_ROOT / site


def state_path(site: str) -> Path:
    return state_dir(site) / "state.json"


@contextlib.contextmanager
def site_lock(site: str) -> Iterator[None]:
    """One `up`, `verify` or `down` of a site's twin at a time: two at once would each record
    only their own namespaces and daemons and leave the other's running, unrecorded."""
    STATE_ROOT.mkdir(parents=True, exist_ok=True)
    with (STATE_ROOT / f".{site}.lock").open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise TwinRefused(
                f"meetme twin: another `meetme twin` command is working on the twin of {site}; "
                "run this one when it has finished"
            ) from None
        yield  # the lock goes with the file's closing, also when the process dies


def plan_path(site: str) -> Path:
    """The layout and expectations `up` built, which `verify` reads back."""
    return state_dir(site) / "twin.json"


def refusal() -> str | None:
    """Why the twin cannot run on this machine, or None."""
    if os.geteuid() != 0:
        return "meetme twin: needs root (network namespaces and FRR daemons); run it as root"
    missing = [d for d in (*DAEMONS, "vtysh") if not _frr_binary(d)]
    if missing:
        return (
            f"meetme twin: FRRouting is not installed ({', '.join(missing)} missing); "
            "install it, e.g. `apt-get install frr`"
        )
    return None


def _frr_binary(name: str) -> bool:
    if name == "vtysh":
        return shutil.which("vtysh") is not None
    return (FRR_DIR / name).is_file()


def _run(args: list[str], stdin: str | None = None) -> str:
    done = subprocess.run(args, input=stdin, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip().splitlines()
        raise TwinRefused(f"meetme twin: `{' '.join(args[:4])} ...` failed: {detail[:1]}")
    return done.stdout


def netns_list() -> set[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=False)
    return {line.split()[0] for line in out.stdout.splitlines() if line.strip()}


def alive(state: State) -> bool:
    present = netns_list()
    return all(ns in present for ns in state.namespaces) and all(_ours(p) for p in state.processes)


def _ours(process: Process) -> bool:
    """The recorded process is still that daemon in that namespace (not a reused pid)."""
    try:
        cmdline = Path(f"/proc/{process.pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return (
        bool(cmdline)
        and cmdline[0].decode(errors="replace").endswith("/" + process.daemon)
        and process.namespace.encode() in cmdline
    )


def up(twin: Twin, source: Source | None = None) -> str:
    """Bring the twin up; idempotent. Returns what it did, in one line. `source`: what the
    plan was made from, recorded for `verify` (also when the twin running is that plan's)."""
    path = state_path(twin.site)
    state = State.load(path)
    if state is not None and state.digest == twin.digest and alive(state):
        # the same routers and links: the plan's expectations and its source are this up's
        state.source = source
        state.save(path)
        plan_path(twin.site).write_text(twin.to_json())
        return f"twin {twin.site}: already up ({len(state.namespaces)} namespaces)"
    if state is not None:
        down(twin.site)
    strangers = sorted(netns_list() & set(twin.namespaces))
    if strangers:
        raise TwinRefused(
            f"meetme twin: namespace {strangers[0]} exists but meetme did not record it; "
            f"remove it (ip netns del {strangers[0]}) and run again"
        )
    state = State(twin.site, twin.digest, source=source)
    state.save(path)
    plan_path(twin.site).write_text(twin.to_json())
    started = time.monotonic()
    try:
        for ns in twin.namespaces:
            _run(["ip", "netns", "add", ns])
            state.namespaces.append(ns)
            state.save(path)
        _sysctls(twin.namespaces)  # before the links: `default` applies to new interfaces
        _links(twin)
        _start_daemons(twin, state, path)
        _configure(twin)
    except TwinRefused as exc:  # a twin half up is no twin: remove what was recorded
        down(twin.site)
        raise TwinRefused(f"{exc}; nothing was left running") from None
    took = time.monotonic() - started
    return (
        f"twin {twin.site}: up, {len(twin.nodes)} routers in {len(twin.namespaces)} "
        f"namespaces ({took:.1f} s)"
    )


def _links(twin: Twin) -> None:
    root: list[str] = []
    inside: dict[str, list[str]] = {ns: ["link set lo up"] for ns in twin.namespaces}
    for segment in twin.segments:
        ends = segment.endpoints
        if segment.bridge_namespace is None:
            a, b = ends
            root.append(
                f"link add {a.ifname} netns {twin.namespace_of(a)} type veth "
                f"peer name {b.ifname} netns {twin.namespace_of(b)}"
            )
        else:
            bridge = segment.bridge_namespace
            # a tenant network's host holds the bridge itself (its address on br0)
            inside[bridge].append("link add br0 type bridge")
            for k, end in enumerate(ends):
                root.append(
                    f"link add {end.ifname} netns {twin.namespace_of(end)} type veth "
                    f"peer name l{k} netns {bridge}"
                )
                inside[bridge].append(f"link set l{k} master br0 up")
            inside[bridge].append("link set br0 up")
        for end in ends:
            inside[twin.namespace_of(end)].append(f"link set {end.ifname} up")
    # Each L3VNI: a VXLAN device made in the device's namespace (its underlay: the VTEP
    # source), moved into the VRF's namespace, a port of a bridge there (FRR's netns VRF
    # backend takes the bridge as the VRF's L3VNI interface).
    for node in twin.nodes:
        for vrf, vni in node.l3vnis:
            vrf_ns = vrf_namespace(node.namespace, vrf)
            inside[node.namespace] += [
                f"link add vx{vni} type vxlan id {vni} dstport 4789 local {node.vtep} nolearning",
                f"link set vx{vni} netns {vrf_ns}",
            ]
            mac = f" address {node.router_mac}" if node.router_mac else ""
            inside[vrf_ns] += [
                f"link add br{vni}{mac} type bridge",
                f"link set vx{vni} master br{vni}",
                f"link set vx{vni} up",
                f"link set br{vni} up",
            ]
    for node in twin.nodes:
        for vrf, ifname, address in node.svi_addresses:
            where = vrf_namespace(node.namespace, vrf) if vrf else node.namespace
            inside[where].append(f"address add {address} dev {ifname}")
    # A host has no router: its addresses and default routes are set here.
    for node in twin.nodes:
        inside[node.namespace] += [f"address add {a} dev {i}" for i, a in node.addresses]
        inside[node.namespace] += [f"route add default via {gw}" for gw in node.gateways]
    _run(["ip", "-batch", "-"], "\n".join(root) + "\n")
    for ns, lines in inside.items():  # each device's namespace before its VRFs'
        _run(["ip", "-n", ns, "-batch", "-"], "\n".join(lines) + "\n")


def connect(links: list[DciLink]) -> int:
    """The DCI circuits between sites' twins that are up, as veth pairs (the ones missing: a
    site brought up again lost its ends with its namespaces); how many were made. Nothing is
    recorded: a veth pair goes with either namespace, so each site's `down` stays its own. The
    borders' zebra applies each port's configured addresses as the port appears."""
    present = netns_list()
    made = 0
    for link in links:
        a, b = link.a, link.b
        if a.node not in present or b.node not in present:
            raise TwinRefused(f"meetme twin: cannot cable {link.key}: a site's twin is not up")
        there = subprocess.run(
            ["ip", "-n", a.node, "link", "show", a.ifname], capture_output=True, check=False
        )
        if there.returncode == 0:
            continue
        veth = ["type", "veth", "peer", "name", b.ifname, "netns", b.node]
        _run(["ip", "link", "add", a.ifname, "netns", a.node, *veth])
        _run(["ip", "-n", a.node, "link", "set", a.ifname, "up"])
        _run(["ip", "-n", b.node, "link", "set", b.ifname, "up"])
        made += 1
    return made


# Routers forward; addresses on a point-to-point veth need no duplicate-address wait; an
# IPv6 address survives its link going down (a stopped border comes back as it was).
#
# Such a kept address is tentative while its link is down and for a moment after it comes
# back (the kernel re-runs its, here empty, DAD from a work queue), while the link's prefix
# route is already there. A connection to the peer on that link made in that moment took its
# source from a sibling link's address: bgpd, told by zebra the link is up, connects at once,
# and between two routers with two parallel links the far end files the connection under
# its neighbour on the other link. That crossed session runs for good (both ends
# Established), and the two neighbours left over are refused as collisions and stay Idle
# (CI: aus1-br2 / aus1-sp1's IPv6 underlay sessions, after verify's failover). Like a
# router, the twin takes a packet's source from the interface it leaves by; until that
# address is usable the connection fails and FRR tries again.
_SYSCTLS = (
    "net.ipv4.ip_forward=1",
    "net.ipv6.conf.all.forwarding=1",
    "net.ipv6.conf.default.forwarding=1",
    "net.ipv6.conf.default.accept_dad=0",
    "net.ipv6.conf.all.accept_dad=0",
    "net.ipv6.conf.default.keep_addr_on_down=1",
    "net.ipv6.conf.all.keep_addr_on_down=1",
    "net.ipv6.conf.default.use_oif_addrs_only=1",
    "net.ipv6.conf.all.use_oif_addrs_only=1",
)


def _sysctls(namespaces: list[str]) -> None:
    procs = [
        subprocess.Popen(
            ["ip", "netns", "exec", ns, "sysctl", "-q", "-w", *_SYSCTLS],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for ns in namespaces
    ]
    for p in procs:
        p.wait()


def _daemons(node: Node) -> list[str]:
    if node.kind == "host":
        return []
    wanted = {"staticd": node.static, "bfdd": node.bfd, "isisd": node.isis}
    return [d for d in DAEMONS if wanted.get(d, True)]


def _start_daemons(twin: Twin, state: State, path: Path) -> None:
    empty = state_dir(twin.site) / "empty.conf"
    empty.write_text("")
    for node in twin.nodes:
        if node.kind == "host":
            continue
        run_dir = FRR_RUN / node.namespace
        run_dir.mkdir(parents=True, exist_ok=True)
        shutil.chown(run_dir, "frr", "frr")
        own = state_dir(twin.site) / node.namespace
        own.mkdir(parents=True, exist_ok=True)
        (own / "frr.conf").write_text(node.config)
    for daemon in DAEMONS:  # zebra first everywhere: the others connect to it
        procs = []
        for node in twin.nodes:
            if daemon not in _daemons(node):
                continue
            pidfile = FRR_RUN / node.namespace / f"{daemon}.pid"  # written as user frr
            args = [str(FRR_DIR / daemon), "-d", "-N", node.namespace, "-i", str(pidfile)]
            args += ["-f", str(empty), "-P", "0"]
            if daemon == "bgpd":
                args += ["-F", "datacenter"]  # 3 s keepalive, 9 s hold: fast failover
            if daemon == "zebra" and node.vrfs:
                args.append("-n")  # a VRF is a network namespace (no VRF devices here)
            command = ["ip", "netns", "exec", node.namespace, *_vrf_view(twin, node), *args]
            procs.append((node, pidfile, subprocess.Popen(command, stderr=subprocess.PIPE)))
        for node, pidfile, proc in procs:
            _, errtext = proc.communicate()
            pid = _wait_pid(pidfile)
            if proc.returncode != 0 or pid is None:
                raise TwinRefused(
                    f"meetme twin: {daemon} did not start in {node.namespace}: "
                    f"{errtext.decode(errors='replace').strip()[:200]}"
                )
            state.processes.append(Process(pid, node.namespace, daemon))
        state.save(path)


# FRR's netns VRF backend knows a VRF by the name of its file in /run/netns. Each daemon of a
# device with VRFs gets a private view there (`ip netns exec` gives it its own mount
# namespace, a slave of the host's: nothing propagates back) holding exactly that device's
# VRF namespaces under their VRF names.
_VIEW = (
    'set -e; mount -t tmpfs meetme-twin "$0"; '
    'for pair in $VRFS; do : > "$0/${pair%%=*}"; mount --bind "/run/netns/${pair#*=}" '
    '"$0/${pair%%=*}"; done; mount --rbind "$0" /run/netns; exec "$@"'
)


def _vrf_view(twin: Twin, node: Node) -> list[str]:
    if not node.vrfs:
        return []
    view = state_dir(twin.site) / node.namespace / "vrfs"
    view.mkdir(parents=True, exist_ok=True)
    pairs = " ".join(f"{v}={vrf_namespace(node.namespace, v)}" for v in node.vrfs)
    return ["env", f"VRFS={pairs}", "sh", "-c", _VIEW, str(view)]


def _wait_pid(pidfile: Path, timeout: float = 10.0) -> int | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            return int(pidfile.read_text().strip())
        except (OSError, ValueError):
            time.sleep(0.05)
    return None


def _configure(twin: Twin) -> None:
    """Each router's frr.conf applied through its own vtysh, all at once."""
    procs = []
    for node in twin.nodes:
        if node.kind == "host":
            continue
        conf = state_dir(twin.site) / node.namespace / "frr.conf"
        args = ["vtysh", "-N", node.namespace, "-f", str(conf)]
        procs.append(
            (
                node,
                subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True),
            )
        )
    for node, proc in procs:
        out, _ = proc.communicate()
        if proc.returncode != 0:
            first = next((line for line in out.splitlines() if line.strip()), "")
            raise TwinRefused(f"meetme twin: {node.name}: FRR refused its config: {first}")


def vtysh_json(ns: str, command: str) -> object:
    """A show command's JSON from the router in namespace `ns` (None when it gave none)."""
    done = subprocess.run(
        ["vtysh", "-N", ns, "-c", command], capture_output=True, text=True, check=False
    )
    try:
        return json.loads(done.stdout) if done.stdout.strip() else None
    except json.JSONDecodeError:
        return None


def _ip_json(ns: str, *args: str) -> list[dict[str, Any]]:
    done = subprocess.run(
        ["ip", "-n", ns, "-j", *args], capture_output=True, text=True, check=False
    )
    try:
        value = json.loads(done.stdout) if done.returncode == 0 and done.stdout.strip() else []
    except json.JSONDecodeError:
        return []
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def unresolved_vteps(vrf_ns: str, vni: int) -> set[str]:
    """The VTEPs a VRF's kernel routes go through over the L3VNI (`via X dev brVNI onlink`)
    that have no neighbour entry there: zebra installs the remote router MAC with the route,
    so such a route blackholes its traffic."""
    bridge = f"br{vni}"
    gateways: set[str] = set()
    for family in ("-4", "-6"):
        for route in _ip_json(vrf_ns, family, "route", "show"):
            hops = route.get("nexthops") or [route]
            gateways |= {
                str(h["gateway"]) for h in hops if h.get("dev") == bridge and h.get("gateway")
            }
    known = {
        str(n["dst"]) for n in _ip_json(vrf_ns, "neigh", "show", "dev", bridge) if n.get("lladdr")
    }
    return gateways - known


def _bridge_macs(twin: Twin) -> dict[tuple[str, int], str]:
    """(VTEP, L3VNI) -> the router MAC that VTEP advertises for it: its bridge's MAC, which
    FRR sends as the type-5 and type-2 routes' Rmac extended community."""
    macs: dict[tuple[str, int], str] = {}
    for node in twin.nodes:
        for vrf, vni in node.l3vnis:
            links = _ip_json(vrf_namespace(node.namespace, vrf), "link", "show", f"br{vni}")
            if node.vtep and links and links[0].get("address"):
                macs[(node.vtep, vni)] = str(links[0]["address"])
    return macs


def repair_l3vnis(twin: Twin) -> list[str]:
    """FRR 8.4's zebra now and then installs a VRF route through a remote VTEP over the L3VNI
    without that VTEP's router MAC (BGP holds the route with its Rmac; zebra's `show evpn
    rmac vni` lacks it; traffic through that VTEP is dropped; worse on a busy machine, and
    taking the VNI down and up does not cure it). The twin installs what zebra would: the
    neighbour entry VTEP -> router MAC on the VNI's bridge and the MAC's forwarding entries
    towards the VTEP, the MAC read from the remote VTEP's own bridge (what it advertises).
    Only for a route zebra installed: a route or a Rmac BGP lacks stays missing. The L3VNIs
    found lacking, by name."""
    macs = _bridge_macs(twin)
    lacking: list[str] = []
    for node in twin.nodes:
        for vrf, vni in node.l3vnis:
            vrf_ns = vrf_namespace(node.namespace, vrf)
            missing = unresolved_vteps(vrf_ns, vni)
            if not missing:
                continue
            lacking.append(f"{node.name} {vrf} (VNI {vni})")
            # an IPv6 route's next hop is the VTEP as an IPv4-mapped address
            found = {
                g: macs[(v, vni)] for g in missing if (v := g.removeprefix("::ffff:"), vni) in macs
            }
            neighbours = {
                f"neigh replace {g} lladdr {m} dev br{vni} nud noarp" for g, m in found.items()
            }
            # the MAC behind the VXLAN device, and sent to the VTEP (an IPv4 address, also
            # when an IPv6 route found it lacking): what zebra installs with a router MAC
            forwarding = {f"fdb replace {m} dev vx{vni} master static" for m in found.values()}
            forwarding |= {
                f"fdb replace {m} dev vx{vni} dst {g.removeprefix('::ffff:')} self extern_learn"
                for g, m in found.items()
            }
            for tool, lines in (("bridge", forwarding), ("ip", neighbours)):
                if lines:
                    subprocess.run(
                        [tool, "-n", vrf_ns, "-batch", "-"],
                        input="\n".join(sorted(lines)) + "\n",
                        text=True,
                        capture_output=True,
                        check=False,
                    )
    return lacking


def pings(targets: list[tuple[str, str]], patience: float = 30.0) -> list[bool]:
    """Whether each (namespace, address) answers an ICMP echo from that namespace: one probe
    process per namespace (`meetme.twin.probe`), all at once; what did not answer is tried
    again for `patience` seconds (the first packet may wait for neighbour discovery, a busy
    machine may be slow), so only a target that never answers is reported."""
    answered: set[tuple[str, str]] = set()
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        by_ns: dict[str, list[str]] = {}
        for ns, address in targets:
            if (ns, str(ipaddress.ip_address(address))) not in answered:
                by_ns.setdefault(ns, []).append(address)
        if not by_ns:
            break
        procs = {
            ns: subprocess.Popen(
                ["ip", "netns", "exec", ns, sys.executable, "-m", "meetme.twin.probe", *addresses],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
            for ns, addresses in by_ns.items()
        }
        for ns, proc in procs.items():
            answered |= {(ns, a) for a in proc.communicate()[0].split()}
    return [(ns, str(ipaddress.ip_address(a))) in answered for ns, a in targets]


def set_links(namespaces: list[str], up_: bool, only: list[str] | None = None) -> None:
    """Every interface of a router (or `only` those) down, as if it lost power, or up again:
    give it the router's namespace and its VRF namespaces (`Twin.namespaces_of`), where its
    sub-interfaces are veth pairs of their own, since a port takes its sub-interfaces down."""
    for ns in namespaces:
        out = _run(["ip", "-n", ns, "-o", "link", "show"])
        names = [line.split(":")[1].strip().split("@")[0] for line in out.splitlines()]
        chosen = [n for n in names if n != "lo" and (only is None or n in only)]
        if chosen:
            lines = [f"link set {n} {'up' if up_ else 'down'}" for n in chosen]
            _run(["ip", "-n", ns, "-batch", "-"], "\n".join(lines) + "\n")


def down(site: str) -> str:
    """Stop every recorded process (by id) and delete every recorded namespace."""
    path = state_path(site)
    state = State.load(path)
    if state is None:
        return f"twin {site}: nothing to tear down"
    mine = [p for p in state.processes if _ours(p)]
    for p in mine:
        os.kill(p.pid, signal.SIGTERM)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(_ours(p) for p in mine):
        time.sleep(0.05)
    for p in mine:
        if _ours(p):
            os.kill(p.pid, signal.SIGKILL)
    present = netns_list()
    for ns in state.namespaces:
        if ns in present:
            _run(["ip", "netns", "del", ns])
        shutil.rmtree(FRR_RUN / ns, ignore_errors=True)
    shutil.rmtree(state_dir(site), ignore_errors=True)
    return (
        f"twin {site}: down ({len(mine)} processes stopped, "
        f"{len(state.namespaces)} namespaces removed)"
    )

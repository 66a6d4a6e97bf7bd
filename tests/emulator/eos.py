"""An Arista EOS lab device speaking eAPI: JSON-RPC 2.0 over HTTP POST /command-api.

Faithful to what NAPALM's `eos` driver (napalm/eos/eos.py, over pyeapi's http transport) sends
and reads, so the real driver runs end to end against it:

- each request is its own CLI session starting in exec mode; pyeapi prepends `enable`;
- `configure session NAME` opens a session holding a copy of the running config;
  `rollback clean-config` empties it (replace semantics), then flat lines follow, exactly as
  napalm strips them: the CLI mode tree below decides which mode each line belongs to, falling
  back to the parent mode as EOS does, and refuses what no mode accepts ("Invalid input");
- `show session-config named NAME diffs` is a unified diff running -> session;
- `configure session NAME commit timer HH:MM:SS` commits and reverts by itself unless
  `configure session NAME commit` confirms in time; `configure session NAME abort` on a
  pending timer reverts at once; `show configuration sessions [detail]` reports
  `pendingCommitTimer` with `commitBy` relative to uptime, as napalm expects;
- `copy startup-config flash:rollback-0`, `configure replace flash:rollback-0`, `write memory`;
- `show version|hostname|interfaces` and the four BGP shows behind `get_bgp_neighbors`, whose
  sessions follow the running config's `neighbor X remote-as N` lines (Established unless a
  fault holds them down).

Simplifications: the clean config is empty (no default interfaces), the running config keeps
the order lines were entered in (EOS sorts some sections), secrets are stored as given (EOS
shows them hashed or type-7 encoded).

Faults: refuse given config lines; drop the connection while committing (and stay out of reach
for a while, as a lost management path would); keep given BGP peers down; start a replace load
late (a busy device), finishing it after the client has timed out.
"""

from __future__ import annotations

import difflib
import ipaddress
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .common import Drop, LabDevice, LabHandler, drop, http_server, reply

# ---- the CLI mode tree -------------------------------------------------------------------------
# mode -> [(pattern, submode or None)]; a pattern matches the whole command in its positive form
# ("no X" is matched as X). Only what the deploy tests and the rendered EOS configs use, plus a
# few common neighbours; anything else is "Invalid input", as on a real box.
GRAMMAR: dict[str, list[tuple[str, str | None]]] = {
    "global": [
        (r"interface \S+", "interface"),
        (r"router bgp \d+(\.\d+)?", "router-bgp"),
        (r"router bfd", "router-bfd"),
        (r"ipv6 prefix-list \S+", "prefix-list"),
        (r"ip prefix-list \S+", "prefix-list"),
        (r"route-map \S+ (permit|deny) \d+", "route-map"),
        (r"vrf instance \S+", "vrf"),
        (r"management api http-commands", "mgmt-api"),
        (r"management ssh", "mgmt-ssh"),
        (r"hostname \S+", None),
        (r"service routing protocols model (multi-agent|ribd)", None),
        (r"ip routing( vrf \S+)?", None),
        (r"ipv6 unicast-routing( vrf \S+)?", None),
        (r"ipv6 route( vrf \S+)? \S+ \S+( \d+)?", None),
        (r"ip route( vrf \S+)? \S+ \S+( \d+)?", None),
        (
            r"username \S+( privilege \d+)?( role \S+)?( secret( (0|5|sha512))? \S+| nopassword)",
            None,
        ),
        (r"spanning-tree mode \S+", None),
        (r"ntp server( vrf \S+)? \S+( iburst)?", None),
        (r"logging( vrf \S+)? host \S+( \d+)?", None),
        (r"vlan \d+", "vlan"),
        (r"ip virtual-router mac-address \S+", None),
        (r"aaa authorization (exec|commands all) default local", None),
        (r"ip as-path regex-mode (string|asn)", None),
        (r"ip as-path access-list \S+ (permit|deny) .+", None),
        (r"ip (large-|ext)?community-list \S+ (permit|deny) .+", None),
        (r"router general", "router-general"),
    ],
    "router-general": [(r"vrf \S+", "general-vrf")],
    "general-vrf": [(r"leak routes source-vrf \S+ subscribe-policy \S+", None)],
    "vlan": [
        (r"name \S+", None),
    ],
    "interface": [
        (r"description .+", None),
        (r"shutdown", None),
        (r"mtu \d+", None),
        (r"switchport", None),
        (r"vrf \S+", None),
        (r"ip address \S+( secondary)?", None),
        (r"ipv6 address \S+", None),
        (r"ipv6 enable", None),
        (r"speed \S+", None),
        (r"ip address virtual \S+", None),
        (r"ipv6 address virtual \S+", None),
        (r"vxlan source-interface \S+", None),
        (r"vxlan udp-port \d+", None),
        (r"vxlan vlan \d+ vni \d+", None),
        (r"vxlan vrf \S+ vni \d+", None),
        (r"encapsulation dot1q vlan \d+", None),
        (r"(ip|ipv6) verify unicast source reachable-via (any|rx)", None),
        # an IX port's silence (templates/arista_eos/interfaces.j2, docs/standards.md#edge-ix-port)
        (r"ipv6 nd ra disabled( all)?", None),
        (r"lldp (transmit|receive)", None),
    ],
    "router-bgp": [
        (r"router-id \S+", None),
        (r"bgp .+", None),
        (r"maximum-paths \d+( ecmp \d+)?", None),
        (r"neighbor \S+ .+", None),
        (r"network \S+( route-map \S+)?", None),
        (r"timers bgp \d+ \d+", None),
        (r"address-family (ipv4|ipv6|evpn)( unicast)?", "bgp-af"),
        (r"vrf \S+", "bgp-vrf"),
        (r"vlan \d+", "bgp-vlan"),
        (r"rpki cache \S+", "rpki-cache"),
        (r"rpki origin-validation", "rpki-ov"),
    ],
    "bgp-vlan": [
        (r"rd \S+", None),
        (r"route-target (both|import|export) \S+", None),
        (r"redistribute learned", None),
    ],
    "rpki-cache": [
        (r"host \S+( port \d+)?", None),
    ],
    "rpki-ov": [
        (r"ebgp local", None),
    ],
    "bgp-af": [
        (r"neighbor \S+ .+", None),
        (r"redistribute bgp leaked", None),
        (r"network \S+( route-map \S+)?", None),
        (r"bgp .+", None),
    ],
    "bgp-vrf": [
        (r"rd \S+", None),
        (r"route-target (import|export) evpn \S+", None),
        (r"redistribute connected", None),
        (r"router-id \S+", None),
        (r"maximum-paths \d+( ecmp \d+)?", None),  # EOS VRF ECMP (docs/syntax.md#eos-vrfs)
        (r"neighbor \S+ .+", None),
        (r"network \S+( route-map \S+)?", None),
        (r"address-family (ipv4|ipv6)( unicast)?", "bgp-af"),
    ],
    "router-bfd": [
        (r"interval \d+ min-rx \d+ multiplier \d+( default)?", None),
        (r"multihop interval \d+ min-rx \d+ multiplier \d+", None),
    ],
    "prefix-list": [(r"seq \d+ (permit|deny) \S+( (eq|ge|le) \d+)*", None)],
    "route-map": [
        (r"description .+", None),
        (r"match .+", None),
        (r"set .+", None),
        (r"continue( \d+)?", None),
    ],
    "vrf": [(r"description .+", None), (r"rd \S+", None)],
    "mgmt-api": [
        (r"shutdown", None),
        (r"protocol (http|https)( port \d+)?", None),
        (r"vrf \S+", "mgmt-api-vrf"),
    ],
    "mgmt-api-vrf": [(r"shutdown", None)],
    "mgmt-ssh": [(r"shutdown", None), (r"vrf \S+", "mgmt-ssh-vrf")],
    "mgmt-ssh-vrf": [(r"shutdown", None)],
}
_COMPILED = {
    mode: [(re.compile(pattern), sub) for pattern, sub in rules] for mode, rules in GRAMMAR.items()
}
# Commands of which a mode holds one value: a new one replaces the old one.
_SINGLE_VALUED = re.compile(
    r"^(description|hostname|mtu|router-id|vrf|ip address|ipv6 address|speed|maximum-paths) "
)


class CliError(Exception):
    def __init__(self, message: str, code: int = 1002) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class Node:
    line: str
    mode: str | None = None  # the mode this node opens; None for a plain command
    children: list[Node] = field(default_factory=list)

    def copy(self) -> Node:
        return Node(self.line, self.mode, [c.copy() for c in self.children])

    def find(self, line: str) -> Node | None:
        return next((c for c in self.children if c.line == line), None)

    def lines(self, depth: int = 0) -> list[str]:
        result: list[str] = []
        for child in self.children:
            result.append("   " * depth + child.line)
            result.extend(child.lines(depth + 1))
        return result


def render(root: Node) -> str:
    out: list[str] = []
    for child in root.children:
        out.append(child.line)
        out.extend(child.lines(1))
        out.append("!")
    out.append("end")
    return "\n".join(out) + "\n"


@dataclass
class Session:
    name: str
    tree: Node
    state: str = "pending"  # pending | pendingCommitTimer | completed
    commit_by: float | None = None  # uptime seconds
    before: Node | None = None  # the running config a timer reverts to
    timer: threading.Timer | None = None


@dataclass
class Faults:
    reject: set[str] = field(default_factory=set)  # config lines refused as invalid input
    drop_on_commit: bool = False  # drop the connection after applying a commit
    unreachable_after_drop: float = 0.0  # seconds of refused connections after the drop
    bgp_down: set[str] = field(default_factory=set)  # peers held in Active
    # a busy device: the next request holding `rollback clean-config` (a replace load) waits
    # this long before the device starts on it, then runs to the end whatever the client did
    slow_load: float = 0.0
    link_down: set[str] = field(default_factory=set)  # ports without carrier (no LLDP either)
    # port -> (device, port) heard instead of the cabled far end: a cable in the wrong port
    miscabled: dict[str, tuple[str, str]] = field(default_factory=dict)
    wrong_speed: dict[str, int] = field(default_factory=dict)  # port -> Mbit/s it runs at
    missing_vtep: set[str] = field(default_factory=set)  # remote VTEPs never heard of
    # called with each request's commands before the device runs them, in the request's
    # thread: a test's hook to act at a given step (^C while the commit is on its way)
    on_request: Callable[[list[str]], None] | None = None


class _Cli:
    """One eAPI request: its own CLI session, starting in exec mode."""

    def __init__(self) -> None:
        self.stack: list[Node] = []  # config-mode path; empty in exec mode
        self.session: str | None = None  # the config session being edited, if any


class EosEmulator(LabDevice):
    def __init__(
        self,
        hostname: str,
        username: str,
        password: str,
        config: str = "",
        faults: Faults | None = None,
    ) -> None:
        super().__init__(hostname, username, password)
        self.faults = faults or Faults()
        self.started = time.monotonic()
        self.booted = time.time()
        self.running = parse(config)
        self.startup = self.running.copy()
        self.flash: dict[str, Node] = {}
        self.sessions: dict[str, Session] = {}
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ---- test-facing ----------------------------------------------------------------------

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.server_address[1])

    def running_config(self) -> str:
        with self.lock:
            return render(self.running)

    def startup_config(self) -> str:
        with self.lock:
            return render(self.startup)

    def pending_timers(self) -> list[str]:
        with self.lock:
            return [s.name for s in self.sessions.values() if s.state == "pendingCommitTimer"]

    def start(self) -> EosEmulator:
        self._server = http_server(self, _handler(self))
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        with self.lock:
            for session in self.sessions.values():
                if session.timer is not None:
                    session.timer.cancel()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> EosEmulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---- eAPI --------------------------------------------------------------------------------

    def run_cmds(self, commands: list[Any], fmt: str) -> dict[str, Any]:
        """The JSON-RPC result or error object for one runCmds request."""
        cli = _Cli()
        results: list[dict[str, Any]] = []
        texts = [(c["cmd"] if isinstance(c, dict) else str(c)).strip() for c in commands]
        if self.faults.on_request is not None:
            self.faults.on_request(texts)
        if self.faults.slow_load and "rollback clean-config" in texts:
            delay, self.faults.slow_load = self.faults.slow_load, 0.0  # one shot
            time.sleep(delay)  # outside the lock: other requests are served meanwhile
        with self.lock:
            for index, command in enumerate(commands):
                text = (command["cmd"] if isinstance(command, dict) else str(command)).strip()
                self.commands.append(text)
                try:
                    results.append(self._execute(cli, text, fmt))
                except CliError as exc:
                    failed = {"errors": [str(exc)]}
                    reason = "invalid command" if exc.code == 1002 else "could not run command"
                    return {
                        "error": {
                            "code": exc.code,
                            "message": f"CLI command {index + 1} of {len(commands)} "
                            f"'{text}' failed: {reason}",
                            "data": [*results, failed],
                        }
                    }
            # a request that ends inside a session leaves it pending, as EOS does
        return {"result": results}

    def _execute(self, cli: _Cli, text: str, fmt: str) -> dict[str, Any]:
        if cli.stack:
            return self._config_mode(cli, text, fmt)
        if text in ("enable", ""):
            return {}
        if text in ("configure", "configure terminal"):
            cli.stack, cli.session = [self.running], None
            return {}
        if match := re.fullmatch(r"configure session (\S+) commit timer (\d+):(\d\d):(\d\d)", text):
            hours, minutes, seconds = (int(x) for x in match.group(2, 3, 4))
            self._commit(match.group(1), hours * 3600 + minutes * 60 + seconds)
            return self._empty(fmt)
        if match := re.fullmatch(r"configure session (\S+) commit", text):
            self._commit(match.group(1), None)
            return self._empty(fmt)
        if match := re.fullmatch(r"configure session (\S+) abort", text):
            self._abort(match.group(1))
            return self._empty(fmt)
        if match := re.fullmatch(r"configure session (\S+)", text):
            self._enter_session(cli, match.group(1))
            return self._empty(fmt)
        if match := re.fullmatch(r"copy startup-config flash:(\S+)", text):
            self.flash[match.group(1)] = self.startup.copy()
            return self._empty(fmt)
        if text in ("write memory", "write", "copy running-config startup-config"):
            self.startup = self.running.copy()
            return (
                self._empty(fmt) if fmt == "json" else {"output": "Copy completed successfully.\n"}
            )
        if match := re.fullmatch(r"configure replace flash:(\S+)", text):
            saved = self.flash.get(match.group(1))
            if saved is None:
                raise CliError(f"Error opening flash:{match.group(1)} (No such file)", 1000)
            self.running = saved.copy()
            self.events.append(f"replace from flash:{match.group(1)}")
            return self._empty(fmt)
        if text.startswith("show "):
            return self._show(text[5:], fmt)
        raise CliError(f"Invalid input (at token 0: '{text.split()[0]}')")

    @staticmethod
    def _empty(fmt: str) -> dict[str, Any]:
        return {} if fmt == "json" else {"output": ""}

    # ---- configuration -----------------------------------------------------------------------

    def _config_mode(self, cli: _Cli, text: str, fmt: str) -> dict[str, Any]:
        if text == "end":
            cli.stack = []
            return self._empty(fmt)
        if text == "exit":
            cli.stack.pop()
            return self._empty(fmt)
        if text == "abort" and cli.session is not None:
            self._abort(cli.session)
            cli.stack = []
            return self._empty(fmt)
        if text == "rollback clean-config" and cli.session is not None:
            session = self.sessions[cli.session]
            session.tree = Node("")
            cli.stack = [session.tree]
            return self._empty(fmt)
        if text in self.faults.reject:
            raise CliError(f"Invalid input (at token 1: '{text.split()[-1]}')")
        apply_line(cli.stack, text)
        return self._empty(fmt)

    # ---- sessions ----------------------------------------------------------------------------

    def _enter_session(self, cli: _Cli, name: str) -> None:
        session = self.sessions.get(name)
        if session is None:
            session = self.sessions[name] = Session(name, self.running.copy())
        elif session.state != "pending":
            raise CliError(f"Cannot enter session {name} (state {session.state})", 1000)
        cli.stack, cli.session = [session.tree], name

    def _commit(self, name: str, timer: int | None) -> None:
        session = self.sessions.get(name)
        if session is None:
            raise CliError(f"Session {name} not found", 1000)
        others = [s.name for s in self.sessions.values() if s.state == "pendingCommitTimer"]
        if session.state == "pendingCommitTimer" and timer is None:  # the confirm
            if session.timer is not None:
                session.timer.cancel()
            session.state, session.before, session.commit_by = "completed", None, None
            self.events.append(f"confirm {name}")
        elif session.state == "pending":
            if [o for o in others if o != name]:
                raise CliError(f"Another session {others[0]} is pending commit timer", 1000)
            if timer is not None:
                session.before = self.running.copy()
                session.state = "pendingCommitTimer"
                session.commit_by = self._uptime() + timer
                session.timer = threading.Timer(timer, self._expire, args=(name,))
                session.timer.daemon = True
                session.timer.start()
                self.events.append(f"commit {name} timer {timer}")
            else:
                session.state = "completed"
                self.events.append(f"commit {name}")
            self.running = session.tree.copy()
        else:
            raise CliError(f"Cannot commit session {name} (state {session.state})", 1000)
        if self.faults.drop_on_commit:  # one shot: the path comes back after the outage
            self.faults.drop_on_commit = False
            drop(self, self.faults.unreachable_after_drop)

    def _abort(self, name: str) -> None:
        session = self.sessions.get(name)
        if session is None or session.state == "completed":
            raise CliError(f"Cannot abort session {name}", 1000)
        if session.state == "pendingCommitTimer":
            if session.timer is not None:
                session.timer.cancel()
            assert session.before is not None
            self.running = session.before
            self.events.append(f"abort {name} (reverted)")
        else:
            self.events.append(f"abort {name}")
        del self.sessions[name]

    def _expire(self, name: str) -> None:
        with self.lock:
            session = self.sessions.get(name)
            if session is None or session.state != "pendingCommitTimer":
                return
            assert session.before is not None
            self.running = session.before
            del self.sessions[name]
            self.events.append(f"timer revert {name}")

    def _uptime(self) -> float:
        return time.monotonic() - self.started

    # ---- show commands -----------------------------------------------------------------------

    def _show(self, what: str, fmt: str) -> dict[str, Any]:
        text_shows = {
            "running-config": lambda: render(self.running),
            "startup-config": lambda: render(self.startup),
        }
        if match := re.fullmatch(r"session-config named (\S+) diffs", what):
            session = self.sessions.get(match.group(1))
            if session is None:
                raise CliError(f"Session {match.group(1)} not found", 1000)
            diff = difflib.unified_diff(
                render(self.running).splitlines(),
                render(session.tree).splitlines(),
                "system:/running-config",
                f"session:/{session.name}-session-config",
                lineterm="",
            )
            text_shows[what] = lambda: "\n".join(diff) + "\n"
        if what in text_shows:
            if fmt == "json":
                raise CliError("This is an unconverted command", 1003)
            return {"output": text_shows[what]()}
        data = self._show_json(what)
        if fmt == "json":
            return data
        return {"output": json.dumps(data, indent=2)}

    def _show_json(self, what: str) -> dict[str, Any]:
        if what == "version":
            return {
                "modelName": "vEOS-lab",
                "internalVersion": "4.31.2F-33990000.4312F",
                "version": "4.31.2F",
                "serialNumber": f"EMU{self.hostname.upper()}",
                "systemMacAddress": "00:1c:73:00:00:01",
                "architecture": "x86_64",
                "uptime": self._uptime(),
                "bootupTimestamp": self.booted,
                "memTotal": 2014904,
                "memFree": 1024000,
                "isIntlVersion": False,
            }
        if what == "hostname":
            name = next(
                (
                    c.line.split()[1]
                    for c in self.running.children
                    if c.line.startswith("hostname ")
                ),
                "localhost",
            )
            return {"hostname": name, "fqdn": name}
        if what == "interfaces":
            return {"interfaces": self._interfaces()}
        if what == "lldp neighbors":
            return {"lldpNeighbors": self._lldp()}
        if what == "vxlan vtep":  # the remote VTEPs, once the config has a VXLAN interface
            vxlan = [
                c.line.split()[1]
                for c in self.running.children
                if c.mode == "interface" and c.line.startswith("interface Vxlan")
            ]
            heard = self.remote_vteps(self.faults.missing_vtep)
            return {"interfaces": {name: {"vteps": heard} for name in vxlan}}
        if what in ("configuration sessions", "configuration sessions detail"):
            sessions = {}
            for s in self.sessions.values():
                entry: dict[str, Any] = {"state": s.state, "description": "", "instances": {}}
                if s.commit_by is not None and what.endswith("detail"):
                    entry["commitBy"] = s.commit_by
                sessions[s.name] = entry
            return {"sessions": sessions, "maxSavedSessions": 1, "maxOpenSessions": 5}
        if what == "ip bgp summary vrf all":
            return self._bgp_summary("ipv4")
        if what == "ipv6 bgp summary vrf all":
            return self._bgp_summary("ipv6")
        if what == "ip bgp neighbors vrf all":
            return self._bgp_peers("ipv4")
        if what == "ipv6 bgp peers vrf all":
            return self._bgp_peers("ipv6")
        raise CliError(f"Invalid input (at token 1: '{what.split()[0]}')")

    def _interfaces(self) -> dict[str, Any]:
        interfaces = {}
        for node in self.running.children:
            if node.mode != "interface":
                continue
            name = node.line.split()[1]
            lines = [c.line for c in node.children]
            shut = "shutdown" in lines
            carrier = name not in self.faults.link_down
            description = next((x[12:] for x in lines if x.startswith("description ")), "")
            mtu = next((int(x.split()[1]) for x in lines if x.startswith("mtu ")), 1500)
            interfaces[name] = {
                "name": name,
                "lineProtocolStatus": "up" if carrier and not shut else "down",
                "interfaceStatus": "disabled" if shut else "connected" if carrier else "notconnect",
                "description": description,
                "mtu": mtu,
                "bandwidth": 0  # bit/s: napalm's `speed` is bandwidth * 1e-6
                if name.startswith(("Loopback", "Vxlan"))
                else self.speed_of(name, self.faults.wrong_speed) * 1_000_000,
                "physicalAddress": "00:1c:73:00:00:01",
                "hardware": "loopback" if name.startswith("Loopback") else "ethernet",
                "lastStatusChangeTimestamp": self.booted,
                "interfaceCounters": {},
            }
        return interfaces

    def _lldp(self) -> list[dict[str, Any]]:
        """`show lldp neighbors`: the far end of each configured, up port with a cable."""
        up = {
            name for name, data in self._interfaces().items() if data["lineProtocolStatus"] == "up"
        }
        heard = []
        for port, far in {**self.cabling, **self.faults.miscabled}.items():
            if port in up:
                heard.append(
                    {"port": port, "neighborDevice": far[0], "neighborPort": far[1], "ttl": 120}
                )
        return heard

    def _bgp(self) -> tuple[str, str, list[tuple[str, str, str]]] | None:
        """(local AS, router id, [(peer, remote AS, description)]) from the running config."""
        router = next((c for c in self.running.children if c.mode == "router-bgp"), None)
        if router is None:
            return None
        asn = router.line.split()[2]
        router_id = next(
            (c.line.split()[1] for c in router.children if c.line.startswith("router-id ")),
            "0.0.0.0",
        )
        peers: dict[str, list[str]] = {}
        descriptions: dict[str, str] = {}
        for child in router.children:
            if m := re.fullmatch(r"neighbor (\S+) remote-as (\S+)", child.line):
                peers[m.group(1)] = [m.group(2)]
            elif m := re.fullmatch(r"neighbor (\S+) description (.+)", child.line):
                descriptions[m.group(1)] = m.group(2)
        listed = [(_norm(p), v[0], descriptions.get(p, "")) for p, v in peers.items()]
        return asn, router_id, listed

    def _state(self, peer: str) -> str:
        down = {_norm(p) for p in self.faults.bgp_down}
        return "Active" if peer in down else "Established"

    def _bgp_summary(self, afi: str) -> dict[str, Any]:
        bgp = self._bgp()
        if bgp is None:
            return {"vrfs": {}}
        asn, router_id, peers = bgp
        listed = {}
        for peer, remote_as, _ in peers:
            if _afi(peer) != afi:
                continue
            state = self._state(peer)
            listed[peer] = {
                "version": 4,
                "msgReceived": 10,
                "msgSent": 10,
                "inMsgQueue": 0,
                "outMsgQueue": 0,
                "asn": remote_as,
                "prefixAccepted": 1 if state == "Established" else 0,
                "prefixReceived": 1 if state == "Established" else 0,
                "upDownTime": self.booted,
                "underMaintenance": False,
                "peerState": state,
            }
        summary = {"vrf": "default", "routerId": router_id, "asn": asn, "peers": listed}
        return {"vrfs": {"default": summary}}

    def _bgp_peers(self, afi: str) -> dict[str, Any]:
        bgp = self._bgp()
        if bgp is None:
            return {"vrfs": {}}
        asn, router_id, peers = bgp
        listed = []
        for peer, remote_as, description in peers:
            if _afi(peer) != afi:
                continue
            up = self._state(peer) == "Established"
            entry: dict[str, Any] = {
                "peerAddress": peer,
                "asn": remote_as,
                "routerId": "192.0.2.1" if up else "0.0.0.0",
                "vrf": "default",
                "state": self._state(peer),
                "localAsn": asn,
                "localRouterId": router_id,
                "prefixesReceived": 1 if up else 0,
                "prefixesSent": 1 if up else 0,
                "v6PrefixesReceived": 0,
                "v6PrefixesSent": 0,
            }
            if description:
                entry["description"] = description
            if up:
                entry["establishedTime"] = 60
            listed.append(entry)
        return {"vrfs": {"default": {"peerList": listed}}}


def apply_line(stack: list[Node], text: str) -> None:
    """One flat config line, as napalm sends it: the innermost mode of the stack that accepts
    it takes it (entering a submode when it opens one), as the EOS parser falls back to parent
    modes; no mode accepting it is "Invalid input"."""
    if text == "exit":  # back to the parent mode, as EOS leaves a submode
        del stack[max(1, len(stack) - 1) :]
        return
    negated = text.startswith(("no ", "default "))
    positive = text.split(" ", 1)[1] if negated else text
    for depth in range(len(stack) - 1, -1, -1):
        parent = stack[depth]
        for pattern, submode in _COMPILED[parent.mode or "global"]:
            if not pattern.fullmatch(positive):
                continue
            del stack[depth + 1 :]
            if submode is not None:
                existing = parent.find(positive)
                if negated:
                    if existing is not None:
                        parent.children.remove(existing)
                    return
                if existing is None:
                    existing = Node(positive, submode)
                    parent.children.append(existing)
                stack.append(existing)
                return
            _set_leaf(parent, positive, text.startswith("no "))
            return
    raise CliError(f"Invalid input (at token 0: '{text.split()[0]}')")


def _set_leaf(parent: Node, positive: str, negated: bool) -> None:
    parent.children = [c for c in parent.children if c.line not in (positive, f"no {positive}")]
    key = _key(positive)
    if not negated and key is not None:
        parent.children = [c for c in parent.children if _key(c.line) != key]
    parent.children.append(Node(f"no {positive}" if negated else positive))


def parse(text: str) -> Node:
    """A config text (running-config style, indented or flat) as the device would hold it."""
    root = Node("")
    stack = [root]
    for raw in text.splitlines():
        line = raw.strip()
        if line and not line.startswith("!") and line != "end":
            apply_line(stack, line)
    return root


def normalise(text: str) -> str:
    """The running config the device shows after this text is loaded as a replace."""
    return render(parse(text))


def _key(line: str) -> str | None:
    """What a command sets, when setting it again replaces the old value."""
    if match := _SINGLE_VALUED.match(line):
        return match.group(1)
    words = line.split()
    if words[0] == "neighbor" and len(words) >= 3:
        if words[2] == "route-map" and len(words) >= 5:
            return f"neighbor {words[1]} route-map {words[-1]}"
        return " ".join(words[:3])
    if words[0] == "seq" and len(words) >= 2:
        return " ".join(words[:2])
    return None


def _norm(address: str) -> str:
    try:
        return str(ipaddress.ip_address(address))
    except ValueError:
        return address


def _afi(address: str) -> str:
    try:
        return "ipv6" if ipaddress.ip_address(address).version == 6 else "ipv4"
    except ValueError:
        return "ipv4"


def _handler(device: EosEmulator) -> type[BaseHTTPRequestHandler]:
    class Handler(LabHandler):
        def do_POST(self) -> None:
            if self.path != "/command-api":
                self._reply(404, {"error": "not found"})
                return
            if not self.authorised(device, b'{"error": "Unauthorized"}', reason="Unauthorized"):
                return
            request = self.json_body(b"{}")
            params = request.get("params", {})
            try:
                outcome = device.run_cmds(
                    list(params.get("cmds", [])), params.get("format", "json")
                )
            except Drop:
                self.hang_up()
                return
            self._reply(200, {"jsonrpc": "2.0", "id": request.get("id"), **outcome})

        def _reply(self, status: int, body: dict[str, Any], reason: str | None = None) -> None:
            reply(self, status, json.dumps(body).encode(), reason=reason)

    return Handler

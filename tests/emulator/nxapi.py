"""A Cisco NX-OS lab switch: NX-API (JSON-RPC 2.0 over HTTP POST /ins) and an SCP server.

Faithful to what NAPALM's `nxos` driver (napalm/nxapi_plumbing, RPCClient) sends and reads,
and to meetme's checkpoint adapter (deploy/nxos_checkpoint.py) on top of it:

- JSON-RPC batches of {"method": "cli" | "cli_ascii", "params": {"cmd": ...}}; a command
  that fails is an error object with data.msg, and the commands after it are not run;
- an SSH server (paramiko) accepting `scp -t bootflash:NAME`: the candidate file lands on
  bootflash:, as `feature scp-server` allows;
- `checkpoint NAME`, `no checkpoint NAME`, `checkpoint file NAME` (a file holding the running
  config), `show diff rollback-patch file A file B` (the patch as commands, after
  "Generating Rollback Patch"), `rollback running-config file F` and `rollback running-config
  checkpoint NAME` (atomic: a line the switch refuses leaves the running config as it was),
  `copy running-config startup-config`, `delete bootflash:F no-prompt`, `dir bootflash:`
  (text: size, date, time, name per file), `terminal dont-ask`;
- `show hostname` (the running config's `hostname`), `show interface`, `show bgp all
  summary vrf all` and `show lldp neighbors detail` (text, as NAPALM's TextFSM template
  reads it), from the running config: every configured neighbour Established, every
  interface up, LLDP hearing the lab's cabling.

- `show version` (`nxos_ver_str`, the release the emulator plays: 10.3(4a) unless told);
- from 9.3(1) on, `configure replace bootflash:F commit-timeout N` (atomic like the rollback;
  then a timer that restores the config before it unless `configure replace commit` comes
  within N s, 30 to 3600) — Cisco Nexus 9000 NX-OS System Management Configuration Guide,
  "Performing Configuration Replace"; an older release refuses the command.

Faults: refuse given lines; drop the connection during the commit (after the replace took
effect) or during the confirm (before or after `configure replace commit`, or the save when
no timer runs), then refuse connections for a
while; BGP peers down, ports without carrier, a cable in the wrong port; a malformed JSON
answer to one command; a slow replace; an SCP copy stored, its last acknowledgement lost.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any, NoReturn

import paramiko

from .common import (
    Drop,
    ExecServer,
    HttpAndSshDevice,
    LabFaults,
    LabHandler,
    drop,
    reply,
    serve_ssh,
)
from .netconf import _blocks, lines_of


def normalise(text: str) -> str:
    return "\n".join(lines_of(text)) + "\n"


class CommandError(Exception):
    pass


@dataclass
class NxFaults(LabFaults):
    # the commit is the replace, the confirm the save; `malformed` is a command prefix
    slow_replace: float = 0.0  # a replace from file waits this long first (one shot)
    # the switch stores a file copied over SCP, then the connection closes before its last
    # acknowledgement (one shot): the client's copy fails, the file is on bootflash:
    lose_scp_ack: bool = False


class NxapiEmulator(HttpAndSshDevice):
    def __init__(
        self,
        hostname: str,
        username: str,
        password: str,
        config: str = "",
        faults: NxFaults | None = None,
    ) -> None:
        super().__init__(hostname, username, password)
        self.faults = faults or NxFaults()
        self.running = lines_of(config)
        self.startup = list(self.running)
        self.files: dict[str, list[str]] = {}  # bootflash:
        self.raw_files: dict[str, str] = {}  # as received over SCP
        self.checkpoints: dict[str, list[str]] = {}
        self.version = "10.3(4a)"  # `show version`: 9.3(1) and later have commit-timeout
        # a configure replace awaiting `configure replace commit`: (config before, its timer)
        self.commit_timer: tuple[list[str], threading.Timer] | None = None

    # ---- test-facing ----------------------------------------------------------------------

    def running_config(self) -> str:
        with self.lock:
            return "\n".join(self.running) + "\n"

    def startup_config(self) -> str:
        with self.lock:
            return "\n".join(self.startup) + "\n"

    def pending_timers(self) -> list[str]:
        with self.lock:
            return ["configure replace commit-timeout"] if self.commit_timer else []

    def start(self) -> NxapiEmulator:
        self.serve(_handler(self), self._scp)
        return self

    def cancel_timers(self) -> None:
        if self.commit_timer is not None:
            self.commit_timer[1].cancel()

    # ---- SCP over SSH -----------------------------------------------------------------------

    def _scp(self, client: socket.socket) -> None:
        server = ExecServer(self.username, self.password, r"scp -t \S+")

        def receive(channel: paramiko.Channel) -> None:
            channel.sendall(b"\0")
            header = b""
            while not header.endswith(b"\n"):
                chunk = channel.recv(1)
                if not chunk:
                    return
                header += chunk
            mode, size, _ = header.decode().strip().split(" ", 2)
            assert mode.startswith("C")
            channel.sendall(b"\0")
            data = b""
            while len(data) < int(size) + 1:  # the file, then a NUL
                chunk = channel.recv(65536)
                if not chunk:
                    return
                data += chunk
            text = data[: int(size)].decode()
            with self.lock:
                name = _file(server.command.split()[2])
                self.raw_files[name] = text
                self.files[name] = lines_of(text)
                self.events.append(f"scp {name}")
                lost, self.faults.lose_scp_ack = self.faults.lose_scp_ack, False
            if lost:
                return  # serve_ssh closes the transport: no acknowledgement, no exit status
            channel.sendall(b"\0")
            channel.send_exit_status(0)
            channel.close()

        serve_ssh(client, server, server.ready, receive)

    # ---- NX-API -------------------------------------------------------------------------------

    def batch(self, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        replies: list[dict[str, Any]] = []
        for request in requests:
            command = str(request.get("params", {}).get("cmd", "")).strip()
            raw = request.get("method") == "cli_ascii"
            with self.lock:
                self.commands.append(command)
            if self.faults.malformed and command.startswith(self.faults.malformed):
                raise _Malformed
            try:
                result = self._run(command, raw)
            except CommandError as exc:
                replies.append(
                    {
                        "jsonrpc": "2.0",
                        "error": {
                            "code": -32602,
                            "message": "Invalid params",
                            "data": {"msg": str(exc)},
                        },
                        "id": request.get("id"),
                    }
                )
                break  # NX-API runs no command after a failed one
            replies.append({"jsonrpc": "2.0", "result": result, "id": request.get("id")})
        return replies

    def _run(self, command: str, raw: bool) -> dict[str, Any] | None:
        replace = command.startswith(("rollback running-config file ", "configure replace bootf"))
        if replace and self.faults.slow_replace:
            delay, self.faults.slow_replace = self.faults.slow_replace, 0.0
            time.sleep(delay)  # outside the lock: the switch answers other requests
        with self.lock:
            return self._execute(command, raw)

    def _execute(self, command: str, raw: bool) -> dict[str, Any] | None:
        if command in ("terminal dont-ask", "no terminal dont-ask"):
            return None
        if command == "show hostname":  # the configured name (NX-API CLI reference 9.2(x))
            return {"body": {"hostname": self._configured_name()}}
        if command == "show version":
            return {"body": {"nxos_ver_str": self.version, "host_name": self._configured_name()}}
        if match := re.fullmatch(r"configure replace (\S+) commit-timeout (\d+)", command):
            return self._replace_with_timer(match.group(1), int(match.group(2)), raw)
        if command == "configure replace commit":
            return self._commit_replace(raw)
        if match := re.fullmatch(r"checkpoint file (\S+)", command):
            self.files[_file(match.group(1))] = list(self.running)
            return _msg("Done\n", raw)
        if match := re.fullmatch(r"no checkpoint (\S+)", command):
            if self.checkpoints.pop(match.group(1), None) is None:
                raise CommandError(f"Checkpoint {match.group(1)} does not exist\n")
            self.events.append(f"clear checkpoint {match.group(1)}")
            return _msg("Done\n", raw)
        if match := re.fullmatch(r"checkpoint (\S+)", command):
            name = match.group(1)
            if name in self.checkpoints:
                raise CommandError(f"Checkpoint name {name} already exists\n")
            self.checkpoints[name] = list(self.running)
            self.events.append(f"checkpoint {name}")
            return _msg("Done\n", raw)
        if match := re.fullmatch(r"show diff rollback-patch file (\S+) file (\S+)", command):
            old, new = (self._read(f) for f in match.group(1, 2))
            patch = _patch(old, new) or ["Rollback Patch is Empty"]
            text = "Collecting Running-Config\n#Generating Rollback Patch\n" + "\n".join(patch)
            return _msg(text + "\n", True)
        if match := re.fullmatch(r"rollback running-config file (\S+)", command):
            self._replace(self._read(match.group(1)), f"file {_file(match.group(1))}")
            if self.faults.drop_on_commit:
                self.faults.drop_on_commit = False
                self._drop()
            return _msg("Rollback completed successfully.\n", raw)
        if match := re.fullmatch(r"rollback running-config checkpoint (\S+)", command):
            saved = self.checkpoints.get(match.group(1))
            if saved is None:
                raise CommandError(f"Checkpoint {match.group(1)} does not exist\n")
            self._replace(saved, f"checkpoint {match.group(1)}")
            return _msg("Rollback completed successfully.\n", raw)
        if command in ("copy run startup-config", "copy running-config startup-config"):
            if self.faults.drop_on_confirm == "before":
                self.faults.drop_on_confirm = ""
                self._drop()
            self.startup = list(self.running)
            self.events.append("save")
            if self.faults.drop_on_confirm == "after":
                self.faults.drop_on_confirm = ""
                self._drop()
            return _msg("Copy complete.\n", raw)
        if match := re.fullmatch(r"delete (\S+)( no-prompt)?", command):
            name = _file(match.group(1))
            if name not in self.files and name not in self.raw_files:
                raise CommandError("No such file or directory\n")
            self.files.pop(name, None)
            self.raw_files.pop(name, None)
            return _msg("", raw)
        if command in ("dir", "dir bootflash:"):
            return _msg(self._dir(), True)
        if command == "show interface":
            return {"body": self._interfaces()}
        if command == "show bgp all summary vrf all":
            return {"body": self._bgp()}
        if command == "show nve peers":
            return {"body": self._nve_peers()}
        if command == "show lldp neighbors detail":
            return _msg(self._lldp(), True)
        raise CommandError("% Invalid command\n")

    def _dir(self) -> str:
        """`dir bootflash:` as NX-OS prints it (the layout NAPALM's nxos driver quotes): one
        line per file, size, date, time, name; then the usage of the file system."""
        names = sorted(set(self.files) | set(self.raw_files))
        lines = []
        for name in names:
            size = len(self.raw_files.get(name) or "\n".join(self.files.get(name, [])))
            lines.append(f"{size:>12}    Dec 04 04:00:00 2026  {name}")
        used = 6211682304
        return (
            "\n".join(lines)
            + "\n\nUsage for bootflash://sup-local\n"
            + f"{used} bytes used\n{116526366720 - used} bytes free\n116526366720 bytes total\n"
        )

    def _configured_name(self) -> str:
        """The running config's `hostname` (a switch without one is called switch)."""
        return next(
            (x.split()[1] for x in self.running if re.fullmatch(r"hostname \S+", x.strip())),
            "switch",
        )

    def _replace_with_timer(self, name: str, seconds: int, raw: bool) -> dict[str, Any] | None:
        major, minor = (int(x) for x in re.findall(r"\d+", self.version)[:2])
        if (major, minor) < (9, 3):
            raise CommandError("% Invalid command at '^' marker.\n")
        if not 30 <= seconds <= 3600:
            raise CommandError("% Invalid range at '^' marker.\n")
        if self.commit_timer is not None:
            raise CommandError("Configure replace is in progress: commit or wait\n")
        before = list(self.running)
        self._replace(self._read(name), f"file {_file(name)} commit-timeout {seconds}")
        timer = threading.Timer(seconds, self._expire)
        timer.daemon = True
        self.commit_timer = (before, timer)
        timer.start()
        if self.faults.drop_on_commit:
            self.faults.drop_on_commit = False
            self._drop()
        return _msg("Configure replace completed successfully.\n", raw)

    def _commit_replace(self, raw: bool) -> dict[str, Any] | None:
        if self.commit_timer is None:
            raise CommandError("No configure replace is waiting for its commit\n")
        if self.faults.drop_on_confirm == "before":
            self.faults.drop_on_confirm = ""
            self._drop()
        self.commit_timer[1].cancel()
        self.commit_timer = None
        self.events.append("configure replace commit")
        if self.faults.drop_on_confirm == "after":
            self.faults.drop_on_confirm = ""
            self._drop()
        return _msg("Configure replace committed.\n", raw)

    def _expire(self) -> None:
        """The commit timer ran out: the switch restores the config before the replace."""
        with self.lock:
            if self.commit_timer is None:
                return
            self.running = self.commit_timer[0]
            self.commit_timer = None
            self.events.append("revert: commit-timeout expired")

    def _read(self, name: str) -> list[str]:
        found = self.files.get(_file(name))
        if found is None:
            raise CommandError(f"{name}: No such file or directory\n")
        return list(found)

    def _replace(self, new: list[str], source: str) -> None:
        refused = [line.strip() for line in new if line.strip() in self.faults.reject]
        if refused:  # atomic: the switch restores what it had and says so
            raise CommandError(
                f"Rollback failed.\n% Invalid command at '^' marker: {refused[0]}\n"
                "Rollback Patch failed; the running config is restored\n"
            )
        self.running = new
        self.events.append(f"replace from {source}")

    def _drop(self) -> NoReturn:
        drop(self, self.faults.unreachable_after_drop)

    # ---- operational data ---------------------------------------------------------------------

    def _interface_states(self) -> dict[str, tuple[bool, bool, str]]:
        states = {}
        for block in _blocks(self.running):
            match = re.fullmatch(r"interface (\S+)", block[0])
            if not match:
                continue
            name = match.group(1)
            body = [line.strip() for line in block[1:]]
            enabled = "shutdown" not in body
            description = next((x[12:] for x in body if x.startswith("description ")), "")
            states[name] = (enabled, enabled and name not in self.faults.link_down, description)
        return states

    def _interfaces(self) -> dict[str, Any]:
        rows = [
            {
                "interface": name,
                "state": "up" if up else "down",
                "admin_state": "up" if enabled else "down",
                "eth_mtu": "9216",
                "eth_bw": self.speed_of(name, self.faults.wrong_speed) * 1000,  # kbit/s
                "eth_hw_addr": "00c0.ffee.0003",
                "desc": description,
                "eth_link_flapped": "1week(s) 2day(s)",
            }
            for name, (enabled, up, description) in self._interface_states().items()
        ]
        return {"TABLE_interface": {"ROW_interface": rows}}

    def _nve_peers(self) -> dict[str, Any]:
        """`show nve peers`: the remote VTEPs, once the config has `interface nve1`."""
        if not any(line.strip() == "interface nve1" for line in self.running):
            return {}
        rows = [
            {"if-name": "nve1", "peer-ip": peer, "peer-state": "Up", "learn-type": "CP"}
            for peer in self.remote_vteps(self.faults.missing_vtep)
        ]
        return {"TABLE_nve_peers": {"ROW_nve_peers": rows}} if rows else {}

    def _bgp(self) -> dict[str, Any]:
        block = next((b for b in _blocks(self.running) if b[0].startswith("router bgp ")), None)
        if block is None:
            return {"TABLE_vrf": {"ROW_vrf": []}}
        asn = block[0].split()[2]
        router_id = "0.0.0.0"
        vrf, neighbour = "default", ""
        found: dict[str, list[tuple[str, str]]] = {"default": []}
        for line in block[1:]:
            depth = len(line) - len(line.lstrip(" "))
            text = line.strip()
            if depth == 2:  # a child of `router bgp`: a vrf block, or back in the default
                vrf = text.split()[1] if text.startswith("vrf ") else "default"
                found.setdefault(vrf, [])
                if text.startswith("router-id "):
                    router_id = text.split()[1]
            if match := re.fullmatch(r"neighbor (\S+)", text):
                neighbour = match.group(1)
            elif (match := re.fullmatch(r"remote-as (\S+)", text)) and neighbour:
                found[vrf].append((neighbour, match.group(1)))
                neighbour = ""
        down = set(self.faults.bgp_down)
        rows = []
        for name, peers in found.items():
            afs = []
            for af_id, v6 in ((1, False), (2, True)):
                listed = [
                    {
                        "neighborid": peer,
                        "neighboras": remote_as,
                        "state": "Active" if peer in down else "Established",
                        "prefixreceived": "0" if peer in down else "1",
                    }
                    for peer, remote_as in peers
                    if (":" in peer) == v6
                ]
                if listed:
                    afs.append(
                        {
                            "af-id": af_id,
                            "TABLE_saf": {
                                "ROW_saf": {"safi": 1, "TABLE_neighbor": {"ROW_neighbor": listed}}
                            },
                        }
                    )
            rows.append(
                {
                    "vrf-name-out": name,
                    "vrf-router-id": router_id,
                    "vrf-local-as": asn,
                    "TABLE_af": {"ROW_af": afs},
                }
            )
        return {"TABLE_vrf": {"ROW_vrf": rows}}

    def _lldp(self) -> str:
        up = {n for n, (_, is_up, _) in self._interface_states().items() if is_up}
        entries = []
        for port, (device, far) in {**self.cabling, **self.faults.miscabled}.items():
            if port not in up:
                continue
            entries.append(
                "Chassis id: 001c.7300.0001\n"
                f"Port id: {far}\n"
                f"Local Port id: {port}\n"
                "Port Description: null\n"
                f"System Name: {device}\n"
                "System Description: Arista Networks EOS\n"
                "Time remaining: 105 seconds\n"
                "System Capabilities: B, R\n"
                "Enabled Capabilities: B, R\n"
            )
        return "Capability codes:\n" + "\n".join(entries) + "\nTotal entries displayed: "


class _Malformed(Exception):
    pass


def _file(name: str) -> str:
    return name.removeprefix("bootflash:").lstrip("/")


def _msg(text: str, raw: bool) -> dict[str, Any]:
    return {"msg": text} if raw else {"body": {}}


def _patch(old: list[str], new: list[str]) -> list[str]:
    """The commands that turn `old` into `new`, as NX-OS prints a rollback patch: a block
    that goes away as `no <block>`, a changed block as its header with its new lines and
    `no <line>` for the ones it loses."""
    before = {b[0]: b for b in _blocks(old)}
    after = {b[0]: b for b in _blocks(new)}
    patch: list[str] = [f"no {head}" for head in before if head not in after]
    for head, block in after.items():
        if head not in before:
            patch.extend(block)
        elif before[head] != block:
            gone = [x for x in before[head][1:] if x not in block[1:]]
            added = [x for x in block[1:] if x not in before[head][1:]]
            patch.append(head)
            patch.extend(f"{x[: len(x) - len(x.lstrip())]}no {x.strip()}" for x in gone)
            patch.extend(added)
    return patch


def _handler(device: NxapiEmulator) -> type[BaseHTTPRequestHandler]:
    class Handler(LabHandler):
        def do_POST(self) -> None:
            if self.path != "/ins":
                self._reply(404, b"not found")
                return
            if not self.authorised(device, b"Unauthorized", "application/json-rpc"):
                return
            request = self.json_body(b"[]")
            requests = request if isinstance(request, list) else [request]
            try:
                replies = device.batch(requests)
            except Drop:
                self.hang_up()
                return
            except _Malformed:
                self._reply(200, b'[{"jsonrpc": "2.0", "result": {"body": {"TABLE_')
                return
            body = replies[0] if len(replies) == 1 and not isinstance(request, list) else replies
            self._reply(200, json.dumps(body).encode())

        def _reply(self, status: int, data: bytes) -> None:
            reply(self, status, data, "application/json-rpc")

    return Handler

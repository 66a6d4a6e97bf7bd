"""An NVIDIA Cumulus Linux lab switch: the NVUE REST API (/nvue_v1) and `nv` over SSH.

What meetme's NVUE adapter (deploy/nvue_rest.py) uses, as NVIDIA documents the REST side
(Cumulus Linux "NVUE API": revisions, root PATCH, apply, save) and community sources the CLI
confirm (`nv config apply <rev> --confirm <N>s -y`, `--confirm-yes`, `--confirm-no`):

- POST /nvue_v1/revision creates a revision holding a copy of the applied config;
  DELETE /nvue_v1/?rev=R empties it (replace semantics), PATCH /nvue_v1/?rev=R merges a root
  payload into it (null removes a key); GET /nvue_v1/?rev=R|applied|startup&filled=false reads
  a config; GET/PATCH/DELETE /nvue_v1/revision/R reads, applies, saves ("applied") or drops;
- over SSH (exec): `nv config apply R --confirm Ns -y` applies R and reverts to the config
  before it unless `nv config apply R --confirm-yes` follows within N s; `--confirm-no`
  reverts at once; `nv config apply --confirm-status` names the revision awaiting its
  confirm and the seconds left (NVIDIA documents what it reports, not its wording: this one
  is the emulator's own);
- operational reads: GET /nvue_v1/system (`hostname`: the applied config's), /vrf,
  /vrf/V/router/bgp/neighbor (every configured neighbour established), /interface (every
  configured interface up, `link.speed` the speed the lab was built with, as `nv show
  interface <i> link` shows it: 400G),
  /interface/I/lldp (the lab's cabling), /evpn/vni/N (`remote-vtep`: the fabric's VTEPs,
  once the config has `nve` and maps N). Their field names follow `nv show ... -o json` as
  NAPALM's community Cumulus driver reads them; not checked against a switch.

Faults: refuse a PATCH holding a given string (schema validation); drop the SSH connection
during the confirmed apply (after it took effect) or during the confirm (before or after it
took effect) and refuse connections for a while; BGP peers down, ports down, a cable in the
wrong port, a port at the wrong speed, a remote VTEP never heard; a malformed JSON answer
to a path; a slow root PATCH.
"""

from __future__ import annotations

import copy
import json
import re
import socket
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any, NoReturn
from urllib.parse import parse_qs, unquote, urlsplit

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


@dataclass
class NvFaults(LabFaults):
    # a PATCH whose JSON holds a `reject` string is refused; `malformed` is a path prefix
    slow_patch: float = 0.0  # a root PATCH waits this long first (one shot)


@dataclass
class _Confirm:
    revision: str
    before: dict[str, Any]
    timer: threading.Timer
    ends: float = 0.0  # time.monotonic() when the switch reverts it


def merge(base: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    result = copy.deepcopy(base)
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        elif isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = merge(result[key], value)
        else:
            result[key] = copy.deepcopy(value)
    return result


class NvueEmulator(HttpAndSshDevice):
    def __init__(
        self,
        hostname: str,
        username: str,
        password: str,
        config: dict[str, Any] | None = None,
        faults: NvFaults | None = None,
    ) -> None:
        super().__init__(hostname, username, password)
        self.faults = faults or NvFaults()
        self.applied: dict[str, Any] = copy.deepcopy(config or {})
        self.startup: dict[str, Any] = copy.deepcopy(self.applied)
        self.revisions: dict[str, dict[str, Any]] = {}
        self.confirm: _Confirm | None = None
        self._next = 1

    # ---- test-facing ----------------------------------------------------------------------

    def running_config(self) -> str:
        with self.lock:
            return json.dumps(self.applied, sort_keys=True)

    def startup_config(self) -> str:
        with self.lock:
            return json.dumps(self.startup, sort_keys=True)

    def pending_timers(self) -> list[str]:
        with self.lock:
            return [] if self.confirm is None else [self.confirm.revision]

    def start(self) -> NvueEmulator:
        self.serve(_handler(self), self._exec)
        return self

    def cancel_timers(self) -> None:
        if self.confirm is not None:
            self.confirm.timer.cancel()

    # ---- REST -------------------------------------------------------------------------------

    def rest(self, method: str, path: str, query: dict[str, str], body: Any) -> tuple[int, Any]:
        with self.lock:
            self.commands.append(f"{method} {path}")
        if method == "PATCH" and path == "/nvue_v1/" and self.faults.slow_patch:
            delay, self.faults.slow_patch = self.faults.slow_patch, 0.0
            time.sleep(delay)
        with self.lock:
            return self._rest(method, path, query, body)

    def _rest(self, method: str, path: str, query: dict[str, str], body: Any) -> tuple[int, Any]:
        rev = query.get("rev")
        if path == "/nvue_v1/":
            if method == "GET":
                if rev == "applied":
                    return 200, self.applied
                if rev == "startup":
                    return 200, self.startup
                return self._revision_config(rev)
            if rev is None or rev not in self.revisions:
                return 404, {"title": "Not Found", "detail": f"revision {rev} not found"}
            if self.revisions[rev]["state"] != "pending":
                return 400, {"title": "Bad Request", "detail": f"revision {rev} is not pending"}
            if method == "DELETE":
                self.revisions[rev]["config"] = {}
                return 200, {}
            if method == "PATCH":
                text = json.dumps(body)
                refused = next((r for r in sorted(self.faults.reject) if r in text), None)
                if refused:
                    return 400, {"title": "Invalid config", "detail": f"'{refused}' is not valid"}
                self.revisions[rev]["config"] = merge(self.revisions[rev]["config"], body)
                return 200, body
        if path == "/nvue_v1/revision" and method == "POST":
            name = f"changeset/{self.username}/{self._next}"
            self._next += 1
            self.revisions[name] = {"state": "pending", "config": copy.deepcopy(self.applied)}
            return 200, {name: {"state": "pending", "transition": {"issue": {}, "progress": ""}}}
        if match := re.fullmatch(r"/nvue_v1/revision/(.+)", path):
            name = match.group(1)
            if name == "applied" and method == "PATCH" and (body or {}).get("state") == "save":
                self.startup = copy.deepcopy(self.applied)
                self.events.append("save")
                return 200, {"state": "save"}
            revision = self.revisions.get(name)
            if revision is None:
                return 404, {"title": "Not Found", "detail": f"revision {name} not found"}
            if method == "GET":
                return 200, {"state": revision["state"], "transition": {"issue": {}}}
            if method == "DELETE":
                del self.revisions[name]
                return 200, {}
        if path == "/nvue_v1/system" and method == "GET":
            # `nv show system`: the applied config's system.hostname (a switch without one
            # answers cumulus, Cumulus Linux's default name)
            name = (self.applied.get("system") or {}).get("hostname") or "cumulus"
            return 200, {"hostname": name, "build": "Cumulus Linux 5.16.0"}
        if path == "/nvue_v1/vrf" and method == "GET":
            return 200, {v: {} for v in self.applied.get("vrf", {}) | {"default": {}}}
        if match := re.fullmatch(r"/nvue_v1/vrf/([^/]+)/router/bgp/neighbor", path):
            return 200, self._neighbours(match.group(1))
        if path == "/nvue_v1/interface" and method == "GET":
            return 200, {
                name: {
                    "link": {
                        "admin-status": "up",
                        "oper-status": "up" if up else "down",
                        "speed": _speed_text(self.speed_of(name, self.faults.wrong_speed)),
                    }
                }
                for name, up in self._interfaces().items()
            }
        if match := re.fullmatch(r"/nvue_v1/evpn/vni/(\d+)", path):
            vnis = self.applied.get("nve", {}) and self._vnis()
            if int(match.group(1)) not in vnis:
                return 404, {"title": "Not Found", "detail": path}
            heard = self.remote_vteps(self.faults.missing_vtep)
            return 200, {"remote-vtep": {a: {} for a in heard}, "remote-vtep-count": len(heard)}
        if match := re.fullmatch(r"/nvue_v1/interface/([^/]+)/lldp", path):
            return 200, self._lldp(match.group(1))
        return 404, {"title": "Not Found", "detail": path}

    def _revision_config(self, rev: str | None) -> tuple[int, Any]:
        if rev is None or rev not in self.revisions:
            return 404, {"title": "Not Found", "detail": f"revision {rev} not found"}
        return 200, self.revisions[rev]["config"]

    def _neighbours(self, vrf: str) -> dict[str, Any]:
        config = self.applied.get("vrf", {}).get(vrf, {})
        neighbours = config.get("router", {}).get("bgp", {}).get("neighbor", {}) or {}
        return {
            peer: {
                "remote-as": data.get("remote-as") if isinstance(data, dict) else None,
                "state": "idle" if peer in self.faults.bgp_down else "established",
            }
            for peer, data in neighbours.items()
        }

    def _vnis(self) -> set[int]:
        """The L2VNIs the applied config maps (bridge domains' vlan -> vni)."""
        found = set()
        for domain in (self.applied.get("bridge", {}).get("domain") or {}).values():
            for vlan in ((domain or {}).get("vlan") or {}).values():
                found |= {int(v) for v in ((vlan or {}).get("vni") or {})}
        return found

    def _interfaces(self) -> dict[str, bool]:
        return {
            name: name not in self.faults.link_down for name in self.applied.get("interface", {})
        }

    def _lldp(self, port: str) -> dict[str, Any]:
        if not self._interfaces().get(port):
            return {"neighbor": {}}
        far = {**self.cabling, **self.faults.miscabled}.get(port)
        if far is None:
            return {"neighbor": {}}
        return {
            "neighbor": {far[0]: {"chassis": {"system-name": far[0]}, "port": {"name": far[1]}}}
        }

    # ---- `nv` over SSH ----------------------------------------------------------------------

    def nv(self, command: str) -> tuple[int, str]:
        with self.lock:
            self.commands.append(command)
            if m := re.fullmatch(r"nv config apply (\S+) --confirm (\d+)s -y", command):
                return self._apply_confirm(m.group(1), int(m.group(2)))
            if command == "nv config apply --confirm-status":
                # NVIDIA documents what it says (the time left before the automatic
                # rollback), not how: this wording is the emulator's own
                if self.confirm is None:
                    return 0, "No configuration apply is awaiting confirmation.\n"
                left = max(0, round(self.confirm.ends - time.monotonic()))
                return 0, (
                    f"{self.confirm.revision}: {left} seconds left before the automatic rollback\n"
                )
            if m := re.fullmatch(r"nv config apply (\S+) --confirm-yes", command):
                return self._confirm_yes(m.group(1))
            if m := re.fullmatch(r"nv config apply (\S+) --confirm-no", command):
                if self.confirm is None or self.confirm.revision != m.group(1):
                    return 1, f"Error: no confirm pending for {m.group(1)}\n"
                self._revert(f"confirm-no {m.group(1)}")
                return 0, "rolled back\n"
        return 127, f"bash: {command.split()[0]}: command not found\n"

    def _apply_confirm(self, rev: str, seconds: int) -> tuple[int, str]:
        revision = self.revisions.get(rev)
        if revision is None or revision["state"] != "pending":
            return 1, f"Error: revision {rev} is not pending\n"
        if self.confirm is not None:
            return 1, f"Error: revision {self.confirm.revision} is awaiting its confirm\n"
        timer = threading.Timer(seconds, self._expire, args=(rev,))
        timer.daemon = True
        self.confirm = _Confirm(rev, copy.deepcopy(self.applied), timer, time.monotonic() + seconds)
        timer.start()
        self.applied = copy.deepcopy(revision["config"])
        revision["state"] = "applied"
        self.events.append(f"apply {rev} confirm {seconds}s")
        if self.faults.drop_on_commit:
            self.faults.drop_on_commit = False
            self._drop()
        return 0, "applied\n"

    def _confirm_yes(self, rev: str) -> tuple[int, str]:
        if self.confirm is None or self.confirm.revision != rev:
            return 1, f"Error: no confirm pending for {rev}\n"
        if self.faults.drop_on_confirm == "before":
            self.faults.drop_on_confirm = ""
            self._drop()
        self.confirm.timer.cancel()
        self.confirm = None
        self.events.append(f"confirm {rev}")
        if self.faults.drop_on_confirm == "after":
            self.faults.drop_on_confirm = ""
            self._drop()
        return 0, "confirmed\n"

    def _revert(self, why: str) -> None:
        assert self.confirm is not None
        self.confirm.timer.cancel()
        self.applied = self.confirm.before
        self.confirm = None
        self.events.append(f"revert: {why}")

    def _expire(self, rev: str) -> None:
        with self.lock:
            if self.confirm is not None and self.confirm.revision == rev:
                self._revert(f"confirm timer of {rev}")

    def _drop(self) -> NoReturn:
        drop(self, self.faults.unreachable_after_drop)

    def _exec(self, client: socket.socket) -> None:
        server = ExecServer(self.username, self.password)

        def run(channel: paramiko.Channel) -> None:
            try:
                status, output = self.nv(server.command)
            except Drop:
                return  # the connection goes down with no answer and no exit status
            channel.sendall(output.encode())
            channel.send_exit_status(status)
            channel.close()

        serve_ssh(client, server, server.ready, run)


def _handler(device: NvueEmulator) -> type[BaseHTTPRequestHandler]:
    class Handler(LabHandler):
        def _handle(self, method: str) -> None:
            if not self.authorised(device, b'{"title": "Unauthorized"}'):
                return
            parts = urlsplit(self.path)
            path = unquote(parts.path)
            query = {k: v[0] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
            body = self.json_body(b"null")
            if device.faults.malformed and path.startswith(device.faults.malformed):
                self._reply(200, b'{"swp1": {"link": ')
                return
            status, answer = device.rest(method, path, query, body)
            self._reply(status, json.dumps(answer).encode())

        def do_GET(self) -> None:
            self._handle("GET")

        def do_POST(self) -> None:
            self._handle("POST")

        def do_PATCH(self) -> None:
            self._handle("PATCH")

        def do_DELETE(self) -> None:
            self._handle("DELETE")

        def _reply(self, status: int, data: bytes) -> None:
            reply(self, status, data)

    return Handler


def _speed_text(mbps: int) -> str:
    """NVUE's spelling of a link speed: 400G, 25G, 100M."""
    return f"{mbps // 1000}G" if mbps % 1000 == 0 else f"{mbps}M"

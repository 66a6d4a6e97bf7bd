"""What the lab emulators share: the SSH host key, the lost-management-path fault, the
listening sockets (refusing connections during an outage), password-only SSH and HTTP basic
authentication, a JSON reply."""

from __future__ import annotations

import base64
import functools
import json
import re
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, NoReturn, Protocol

import paramiko


@functools.cache
def host_key() -> paramiko.RSAKey:
    return paramiko.RSAKey.generate(2048)  # once per test run: generating keys is slow


class Drop(Exception):
    """Close the connection without answering (the fault, not a protocol answer)."""


class Reachable(Protocol):
    unreachable_until: float  # time.monotonic() before which no connection is answered


class LabDevice:
    """What every lab device keeps: its name and login, a lock over its state, every request
    received, what it did, its cabling, the end of an outage."""

    def __init__(self, hostname: str, username: str, password: str) -> None:
        self.hostname = hostname
        self.username = username
        self.password = password
        self.lock = threading.RLock()
        self.commands: list[str] = []  # every request received, in order
        self.events: list[str] = []  # commits, confirms, saves, aborts, reverts
        # local port -> (far device, far port), heard over LLDP while the port is up
        self.cabling: dict[str, tuple[str, str]] = {}
        # port -> the Mbit/s its optics and cable run at (the lab's build: the planned speed)
        self.speeds: dict[str, int] = {}
        # the remote VTEPs the fabric announces to this device once it runs VXLAN
        self.vteps: set[str] = set()
        self.unreachable_until = 0.0

    def speed_of(self, port: str, wrong: dict[str, int]) -> int:
        """The Mbit/s a port runs at: a wrong-speed fault, else as built (unknown: 400G)."""
        return wrong.get(port, self.speeds.get(port, 400_000))

    def remote_vteps(self, missing: set[str]) -> list[str]:
        """The remote VTEPs the device has heard of: the fabric's, but those a fault hides."""
        return sorted(self.vteps - missing)


@dataclass
class LabFaults:
    """The faults every SSH / HTTP lab device of the deploy tests can be given."""

    reject: set[str] = field(default_factory=set)  # config lines refused (stripped text)
    drop_on_commit: bool = False  # the confirmed commit takes effect, then the link drops
    # "before": the link drops as the confirm arrives (it never takes effect);
    # "after": the confirm takes effect, then the link drops before the reply
    drop_on_confirm: str = ""
    unreachable_after_drop: float = 0.0  # seconds of refused connections after a drop
    bgp_down: set[str] = field(default_factory=set)
    link_down: set[str] = field(default_factory=set)
    miscabled: dict[str, tuple[str, str]] = field(default_factory=dict)
    malformed: str = ""  # a request (RPC, command or path prefix) answered with broken data
    wrong_speed: dict[str, int] = field(default_factory=dict)  # port -> Mbit/s it runs at
    missing_vtep: set[str] = field(default_factory=set)  # remote VTEPs the device never hears


def drop(device: Reachable, seconds: float) -> NoReturn:
    """The management path goes down for `seconds`, this connection without an answer."""
    device.unreachable_until = time.monotonic() + seconds
    raise Drop


def http_server(device: Reachable, handler: type[BaseHTTPRequestHandler]) -> ThreadingHTTPServer:
    """An HTTP server on 127.0.0.1 (a free port) that answers nobody during an outage."""

    class Server(ThreadingHTTPServer):
        daemon_threads = True

        def verify_request(self, request: Any, client_address: Any) -> bool:
            return time.monotonic() >= device.unreachable_until

        def handle_error(self, request: Any, client_address: Any) -> None:
            pass  # a client that gave up before the answer: the device does not care

    return Server(("127.0.0.1", 0), handler)


def listener(backlog: int) -> socket.socket:
    """A listening TCP socket on 127.0.0.1 (a free port), polled every 0.1 s."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(backlog)
    sock.settimeout(0.1)
    return sock


def accept_loop(
    sock: socket.socket,
    stopping: threading.Event,
    device: Reachable,
    serve: Callable[[socket.socket], None],
) -> None:
    """Serves each connection on its own thread until `stopping`; none during an outage."""
    while not stopping.is_set():
        try:
            client, _ = sock.accept()
        except TimeoutError:
            continue
        except OSError:
            return
        if time.monotonic() < device.unreachable_until:
            client.close()  # the management path is down: nobody answers
            continue
        threading.Thread(target=serve, args=(client,), daemon=True).start()


class PasswordServer(paramiko.ServerInterface):
    """SSH with one user's password, any channel."""

    def __init__(self, username: str, password: str) -> None:
        self.username, self.password = username, password

    def check_auth_password(self, username: str, password: str) -> int:
        ok = (username, password) == (self.username, self.password)
        return paramiko.AUTH_SUCCESSFUL if ok else paramiko.AUTH_FAILED

    def get_allowed_auths(self, username: str) -> str:
        return "password"

    def check_channel_request(self, kind: str, chanid: int) -> int:
        return paramiko.OPEN_SUCCEEDED


class ExecServer(PasswordServer):
    """SSH with one user's password taking one exec request whose command matches `pattern`
    (`command` holds it, `ready` says it came)."""

    def __init__(self, username: str, password: str, pattern: str = r".+") -> None:
        super().__init__(username, password)
        self.pattern = re.compile(pattern)
        self.command = ""
        self.ready = threading.Event()

    def check_channel_exec_request(self, channel: Any, command: bytes) -> bool:
        text = command.decode().strip()
        if not self.pattern.fullmatch(text):
            return False
        self.command = text
        self.ready.set()
        return True


def serve_ssh(
    client: socket.socket,
    server: paramiko.ServerInterface,
    ready: threading.Event,
    work: Callable[[paramiko.Channel], None],
    transports: list[paramiko.Transport] | None = None,
) -> None:
    """One SSH connection: the lab host key, `server`'s login, the first channel once `ready`
    (its exec or subsystem request came) handed to `work`; a connection that breaks ends
    quietly. `transports` lists the live transport, for a device that closes them on stop."""
    transport = paramiko.Transport(client)
    if transports is not None:
        transports.append(transport)
    transport.add_server_key(host_key())
    try:
        transport.start_server(server=server)
        channel = transport.accept(timeout=10)
        if channel is None or not ready.wait(timeout=10):
            return
        work(channel)
    except (paramiko.SSHException, EOFError, OSError):
        return
    finally:
        transport.close()
        if transports is not None and transport in transports:
            transports.remove(transport)


def basic_auth(headers: Message, username: str, password: str) -> bool:
    """Whether an HTTP request's Authorization header carries this user's password."""
    header = headers.get("Authorization", "")
    if not header.startswith("Basic "):
        return False
    given = base64.b64decode(header[6:]).decode("utf-8", "replace")
    return given == f"{username}:{password}"


def reply(
    handler: BaseHTTPRequestHandler,
    status: int,
    data: bytes,
    content_type: str = "application/json",
    reason: str | None = None,
) -> None:
    handler.send_response(status, reason)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


class LabHandler(BaseHTTPRequestHandler):
    """What the lab devices' HTTP APIs share: a stuck client never holds a server thread for
    long, no request log, HTTP basic authentication, a JSON body, hanging up on a drop."""

    timeout = 5

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def authorised(
        self,
        device: LabDevice,
        refusal: bytes,
        content_type: str = "application/json",
        reason: str | None = None,
    ) -> bool:
        """Whether the request carries the device's login; else it is answered 401."""
        if basic_auth(self.headers, device.username, device.password):
            return True
        reply(self, 401, refusal, content_type, reason)
        return False

    def json_body(self, empty: bytes) -> Any:
        """The request's JSON body (`empty` when it has none)."""
        length = int(self.headers.get("Content-Length", "0"))
        return json.loads(self.rfile.read(length) or empty)

    def hang_up(self) -> None:
        """The Drop fault: the connection closes with no answer."""
        self.close_connection = True
        self.connection.shutdown(socket.SHUT_RDWR)


class HttpAndSsh:
    """An HTTP API and an SSH server on free ports of 127.0.0.1, each on a daemon thread."""

    def __init__(
        self,
        device: Reachable,
        handler: type[BaseHTTPRequestHandler],
        serve_ssh: Callable[[socket.socket], None],
    ) -> None:
        self.stopping = threading.Event()
        self.http = http_server(device, handler)
        self.ssh = listener(8)
        self.threads = [
            threading.Thread(
                target=self.http.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
            ),
            threading.Thread(
                target=accept_loop, args=(self.ssh, self.stopping, device, serve_ssh), daemon=True
            ),
        ]
        for thread in self.threads:
            thread.start()

    @property
    def http_port(self) -> int:
        return int(self.http.server_address[1])

    @property
    def ssh_port(self) -> int:
        return int(self.ssh.getsockname()[1])

    def stop(self) -> None:
        self.stopping.set()
        self.http.shutdown()
        self.http.server_close()
        for thread in self.threads:
            thread.join(timeout=5)
        self.ssh.close()


class HttpAndSshDevice(LabDevice):
    """A lab device with an HTTP API and an SSH server (NX-API + SCP, NVUE REST + `nv`)."""

    _servers: HttpAndSsh | None = None

    @property
    def port(self) -> int:
        assert self._servers is not None
        return self._servers.http_port

    @property
    def ssh_port(self) -> int:
        assert self._servers is not None
        return self._servers.ssh_port

    def serve(
        self, handler: type[BaseHTTPRequestHandler], ssh: Callable[[socket.socket], None]
    ) -> None:
        self._servers = HttpAndSsh(self, handler, ssh)

    def cancel_timers(self) -> None:
        """Stop the device's own timers (a pending revert) before it goes away."""

    def stop(self) -> None:
        with self.lock:
            self.cancel_timers()
        if self._servers is not None:
            self._servers.stop()

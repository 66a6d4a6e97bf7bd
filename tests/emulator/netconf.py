"""A Cisco IOS-XR lab router speaking NETCONF over SSH (RFC 6241, RFC 6242) on 127.0.0.1.

An SSH server (paramiko) offering the `netconf` subsystem, so that ncclient, and meetme's
IOS-XR adapter through it, run end to end against it:

- hello (always `]]>]]>`-framed) offering base:1.0 and, as IOS-XR does, base:1.1: when the
  client's hello offers base:1.1 too (ncclient's does), every later message both ways uses
  RFC 6242 §4.2 chunked framing (`\n#<size>\n<data>`... `\n##\n`; replies are cut into
  several chunks), else the end-of-message marker (§4.3); the :candidate,
  :confirmed-commit:1.1, :validate and :rollback-on-error capabilities;
- <lock>/<unlock> of the candidate (lock-denied names the holder's session-id, and a candidate
  modified by another session cannot be locked, RFC 6241 §7.5);
- <edit-config> to the candidate with the Cisco-IOS-XR-cli-cfg <cli> container (CLI text),
  default-operation merge or replace; a refused line is an rpc-error and changes nothing;
- <validate>, <discard-changes>, Cisco-IOS-XR-cli-diff-act <get-cli-config-diff>;
- <commit> (RFC 6241 §8.3/§8.4): a plain commit, a confirmed commit with <confirm-timeout>
  that reverts by itself when not confirmed in time, the confirming commit from the same
  session, <cancel-commit>; without <persist>, the end of the session that issued a confirmed
  commit reverts it at once (§8.4.1), and ends release its lock and drop its uncommitted
  candidate changes;
- <get-config> with the <cli> filter, <get> answering the operational subtrees NAPALM's
  iosxr_netconf getters read (BGP neighbours, interfaces, LLDP neighbours, and
  shellutil-oper system-time/uptime/host-name: the running config's hostname) from the running
  config: every configured neighbour Established, every interface up, LLDP hearing the lab's
  cabling;
- <close-session>.

The configuration is CLI text kept as its lines without `!` separators (IOS-XR stores it in
its own order and shows secrets encrypted; here lines stay as given).

Faults: refuse given lines; drop the connection while committing (after the commit took
effect: the session's end reverts it) or while confirming (before or after the confirm
takes effect), then stay out of reach for a while; keep BGP peers down, ports without
carrier, a cable in the wrong port; answer an RPC with malformed XML; a slow edit-config.
"""

from __future__ import annotations

import difflib
import ipaddress
import re
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any, NoReturn

import paramiko
from lxml import etree

from .common import (
    Drop,
    LabDevice,
    LabFaults,
    PasswordServer,
    accept_loop,
    drop,
    listener,
    serve_ssh,
)

BASE = "urn:ietf:params:xml:ns:netconf:base:1.0"
CLI_NS = "http://cisco.com/ns/yang/Cisco-IOS-XR-cli-cfg"
DIFF_NS = "http://cisco.com/ns/yang/Cisco-IOS-XR-cli-diff-act"
BGP_NS = "http://cisco.com/ns/yang/Cisco-IOS-XR-ipv4-bgp-oper"
INT_NS = "http://cisco.com/ns/yang/Cisco-IOS-XR-pfi-im-cmd-oper"
LLDP_NS = "http://cisco.com/ns/yang/Cisco-IOS-XR-ethernet-lldp-oper"
SHELLUTIL_NS = "http://cisco.com/ns/yang/Cisco-IOS-XR-shellutil-oper"
CAPABILITIES = (
    "urn:ietf:params:netconf:base:1.0",
    "urn:ietf:params:netconf:capability:candidate:1.0",
    "urn:ietf:params:netconf:capability:confirmed-commit:1.1",
    "urn:ietf:params:netconf:capability:validate:1.1",
    "urn:ietf:params:netconf:capability:rollback-on-error:1.0",
    f"{CLI_NS}?module=Cisco-IOS-XR-cli-cfg&revision=2019-04-05",
)
EOM = b"]]>]]>"
BASE_11 = "urn:ietf:params:netconf:base:1.1"
CHUNK = 4096  # the largest chunk the router sends (any size up to 4294967295 is allowed)
_CHUNK_HEADER = re.compile(rb"\n#([1-9][0-9]{0,9})\n")
_END_OF_CHUNKS = b"\n##\n"


class FramingError(Exception):
    """A message that breaks RFC 6242 §4.2: the router ends the session."""


def chunked(message: bytes) -> bytes:
    """A message in RFC 6242 §4.2 chunked framing, cut into chunks of at most CHUNK bytes."""
    parts = [message[i : i + CHUNK] for i in range(0, len(message), CHUNK)] or [b""]
    return b"".join(b"\n#%d\n%s" % (len(p), p) for p in parts if p) + _END_OF_CHUNKS


def _read_eom(channel: paramiko.Channel, buffer: bytes) -> tuple[bytes | None, bytes]:
    """One `]]>]]>`-framed message (RFC 6242 §4.3) and what follows it; None: the end."""
    while EOM not in buffer:
        data = channel.recv(65536)
        if not data:
            return None, b""
        buffer += data
    message, rest = buffer.split(EOM, 1)
    return message, rest


def _read_chunked(channel: paramiko.Channel, buffer: bytes) -> tuple[bytes | None, bytes]:
    """One chunk-framed message (RFC 6242 §4.2: chunks `\n#<size>\n<size bytes>`, ended
    by `\n##\n`) and what follows it; None: the end of the session."""
    message = b""
    while True:
        while True:  # a whole header: end-of-chunks or a chunk's size
            if buffer.startswith(_END_OF_CHUNKS):
                if not message:
                    raise FramingError("end of chunks before any chunk")
                return message, buffer[len(_END_OF_CHUNKS) :]
            header = _CHUNK_HEADER.match(buffer)
            if header:
                break
            complete = b"\n" in buffer[1:]  # a header's line has ended, yet matches nothing
            if complete or len(buffer) >= 13 or not _END_OF_CHUNKS.startswith(buffer[:2]):
                raise FramingError(f"not a chunk header: {buffer[:13]!r}")
            data = channel.recv(65536)
            if not data:
                return None, b""
            buffer += data
        size, start = int(header.group(1)), header.end()
        while len(buffer) < start + size:
            data = channel.recv(65536)
            if not data:
                return None, b""
            buffer += data
        message += buffer[start : start + size]
        buffer = buffer[start + size :]


def lines_of(text: str) -> list[str]:
    """CLI text as the router holds it: no blank, `!` or `end` lines, no trailing spaces."""
    kept = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if line.strip() in ("", "!", "end") or line.lstrip().startswith("!"):
            continue
        kept.append(line)
    return kept


def normalise(text: str) -> str:
    return "\n".join(lines_of(text)) + "\n"


def _blocks(lines: list[str]) -> list[list[str]]:
    blocks: list[list[str]] = []
    for line in lines:
        if not line.startswith(" ") or not blocks:
            blocks.append([line])
        else:
            blocks[-1].append(line)
    return blocks


def merge(running: list[str], new: list[str]) -> list[str]:
    """A merge of whole top-level blocks: a block of the same first line is replaced."""
    result = _blocks(running)
    for block in _blocks(new):
        for index, old in enumerate(result):
            if old[0] == block[0]:
                result[index] = block
                break
        else:
            result.append(block)
    return [line for block in result for line in block]


class RpcError(Exception):
    def __init__(self, tag: str, message: str, info: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.tag, self.message, self.info = tag, message, info or {}


@dataclass
class XrFaults(LabFaults):
    # `malformed` is the name of an RPC answered with broken XML
    slow_edit: float = 0.0  # an edit-config waits this long before it starts (one shot)


@dataclass
class _Pending:
    session: int
    before: list[str]
    timer: threading.Timer


class NetconfEmulator(LabDevice):
    def __init__(
        self,
        hostname: str,
        username: str,
        password: str,
        config: str = "",
        faults: XrFaults | None = None,
    ) -> None:
        super().__init__(hostname, username, password)
        self.faults = faults or XrFaults()
        self.running = lines_of(config)
        self.candidate: list[str] | None = None  # None: the candidate equals running
        self.candidate_owner: int | None = None  # the session that modified the candidate
        self.lock_holder: int | None = None
        self.pending: _Pending | None = None  # a confirmed commit awaiting its confirm
        self._next_session = 1
        self._listener: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._transports: list[paramiko.Transport] = []
        self.base11 = True  # offer base:1.1 in the hello (IOS-XR does)
        self.framings: list[str] = []  # per session, as agreed: "1.0" or "1.1"

    # ---- test-facing ----------------------------------------------------------------------

    @property
    def port(self) -> int:
        assert self._listener is not None
        return int(self._listener.getsockname()[1])

    def running_config(self) -> str:
        with self.lock:
            return "\n".join(self.running) + "\n"

    startup_config = running_config  # an IOS-XR commit is persistent

    def pending_timers(self) -> list[str]:
        with self.lock:
            return [] if self.pending is None else [f"session {self.pending.session}"]

    def start(self) -> NetconfEmulator:
        self._listener = listener(16)
        self._thread = threading.Thread(target=self._accept_loop, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        with self.lock:
            if self.pending is not None:
                self.pending.timer.cancel()
        for transport in list(self._transports):
            transport.close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._listener is not None:
            self._listener.close()

    # ---- SSH --------------------------------------------------------------------------------

    def _accept_loop(self) -> None:
        assert self._listener is not None
        accept_loop(self._listener, self._stopping, self, self._serve)

    def _serve(self, client: socket.socket) -> None:
        subsystem = threading.Event()

        class Server(PasswordServer):
            def check_channel_request(self, kind: str, chanid: int) -> int:
                if kind == "session":
                    return paramiko.OPEN_SUCCEEDED
                return paramiko.OPEN_FAILED_ADMINISTRATIVELY_PROHIBITED

            def check_channel_subsystem_request(self, channel: Any, name: str) -> bool:
                if name != "netconf":
                    return False
                subsystem.set()
                return True

        def netconf(channel: paramiko.Channel) -> None:
            with self.lock:
                session = self._next_session
                self._next_session += 1
            try:
                self._session(channel, session)
            finally:
                self._session_ended(session)

        server = Server(self.username, self.password)
        serve_ssh(client, server, subsystem, netconf, self._transports)

    def _session(self, channel: paramiko.Channel, session: int) -> None:
        offered = CAPABILITIES + ((BASE_11,) if self.base11 else ())
        hello = (
            f'<?xml version="1.0" encoding="UTF-8"?><hello xmlns="{BASE}"><capabilities>'
            + "".join(f"<capability>{_escape(c)}</capability>" for c in offered)
            + f"</capabilities><session-id>{session}</session-id></hello>"
        )
        channel.sendall(hello.encode() + EOM)
        buffer = b""
        client_hello, buffer = _read_eom(channel, buffer)  # hellos are always EOM-framed
        if client_hello is None:
            return
        chunks = self.base11 and BASE_11.encode() in client_hello  # both sides offer 1.1
        with self.lock:
            self.framings.append("1.1" if chunks else "1.0")
        while not self._stopping.is_set():
            try:
                read = _read_chunked if chunks else _read_eom
                message, buffer = read(channel, buffer)
            except FramingError:
                channel.close()  # RFC 6242 §4.2: a framing error ends the session
                return
            if message is None:
                return
            try:
                reply = self._rpc(message, session)
            except Drop:
                channel.close()
                return
            channel.sendall(chunked(reply) if chunks else reply + EOM)
            if b"<close-session" in message:
                return

    # ---- RPCs -------------------------------------------------------------------------------

    def _rpc(self, message: bytes, session: int) -> bytes:
        rpc = etree.fromstring(message)
        message_id = rpc.get("message-id", "")
        operation = rpc[0]
        name = etree.QName(operation).localname
        with self.lock:
            self.commands.append(f"{session} {name}")
        if name == "edit-config" and self.faults.slow_edit:
            delay, self.faults.slow_edit = self.faults.slow_edit, 0.0
            time.sleep(delay)  # a busy router; the session's RPCs queue behind it
        if self.faults.malformed == name:
            return f'<rpc-reply message-id="{message_id}" xmlns="{BASE}"><data><cli'.encode()
        try:
            with self.lock:
                body = self._operation(name, operation, session)
        except RpcError as exc:
            info = "".join(f"<{k}>{v}</{k}>" for k, v in exc.info.items())
            body = (
                "<rpc-error><error-type>application</error-type>"
                f"<error-tag>{exc.tag}</error-tag><error-severity>error</error-severity>"
                f'<error-message xml:lang="en">{_escape(exc.message)}</error-message>'
                + (f"<error-info>{info}</error-info>" if info else "")
                + "</rpc-error>"
            )
        return f'<rpc-reply message-id="{message_id}" xmlns="{BASE}">{body}</rpc-reply>'.encode()

    def _operation(self, name: str, op: Any, session: int) -> str:
        if name == "lock":
            self._lock(op, session)
        elif name == "unlock":
            self._require_target(op, "candidate")
            if self.lock_holder != session:
                raise RpcError("operation-failed", "the candidate is not locked by this session")
            self.lock_holder = None
            self._drop_candidate_of(session)  # an unlock discards what was not committed
        elif name == "edit-config":
            self._edit(op, session)
        elif name == "validate":
            pass  # the lines were checked as they came in
        elif name == "discard-changes":
            self._writable(session)
            self.candidate, self.candidate_owner = None, None
            self.events.append(f"discard session {session}")
        elif name == "get-cli-config-diff":
            return f'<diff xmlns="{DIFF_NS}">{_escape(self._diff())}</diff>'
        elif name == "commit":
            self._commit(op, session)
        elif name == "cancel-commit":
            if self.pending is None or self.pending.session != session:
                raise RpcError("operation-failed", "no confirmed commit of this session pending")
            self._revert(f"cancel-commit session {session}")
        elif name == "get-config":
            source = etree.QName(op.find(f"{{{BASE}}}source")[0]).localname
            lines = self.running if source == "running" else self._candidate()
            text = _escape("\n".join(lines) + "\n")
            return f'<data><cli xmlns="{CLI_NS}">{text}</cli></data>'
        elif name == "get":
            return f"<data>{self._oper(etree.tostring(op).decode())}</data>"
        elif name == "close-session":
            pass
        else:
            raise RpcError("operation-not-supported", f"{name} is not supported")
        return "<ok/>"

    @staticmethod
    def _require_target(op: Any, want: str) -> None:
        target = op.find(f"{{{BASE}}}target")
        if target is None or len(target) != 1 or etree.QName(target[0]).localname != want:
            raise RpcError("invalid-value", f"the target must be the {want} datastore")

    def _lock(self, op: Any, session: int) -> None:
        self._require_target(op, "candidate")
        if self.lock_holder is not None:
            raise RpcError(
                "lock-denied",
                f"Lock failed, lock is already held by session {self.lock_holder}",
                {"session-id": str(self.lock_holder)},
            )
        if self.candidate is not None and self.candidate_owner != session:
            raise RpcError(  # RFC 6241 §7.5: a modified, uncommitted candidate
                "lock-denied",
                "the candidate holds uncommitted changes of another session",
                {"session-id": str(self.candidate_owner or 0)},
            )
        self.lock_holder = session

    def _writable(self, session: int) -> None:
        if self.lock_holder is not None and self.lock_holder != session:
            raise RpcError(
                "in-use",
                f"the candidate is locked by session {self.lock_holder}",
                {"session-id": str(self.lock_holder)},
            )

    def _edit(self, op: Any, session: int) -> None:
        self._require_target(op, "candidate")
        self._writable(session)
        default = op.findtext(f"{{{BASE}}}default-operation") or "merge"
        cli = op.find(f"{{{BASE}}}config/{{{CLI_NS}}}cli")
        if cli is None:
            raise RpcError("unknown-element", "expected the Cisco-IOS-XR-cli-cfg cli container")
        new = lines_of(cli.text or "")
        for line in new:
            if line.strip() in self.faults.reject:
                raise RpcError(
                    "invalid-value",
                    f"'{line.strip()}': % Invalid input detected at '^' marker.",
                )
        self.candidate = new if default == "replace" else merge(self._candidate(), new)
        self.candidate_owner = session

    def _candidate(self) -> list[str]:
        return list(self.running if self.candidate is None else self.candidate)

    def _diff(self) -> str:
        lines = [
            line
            for line in difflib.unified_diff(self.running, self._candidate(), lineterm="", n=0)
            if not line.startswith(("---", "+++", "@@"))
        ]
        return "Building configuration...\n!! IOS XR Configuration 7.9.2\n" + "\n".join(
            [*lines, "end"]
        )

    def _commit(self, op: Any, session: int) -> None:
        self._writable(session)
        confirmed = op.find(f"{{{BASE}}}confirmed") is not None
        if (
            op.find(f"{{{BASE}}}persist") is not None
            or op.find(f"{{{BASE}}}persist-id") is not None
        ):
            raise RpcError("operation-not-supported", "persist is not supported by this lab")
        if self.pending is not None and self.pending.session != session:
            raise RpcError(
                "in-use",
                f"a confirmed commit of session {self.pending.session} is pending",
                {"session-id": str(self.pending.session)},
            )
        if self.pending is not None and not confirmed:  # the confirming commit
            if self.faults.drop_on_confirm == "before":
                self.faults.drop_on_confirm = ""
                self._drop()
            self.pending.timer.cancel()
            self.pending = None
            self.running = self._candidate()
            self.candidate, self.candidate_owner = None, None
            self.events.append(f"confirm session {session}")
            if self.faults.drop_on_confirm == "after":
                self.faults.drop_on_confirm = ""
                self._drop()
            return
        if confirmed:
            timeout = int(op.findtext(f"{{{BASE}}}confirm-timeout") or "600")
            before = list(self.running) if self.pending is None else self.pending.before
            if self.pending is not None:
                self.pending.timer.cancel()
            timer = threading.Timer(timeout, self._expire, args=(session,))
            timer.daemon = True
            self.pending = _Pending(session, before, timer)
            timer.start()
            self.events.append(f"commit confirmed session {session} timeout {timeout}")
        else:
            self.events.append(f"commit session {session}")
        self.running = self._candidate()
        self.candidate, self.candidate_owner = None, None
        if confirmed and self.faults.drop_on_commit:
            self.faults.drop_on_commit = False
            self._drop()

    def _drop(self) -> NoReturn:
        drop(self, self.faults.unreachable_after_drop)

    def _revert(self, why: str) -> None:
        assert self.pending is not None
        self.pending.timer.cancel()
        self.running = self.pending.before
        self.pending = None
        self.candidate, self.candidate_owner = None, None
        self.events.append(f"revert: {why}")

    def _expire(self, session: int) -> None:
        with self.lock:
            if self.pending is not None and self.pending.session == session:
                self._revert(f"confirm-timeout of session {session}")

    def _drop_candidate_of(self, session: int) -> None:
        if self.candidate_owner == session:
            self.candidate, self.candidate_owner = None, None

    def _session_ended(self, session: int) -> None:
        """RFC 6241 §8.4.1: a confirmed commit without <persist> is reverted when its session
        ends; the session's lock is released and its uncommitted changes dropped."""
        with self.lock:
            if self.pending is not None and self.pending.session == session:
                self._revert(f"session {session} ended before its confirm")
            if self.lock_holder == session:
                self.lock_holder = None
            self._drop_candidate_of(session)
            self.events.append(f"session {session} ended")

    # ---- operational data (what NAPALM's iosxr_netconf getters read) --------------------------

    def _oper(self, request: str) -> str:
        if BGP_NS in request:
            return self._bgp()
        if INT_NS in request:
            return self._interfaces()
        if LLDP_NS in request:
            return self._lldp()
        if SHELLUTIL_NS in request:
            return self._system_time()
        return ""

    def _system_time(self) -> str:
        """Cisco-IOS-XR-shellutil-oper system-time/uptime: host-name is the running config's
        `hostname` (what NAPALM's get_facts reads); a router without one is called ios."""
        name = next(
            (x.split()[1] for x in self.running if re.fullmatch(r"hostname \S+", x.strip())),
            "ios",
        )
        return (
            f'<system-time xmlns="{SHELLUTIL_NS}"><uptime>'
            f"<host-name>{_escape(name)}</host-name><uptime>60</uptime>"
            "</uptime></system-time>"
        )

    def _bgp(self) -> str:
        asn, router_id, neighbours = _bgp_of(self.running)
        down = {_norm(p) for p in self.faults.bgp_down}
        vrfs: dict[str, list[str]] = {}
        for vrf, address, remote_as in neighbours:
            up = _norm(address) not in down
            afi = "ipv6" if ":" in address else "ipv4"
            vrfs.setdefault(vrf, []).append(
                "<neighbor>"
                f"<neighbor-address>{address}</neighbor-address>"
                f"<local-as>{asn}</local-as><remote-as>{remote_as}</remote-as>"
                f"<router-id>{'192.0.2.1' if up else '0.0.0.0'}</router-id>"
                f"<connection-state>{'bgp-st-estab' if up else 'bgp-st-active'}</connection-state>"
                "<connection-established-time>60</connection-established-time>"
                f"<connection-remote-address><afi>{afi}</afi></connection-remote-address>"
                "<is-administratively-shut-down>false</is-administratively-shut-down>"
                "</neighbor>"
            )
        info = (
            "<global-process-info><vrf>"
            f"<router-id>{router_id}</router-id></vrf></global-process-info>"
        )
        peers = "".join(vrfs.pop("", []))
        default = f"<default-vrf>{info}<neighbors>{peers}</neighbors></default-vrf>"
        others = "".join(
            f"<vrf><vrf-name>{name}</vrf-name>{info}<neighbors>{''.join(listed)}</neighbors></vrf>"
            for name, listed in vrfs.items()
        )
        return (
            f'<bgp xmlns="{BGP_NS}"><instances><instance><instance-name>default</instance-name>'
            f"<instance-active>{default}<vrfs>{others}</vrfs></instance-active>"
            "</instance></instances></bgp>"
        )

    def _interface_states(self) -> dict[str, tuple[bool, bool, str]]:
        """name -> (enabled, up, description), from the running config."""
        states = {}
        for block in _blocks(self.running):
            match = re.fullmatch(r"interface (\S+)", block[0])
            if not match:
                continue
            name = match.group(1)
            body = [line.strip() for line in block[1:]]
            enabled = "shutdown" not in body
            description = next((x[12:] for x in body if x.startswith("description ")), "")
            up = enabled and name not in self.faults.link_down
            states[name] = (enabled, up, description)
        return states

    def _interfaces(self) -> str:
        xr, plain = [], []
        for name, (enabled, up, description) in self._interface_states().items():
            kbps = self.speed_of(name, self.faults.wrong_speed) * 1000  # napalm: * 1e-3
            xr.append(
                f"<interface><interface-name>{name}</interface-name>"
                f"<line-state>{'im-state-up' if up else 'im-state-down'}</line-state>"
                f"<state>{'im-state-up' if enabled else 'im-state-admin-down'}</state>"
                "<mac-address><address>00:1c:73:00:00:02</address></mac-address>"
                f"<bandwidth>{kbps}</bandwidth><mtu>9228</mtu></interface>"
            )
            plain.append(
                f"<interface><interface-name>{name}</interface-name>"
                f"<description>{_escape(description)}</description></interface>"
            )
        return (
            f'<interfaces xmlns="{INT_NS}"><interfaces>{"".join(plain)}</interfaces>'
            f"<interface-xr>{''.join(xr)}</interface-xr></interfaces>"
        )

    def _lldp(self) -> str:
        """The far end of each up port with a cable, as IOS-XR hears it: nothing at all unless
        the running config turns LLDP on (a top-level `lldp`), none on a port that stops it."""
        up = {name for name, (_, is_up, _) in self._interface_states().items() if is_up}
        if "lldp" not in self.running:
            up = set()
        quiet = {
            block[0].split()[1]
            for block in _blocks(self.running)
            if block[0].startswith("interface ") and "  receive disable" in block
        }
        heard = []
        for port, (device, far) in {**self.cabling, **self.faults.miscabled}.items():
            if port in up - quiet:
                heard.append(
                    f"<lldp-neighbor><receiving-interface-name>{port}</receiving-interface-name>"
                    f"<port-id-detail>{far}</port-id-detail>"
                    f"<detail><system-name>{device}</system-name></detail></lldp-neighbor>"
                )
        return (
            f'<lldp xmlns="{LLDP_NS}"><nodes><node><neighbors><details><detail>'
            f"{''.join(heard)}</detail></details></neighbors></node></nodes></lldp>"
        )


def _bgp_of(lines: list[str]) -> tuple[str, str, list[tuple[str, str, str]]]:
    """(local AS, router id, [(vrf or '', neighbour, remote AS)]) of `router bgp`."""
    block = next((b for b in _blocks(lines) if b[0].startswith("router bgp ")), None)
    if block is None:
        return "0", "0.0.0.0", []
    asn = block[0].split()[2]
    router_id, vrf, neighbour = "0.0.0.0", "", ""
    found: list[tuple[str, str, str]] = []
    for line in block[1:]:
        depth = len(line) - len(line.lstrip(" "))
        text = line.strip()
        if depth == 1:
            vrf = text.split()[1] if text.startswith("vrf ") else ""
            if text.startswith("bgp router-id "):
                router_id = text.split()[2]
        if match := re.fullmatch(r"neighbor (\S+)", text):
            neighbour = match.group(1)
        elif (match := re.fullmatch(r"remote-as (\S+)", text)) and neighbour:
            found.append((vrf, neighbour, match.group(1)))
            neighbour = ""
    return asn, router_id, found


def _norm(address: str) -> str:
    try:
        return str(ipaddress.ip_address(address))
    except ValueError:
        return address


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

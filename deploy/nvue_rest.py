"""The NVUE push adapter: the REST API for the configuration, SSH for the one confirm step.

NAPALM has no maintained Cumulus Linux 5 driver. This adapter speaks the NVUE REST API with
httpx, as NVIDIA documents it (Cumulus Linux user guide, "NVUE API"):

- POST /nvue_v1/revision creates a revision (a copy of the applied config);
- DELETE /nvue_v1/?rev=R empties it and a root PATCH /nvue_v1/?rev=R sets the rendered
  startup.yaml's `set:` tree: replace semantics (the empty-then-patch idiom of public NVUE
  REST clients; NVIDIA documents the root patch, not the replace);
- the diff: GET /nvue_v1/?rev=applied&filled=false against GET /nvue_v1/?rev=R&filled=false,
  compared here;
- discard: DELETE /nvue_v1/revision/R; save after the confirm: PATCH
  /nvue_v1/revision/applied {"state": "save"}.

The confirm timer is documented for the CLI only (`nv config apply --confirm <time>`, NVUE
command reference "Config Commands"); no REST field for it was found. So the apply, its
confirm and its abort go over SSH: `nv config apply R --confirm Ns -y`, then `nv config
apply R --confirm-yes` to keep it or `--confirm-no` to revert (those two spellings come from
public NVUE automation, not from NVIDIA's reference). The switch reverts by itself when
the confirm does not come.

The post-check getters read `nv show`'s REST twins: /vrf/V/router/bgp/neighbor (`state`,
`remote-as`), /interface (`link.oper-status`), /interface/I/lldp (`neighbor.*.chassis.
system-name`, `port.name`), the field names NAPALM's community Cumulus driver reads.

TLS: NVUE ships a self-signed certificate; the certificate is not verified (as NAPALM's NX-API
default), and neither is the SSH host key.
"""

from __future__ import annotations

import difflib
import re
from typing import Any
from urllib.parse import quote

import httpx
import yaml


class NvueError(Exception):
    """The switch refused a request; the message is its answer."""


class CommitOutcomeUnknown(Exception):
    """The connection broke while the apply or its confirm was under way."""


class NvueRest:
    def __init__(
        self,
        hostname: str,
        username: str,
        password: str,
        timeout: int = 60,
        optional_args: dict[str, Any] | None = None,
    ) -> None:
        optional = optional_args or {}
        transport = optional.get("transport", "https")
        port = optional.get("port", 8765)
        self.hostname, self.username, self.password = hostname, username, password
        self.timeout = timeout
        self.ssh_port = int(optional.get("ssh_port", 22))
        # the inventory holds an address or a host name only (inventory._host); an IPv6
        # literal is bracketed in a URL (RFC 3986 section 3.2.2)
        host = f"[{hostname}]" if ":" in hostname else hostname
        self.base = f"{transport}://{host}:{port}/nvue_v1"
        self.client: httpx.Client | None = None
        self.revision: str | None = None
        self._confirming: bool | None = False

    # ---- connection ---------------------------------------------------------------------------

    def open(self) -> None:
        self.client = httpx.Client(
            auth=(self.username, self.password), timeout=self.timeout, verify=False
        )
        self._get("/system")

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None

    def _request(self, method: str, path: str, **kwargs: Any) -> Any:
        assert self.client is not None, "open() first"
        reply = self.client.request(method, self.base + path, **kwargs)
        if reply.status_code == 401:
            raise NvueError("401 Unauthorized: check the inventory's credentials")
        if reply.status_code >= 400:
            # whole: the engine masks secrets before it shortens a message (a cut secret would
            # escape the mask)
            raise NvueError(f"{reply.status_code} {reply.text}")
        return reply.json()

    def _get(self, path: str, **params: str) -> Any:
        return self._request("GET", path, params=params)

    def _nv(self, command: str) -> str:
        """One `nv` command over SSH; its output, or NvueError with it."""
        import paramiko

        transport = paramiko.Transport((self.hostname, self.ssh_port))
        try:
            transport.connect(username=self.username, password=self.password)
            channel = transport.open_session(timeout=self.timeout)
            channel.settimeout(self.timeout)
            channel.exec_command(command)
            output = b""
            while chunk := channel.recv(65536):
                output += chunk
            status = channel.recv_exit_status() if channel.exit_status_ready() else -1
        finally:
            transport.close()
        if status == -1:  # paramiko's "no exit status": the connection went down first
            raise CommitOutcomeUnknown(f"{command!r}: the connection closed without an answer")
        if status != 0:
            raise NvueError(f"{command!r} exited {status}: {output.decode(errors='replace')}")
        return output.decode(errors="replace")

    # ---- before any change ---------------------------------------------------------------------

    def reported_hostname(self) -> str:
        """The switch's name: GET /nvue_v1/system, the REST twin of `nv show system`, which
        shows "the hostname, version information, the switch uptime ..." (NVUE Command
        Reference, Show Commands, "System"; the GET method "is equivalent to the nv show
        commands", Cumulus Linux user guide, "NVUE API")."""
        system = self._get("/system") or {}
        return str(system.get("hostname") or "")

    def confirm_status(self) -> str | None:
        """What awaits a confirm on the switch, as `nv config apply --confirm-status` says it
        (NVUE command reference, "Config Commands": it "shows the amount of time left before
        the automatic rollback"); None when nothing does. NVIDIA documents no REST field for
        it and not its wording: an answer without a single digit (no time left, no revision
        to name) counts as nothing pending; anything else is quoted whole."""
        output = " ".join(self._nv("nv config apply --confirm-status").split())
        return output if re.search(r"\d", output) else None

    # ---- the configuration path ----------------------------------------------------------------

    def load_replace_candidate(self, filename: str | None = None, config: str = "") -> None:
        document = yaml.safe_load(config) or []
        tree: dict[str, Any] = {}
        for entry in document:
            tree.update(entry.get("set") or {})
        created = self._request("POST", "/revision")
        self.revision = next(iter(created))
        rev = {"rev": self.revision}
        self._request("DELETE", "/", params=rev)  # an empty revision: replace, not merge
        self._request("PATCH", "/", params=rev, json=tree)

    def compare_config(self) -> str:
        if self.revision is None:
            return ""
        applied = self._get("/", rev="applied", filled="false")
        candidate = self._get("/", rev=self.revision, filled="false")
        lines = difflib.unified_diff(
            _lines(applied), _lines(candidate), lineterm="", n=0, fromfile="applied"
        )
        return "\n".join(x for x in lines if not x.startswith(("---", "+++", "@@")))

    def commit_config(self, message: str = "", revert_in: int | None = None) -> None:
        if revert_in is None or self.revision is None:
            raise NotImplementedError("meetme applies NVUE revisions only with a confirm timer")
        self._confirming = None
        try:
            self._nv(f"nv config apply {self.revision} --confirm {revert_in}s -y")
        except NvueError:
            self._confirming = False  # refused: nothing applied
            raise
        self._confirming = True

    def has_pending_commit(self) -> bool:
        if self._confirming is None:
            raise CommitOutcomeUnknown("the connection broke during the apply")
        return self._confirming

    def confirm_commit(self) -> None:
        self._confirming = None
        self._nv(f"nv config apply {self.revision} --confirm-yes")
        self._confirming = False
        self._request(
            "PATCH", "/revision/applied", json={"state": "save", "auto-prompt": {"ays": "ays_yes"}}
        )

    def rollback(self) -> None:
        if not self._confirming:
            raise CommitOutcomeUnknown("no applied revision of this push awaits its confirm")
        self._nv(f"nv config apply {self.revision} --confirm-no")
        self._confirming = False

    def discard_config(self) -> None:
        if self.revision is not None and self._confirming is False:
            self._request("DELETE", f"/revision/{quote(self.revision, safe='')}")
        self.revision = None

    # ---- getters for the post-checks -----------------------------------------------------------

    def get_bgp_neighbors(self) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for vrf in self._get("/vrf"):
            peers = self._get(f"/vrf/{quote(vrf, safe='')}/router/bgp/neighbor")
            result["global" if vrf == "default" else vrf] = {
                "peers": {
                    address: {
                        "remote_as": int(data.get("remote-as") or -1),
                        "is_up": data.get("state") == "established",
                    }
                    for address, data in peers.items()
                }
            }
        return result

    def get_interfaces(self) -> dict[str, Any]:
        """NAPALM's shape: `is_up`, `speed` in Mbit/s, from each interface's `link`
        (`nv show interface <i> link`: `oper-status`, `speed` as 400G / 100M)."""
        result = {}
        for name, data in self._get("/interface").items():
            link = data.get("link") or {}
            result[name] = {
                "is_up": link.get("oper-status") == "up",
                "speed": _mbps(str(link.get("speed") or "")),
            }
        return result

    def get_remote_vteps(self, vnis: tuple[int, ...]) -> set[str]:
        """The remote VTEPs of the model's L2VNIs: `nv show evpn vni <vni>` lists them as
        `[remote-vtep]` (Cumulus Linux user guide, "Troubleshooting EVPN"), its REST twin
        GET /evpn/vni/<vni> as the `remote-vtep` collection. A VNI the switch does not know
        (404) has none."""
        found: set[str] = set()
        for vni in vnis:
            try:
                data = self._get(f"/evpn/vni/{vni}")
            except NvueError as exc:
                if str(exc).startswith("404 "):
                    continue
                raise
            found |= set((data or {}).get("remote-vtep") or {})
        return found

    def get_lldp_neighbors(self) -> dict[str, Any]:
        heard: dict[str, Any] = {}
        for name in self._get("/interface"):
            neighbours = (self._get(f"/interface/{quote(name, safe='')}/lldp") or {}).get(
                "neighbor"
            ) or {}
            heard[name] = [
                {
                    "hostname": (n.get("chassis") or {}).get("system-name"),
                    "port": (n.get("port") or {}).get("name"),
                }
                for n in neighbours.values()
            ]
        return heard


def _mbps(speed: str) -> float:
    """NVUE's `400G` / `100M` in Mbit/s; 0 for anything else (a port without carrier)."""
    units = {"G": 1000.0, "M": 1.0, "T": 1_000_000.0}
    if speed[-1:].upper() in units and speed[:-1].isdigit():
        return float(speed[:-1]) * units[speed[-1].upper()]
    return 0.0


def _lines(tree: Any) -> list[str]:
    # one line per value, written as it is: a long value folded over two lines, or one with
    # \x escapes, would be a secret the masks (deploy/secret_store.py) do not know
    return str(
        yaml.safe_dump(
            tree, sort_keys=True, default_flow_style=False, allow_unicode=True, width=2**31
        )
    ).splitlines()

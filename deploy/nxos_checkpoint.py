"""The NX-OS push adapter: NX-API with a named checkpoint as the way back.

NAPALM 5.2's `nxos` driver copies the candidate to bootflash: over SCP (through netmiko, on
port 22 whatever the inventory says), replaces with `rollback running-config file`, saves at
once, and its `rollback()` restores `rollback_config.txt`, a file every NAPALM user of the
switch overwrites. Nothing on the switch reverts by itself. This adapter keeps NAPALM's
NX-API connection, its diff (`show diff rollback-patch file sot_file file <candidate>`) and
its getters (get_bgp_neighbors, get_interfaces, get_lldp_neighbors), and changes the rest:

- the candidate goes to `bootflash:meetme-<run>.cfg` over SCP (paramiko and scp, both
  NAPALM's dependencies) on the inventory's `ssh_port`, and is deleted when the push ends:
  it holds the secrets in clear while it exists. A push killed before its end leaves it
  there: every later push lists bootflash: at its inspect and deletes every
  `meetme-<run>.cfg` of another run (leftover_candidates, engine._clean_leftovers);
- before the replace, `checkpoint meetme-<run>`: a named checkpoint of the running config,
  so that the way back is exactly the config before this push, whoever else uses the switch
  (Cisco Nexus 9000 NX-OS System Management Configuration Guide, "Configuring the Rollback
  Feature": `checkpoint NAME`, `rollback running-config checkpoint NAME`);
- the replace (`rollback running-config file ...`, atomic: a refused line restores the
  running config) is not saved until the post-checks pass; the confirm is `copy
  running-config startup-config`, then `no checkpoint meetme-<run>`;
- a failed post-check, or a commit or confirm cut off, restores the checkpoint (and saves,
  so that startup matches): meetme's own watchdog, retried while the switch is out of reach
  (engine.Engine._restore_checkpoint). If meetme itself dies between the replace and the
  confirm, nothing reverts: the switch runs the new config unsaved and unchecked, with the
  checkpoint meetme-<run> on it; the next push reads that from the journal and stops that
  device, or with --clean-own-sessions restores the checkpoint first.

Where the switch has it — NX-OS 9.3(1) and later, `show version`'s `nxos_ver_str` — and the
confirm timer fits its range, the replace goes with the switch's own timer instead:
`configure replace bootflash:<candidate> commit-timeout <seconds>` replaces the running
config (atomic: a failure restores it) and the switch restores the config before it unless
`configure replace commit` arrives within those seconds (Cisco Nexus 9000 Series NX-OS
System Management Configuration Guide, 9.3(x) and 10.x, "Performing Configuration Replace":
"If the commit timer expires, the rollback operation is automatically initiated"; the
timer takes 30 to 3600 s, Cisco Nexus 7000 Fundamentals guide 8.x, "Configure Replace").
No checkpoint is taken then: nothing meetme does is needed for the way back, a failed check
is left to that timer, and a meetme that dies cannot leave the change behind.
"""

from __future__ import annotations

import io
import re
from typing import Any

from napalm.base.exceptions import ReplaceConfigException
from napalm.nxos.nxos import NXOSDriver

# the candidate files meetme writes: meetme-<run id>.cfg, the run id 12 hex digits
# (deploy_cli: uuid4().hex[:12]); nothing else on bootflash: is meetme's to delete
_OWN_FILE = re.compile(r"meetme-[0-9a-f]{12}\.cfg")


class CommitOutcomeUnknown(Exception):
    """The connection broke while the replace or the save was under way."""


class NxosCheckpoint(NXOSDriver):  # type: ignore[misc]
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        optional = dict(kwargs.get("optional_args") or {})
        self.ssh_port = int(optional.pop("ssh_port", 22))
        kwargs["optional_args"] = optional
        super().__init__(*args, **kwargs)
        self.checkpoint_name = "meetme-run"  # the engine names it meetme-<run id>
        self._committed: bool | None = False  # None: the replace's fate is unknown
        # True: this push replaces with the switch's commit-timeout (commit_timeout_fits)
        self.reverts_itself = False
        # the copy to bootflash: began: the file may be there even when the copy failed
        self._copy_began = False

    def reported_hostname(self) -> str:
        """The switch's own name: `show hostname` over NX-API answers {"hostname": NAME}
        (Cisco Nexus 9000 Series NX-API CLI Reference, Release 9.2(x), "show hostname")."""
        body = self._send_command("show hostname") or {}
        return str(body.get("hostname") or "")

    def release(self) -> tuple[int, int] | None:
        """(major, minor) of the running NX-OS, from `show version`; None if unreadable."""
        body = self._send_command("show version") or {}
        text = str(
            body.get("nxos_ver_str") or body.get("sys_ver_str") or body.get("kickstart_ver_str")
        )
        found = re.match(r"\s*(\d+)\.(\d+)", text)
        return (int(found.group(1)), int(found.group(2))) if found else None

    def commit_timeout_fits(self, seconds: int) -> bool:
        """Whether this push can replace with the switch's commit-timeout: 9.3(1) or later, and
        a timer of 30 to 3600 s. Decides how commit, confirm and the way back go."""
        release = self.release()
        self.reverts_itself = release is not None and release >= (9, 3) and 30 <= seconds <= 3600
        return self.reverts_itself

    @property
    def candidate_file(self) -> str:
        return f"{self.checkpoint_name}.cfg"

    def load_replace_candidate(self, filename: str | None = None, config: str = "") -> None:
        import paramiko
        from scp import SCPClient

        self.candidate_cfg = self.candidate_file  # NAPALM's diff reads this name
        self._copy_began = True
        try:
            transport = paramiko.Transport((self.hostname, self.ssh_port))
            try:
                transport.connect(username=self.username, password=self.password)
                with SCPClient(transport, socket_timeout=self.timeout) as scp:
                    scp.putfo(io.BytesIO(config.encode()), f"bootflash:{self.candidate_file}")
            finally:
                transport.close()
        except Exception as exc:
            raise ReplaceConfigException(
                f"copying the candidate to bootflash: over SCP failed: {type(exc).__name__}: {exc}"
            ) from exc
        self.replace, self.loaded = True, True

    def commit_config(self, message: str = "", revert_in: int | None = None) -> None:
        if self.reverts_itself:
            self._replace_with_timer(int(revert_in or 0))
            return
        self._send_command_list(
            ["terminal dont-ask", f"checkpoint {self.checkpoint_name}", "no terminal dont-ask"]
        )
        self._committed = None
        try:
            self._send_command(
                f"rollback running-config file bootflash:{self.candidate_file}", raw_text=True
            )
        except Exception as exc:
            if type(exc).__name__ == "NXAPICommandError":  # refused: atomic, nothing changed
                self._committed = False
            raise
        self._committed, self.loaded = True, False

    def _replace_with_timer(self, seconds: int) -> None:
        self._committed = None
        command = f"configure replace bootflash:{self.candidate_file} commit-timeout {seconds}"
        try:
            output = str(self._send_command(command, raw_text=True))
        except Exception as exc:
            if type(exc).__name__ == "NXAPICommandError":  # refused: atomic, nothing changed
                self._committed = False
            raise
        if re.search(r"\bfail", output, re.IGNORECASE):  # the switch restored its config
            self._committed = False
            raise ReplaceConfigException(f"configure replace failed: {output.strip()}")
        self._committed, self.loaded = True, False

    def has_pending_commit(self) -> bool:
        if self._committed is None:
            raise CommitOutcomeUnknown("the connection broke during the replace")
        return self._committed

    def confirm_commit(self) -> None:
        if self.reverts_itself:  # stop the switch's timer first, then save
            self._committed = None
            self._send_command("configure replace commit", raw_text=True)
            self._committed = False
        self._copy_run_start()
        self.forget()

    def rollback(self) -> None:
        """Back to the checkpoint taken before our replace, saved; the checkpoint and the
        candidate file are removed."""
        self._send_command(
            f"rollback running-config checkpoint {self.checkpoint_name}", raw_text=True
        )
        self._copy_run_start()
        self._committed = False
        self.forget()

    def discard_config(self) -> None:
        """Delete the candidate file: the one this push loaded, or the one a failed copy may
        have left (the switch had stored it when the copy's last acknowledgement was lost),
        looked for on bootflash: rather than left there, secrets in clear, until the next
        push."""
        if self.loaded or (self._copy_began and self.candidate_file in self._own_files()):
            self._delete(self.candidate_file)
        self.loaded = False

    def forget(self) -> None:
        """Drop the candidate file and our checkpoint (none with the commit-timeout), leaving
        the running config alone. The file first: a commit that failed before its checkpoint
        was taken has none to drop, and that refusal must not keep the secrets on the switch."""
        # the file of an interrupted run restored with --clean-own-sessions may be gone
        # already (a later run's inspect deletes leftovers): deleting a missing file fails
        if self.candidate_file in self._own_files():
            self._delete(self.candidate_file)
        if not self.reverts_itself:
            self._send_command_list([f"no checkpoint {self.checkpoint_name}"])

    def leftover_candidates(self) -> list[str]:
        """meetme's candidate files on bootflash: of other runs, `meetme-<run id>.cfg` (run
        ids are 12 hex digits), left by a push that never reached its end (killed, or cut off
        before discard_config/forget). `dir bootflash:` prints one entry a line: size, date,
        time, name (the layout NAPALM's NXOSDriverBase._check_file_exists quotes:
        `71803    Sep 06 14:13:33 2023  rollback_config.txt`); other files are not ours."""
        return sorted(self._own_files() - {self.candidate_file})

    def _own_files(self) -> set[str]:
        """Every meetme-<run id>.cfg on bootflash:, this push's included."""
        reply = self._send_command("dir bootflash:", raw_text=True)
        text = str(reply.get("msg", "") if isinstance(reply, dict) else reply or "")
        found = set()
        for line in text.splitlines():
            fields = line.split()
            if len(fields) >= 2 and fields[0].isdigit() and _OWN_FILE.fullmatch(fields[-1]):
                found.add(fields[-1])
        return found

    def delete_file(self, name: str) -> None:
        """Delete one file of bootflash: (a leftover of leftover_candidates)."""
        if not _OWN_FILE.fullmatch(name):
            raise ValueError(f"{name} is not a candidate file meetme wrote")
        self._delete(name)

    def get_remote_vteps(self, vnis: tuple[int, ...] = ()) -> set[str]:
        """`show nve peers` in JSON: TABLE_nve_peers/ROW_nve_peers (one row a dict, several a
        list), each `peer-ip` with its `peer-state` (Cisco Nexus 9000 VXLAN Configuration
        Guide, "Verifying the VXLAN BGP EVPN Configuration"); only peers that are Up count."""
        body = self._send_command("show nve peers") or {}
        rows = (body.get("TABLE_nve_peers") or {}).get("ROW_nve_peers") or []
        if isinstance(rows, dict):
            rows = [rows]
        return {str(r["peer-ip"]) for r in rows if str(r.get("peer-state", "")).lower() == "up"}

    def _delete(self, name: str) -> None:
        self._send_command_list(["terminal dont-ask", f"delete bootflash:{name} no-prompt"])
